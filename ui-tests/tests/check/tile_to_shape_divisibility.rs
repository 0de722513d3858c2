// A block of (3,4) does not tile (8,8): 3 does not divide 8.
use layout_core::{algebra::tile_to_shape, layout, C};

fn main() {
    let r = tile_to_shape(layout!((3,4):(1,3)), (C::<8>, C::<8>));
    println!("{r}");
}
