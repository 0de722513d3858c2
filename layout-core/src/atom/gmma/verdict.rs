//! [`make_gmma_desc`](super::make_gmma_desc)'s canonical-form check as the
//! type checker decides it, for a static major ([`KMajor`], [`MnMajor`])
//! and a tile of static leaves: a refused tile is an unmet bound that
//! `cargo check` and the editor report at the call, with the values in
//! CuTe notation. The compile-time constant check stays behind it.
//!
//! Each mode of a tile is a one-dimensional layout, and so is each mode of
//! the canonical form (a layout's offset is a part in MN plus a part in K);
//! two one-dimensional layouts are the same function exactly when they
//! coalesce to the same runs. The canonical form's mode, coalesced, is a
//! first run of a fixed length and stride (the swizzle's rows, or the
//! 16-byte chunk's elements) and at most one more run whose stride is the
//! descriptor's free LBO or SBO, a whole number of chunks. So a tile is
//! canonical exactly when each of its modes coalesces to:
//!
//! - one run of the form's first stride, as long as the mode, or
//! - the form's first run, then one run of a stride that is a multiple of
//!   8 elements.
//!
//! | major | swizzle width W (chunks) | MN mode's first run | K mode's first run |
//! | --- | --- | --- | --- |
//! | K | 1 (no swizzle) | 8 : 8 | 8 : 1 |
//! | K | 2, 4, 8 | 8 : 8W | 16 : 1 (the whole mode) |
//! | MN | W | 8W : 1 | 8 : 8W |
//!
//! ```
//! use layout_core::atom::gmma::{make_gmma_desc, MnMajor};
//! use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
//! use layout_core::layout;
//! // MN coalesces to _128:_1 (one run), K to (_8,_2):(_64,_1024): the
//! // 128-byte MN-major form with SBO 1024 / 8 = 128 chunks.
//! let tile = ComposedLayout { swizzle: Swizzle::<3, 3, 3>, layout: layout!(((64,2),(8,2)):((1,512),(64,1024))) };
//! assert_eq!(tile.to_string(), "Sw<3,3,3> o _0 o ((_64,_2),(_8,_2)):((_1,_512),(_64,_1024))");
//! assert_eq!(make_gmma_desc(MnMajor, &tile, 0).unwrap().sbo(), 128);
//! ```
//!
//! ```compile_fail,E0277
//! use layout_core::atom::gmma::{make_gmma_desc, KMajor};
//! use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
//! use layout_core::layout;
//! // error: make_gmma_desc(KMajor, ..): the tile's MN mode starts with the
//! // run _128:_16; a canonical tile under Sw<3,3,3> steps _64 there
//! let bad = ComposedLayout { swizzle: Swizzle::<3, 3, 3>, layout: layout!((128,16):(16,1)) };
//! let _ = make_gmma_desc(KMajor, &bad, 0);
//! ```

use super::{GmmaTile, KMajor, Major, MnMajor};
use crate::algebra::admits::{Admitted, Holds, Pick};
use crate::algebra::coalesce::{Many, One, Start};
use crate::algebra::swizzle::{ComposedLayout, Swizzle};
use crate::layout::Layout;
use crate::typelevel::arith::DivRem;
use crate::typelevel::int::{ConstForm, StaticInt, StaticZeroTag, C};
use crate::typelevel::list::{SizeT, ZipRev};
use crate::typelevel::tuple::{AllStatic4, Cons, IntTuple, Nil};
use core::marker::PhantomData;
use core::ops::Mul;
use typenum::{Bit, IsEqual, Prod, B0, B1, U1, U16, U2, U4, U8};

/// The operation [`Holds`] is asked for.
#[doc(hidden)]
pub struct GmmaOp;

/// A tile [`make_gmma_desc`](super::make_gmma_desc) takes with the major
/// `Mj`: every [`GmmaTile`] with a run-time major ([`Major`]) or a
/// run-time leaf, and a static tile of a static major when it is
/// canonical. Generic code over a tile names this bound.
///
/// ```
/// use layout_core::atom::gmma::{make_gmma_desc, GmmaDescriptor, GmmaOperand, KMajor};
/// use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
/// use layout_core::layout_type;
/// fn desc<T: GmmaOperand<KMajor> + Default>(address: u32) -> GmmaDescriptor {
///     make_gmma_desc(KMajor, &T::default(), address).unwrap()
/// }
/// type Tile = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((64,16):(64,1))>;
/// assert_eq!(Tile::default().to_string(), "Sw<3,3,3> o _0 o (_64,_16):(_64,_1)");
/// assert_eq!(desc::<Tile>(0).sbo(), 64);
/// ```
pub trait GmmaOperand<Mj>: GmmaTile {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
}
impl<Mj, T: GmmaTile> GmmaOperand<Mj> for T
where
    GmmaCheck<Mj, T>: Holds<GmmaOp>,
{
    type Checked = ();
}

/// The check of `Tile` as an operand of major `Mj`, decided only when a
/// bound asks whether it [`Holds`].
#[doc(hidden)]
pub struct GmmaCheck<Mj, Tile>(PhantomData<(Mj, Tile)>);

impl<Tile> Holds<GmmaOp> for GmmaCheck<Major, Tile> {}

/// Where a static major puts the canonical form's first runs, for a
/// swizzle width `W` and `I` = `B1` without a swizzle (see the module's
/// table).
#[doc(hidden)]
pub trait StaticMajor {
    /// MN must be a multiple of this.
    type Extent;
    /// The MN mode's first run: length, stride.
    type Mn: Unit;
    /// The K mode's first run.
    type K: Unit;
}
/// A first run's length and stride (typenum).
#[doc(hidden)]
pub trait Unit {
    type Len;
    type Stride;
}
/// A first run of `N:D`.
#[doc(hidden)]
pub struct Run<N, D>(PhantomData<(N, D)>);
impl<N, D> Unit for Run<N, D> {
    type Len = N;
    type Stride = D;
}
/// A static major over a swizzle of width `W` (`I`: no swizzle).
#[doc(hidden)]
pub struct Form<Mj, W, I>(PhantomData<(Mj, W, I)>);
impl StaticMajor for Form<KMajor, U1, B1> {
    type Extent = U8;
    type Mn = Run<U8, U8>;
    type K = Run<U8, U1>;
}
impl<W: Mul<U8>> StaticMajor for Form<KMajor, W, B0> {
    type Extent = U8;
    type Mn = Run<U8, Prod<W, U8>>;
    type K = Run<U16, U1>;
}
impl<W: Mul<U8>, I> StaticMajor for Form<MnMajor, W, I> {
    type Extent = Prod<W, U8>;
    type Mn = Run<Prod<W, U8>, U1>;
    type K = Run<U8, Prod<W, U8>>;
}

