// A static coordinate outside its static mode: `cargo check` refuses it.
use layout_core::{crd, layout};

fn main() {
    let l = layout!((3,4):(4,1));
    let _ = l.crd2idx(crd!(3, 0));
}
