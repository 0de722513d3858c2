// copy_if: a source of size 6 into a destination of size 4.
use layout_core::{layout, tensor::algorithm::copy_if, tensor::fragment::Fragment};

fn main() {
    let keep = Fragment::<bool, _>::new(layout!(6));
    let src = Fragment::<f32, _>::new(layout!((2,3)));
    let mut dst = Fragment::<f32, _>::new(layout!((2,2)));
    copy_if(&keep, &src.view(), &mut dst.view_mut()).unwrap();
}
