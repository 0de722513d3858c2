// A coordinate of three modes for a shape of two.
use layout_core::{crd, layout};

fn main() {
    let l = layout!((3,4):(4,1));
    let _ = l.crd2idx(crd!(1, 2, 3));
}
