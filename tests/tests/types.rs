//! Type-level facts: static layouts are zero-sized, the macros produce the
//! types CuTe's notation says, and they expand through `$crate`.

use layout_core::algebra::complement::CotargetOf;
use layout_core::algebra::inverse::{LeftInverseDistinct, LeftInverseStep, LeftInverseZero};
use layout_core::atom::accumulator::{AccAregsA, AccAregsNOf, AccAregsV};
use layout_core::tensor::{algorithm::SameSize, tile_coord::TileCoordIn};
use layout_core::typenum::{U10, U12, U3, U4};
use layout_core::{
    layout, layout_type, make_layout_left, Congruent, Crd2Idx, IntTuple, Layout, Respell, C, S,
};
use static_assertions::{assert_eq_size, assert_impl_all, assert_not_impl_any, assert_type_eq_all};

type H = layout_type!((2,(2,2)):(4,(2,1)));
assert_type_eq_all!(H, Layout<(C<2>, (C<2>, C<2>)), (C<4>, (C<2>, C<1>))>);
assert_type_eq_all!(
    layout_type!((3, n):(n, 1)),
    Layout<(C<3>, usize), (usize, C<1>)>
);
assert_eq_size!(H, ());
assert_eq_size!(layout_type!((3, n):(n, 1)), [usize; 2]);
assert_impl_all!((C<2>, (C<2>, C<2>)): Congruent<(C<4>, (C<2>, C<1>))>, IntTuple);
assert_not_impl_any!((C<2>, (C<2>, C<2>)): Congruent<(C<4>, C<2>, C<1>)>);
assert_impl_all!((usize, (usize, usize)): Crd2Idx<(C<2>, (C<2>, C<2>)), (C<4>, (C<2>, C<1>))>);
assert_impl_all!(usize: Crd2Idx<(C<2>, (C<2>, C<2>)), (C<4>, (C<2>, C<1>))>);
assert_not_impl_any!((usize, usize, usize): Crd2Idx<(C<2>, (C<2>, C<2>)), (C<4>, (C<2>, C<1>))>);

// Static coordinates against static modes, decided by the type checker:
// each entry below its mode's size (by the definition of a coordinate),
// a 1-D index below the shape's size; run-time entries pass here.
assert_impl_all!((C<2>, C<3>): Crd2Idx<(C<3>, C<4>), (C<4>, C<1>)>);
assert_not_impl_any!((C<3>, C<0>): Crd2Idx<(C<3>, C<4>), (C<4>, C<1>)>);
assert_not_impl_any!((C<0>, C<4>): Crd2Idx<(C<3>, C<4>), (C<4>, C<1>)>);
assert_impl_all!(C<11>: Crd2Idx<(C<3>, C<4>), (C<4>, C<1>)>);
assert_not_impl_any!(C<12>: Crd2Idx<(C<3>, C<4>), (C<4>, C<1>)>);
assert_impl_all!((usize, C<3>): Crd2Idx<(C<3>, C<4>), (C<4>, C<1>)>);
assert_impl_all!((C<5>, C<3>): Crd2Idx<(usize, C<4>), (C<4>, C<1>)>);
// Nested: entry (1,1) of the mode (2,2) is inside, (1,2) is not.
assert_impl_all!((C<1>, (C<1>, C<1>)): Crd2Idx<(C<2>, (C<2>, C<2>)), (C<4>, (C<2>, C<1>))>);
assert_not_impl_any!((C<1>, (C<1>, C<2>)): Crd2Idx<(C<2>, (C<2>, C<2>)), (C<4>, (C<2>, C<1>))>);
// An integer into a nested mode is a 1-D index below its size (4).
assert_impl_all!((C<1>, C<3>): Crd2Idx<(C<2>, (C<2>, C<2>)), (C<4>, (C<2>, C<1>))>);
assert_not_impl_any!((C<1>, C<4>): Crd2Idx<(C<2>, (C<2>, C<2>)), (C<4>, (C<2>, C<1>))>);
// A coordinate past `C<N>`'s table is an `S<U>` (1100 = 0b10001001100):
// below a mode of 1100 only up to 1099, and a 1-D index below a shape's
// size, a computed `S<U>` size included ((4, S<2>) has size 8).
type U1100 = layout_core::typenum::Sum<layout_core::typenum::U1024, layout_core::typenum::U76>;
type U1099 = layout_core::typenum::Sum<layout_core::typenum::U1024, layout_core::typenum::U75>;
assert_impl_all!((S<U1099>, C<3>): Crd2Idx<(S<U1100>, C<4>), (C<1>, S<U1100>)>);
assert_not_impl_any!((S<U1100>, C<3>): Crd2Idx<(S<U1100>, C<4>), (C<1>, S<U1100>)>);
assert_not_impl_any!((S<U1100>, C<0>): Crd2Idx<(C<1024>, C<4>), (C<1>, C<1024>)>);
assert_impl_all!(C<7>: Crd2Idx<(C<4>, S<layout_core::typenum::U2>), (S<layout_core::typenum::U2>, C<1>)>);
assert_not_impl_any!(C<8>: Crd2Idx<(C<4>, S<layout_core::typenum::U2>), (S<layout_core::typenum::U2>, C<1>)>);
assert_impl_all!(S<U1099>: Crd2Idx<(C<1000>, C<2>), (C<1>, C<1000>)>);
assert_not_impl_any!(S<layout_core::typenum::Prod<layout_core::typenum::U1000, layout_core::typenum::U2>>: Crd2Idx<(C<1000>, C<2>), (C<1>, C<1000>)>);

