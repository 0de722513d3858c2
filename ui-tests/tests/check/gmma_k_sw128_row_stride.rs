use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, KMajor};
use layout_core::layout;

fn main() {
    // A K-major 128 x 16 tile of halves under the 128-byte swizzle: each row
    // must be 8 chunks (64 halves) on, as in CuTe's Layout_K_SW128_Atom;
    // rows 16 halves apart are refused (CuTe: "Expected stride failure").
    let tile = ComposedLayout {
        swizzle: Swizzle::<3, 3, 3>,
        layout: layout!((128,16):(16,1)),
    };
    let desc = make_gmma_desc(KMajor, &tile, 0);
    println!("{desc:?}");
}
