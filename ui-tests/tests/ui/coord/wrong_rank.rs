use layout_core::{crd, layout};

fn main() {
    let h = layout!((2,(2,2)):(4,(2,1)));
    let _ = h.crd2idx(crd!(1, 2, 3));
}