// Sizes of tensors paired element by element (copy, copy_if, axpby): equal
// products, or a run-time size (compared at run time).
assert_impl_all!((C<4>, C<2>): SameSize<(C<2>, C<4>)>, SameSize<C<8>>, SameSize<(C<4>, usize)>);
assert_not_impl_any!((C<4>, C<2>): SameSize<(C<4>, C<4>)>);
// A grid of tiles: 10 x 8 in 4 x 4 tiles is 3 x 2 (the last row of tiles
// partial); tile (2,1) starts inside (8 < 10, 4 < 8), tile (3,0) and
// (0,2) do not.
assert_impl_all!((C<2>, C<1>): TileCoordIn<(C<10>, C<8>), (C<4>, C<4>)>);
assert_not_impl_any!((C<3>, C<0>): TileCoordIn<(C<10>, C<8>), (C<4>, C<4>)>);
assert_not_impl_any!((C<0>, C<2>): TileCoordIn<(C<10>, C<8>), (C<4>, C<4>)>);
assert_impl_all!((usize, C<1>): TileCoordIn<(C<10>, C<8>), (C<4>, C<4>)>);
// The same grid with computed modes and tiles (S<U>, as the algebra makes
// them): 12 x 10 in 3 x 4 tiles is 4 x 3; (3,2) starts inside (9 < 12,
// 8 < 10), (4,0) and (0,3) do not.
assert_impl_all!((C<3>, C<2>): TileCoordIn<(S<U12>, S<U10>), (S<U3>, C<4>)>);
assert_not_impl_any!((C<4>, C<0>): TileCoordIn<(S<U12>, S<U10>), (S<U3>, C<4>)>);
assert_not_impl_any!((C<0>, C<3>): TileCoordIn<(S<U12>, C<10>), (C<3>, S<U4>)>);
// left_inverse on sorted modes `_M:_A` then stride `_B`: B a multiple of A
// with B / A >= M. _4:_1 then 4 and _2:_1 then 3 (a gap is fine) stack;
// _3:_2 then 3 (not a multiple), _4:_1 then 3 (inside the first mode) and
// a stride 0 do not.
assert_impl_all!((): LeftInverseStep<4, 1, 4>, LeftInverseStep<2, 1, 3>, LeftInverseStep<2, 4, 8>);
assert_not_impl_any!((): LeftInverseStep<3, 2, 3>);
assert_not_impl_any!((): LeftInverseStep<4, 1, 3>);
assert_not_impl_any!((): LeftInverseStep<2, 0, 1>);
// convert_layout_acc_aregs' N mode against the N-atoms of one A atom
// (K/N: 2 for m16n8k16): 4 and 2 split, 3 does not; an SS atom (K/N = 0,
// refused by AccAregsA with its own reason) passes this one; a computed
// size is compared as a typenum: 12 splits, 3 does not.
assert_impl_all!(C<4>: AccAregsNOf<C<2>>);
assert_impl_all!(C<2>: AccAregsNOf<C<2>>);
assert_not_impl_any!(C<3>: AccAregsNOf<C<2>>);
assert_not_impl_any!(C<6>: AccAregsNOf<C<4>>);
assert_impl_all!(C<4>: AccAregsNOf<C<0>>);
assert_impl_all!(S<U12>: AccAregsNOf<C<2>>);
assert_not_impl_any!(S<U3>: AccAregsNOf<C<2>>);
// The atom's A fragment in registers: the SM80 atom's 8 values and the RS
// GMMA's 8 a thread; the SS GMMA's A layout gives each thread the whole
// 64 x 16 tile (1024 values: A is read from shared memory).
assert_impl_all!(layout_core::atom::SM80_16x8x16_F32F16F16F32_TN: AccAregsA);
assert_impl_all!(layout_core::atom::SM90_64x64x16_F32F16F16_RS: AccAregsA);
assert_not_impl_any!(layout_core::atom::SM90_64x64x16_F32F16F16_SS: AccAregsA);
// The value mode against one atom's accumulators: the SM80 16x8x16 atom's
// C layout ((4,8),(2,2)) gives each thread 2 x 2 = 4 of them; a run-time
// size is left to the constant check.
assert_impl_all!((C<2>, C<2>): AccAregsV<layout_core::atom::SM80_16x8x16_F32F16F16F32_TN>);
assert_impl_all!(C<4>: AccAregsV<layout_core::atom::SM80_16x8x16_F32F16F16F32_TN>);
assert_impl_all!((usize, C<2>): AccAregsV<layout_core::atom::SM80_16x8x16_F32F16F16F32_TN>);
assert_not_impl_any!((C<2>, C<2>, C<2>): AccAregsV<layout_core::atom::SM80_16x8x16_F32F16F16F32_TN>);
assert_not_impl_any!(C<2>: AccAregsV<layout_core::atom::SM80_16x8x16_F32F16F16F32_TN>);
// A mode of stride 0 is injective only with one coordinate.
assert_impl_all!((): LeftInverseZero<1, 0>, LeftInverseZero<4, 2>);
assert_not_impl_any!((): LeftInverseZero<2, 0>);
assert_impl_all!((): LeftInverseDistinct<1, 2>);
assert_not_impl_any!((): LeftInverseDistinct<3, 3>);
// complement(A, M), by hand. (2,2):(1,2) stacks to 4 = 1 * 2 * 2: any M.
// (2,2):(1,1): the second stride 1 is not above the first mode's largest
// offset 1. (2,2):(1,3) reaches 0 and 1, then stride 3 is not a multiple
// of the span 2: M = 2 is covered, M = 3 and 8 reach past the gap at 2.
assert_impl_all!(C<8>: CotargetOf<layout_type!((2,2):(1,2))>);
assert_not_impl_any!(C<8>: CotargetOf<layout_type!((2,2):(1,1))>);
assert_impl_all!(C<2>: CotargetOf<layout_type!((2,2):(1,3))>);
assert_not_impl_any!(C<3>: CotargetOf<layout_type!((2,2):(1,3))>);
assert_not_impl_any!(C<8>: CotargetOf<layout_type!((2,2):(1,3))>);
// A tuple cotarget counts its size: (2,1) is covered, (4,2) is not.
assert_impl_all!((C<2>, C<1>): CotargetOf<layout_type!((2,2):(1,3))>);
assert_not_impl_any!((C<4>, C<2>): CotargetOf<layout_type!((2,2):(1,3))>);
// A run-time cotarget is checked at run time.
assert_impl_all!(usize: CotargetOf<layout_type!((2,2):(1,3))>);

