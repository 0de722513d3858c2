use layout_core::{crd, layout, slice};

fn main() {
    let _ = slice(crd!(1, _, _), layout!((3,4):(6,1)));
}
