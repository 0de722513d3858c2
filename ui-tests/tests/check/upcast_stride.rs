// upcast::<2> of a layout with stride 3: 3 neither divides 2 nor is a multiple of it.
use layout_core::{algebra::upcast, layout};

fn main() {
    let l = upcast::<2, _, _>(layout!((4,2):(3,12)));
    println!("{l}");
}