#[test]
fn static_results_are_zero_sized() {
    let h = layout!((2,(2,2)):(4,(2,1)));
    assert_eq!(std::mem::size_of_val(&h), 0);
    let left = make_layout_left((C::<3>, (C::<4>, C::<5>)));
    assert_eq!(std::mem::size_of_val(&left), 0);
    assert_eq!(left.to_string(), "(_3,(_4,_5)):(_1,(_3,_12))");
    assert_eq!(std::mem::size_of_val(&layout_core::flatten(h)), 0);
    assert_eq!(H::SIZE, 8);
    assert_eq!(H::COSIZE, 8);
    assert_eq!(H::RANK, 2);
    assert_eq!(H::DEPTH, 2);
}

#[test]
fn typed_layouts_convert_to_dynlayouts_that_print_the_same() {
    use layout_core::{make_layout_right, DynLayout};
    let n = 5usize;
    let cases = [
        DynLayout::try_from(layout!((2,(2,2)):(4,(2,1))))
            .unwrap()
            .to_string()
            == layout!((2,(2,2)):(4,(2,1))).to_string(),
        DynLayout::try_from(layout!((3, n):(n, 1)))
            .unwrap()
            .to_string()
            == "(_3,5):(5,_1)",
        DynLayout::try_from(make_layout_right((C::<3>, (n, C::<4>))))
            .unwrap()
            .to_string()
            == make_layout_right((C::<3>, (n, C::<4>))).to_string(),
        DynLayout::try_from(layout!(8:1)).unwrap().to_string() == "_8:_1",
    ];
    assert_eq!(cases, [true; 4]);
    let h = layout!(((4,8),(2,2,2)):((32,1),(16,8,128)));
    let d = DynLayout::try_from(h).unwrap();
    for i in 0..h.size() {
        assert_eq!(d.call(i as i64).unwrap(), h.call(i) as i64);
    }
}

