use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, KMajor};
use layout_core::layout;

fn main() {
    // CuTe's byte-address swizzle Sw<3,4,3> over 16-bit elements: in element
    // units the 128-byte swizzle is Sw<3,3,3>.
    let tile = ComposedLayout {
        swizzle: Swizzle::<3, 4, 3>,
        layout: layout!((64,16):(64,1)),
    };
    let desc = make_gmma_desc(KMajor, &tile, 0);
    println!("{desc:?}");
}
