// left_inverse of a computed layout (3,2):(2,3): sorted by stride, the
// mode 3:2 is followed by the stride 3, not a multiple of 2.
use layout_core::{algebra::{composition, left_inverse}, layout};

fn main() {
    let l = composition(layout!((3,2):(2,3)), layout!((3,2):(1,3)));
    let i = left_inverse(l);
    println!("{i}");
}
