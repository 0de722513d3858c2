// copy pairs element i with element i: sizes 8 and 16 differ.
use layout_core::{layout, tensor::algorithm::copy, tensor::fragment::Fragment};

fn main() {
    let a = Fragment::<f32, _>::new(layout!((4,2)));
    let mut b = Fragment::<f32, _>::new(layout!((4,4)));
    copy(&a.view(), &mut b.view_mut()).unwrap();
}