/// The GMMA swizzles over 16-bit elements, `Sw<B,3,3>` with B at most 3:
/// the width `W` in 16-byte chunks, and `I` = `B1` for no swizzle.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc: the swizzle Sw<{B},{M},{S}> over 16-bit elements is none of GMMA's (Sw<B,3,3>, B <= 3)",
    label = "a tile under a swizzle no descriptor names"
)]
pub trait GmmaSwizzle<const B: u32, const M: u32, const S: i32> {
    type W;
    type I;
}
#[diagnostic::do_not_recommend]
impl GmmaSwizzle<0, 3, 3> for () {
    type W = U1;
    type I = B1;
}
#[diagnostic::do_not_recommend]
impl GmmaSwizzle<1, 3, 3> for () {
    type W = U2;
    type I = B0;
}
#[diagnostic::do_not_recommend]
impl GmmaSwizzle<2, 3, 3> for () {
    type W = U4;
    type I = B0;
}
#[diagnostic::do_not_recommend]
impl GmmaSwizzle<3, 3, 3> for () {
    type W = U8;
    type I = B0;
}

/// The typenum form of a static leaf.
type Tn<X> = <X as StaticInt>::U;
/// `B1` when the typenum `X` is a multiple of `D`.
type MultipleOf<X, D> = <<X as DivRem<D>>::R as StaticZeroTag>::IsZero;
/// `B1` when the typenums are equal.
type Same<X, Y> = <X as IsEqual<Y>>::Output;

/// The runs of one mode `Sh:D`, coalesced, front first, as typenum pairs.
type RunsOf<Sh, D> = <<<<Sh as IntTuple>::Leaves as ZipRev<<D as IntTuple>::Leaves, Nil>>::Out as Start>::Out as Runs>::L;
/// A coalesce accumulator as a list of typenum `(length, stride)` runs.
#[doc(hidden)]
pub trait Runs {
    type L;
}
impl<Sh: StaticInt, St: StaticInt> Runs for One<Sh, St> {
    type L = Cons<(Tn<Sh>, Tn<St>), Nil>;
}
impl<L: Runs> Runs for Many<L> {
    type L = L::L;
}
impl Runs for Nil {
    type L = Nil;
}
impl<Sh: StaticInt, St: StaticInt, T: Runs> Runs for Cons<(Sh, St), T> {
    type L = Cons<(Tn<Sh>, Tn<St>), T::L>;
}

/// The MN mode (`Mode` of the refusals).
#[doc(hidden)]
pub struct MnMode;
/// The K mode.
#[doc(hidden)]
pub struct KMode;

/// The refusals (each `Holds` only through its message's trait, which
/// nothing implements): the tile's extents `MN x K`; a mode's first run
/// `N:D` where the form steps `E`; a first run of length `N` where the
/// form's is `L` (stride `D`); a second run `N:D` of a stride that is not a
/// whole chunk; a third run `N:D`.
#[doc(hidden)]
pub struct Extents<Mj, const B: u32, MN, K, X>(PhantomData<(Mj, MN, K, X)>);
#[doc(hidden)]
pub struct FirstStride<Mj, Mode, const B: u32, N, D, E>(PhantomData<(Mj, Mode, N, D, E)>);
#[doc(hidden)]
pub struct FirstLength<Mj, Mode, const B: u32, N, D, L>(PhantomData<(Mj, Mode, N, D, L)>);
#[doc(hidden)]
pub struct SecondStride<Mj, Mode, const B: u32, N, D>(PhantomData<(Mj, Mode, N, D)>);
#[doc(hidden)]
pub struct ThirdRun<Mj, Mode, const B: u32, N, D>(PhantomData<(Mj, Mode, N, D)>);

/// The verdict with its values as the `C<N>` its message prints: applied
/// to the verdict that was reached only, so that a value no refusal shows
/// needs no printable form.
#[doc(hidden)]
pub trait Print {
    type Out;
}
impl Print for Admitted {
    type Out = Admitted;
}
impl<Mj, const B: u32, MN: ConstForm, K: ConstForm, X: ConstForm> Print
    for Extents<Mj, B, MN, K, X>
{
    type Out = Extents<Mj, B, MN::C, K::C, X::C>;
}
impl<Mj, Mode, const B: u32, N: ConstForm, D: ConstForm, E: ConstForm> Print
    for FirstStride<Mj, Mode, B, N, D, E>
{
    type Out = FirstStride<Mj, Mode, B, N::C, D::C, E::C>;
}
impl<Mj, Mode, const B: u32, N: ConstForm, D: ConstForm, L: ConstForm> Print
    for FirstLength<Mj, Mode, B, N, D, L>
{
    type Out = FirstLength<Mj, Mode, B, N::C, D::C, L::C>;
}
impl<Mj, Mode, const B: u32, N: ConstForm, D: ConstForm> Print for SecondStride<Mj, Mode, B, N, D> {
    type Out = SecondStride<Mj, Mode, B, N::C, D::C>;
}
impl<Mj, Mode, const B: u32, N: ConstForm, D: ConstForm> Print for ThirdRun<Mj, Mode, B, N, D> {
    type Out = ThirdRun<Mj, Mode, B, N::C, D::C>;
}

