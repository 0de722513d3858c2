use layout_core::{algebra::tile_to_shape, layout, C};

fn main() {
    // A 3x4 block cannot tile an 8x8 shape: 3 does not divide 8.
    let r = tile_to_shape(layout!((3,4):(1,3)), (C::<8>, C::<8>));
    println!("{r}");
}
