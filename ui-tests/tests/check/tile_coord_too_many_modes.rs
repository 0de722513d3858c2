// A tile coordinate of three modes for a grid of two.
use layout_core::{layout, tensor::partition::local_tile, Tensor, C};

fn main() {
    let data = [0f32; 64];
    let t = Tensor::new(&data[..], layout!((8, 8):(8, 1))).unwrap();
    // The grid of 4 x 4 tiles is 2 x 2: a coordinate of three modes does not fit.
    let _ = local_tile(t, (C::<4>, C::<4>), (0usize, 1usize, 0usize));
}