/// The verdict on one mode's runs against the form's first run `U`.
#[doc(hidden)]
pub trait ModeVerdict<Mj, Mode, const B: u32, U> {
    type Out;
}
// One run: its stride is the form's (its length is the mode's).
impl<Mj, Mode, const B: u32, U: Unit, N, D> ModeVerdict<Mj, Mode, B, U> for Cons<(N, D), Nil>
where
    D: IsEqual<U::Stride>,
    Same<D, U::Stride>: Pick<Admitted, FirstStride<Mj, Mode, B, N, D, U::Stride>>,
{
    type Out =
        <Same<D, U::Stride> as Pick<Admitted, FirstStride<Mj, Mode, B, N, D, U::Stride>>>::Out;
}
/// The first run's stride, then its length, then what follows it.
type Ladder<Mj, Mode, const B: u32, U, N, D, Then> =
    <Same<D, <U as Unit>::Stride> as Pick<
        <Same<N, <U as Unit>::Len> as Pick<
            Then,
            FirstLength<Mj, Mode, B, N, D, <U as Unit>::Len>,
        >>::Out,
        FirstStride<Mj, Mode, B, N, D, <U as Unit>::Stride>,
    >>::Out;
// Two runs: the form's first run, then a stride of whole chunks.
impl<Mj, Mode, const B: u32, U: Unit, N, D, N1, D1> ModeVerdict<Mj, Mode, B, U>
    for Cons<(N, D), Cons<(N1, D1), Nil>>
where
    D: IsEqual<U::Stride>,
    N: IsEqual<U::Len>,
    D1: DivRem<U8>,
    <D1 as DivRem<U8>>::R: StaticZeroTag,
    MultipleOf<D1, U8>: Pick<Admitted, SecondStride<Mj, Mode, B, N1, D1>>,
    Same<N, U::Len>: Pick<
        <MultipleOf<D1, U8> as Pick<Admitted, SecondStride<Mj, Mode, B, N1, D1>>>::Out,
        FirstLength<Mj, Mode, B, N, D, U::Len>,
    >,
    Same<D, U::Stride>: Pick<
        <Same<N, U::Len> as Pick<
            <MultipleOf<D1, U8> as Pick<Admitted, SecondStride<Mj, Mode, B, N1, D1>>>::Out,
            FirstLength<Mj, Mode, B, N, D, U::Len>,
        >>::Out,
        FirstStride<Mj, Mode, B, N, D, U::Stride>,
    >,
{
    type Out = Ladder<
        Mj,
        Mode,
        B,
        U,
        N,
        D,
        <MultipleOf<D1, U8> as Pick<Admitted, SecondStride<Mj, Mode, B, N1, D1>>>::Out,
    >;
}
// Three runs or more: refused at the first run, or at the third.
impl<Mj, Mode, const B: u32, U: Unit, N, D, X, N2, D2, T> ModeVerdict<Mj, Mode, B, U>
    for Cons<(N, D), Cons<X, Cons<(N2, D2), T>>>
where
    D: IsEqual<U::Stride>,
    N: IsEqual<U::Len>,
    Same<N, U::Len>: Pick<ThirdRun<Mj, Mode, B, N2, D2>, FirstLength<Mj, Mode, B, N, D, U::Len>>,
    Same<D, U::Stride>: Pick<
        <Same<N, U::Len> as Pick<
            ThirdRun<Mj, Mode, B, N2, D2>,
            FirstLength<Mj, Mode, B, N, D, U::Len>,
        >>::Out,
        FirstStride<Mj, Mode, B, N, D, U::Stride>,
    >,
{
    type Out = Ladder<Mj, Mode, B, U, N, D, ThirdRun<Mj, Mode, B, N2, D2>>;
}

/// A tile with a run-time leaf (`B0`) is admitted here and checked at run
/// time; a static one (`B1`) is decided.
#[doc(hidden)]
pub trait Decide<Mj, const B: u32, W, I, S0, S1, D0, D1> {
    type Out;
}
impl<Mj, const B: u32, W, I, S0, S1, D0, D1> Decide<Mj, B, W, I, S0, S1, D0, D1> for B0 {
    type Out = Admitted;
}
/// The extents' verdict, then the MN mode's, then the K mode's.
type Static<Mj, const B: u32, W, I, S0, S1, D0, D1> = <ExtentsOk<Mj, W, I, S0, S1> as Pick<
    <<RunsOf<S0, D0> as ModeVerdict<Mj, MnMode, B, <Form<Mj, W, I> as StaticMajor>::Mn>>::Out as Then<
        <RunsOf<S1, D1> as ModeVerdict<Mj, KMode, B, <Form<Mj, W, I> as StaticMajor>::K>>::Out,
    >>::Out,
    Extents<Mj, B, Tn<SizeT<S0>>, Tn<SizeT<S1>>, <Form<Mj, W, I> as StaticMajor>::Extent>,
>>::Out;
/// `B1` when MN is a non-zero multiple of the form's extent and K is 16.
type ExtentsOk<Mj, W, I, S0, S1> = <(
    MultipleOf<Tn<SizeT<S0>>, <Form<Mj, W, I> as StaticMajor>::Extent>,
    <Tn<SizeT<S0>> as StaticZeroTag>::IsZero,
    Same<Tn<SizeT<S1>>, U16>,
) as ExtentBits>::Out;
/// `B1` for (a multiple, not zero, K = 16).
#[doc(hidden)]
pub trait ExtentBits {
    type Out: Bit;
}
impl ExtentBits for (B1, B0, B1) {
    type Out = B1;
}
impl<Z, K> ExtentBits for (B0, Z, K) {
    type Out = B0;
}
impl<K> ExtentBits for (B1, B1, K) {
    type Out = B0;
}
impl ExtentBits for (B1, B0, B0) {
    type Out = B0;
}
/// The first verdict that refuses: `Self`, or `V` when `Self` admits.
#[doc(hidden)]
pub trait Then<V> {
    type Out;
}
impl<V> Then<V> for Admitted {
    type Out = V;
}
impl<V, Mj, Mode, const B: u32, N, D, E> Then<V> for FirstStride<Mj, Mode, B, N, D, E> {
    type Out = Self;
}
impl<V, Mj, Mode, const B: u32, N, D, L> Then<V> for FirstLength<Mj, Mode, B, N, D, L> {
    type Out = Self;
}
impl<V, Mj, Mode, const B: u32, N, D> Then<V> for SecondStride<Mj, Mode, B, N, D> {
    type Out = Self;
}
impl<V, Mj, Mode, const B: u32, N, D> Then<V> for ThirdRun<Mj, Mode, B, N, D> {
    type Out = Self;
}

