// axpby: x of size 4, y of size 3.
use layout_core::{layout, tensor::algorithm::axpby, tensor::fragment::Fragment};

fn main() {
    let x = Fragment::<f32, _>::new(layout!(4));
    let mut y = Fragment::<f32, _>::new(layout!(3));
    axpby(2.0, &x.view(), 1.0, &mut y.view_mut()).unwrap();
}
