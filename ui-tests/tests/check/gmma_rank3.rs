use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, KMajor};
use layout_core::layout;

fn main() {
    // A descriptor names one k-block, a rank-2 (MN, 16) tile: a whole
    // (MN, 16, k-blocks) tile is sliced first.
    let tile = ComposedLayout {
        swizzle: Swizzle::<3, 3, 3>,
        layout: layout!((128,16,4):(64,1,16)),
    };
    let desc = make_gmma_desc(KMajor, &tile, 0);
    println!("{desc:?}");
}