impl<Mj, const B: u32, W, I, S0, S1, D0, D1> Decide<Mj, B, W, I, S0, S1, D0, D1> for B1
where
    Static<Mj, B, W, I, S0, S1, D0, D1>: Print,
    S0: IntTuple,
    S1: IntTuple,
    D0: IntTuple,
    D1: IntTuple,
    Form<Mj, W, I>: StaticMajor,
    S0::Leaves: ZipRev<D0::Leaves, Nil>,
    <S0::Leaves as ZipRev<D0::Leaves, Nil>>::Out: Start,
    <<S0::Leaves as ZipRev<D0::Leaves, Nil>>::Out as Start>::Out: Runs,
    S1::Leaves: ZipRev<D1::Leaves, Nil>,
    <S1::Leaves as ZipRev<D1::Leaves, Nil>>::Out: Start,
    <<S1::Leaves as ZipRev<D1::Leaves, Nil>>::Out as Start>::Out: Runs,
    RunsOf<S0, D0>: ModeVerdict<Mj, MnMode, B, <Form<Mj, W, I> as StaticMajor>::Mn>,
    RunsOf<S1, D1>: ModeVerdict<Mj, KMode, B, <Form<Mj, W, I> as StaticMajor>::K>,
    <RunsOf<S0, D0> as ModeVerdict<Mj, MnMode, B, <Form<Mj, W, I> as StaticMajor>::Mn>>::Out:
        Then<<RunsOf<S1, D1> as ModeVerdict<Mj, KMode, B, <Form<Mj, W, I> as StaticMajor>::K>>::Out>,
    SizeT<S0>: StaticInt,
    SizeT<S1>: StaticInt,
    S0::Leaves: crate::typelevel::list::SizeList<C<1>>,
    S1::Leaves: crate::typelevel::list::SizeList<C<1>>,
    Tn<SizeT<S0>>: DivRem<<Form<Mj, W, I> as StaticMajor>::Extent> + IsEqual<U16>,
    <Tn<SizeT<S0>> as DivRem<<Form<Mj, W, I> as StaticMajor>::Extent>>::R: StaticZeroTag,
    Tn<SizeT<S1>>: IsEqual<U16>,
    (
        MultipleOf<Tn<SizeT<S0>>, <Form<Mj, W, I> as StaticMajor>::Extent>,
        <Tn<SizeT<S0>> as StaticZeroTag>::IsZero,
        Same<Tn<SizeT<S1>>, U16>,
    ): ExtentBits,
    ExtentsOk<Mj, W, I, S0, S1>: Pick<
        <<RunsOf<S0, D0> as ModeVerdict<Mj, MnMode, B, <Form<Mj, W, I> as StaticMajor>::Mn>>::Out as Then<
            <RunsOf<S1, D1> as ModeVerdict<Mj, KMode, B, <Form<Mj, W, I> as StaticMajor>::K>>::Out,
        >>::Out,
        Extents<Mj, B, Tn<SizeT<S0>>, Tn<SizeT<S1>>, <Form<Mj, W, I> as StaticMajor>::Extent>,
    >,
{
    type Out = <Static<Mj, B, W, I, S0, S1, D0, D1> as Print>::Out;
}

/// The verdict on a tile's `(shape, stride)`: decided for two modes; any
/// other shape is [`GmmaTile`](super::GmmaTile)'s refusal, reported once.
#[doc(hidden)]
pub trait TwoModeVerdict<Mj, const B: u32, W, I> {
    type Out;
}
impl<Mj, const B: u32, W, I, S0, S1, D0, D1> TwoModeVerdict<Mj, B, W, I> for ((S0, S1), (D0, D1))
where
    S0: IntTuple,
    S1: IntTuple,
    D0: IntTuple,
    D1: IntTuple,
    AllStatic4<S0, S1, D0, D1>: Decide<Mj, B, W, I, S0, S1, D0, D1>,
{
    type Out = <AllStatic4<S0, S1, D0, D1> as Decide<Mj, B, W, I, S0, S1, D0, D1>>::Out;
}
macro_rules! not_two_modes {
    ($($t:ident),*) => {
        impl<Mj, const B: u32, W, I, D, $($t),*> TwoModeVerdict<Mj, B, W, I> for (($($t,)*), D) {
            type Out = Admitted;
        }
    };
}
not_two_modes!();
not_two_modes!(T0);
not_two_modes!(T0, T1, T2);
not_two_modes!(T0, T1, T2, T3);
not_two_modes!(T0, T1, T2, T3, T4);
not_two_modes!(T0, T1, T2, T3, T4, T5);
not_two_modes!(T0, T1, T2, T3, T4, T5, T6);
not_two_modes!(T0, T1, T2, T3, T4, T5, T6, T7);
not_two_modes!(T0, T1, T2, T3, T4, T5, T6, T7, T8);
not_two_modes!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9);
not_two_modes!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10);
not_two_modes!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11);
impl<Mj, const B: u32, W, I, D, const N: usize> TwoModeVerdict<Mj, B, W, I> for (C<N>, D) {
    type Out = Admitted;
}
impl<Mj, const B: u32, W, I, D, U> TwoModeVerdict<Mj, B, W, I>
    for (crate::typelevel::int::S<U>, D)
{
    type Out = Admitted;
}
impl<Mj, const B: u32, W, I, D> TwoModeVerdict<Mj, B, W, I> for (usize, D) {
    type Out = Admitted;
}

