// An 8 x 8 tensor in 4 x 4 tiles is a 2 x 2 grid: tile (2,0) is outside it.
use layout_core::{crd, layout, tensor::partition::local_tile, Tensor, C};

fn main() {
    let data = [0f32; 64];
    let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
    let _ = local_tile(t, (C::<4>, C::<4>), crd!(2, 0));
}