// Named constants are static leaves when written `C<NAME>`; compact strides
// over them are computed as for literals (hand: (8,4,2) LayoutLeft strides
// are 1, 8, 32; a static size-1 mode gets _0).
const MR: usize = 8;
const NR: usize = 4;
const ONE: usize = 1;
assert_type_eq_all!(
    layout_type!((C<MR>, C<NR>):(C<NR>, 1)),
    Layout<(C<8>, C<4>), (C<4>, C<1>)>
);
assert_type_eq_all!(
    layout_type!((C<MR>, C<NR>, 2)),
    Layout<(C<8>, C<4>, C<2>), (C<1>, C<8>, C<32>)>
);
assert_type_eq_all!(
    layout_type!((C<ONE>, C<MR>)),
    Layout<(C<1>, C<8>), (C<0>, C<1>)>
);
assert_type_eq_all!(
    layout_type!((C<{ MR * 2 }>, 3)),
    Layout<(C<16>, C<3>), (C<1>, C<16>)>
);
assert_eq_size!(layout_type!((C<MR>, C<NR>)), ());

#[test]
fn named_constants_mix_with_run_time_leaves() {
    let m = 3;
    // (8, m, 4) LayoutLeft: 1, 8, 8*m = 24.
    let l = layout!((C<MR>, m, C<NR>));
    assert_eq!(l.to_string(), "(_8,3,_4):(_1,_8,24)");
    assert_eq!(layout_core::crd!(C<MR>, 1), (C::<8>, C::<1>));
}

// CuTe's static-0 rule: `_0 * n` is `_0` for a run-time n, in leaf
// multiplication and in the sizes built on it.
assert_type_eq_all!(<C<0> as layout_core::IntMul<usize>>::Output, C<0>);
assert_type_eq_all!(<usize as layout_core::IntMul<C<0>>>::Output, C<0>);
assert_type_eq_all!(<C<3> as layout_core::IntMul<usize>>::Output, usize);

// `C<N>` is static beyond typenum's own table (1536 = 24 * 64).
#[test]
fn c_covers_tile_sizes_beyond_1024() {
    let l = Layout::new((C::<1536>, C::<4>), (C::<1>, C::<1536>));
    assert_eq!(layout_core::coalesce(l).to_string(), "_6144:_1");
    assert_eq!(std::mem::size_of_val(&l), 0);
}

// A layout computed by the algebra prints like a `layout_type!` but spells
// its computed static leaves `S<U>`; `respell` converts to the declared type
// (hand: LayoutLeft strides of (3,(4,5)) are 1, 3, 12; of (4,n) are 1, 4).
type Left345 = layout_type!((3,(4,5)):(1,(3,12)));
fn left345() -> Left345 {
    make_layout_left((C::<3>, (C::<4>, C::<5>))).respell()
}
assert_impl_all!((C<1>, (S<U3>, S<U12>)): Respell<(C<1>, (C<3>, C<12>))>);
assert_not_impl_any!((C<1>, (S<U3>, S<U12>)): Respell<(C<1>, (C<3>, C<13>))>);
assert_not_impl_any!((C<1>, (S<U3>, S<U12>)): Respell<(C<1>, C<3>, C<12>)>);
assert_not_impl_any!((C<1>, usize): Respell<(C<1>, C<4>)>);
assert_not_impl_any!((C<1>, C<4>): Respell<(C<1>, usize)>);

#[test]
fn respell_reaches_the_declared_type() {
    let l = left345();
    assert_eq!(l.to_string(), "(_3,(_4,_5)):(_1,(_3,_12))");
    let n = 5;
    let mixed: layout_type!((4, n):(1, 4)) = make_layout_left((C::<4>, n)).respell();
    assert_eq!(mixed.to_string(), "(_4,5):(_1,_4)");
    assert_eq!(mixed.crd2idx((3usize, 2usize)), 3 + 2 * 4);
}