/// The verdict on a tile of a static major: [`Admitted`] or a refusal.
#[doc(hidden)]
pub trait Decided {
    type Out;
}
/// The majors the type checker decides.
macro_rules! static_major_check {
    ($($mj:ty),*) => {$(
        impl<const B: u32, const M: u32, const S: i32, Sh, D> Decided
            for GmmaCheck<$mj, ComposedLayout<Swizzle<B, M, S>, Layout<Sh, D>>>
        where
            (): GmmaSwizzle<B, M, S>,
            (Sh, D): TwoModeVerdict<
                $mj,
                B,
                <() as GmmaSwizzle<B, M, S>>::W,
                <() as GmmaSwizzle<B, M, S>>::I,
            >,
        {
            type Out = <(Sh, D) as TwoModeVerdict<
                $mj,
                B,
                <() as GmmaSwizzle<B, M, S>>::W,
                <() as GmmaSwizzle<B, M, S>>::I,
            >>::Out;
        }
        impl<Tile> Holds<GmmaOp> for GmmaCheck<$mj, Tile>
        where
            Self: Decided,
            <Self as Decided>::Out: Holds<GmmaOp>,
        {
        }
    )*};
}
static_major_check!(KMajor, MnMajor);

/// The refusals' messages (nothing implements them), each taking the
/// values as const parameters, and `Holds` of each refusal through its
/// message.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): a _{MN} x _{K} tile under Sw<{B},3,3>; a descriptor covers MN x 16 elements, MN a non-zero multiple of {X}",
    label = "a tile of other extents"
)]
pub trait GmmaExtents<Mj, const B: u32, const MN: usize, const K: usize, const X: usize> {}
impl<Mj, const B: u32, const MN: usize, const K: usize, const X: usize> Holds<GmmaOp>
    for Extents<Mj, B, C<MN>, C<K>, C<X>>
where
    (): GmmaExtents<Mj, B, MN, K, X>,
{
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): the tile's MN mode starts with the run _{N}:_{D}; a canonical tile under Sw<{B},3,3> steps _{E} there",
    label = "not a canonical tile of this major",
    note = "the canonical forms in 16-byte chunks (W = 2^B): K-major ((8,n),2):((W,SBO),1), or ((8,n),2):((1,SBO),LBO) without a swizzle; MN-major ((W,n),(8,k)):((1,LBO),(W,SBO)), or ((1,n),(8,k)):((X,SBO),(1,LBO)) without a swizzle. A mode's runs are counted after coalescing it"
)]
pub trait GmmaMnStride<Mj, const B: u32, const N: usize, const D: usize, const E: usize> {}
impl<Mj, const B: u32, const N: usize, const D: usize, const E: usize> Holds<GmmaOp>
    for FirstStride<Mj, MnMode, B, C<N>, C<D>, C<E>>
where
    (): GmmaMnStride<Mj, B, N, D, E>,
{
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): the tile's MN mode starts with the run _{N}:_{D}; a canonical tile under Sw<{B},3,3> runs _{E} elements (or the whole mode) at that stride",
    label = "not a canonical tile of this major",
    note = "the canonical forms in 16-byte chunks (W = 2^B): K-major ((8,n),2):((W,SBO),1), or ((8,n),2):((1,SBO),LBO) without a swizzle; MN-major ((W,n),(8,k)):((1,LBO),(W,SBO)), or ((1,n),(8,k)):((X,SBO),(1,LBO)) without a swizzle. A mode's runs are counted after coalescing it"
)]
pub trait GmmaMnLength<Mj, const B: u32, const N: usize, const D: usize, const E: usize> {}
impl<Mj, const B: u32, const N: usize, const D: usize, const E: usize> Holds<GmmaOp>
    for FirstLength<Mj, MnMode, B, C<N>, C<D>, C<E>>
where
    (): GmmaMnLength<Mj, B, N, D, E>,
{
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): the tile's MN mode goes on with the run _{N}:_{D}, whose stride is not a whole 16-byte chunk (8 elements)",
    label = "not a canonical tile of this major",
    note = "the canonical forms in 16-byte chunks (W = 2^B): K-major ((8,n),2):((W,SBO),1), or ((8,n),2):((1,SBO),LBO) without a swizzle; MN-major ((W,n),(8,k)):((1,LBO),(W,SBO)), or ((1,n),(8,k)):((X,SBO),(1,LBO)) without a swizzle. A mode's runs are counted after coalescing it"
)]
pub trait GmmaMnSecond<Mj, const B: u32, const N: usize, const D: usize> {}
impl<Mj, const B: u32, const N: usize, const D: usize> Holds<GmmaOp>
    for SecondStride<Mj, MnMode, B, C<N>, C<D>>
where
    (): GmmaMnSecond<Mj, B, N, D>,
{
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): the tile's MN mode has a third run _{N}:_{D}; a canonical tile's has at most two",
    label = "not a canonical tile of this major",
    note = "the canonical forms in 16-byte chunks (W = 2^B): K-major ((8,n),2):((W,SBO),1), or ((8,n),2):((1,SBO),LBO) without a swizzle; MN-major ((W,n),(8,k)):((1,LBO),(W,SBO)), or ((1,n),(8,k)):((X,SBO),(1,LBO)) without a swizzle. A mode's runs are counted after coalescing it"
)]
pub trait GmmaMnThird<Mj, const B: u32, const N: usize, const D: usize> {}
impl<Mj, const B: u32, const N: usize, const D: usize> Holds<GmmaOp>
    for ThirdRun<Mj, MnMode, B, C<N>, C<D>>
