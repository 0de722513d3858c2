// A layout that is not injective has no left inverse: `cargo check`
// refuses it.
use layout_core::{algebra::left_inverse, layout};

fn main() {
    // Coordinates (0,j) and (1,j) meet at offset j.
    let l = left_inverse(layout!((2,4):(0,1)));
    println!("{l}");
}
