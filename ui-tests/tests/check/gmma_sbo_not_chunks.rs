// An MN-major 128 x 16 tile under the 32-byte swizzle whose second run of
// columns starts 20 halves on: not a whole number of 16-byte chunks, so no
// LBO names it. `cargo check` refuses it.
use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, MnMajor};
use layout_core::layout;

fn main() {
    let tile = ComposedLayout {
        swizzle: Swizzle::<1, 3, 3>,
        layout: layout!(((16,8),(8,2)):((1,20),(16,512))),
    };
    let desc = make_gmma_desc(MnMajor, &tile, 0);
    println!("{desc:?}");
}
