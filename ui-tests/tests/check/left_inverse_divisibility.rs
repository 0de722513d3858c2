// Strides that do not stack when sorted: `cargo check` refuses left_inverse.
use layout_core::{algebra::left_inverse, layout};

fn main() {
    // Strides 2 and 3 do not divide each other: no layout inverts this one
    // (CuTe's static_assert "Left inverse divisibility").
    let l = left_inverse(layout!((3,2):(2,3)));
    println!("{l}");
}