where
    (): GmmaMnThird<Mj, B, N, D>,
{
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): the tile's K mode starts with the run _{N}:_{D}; a canonical tile under Sw<{B},3,3> steps _{E} there",
    label = "not a canonical tile of this major",
    note = "the canonical forms in 16-byte chunks (W = 2^B): K-major ((8,n),2):((W,SBO),1), or ((8,n),2):((1,SBO),LBO) without a swizzle; MN-major ((W,n),(8,k)):((1,LBO),(W,SBO)), or ((1,n),(8,k)):((X,SBO),(1,LBO)) without a swizzle. A mode's runs are counted after coalescing it"
)]
pub trait GmmaKStride<Mj, const B: u32, const N: usize, const D: usize, const E: usize> {}
impl<Mj, const B: u32, const N: usize, const D: usize, const E: usize> Holds<GmmaOp>
    for FirstStride<Mj, KMode, B, C<N>, C<D>, C<E>>
where
    (): GmmaKStride<Mj, B, N, D, E>,
{
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): the tile's K mode starts with the run _{N}:_{D}; a canonical tile under Sw<{B},3,3> runs _{E} elements (or the whole mode) at that stride",
    label = "not a canonical tile of this major",
    note = "the canonical forms in 16-byte chunks (W = 2^B): K-major ((8,n),2):((W,SBO),1), or ((8,n),2):((1,SBO),LBO) without a swizzle; MN-major ((W,n),(8,k)):((1,LBO),(W,SBO)), or ((1,n),(8,k)):((X,SBO),(1,LBO)) without a swizzle. A mode's runs are counted after coalescing it"
)]
pub trait GmmaKLength<Mj, const B: u32, const N: usize, const D: usize, const E: usize> {}
impl<Mj, const B: u32, const N: usize, const D: usize, const E: usize> Holds<GmmaOp>
    for FirstLength<Mj, KMode, B, C<N>, C<D>, C<E>>
where
    (): GmmaKLength<Mj, B, N, D, E>,
{
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): the tile's K mode goes on with the run _{N}:_{D}, whose stride is not a whole 16-byte chunk (8 elements)",
    label = "not a canonical tile of this major",
    note = "the canonical forms in 16-byte chunks (W = 2^B): K-major ((8,n),2):((W,SBO),1), or ((8,n),2):((1,SBO),LBO) without a swizzle; MN-major ((W,n),(8,k)):((1,LBO),(W,SBO)), or ((1,n),(8,k)):((X,SBO),(1,LBO)) without a swizzle. A mode's runs are counted after coalescing it"
)]
pub trait GmmaKSecond<Mj, const B: u32, const N: usize, const D: usize> {}
impl<Mj, const B: u32, const N: usize, const D: usize> Holds<GmmaOp>
    for SecondStride<Mj, KMode, B, C<N>, C<D>>
where
    (): GmmaKSecond<Mj, B, N, D>,
{
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc({Mj}, ..): the tile's K mode has a third run _{N}:_{D}; a canonical tile's has at most two",
    label = "not a canonical tile of this major",
    note = "the canonical forms in 16-byte chunks (W = 2^B): K-major ((8,n),2):((W,SBO),1), or ((8,n),2):((1,SBO),LBO) without a swizzle; MN-major ((W,n),(8,k)):((1,LBO),(W,SBO)), or ((1,n),(8,k)):((X,SBO),(1,LBO)) without a swizzle. A mode's runs are counted after coalescing it"
)]
pub trait GmmaKThird<Mj, const B: u32, const N: usize, const D: usize> {}
impl<Mj, const B: u32, const N: usize, const D: usize> Holds<GmmaOp>
    for ThirdRun<Mj, KMode, B, C<N>, C<D>>
