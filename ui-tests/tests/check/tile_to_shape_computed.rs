// tile_to_shape of a computed block (3,4) into (8,8): 3 does not divide 8.
use layout_core::{algebra::{composition, tile_to_shape}, layout, C};

fn main() {
    let block = composition(layout!((3,4):(1,5)), layout!((3,4):(1,3)));
    let r = tile_to_shape(block, (C::<8>, C::<8>));
    println!("{r}");
}
