use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, MnMajor};
use layout_core::layout;

fn main() {
    // An MN-major 64 x 16 tile of halves with its columns padded to 72
    // halves: under the 128-byte swizzle each column must be 8 chunks
    // (64 halves) on, as in CuTe's Layout_MN_SW128_Atom.
    let tile = ComposedLayout {
        swizzle: Swizzle::<3, 3, 3>,
        layout: layout!((64,16):(1,72)),
    };
    let desc = make_gmma_desc(MnMajor, &tile, 0);
    println!("{desc:?}");
}
