// Indexing a register fragment past its static shape.
use layout_core::{crd, layout, tensor::fragment::Fragment};

fn main() {
    let f = Fragment::<f32, _>::new(layout!((2,4)));
    let _ = f[crd!(1, 4)];
}
