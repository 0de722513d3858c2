// A descriptor names one k-block (16 halves): a K-major tile 32 halves
// deep is refused by `cargo check`, with its extents.
use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, KMajor};
use layout_core::layout;

fn main() {
    let tile = ComposedLayout {
        swizzle: Swizzle::<3, 3, 3>,
        layout: layout!((64,32):(64,1)),
    };
    let desc = make_gmma_desc(KMajor, &tile, 0);
    println!("{desc:?}");
}
