use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, KMajor};
use layout_core::layout;

fn main() {
    // The rows of a 128-byte-swizzled K-major tile (64 halves apart) under
    // the 64-byte swizzle, whose rows are 4 chunks (32 halves) apart.
    let tile = ComposedLayout {
        swizzle: Swizzle::<2, 3, 3>,
        layout: layout!((128,16):(64,1)),
    };
    let desc = make_gmma_desc(KMajor, &tile, 0);
    println!("{desc:?}");
}
