// gemm: A is 4 x 2 (M x K) but B is 4 x 4 (N x K): the K differ.
use layout_core::{layout, tensor::algorithm::gemm, tensor::fragment::Fragment};

fn main() {
    let a = Fragment::<f32, _>::new(layout!((4,2)));
    let b = Fragment::<f32, _>::new(layout!((4,4)));
    let mut c = Fragment::<f32, _>::new(layout!((4,4)));
    gemm(&a.view(), &b.view(), &mut c.view_mut()).unwrap();
}
