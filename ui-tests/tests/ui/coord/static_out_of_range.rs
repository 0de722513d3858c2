use layout_core::{crd, layout};

fn main() {
    let row = layout!((3,4):(4,1));
    let _ = row.crd2idx(crd!(3, 0));
}
