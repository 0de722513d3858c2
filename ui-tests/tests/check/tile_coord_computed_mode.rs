// The tensor's layout comes out of the algebra (an 8 x 8 transposed view,
// its leaves computed): tile (2,0) of a 2 x 2 grid of 4 x 4 tiles is still
// refused by `cargo check`.
use layout_core::{algebra::composition, crd, layout, tensor::partition::local_tile, Tensor, C};

fn main() {
    let data = [0f32; 64];
    let view = composition(layout!((8,8):(8,1)), layout!((8,8):(1,8)));
    let t = Tensor::new(&data[..], view).unwrap();
    let _ = local_tile(t, (C::<4>, C::<4>), crd!(2, 0));
}