where
    (): GmmaKThird<Mj, B, N, D>,
{
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atom::gmma::gmma_desc_error;
    use crate::layout_type;

    /// Whether a verdict refuses.
    trait Refuses {
        const REFUSED: bool;
    }
    impl Refuses for Admitted {
        const REFUSED: bool = false;
    }
    impl<Mj, const B: u32, X, Y, Z> Refuses for Extents<Mj, B, X, Y, Z> {
        const REFUSED: bool = true;
    }
    impl<Mj, Mode, const B: u32, N, D, E> Refuses for FirstStride<Mj, Mode, B, N, D, E> {
        const REFUSED: bool = true;
    }
    impl<Mj, Mode, const B: u32, N, D, L> Refuses for FirstLength<Mj, Mode, B, N, D, L> {
        const REFUSED: bool = true;
    }
    impl<Mj, Mode, const B: u32, N, D> Refuses for SecondStride<Mj, Mode, B, N, D> {
        const REFUSED: bool = true;
    }
    impl<Mj, Mode, const B: u32, N, D> Refuses for ThirdRun<Mj, Mode, B, N, D> {
        const REFUSED: bool = true;
    }

    fn refused<Mj, Tile>() -> bool
    where
        GmmaCheck<Mj, Tile>: Decided,
        <GmmaCheck<Mj, Tile> as Decided>::Out: Refuses,
    {
        <<GmmaCheck<Mj, Tile> as Decided>::Out as Refuses>::REFUSED
    }

    /// The type checker refuses exactly the static tiles that the constant
    /// check (which compares every element with the canonical form)
    /// refuses: tiles built from each major's form under each swizzle, with
    /// random LBO and SBO, their runs split into random leaves (and modes
    /// of size 1 added), half of them with one stride or the K extent
    /// changed.
    #[test]
    fn decides_as_the_constant_check() {
        macro_rules! cases {
            ($(($b:literal, $mj:ty, $($l:tt)*)),* $(,)?) => {{
                let mut refused_count = 0;
                let mut n = 0;
                $({
                    type T = ComposedLayout<Swizzle<$b, 3, 3>, layout_type!($($l)*)>;
                    let by_const = gmma_desc_error::<$mj, T>();
                    let by_type = refused::<$mj, T>();
                    assert_eq!(by_type, by_const.is_some(), "{}: {:?}", stringify!($b, $mj, $($l)*), by_const);
                    refused_count += by_type as usize;
                    n += 1;
                })*
                (refused_count, n)
            }};
        }
        let (refused, n) = cases!(
        (0, KMajor, ((1,8,4),(2,2,2,2)):((3,8,128),(1,2,4,512))),
        (0, KMajor, ((2,2,2,2),(2,2,2,2)):((8,16,32,8),(1,2,4,16))),
        (0, KMajor, ((2,4,2,2),(8,2,1)):((8,16,128,256),(1,512,0))),
        (0, KMajor, ((4,2,2,1,2),(8,1,2)):((8,32,128,3,256),(1,5,520))),
        (0, KMajor, ((8,8),(8,2)):((8,512),(1,512))),
        (0, KMajor, ((4,2,2),(4,2,2,2)):((8,32,128),(1,4,8,16))),
        (0, KMajor, ((8,1,2),(8,2)):((8,0,64),(1,512))),
        (0, KMajor, ((1,4,2,1,1),(2,4,2)):((3,8,32,128,5),(1,2,513))),
        (0, KMajor, ((4,2,1),(4,2,1,2)):((8,32,128),(1,4,5,512))),
        (0, KMajor, ((4,2,2,2),(8,1,2)):((8,32,8,16),(1,5,256))),
        (0, KMajor, ((8,1,4),(8,2)):((8,3,8),(1,256))),
        (0, KMajor, ((8,1),(8,1,4)):((8,64),(1,0,8))),
        (0, KMajor, ((1,2,2,2,8),(2,2,2,2)):((3,8,16,32,128),(1,2,4,128))),
        (0, KMajor, ((8,1),(8,2,2)):((8,16),(1,8,16))),
        (0, MnMajor, ((8,1),(8,2)):((1,8),(8,64))),
        (0, MnMajor, ((8,1,2),(8,1,2)):((1,3,64),(4,5,256))),
        (0, MnMajor, ((8,1,4),(1,8,2)):((1,3,8),(3,8,256))),
        (0, MnMajor, ((8,2),(8,2)):((1,16),(8,64))),
        (0, MnMajor, ((4,2,4),(8,2)):((1,4,128),(8,1024))),
        (0, MnMajor, ((2,2,2,2,1),(2,4,2)):((2,4,8,128,0),(8,16,256))),
        (0, MnMajor, ((4,2,2),(4,2,2,1)):((1,4,128),(8,32,256,5))),
        (0, MnMajor, ((4,2,2,2),(8,2)):((2,8,512,1024),(8,64))),
        (0, MnMajor, ((1,8,1,2,2),(2,2,2,2)):((5,1,3,64,128),(8,16,32,256))),
        (0, MnMajor, ((8,2,1),(2,2,2,1,2)):((0,64,5),(8,16,32,5,256))),
        (0, MnMajor, ((8,2,2),(8,2)):((1,64,128),(8,512))),
        (0, MnMajor, ((8,1,1),(2,4,2)):((1,513,3),(8,16,128))),
        (0, MnMajor, ((2,2,2,2,2),(4,2,2)):((1,2,4,128,256),(8,32,1024))),
        (0, MnMajor, ((4,2,2,2),(8,1,2)):((9,36,128,256),(8,3,512))),
        (1, KMajor, ((8,1,4),(8,2)):((16,5,8),(1,8))),
        (1, KMajor, ((4,2,1),(2,4,2,2,1)):((16,64,16),(1,2,8,16,5))),
        (1, KMajor, ((8,1),(8,2)):((16,8),(1,8))),
        (1, KMajor, ((4,2,1,2),(4,1,2,2)):((16,64,3,8),(1,0,4,9))),
        (1, KMajor, ((4,2,1),(2,4,2,1)):((16,64,8),(1,2,8,0))),
        (1, KMajor, ((4,2,1,4),(8,2)):((0,0,0,128),(1,8))),
        (1, KMajor, ((8,4),(2,4,2)):((16,128),(1,2,8))),
        (1, KMajor, ((4,2,2,4),(4,2,4,1)):((16,64,1024,2048),(1,4,8,3))),
        (1, KMajor, ((4,1,2,1),(4,2,2)):((16,3,64,128),(1,4,8))),
        (1, KMajor, ((8,8),(2,4,2,2)):((16,264),(1,2,8,16))),
        (1, KMajor, ((8,4),(2,2,2,2)):((16,128),(1,2,4,8))),
        (1, KMajor, ((2,2,2,8),(4,2,2,2)):((16,32,64,512),(1,4,8,16))),
        (1, KMajor, ((8,4),(2,2,2,2)):((16,256),(1,2,4,8))),
        (1, KMajor, ((2,2,2,1,2),(8,1,2)):((16,32,64,5,128),(1,0,9))),
        (1, MnMajor, ((16,1,1),(8,1,2)):((1,256,5),(16,3,128))),
        (1, MnMajor, ((4,4,2),(4,2,2)):((0,0,256),(16,64,128))),
        (1, MnMajor, ((4,4,2,2),(2,4,2)):((1,4,1024,2048),(16,32,128))),
        (1, MnMajor, ((16,1),(2,4,1,2)):((1,513),(16,32,3,256))),
        (1, MnMajor, ((1,16,1,1),(8,2)):((5,1,256,3),(16,128))),
        (1, MnMajor, ((4,4,1),(2,2,2,2)):((1,4,0),(16,32,64,256))),
        (1, MnMajor, ((16,2),(4,2,2,1)):((1,512),(16,64,1024,0))),
        (1, MnMajor, ((1,16,2,2),(8,1,2)):((5,1,1024,2048),(16,3,136))),
        (1, MnMajor, ((16,1,4),(8,1,2)):((1,3,16),(16,0,128))),
        (1, MnMajor, ((16,2),(4,2,1,2)):((1,256),(8,32,5,512))),
        (1, MnMajor, ((16,1),(8,2,1)):((1,16),(16,1024,5))),
        (1, MnMajor, ((1,4,4,2,2),(2,2,2,2)):((0,1,4,256,512),(8,16,32,128))),
        (1, MnMajor, ((2,8,1,1),(2,4,1,2)):((1,2,16,0),(16,32,3,128))),
        (1, MnMajor, ((2,2,2,2,4),(8,2)):((0,0,0,0,512),(16,128))),
        (2, KMajor, ((1,4,2,1),(2,4,2)):((3,32,128,512),(1,2,8))),
        (2, KMajor, ((8,2,2),(2,2,2,2)):((16,128,256),(1,2,4,8))),
        (2, KMajor, ((2,4,8,1),(8,1,2)):((32,64,512,5),(1,0,8))),
        (2, KMajor, ((8,1,1,1),(8,1,2)):((32,3,128,0),(1,5,16))),
        (2, KMajor, ((8,2,1,2,2),(1,8,2,1)):((32,256,5,512,1024),(5,1,8,5))),
        (2, KMajor, ((4,2,2,2),(8,2)):((32,128,8,16),(1,4))),
        (2, KMajor, ((4,1,2,1,8),(8,2,1)):((32,5,128,0,256),(1,8,5))),
        (2, KMajor, ((8,1,2),(2,2,2,2)):((0,3,256),(1,2,4,8))),
        (2, KMajor, ((4,2,8),(2,2,2,2)):((32,128,512),(1,2,4,8))),
        (2, KMajor, ((2,2,2,1),(1,2,2,2,2)):((16,32,64,256),(3,1,2,4,8))),
        (2, KMajor, ((2,2,2,4),(1,2,4,2)):((32,64,128,8),(0,1,2,8))),
        (2, KMajor, ((8,4),(2,4,2,1)):((32,257),(1,2,8,3))),
        (2, KMajor, ((4,2,4),(2,4,1,2)):((32,128,256),(1,2,0,8))),
        (2, KMajor, ((1,8,1),(8,2,1)):((5,0,256),(1,8,0))),
        (2, MnMajor, ((32,1,2,1),(2,2,2,2)):((1,5,32,0),(32,64,128,256))),
        (2, MnMajor, ((2,2,2,4,2),(4,2,2)):((1,2,4,8,32),(32,128,0))),
        (2, MnMajor, ((2,16,4),(1,2,2,2,2)):((1,2,64),(0,32,64,128,256))),
        (2, MnMajor, ((32,1),(8,1,4)):((9,512),(32,0,256))),
        (2, MnMajor, ((2,2,2,4,2,2),(8,2)):((1,2,4,8,32,64),(32,256))),
        (2, MnMajor, ((32,2),(8,2)):((9,512),(32,1024))),
        (2, MnMajor, ((32,1),(8,1,2)):((1,512),(32,0,256))),
        (2, MnMajor, ((32,2),(8,1,4)):((1,32),(32,5,256))),
        (2, MnMajor, ((2,2,8,1),(2,2,2,2)):((1,2,4,1024),(32,64,128,512))),
        (2, MnMajor, ((32,1),(4,2,2)):((1,1024),(32,128,1024))),
        (2, MnMajor, ((4,1,8,2),(4,2,2)):((1,5,4,512),(32,128,256))),
        (2, MnMajor, ((2,2,2,4,1),(2,2,2,2,1)):((1,2,4,8,1024),(32,64,128,1024,5))),
        (2, MnMajor, ((2,4,2,2,1),(8,2)):((1,2,8,16,64),(32,1024))),
        (3, KMajor, ((4,1,2,2,2,1),(8,2)):((64,5,256,512,1024,3),(1,8))),
        (3, KMajor, ((2,2,2,4),(2,2,2,2)):((64,128,256,256),(2,4,8,8))),
        (3, KMajor, ((4,2,1),(8,1,2)):((64,256,1024),(1,5,8))),
        (3, KMajor, ((8,2),(2,4,2)):((64,256),(1,2,8))),
        (3, KMajor, ((4,2,8),(4,2,2,1)):((64,256,8),(1,4,8,0))),
        (3, KMajor, ((8,1,2,2),(8,1,2)):((72,0,128,256),(1,0,8))),
        (3, KMajor, ((1,2,2,2,2),(8,2)):((5,64,128,256,128),(1,8))),
        (3, KMajor, ((2,4,1),(2,4,2)):((64,128,8),(1,2,16))),
        (3, KMajor, ((8,1),(8,2)):((64,1024),(1,8))),
        (3, KMajor, ((4,1,2,1),(2,4,2,2)):((64,3,256,1024),(1,2,8,16))),
        (3, KMajor, ((4,1,2,2),(4,2,2)):((64,3,256,1024),(1,4,8))),
        (3, KMajor, ((2,4,1,1),(8,1,2,1)):((64,128,5,256),(1,0,8,5))),
        (3, KMajor, ((8,1),(8,2)):((64,256),(1,8))),
        (3, KMajor, ((2,2,2,2),(8,1,2,2)):((64,128,256,512),(1,3,8,16))),
        (3, MnMajor, ((2,32,2,1,2),(8,2)):((1,2,64,5,128),(64,512))),
        (3, MnMajor, ((1,2,2,16,1,2),(8,1,2)):((0,2,4,8,3,64),(64,3,512))),
        (3, MnMajor, ((1,4,4,4,2,2),(8,2)):((0,1,4,16,1024,2048),(64,512))),
        (3, MnMajor, ((64,2),(4,2,2,2,1)):((1,512),(64,256,512,1024,5))),
        (3, MnMajor, ((64,2,2),(4,2,2)):((1,512,1024),(64,256,512))),
        (3, MnMajor, ((64,1),(2,4,4)):((1,512),(64,128,512))),
        (3, MnMajor, ((64,2,2),(8,2)):((1,1024,2048),(64,1024))),
        (3, MnMajor, ((4,16,2),(8,2)):((2,8,1024),(64,1024))),
        (3, MnMajor, ((4,4,2,2,1),(8,2,1)):((1,4,16,32,1024),(64,1024,5))),
        (3, MnMajor, ((64,1),(8,4)):((9,512),(64,512))),
        (3, MnMajor, ((2,32,1,1),(2,4,1,2)):((1,2,65,3),(64,128,5,256))),
        (3, MnMajor, ((2,32,2),(8,1,2,1)):((1,2,64),(64,3,512,3)))
            );
        // Both kinds are there.
        assert!(
            refused >= n / 3 && refused <= 2 * n / 3,
            "{refused} of {n} refused"
        );
    }
}
