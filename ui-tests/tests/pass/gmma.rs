use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, KMajor, LayoutType, MnMajor};
use layout_core::layout;

fn main() {
    // Canonical static tiles pass the compile-time check; their
    // descriptors are CuTe's make_gmma_desc<Major::K / Major::MN> (CUTLASS
    // 7107b05: LBO, SBO, layout type) of the first k-block of
    // tile_to_shape(Layout_K_SW128_Atom<half_t>, (128,64)) and of
    // tile_to_shape(Layout_MN_SW128_Atom<half_t>, (128,32)).
    let k = ComposedLayout {
        swizzle: Swizzle::<3, 3, 3>,
        layout: layout!((128,16):(64,1)),
    };
    let d = make_gmma_desc(KMajor, &k, 0x800).unwrap();
    assert_eq!(
        (d.lbo(), d.sbo(), d.layout_type()),
        (1, 64, LayoutType::B128)
    );
    let mn = ComposedLayout {
        swizzle: Swizzle::<3, 3, 3>,
        layout: layout!(((64,2),(8,2)):((1,512),(64,1024))),
    };
    let d = make_gmma_desc(MnMajor, &mn, 0).unwrap();
    assert_eq!(
        (d.lbo(), d.sbo(), d.layout_type()),
        (64, 128, LayoutType::B128)
    );
}
