//! Typed `right_inverse` of a static layout: coalesce, then follow the
//! strides from 1: each step takes the mode whose stride is the product
//! reached so far (the largest such mode, the last of equals, as CuTe 4.7
//! picks), until no mode continues the chain.

use super::coalesce::Coalesce;
use crate::layout::compact::Compact;
use crate::layout::{Congruent, Layout};
use crate::typelevel::arith::DivRem;
use crate::typelevel::form::{Either, StaticFormU};
use crate::typelevel::int::{
    ConstForm, Int, StaticInt, StaticOneTag, StaticZeroTag, TypenumForm, C, S,
};
use crate::typelevel::list::{Found, NotFound, PickNew, Push, SortFrom};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil};
use core::ops::Not;
use core::ops::{BitAnd, Mul};
use typenum::{And, Bit, IsEqual, IsGreaterOrEqual, Prod, Unsigned, B0, B1, U0, U1};

/// Zip three lists of leaves into a list of triples.
#[doc(hidden)]
pub trait Zip3<B, C3> {
    type Out: List;
}
impl Zip3<Nil, Nil> for Nil {
    type Out = Nil;
}
impl<AH, AT: Zip3<BT, CT>, BH, BT, CH, CT> Zip3<Cons<BH, BT>, Cons<CH, CT>> for Cons<AH, AT>
where
    (AH, BH, CH): Copy + Send + Sync + 'static,
{
    type Out = Cons<(AH, BH, CH), AT::Out>;
}

/// `B1`: the triple matches; keep the larger shape (ties: the later one).
#[doc(hidden)]
pub trait Better<T> {
    type Out;
}
impl<T> Better<T> for NotFound {
    type Out = Found<T>;
}
impl<SO: StaticInt, DO, RO, SN: StaticInt, DN, RN> Better<(SN, DN, RN)> for Found<(SO, DO, RO)>
where
    SN::U: IsGreaterOrEqual<SO::U>,
    <SN::U as IsGreaterOrEqual<SO::U>>::Output: PickNew<(SN, DN, RN), (SO, DO, RO)>,
{
    type Out =
        <<SN::U as IsGreaterOrEqual<SO::U>>::Output as PickNew<(SN, DN, RN), (SO, DO, RO)>>::Out;
}
/// Tag dispatch: `B1` (stride matches) asks [`Better`], `B0` keeps the candidate.
#[doc(hidden)]
pub trait MatchTag<Acc, T> {
    type Out;
}
impl<Acc: Better<T>, T> MatchTag<Acc, T> for B1 {
    type Out = Acc::Out;
}
impl<Acc, T> MatchTag<Acc, T> for B0 {
    type Out = Acc;
}

/// Search a triple list for the best mode with stride `X`.
#[doc(hidden)]
pub trait Find<X, Acc> {
    type Out;
}
impl<X, Acc> Find<X, Acc> for Nil {
    type Out = Acc;
}
impl<X, Acc, SH, DH: StrideIs<X>, RH, T> Find<X, Acc> for Cons<(SH, DH, RH), T>
where
    DH::Tag: MatchTag<Acc, (SH, DH, RH)>,
    T: Find<X, <DH::Tag as MatchTag<Acc, (SH, DH, RH)>>::Out>,
{
    type Out = <T as Find<X, <DH::Tag as MatchTag<Acc, (SH, DH, RH)>>::Out>>::Out;
}
/// `B1` when a stride leaf is statically `X`; dynamic strides never match (as in CuTe).
#[doc(hidden)]
pub trait StrideIs<X> {
    type Tag: Bit;
}
impl<X> StrideIs<X> for usize {
    type Tag = B0;
}
impl<X, const N: usize> StrideIs<X> for C<N>
where
    C<N>: StaticInt,
    <C<N> as StaticInt>::U: IsEqual<X>,
    <<C<N> as StaticInt>::U as IsEqual<X>>::Output: Bit,
{
    type Tag = <<C<N> as StaticInt>::U as IsEqual<X>>::Output;
}
impl<X, U: Unsigned + IsEqual<X> + 'static> StrideIs<X> for S<U>
where
    <U as IsEqual<X>>::Output: Bit,
{
    type Tag = <U as IsEqual<X>>::Output;
}

/// Follow the chain from stride `X`, collecting (shape, compact stride).
#[doc(hidden)]
pub trait Chain<X, Acc> {
    type Out;
}
impl<L: Find<X, NotFound>, X, Acc> Chain<X, Acc> for L
where
    <L as Find<X, NotFound>>::Out: Continue<L, Acc>,
{
    type Out = <<L as Find<X, NotFound>>::Out as Continue<L, Acc>>::Out;
}
#[doc(hidden)]
pub trait Continue<L, Acc> {
    type Out;
}
impl<L, Acc> Continue<L, Acc> for NotFound {
    type Out = Acc;
}
impl<L, Acc, SF: StaticInt, DF: StaticInt, RF> Continue<L, Acc> for Found<(SF, DF, RF)>
where
    SF::U: Mul<DF::U>,
    Acc: Push<(SF, RF)>,
    L: Chain<Prod<SF::U, DF::U>, <Acc as Push<(SF, RF)>>::Out>,
{
    type Out = <L as Chain<Prod<SF::U, DF::U>, <Acc as Push<(SF, RF)>>::Out>>::Out;
}

/// The collected modes as a layout: empty -> `_1:_0`, one -> an integer layout.
#[doc(hidden)]
pub trait Assemble {
    type Shape: IntTuple + Default;
    type Stride: IntTuple + Default;
    type Layout;
}
impl Assemble for Nil {
    type Shape = C<1>;
    type Stride = C<0>;
    type Layout = Layout<C<1>, C<0>>;
}
impl<SH: IntTuple + Default + Congruent<RH>, RH: IntTuple + Default> Assemble
    for Cons<(SH, RH), Nil>
{
    type Shape = SH;
    type Stride = RH;
    type Layout = Layout<SH, RH>;
}
impl<SH, RH, X, T> Assemble for Cons<(SH, RH), Cons<X, T>>
where
    Cons<(SH, RH), Cons<X, T>>: crate::typelevel::list::Unzip,
    <Cons<(SH, RH), Cons<X, T>> as crate::typelevel::list::Unzip>::A: IntoTuple,
    <Cons<(SH, RH), Cons<X, T>> as crate::typelevel::list::Unzip>::B: IntoTuple,
    <<Cons<(SH, RH), Cons<X, T>> as crate::typelevel::list::Unzip>::A as IntoTuple>::Tuple:
        IntTuple + Default,
    <<Cons<(SH, RH), Cons<X, T>> as crate::typelevel::list::Unzip>::B as IntoTuple>::Tuple:
        IntTuple + Default,
{
    type Shape =
        <<Cons<(SH, RH), Cons<X, T>> as crate::typelevel::list::Unzip>::A as IntoTuple>::Tuple;
    type Stride =
        <<Cons<(SH, RH), Cons<X, T>> as crate::typelevel::list::Unzip>::B as IntoTuple>::Tuple;
    type Layout = Layout<Self::Shape, Self::Stride>;
}

/// The chain of a coalesced static layout `F`.
#[doc(hidden)]
pub type ChainOf<F> = <<<F as Flat>::Leaves as Zip3<
    <F as Flat>::StrideLeaves,
    <F as Flat>::RLeaves,
>>::Out as Chain<U1, Nil>>::Out;

/// Leaves of a layout and of its compact column-major strides.
#[doc(hidden)]
pub trait Flat {
    type Leaves;
    type StrideLeaves;
    type RLeaves;
}
impl<Sh: Congruent<D> + Compact<C<1>>, D: IntTuple> Flat for Layout<Sh, D> {
    type Leaves = Sh::Leaves;
    type StrideLeaves = D::Leaves;
    type RLeaves = <<Sh as Compact<C<1>>>::Left as IntTuple>::Leaves;
}

/// The type of a static layout's right inverse.
pub trait RightInverse {
    /// `right_inverse(Self)`.
    type Output;
}
impl<Sh, D> RightInverse for Layout<Sh, D>
where
    Sh: Congruent<D>,
    D: IntTuple,
    // Checked by the type checker (`cargo check`): a run-time leaf is
    // reported as `StaticInt`'s message at the caller's tokens.
    Sh::Leaves: StaticLeaves,
    D::Leaves: StaticLeaves,
    Layout<Sh, D>: Coalesce,
    <Layout<Sh, D> as Coalesce>::Output: Flat,
    <<<Layout<Sh, D> as Coalesce>::Output as Flat>::Leaves as Zip3<
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::StrideLeaves,
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::RLeaves,
    >>::Out: Chain<U1, Nil>,
    <<<Layout<Sh, D> as Coalesce>::Output as Flat>::Leaves as Zip3<
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::StrideLeaves,
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::RLeaves,
    >>::Out: List,
    <<Layout<Sh, D> as Coalesce>::Output as Flat>::Leaves: Zip3<
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::StrideLeaves,
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::RLeaves,
    >,
    ChainOf<<Layout<Sh, D> as Coalesce>::Output>: Assemble,
    <ChainOf<<Layout<Sh, D> as Coalesce>::Output> as Assemble>::Shape:
        Congruent<<ChainOf<<Layout<Sh, D> as Coalesce>::Output> as Assemble>::Stride>,
{
    type Output = Layout<
        <ChainOf<<Layout<Sh, D> as Coalesce>::Output> as Assemble>::Shape,
        <ChainOf<<Layout<Sh, D> as Coalesce>::Output> as Assemble>::Stride,
    >;
}

/// CuTe's `right_inverse` of a static layout: `L(R(i)) == i` on R's domain.
///
/// ```
/// use layout_core::{algebra::right_inverse, layout};
/// assert_eq!(right_inverse(layout!((4,8):(8,1))).to_string(), "(_8,_4):(_4,_1)");
/// assert_eq!(right_inverse(layout!((2,(2,2)):(4,(2,1)))).to_string(), "(_2,_2,_2):(_4,_2,_1)");
/// ```
pub fn right_inverse<Sh, D>(l: Layout<Sh, D>) -> <Layout<Sh, D> as RightInverse>::Output
where
    Sh: Congruent<D>,
    D: IntTuple,
    Layout<Sh, D>: RightInverse,
    <Layout<Sh, D> as RightInverse>::Output: Default,
{
    const {
        assert!(
            Layout::<Sh, D>::IS_STATIC,
            "the typed right_inverse needs a static layout (use DynLayout for run-time strides)"
        )
    };
    let _ = l;
    Default::default()
}

/// Every leaf of a list is static (`C<N>` or `S<U>`): a `usize` fails
/// [`StaticLeafOf`], whose message says a run-time leaf reached a typed
/// inverse.
#[doc(hidden)]
pub trait StaticLeaves {}
impl StaticLeaves for Nil {}
impl<H, T: StaticLeaves> StaticLeaves for Cons<H, T> where (): StaticLeafOf<H> {}

/// [`StaticLeaves`]'s test of one leaf `H` (`C<N>` or `S<U>`): a refusal
/// names the leaf and the typed inverses.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{H}` is a run-time integer in a layout given to a typed inverse",
    label = "the typed right_inverse and left_inverse need static layouts",
    note = "write the leaf as a literal in `layout!`, or use DynLayout's inverses, which take run-time leaves"
)]
pub trait StaticLeafOf<H> {}
impl<const N: usize> StaticLeafOf<C<N>> for () where C<N>: StaticInt {}
impl<U> StaticLeafOf<S<U>> for () where S<U>: StaticInt {}

/// `left_inverse`'s condition on two consecutive modes of the sorted,
/// coalesced layout, `_M:_A` and a mode of stride `_B`: `B` a multiple of
/// `A` with `B / A >= M` (the quotient is the inverse's mode). Decided by
/// the type checker for `C<N>` leaves.
///
/// ```
/// use layout_core::{algebra::left_inverse, layout};
/// // Sorted: _4:_1, then stride 4 = 4 * 1: the modes stack.
/// assert_eq!(left_inverse(layout!((2,4):(4,1))).to_string(), "(_4,_2):(_2,_1)");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::left_inverse, layout};
/// // error: left_inverse: no layout inverts this one: sorted by stride,
/// // its mode _3:_2 is followed by the stride _3
/// let _ = left_inverse(layout!((3,2):(2,3)));
/// ```
#[diagnostic::on_unimplemented(
    message = "left_inverse: no layout inverts this one: sorted by stride, its mode _{M}:_{A} is followed by the stride _{B}",
    label = "a left inverse needs each stride a multiple of the one below it and past that mode's extent (_{B} >= _{M}*_{A})"
)]
pub trait LeftInverseStep<const M: usize, const A: usize, const B: usize> {
    /// `B / A`.
    type Q: Unsigned + 'static;
}
#[diagnostic::do_not_recommend]
impl<const M: usize, const A: usize, const B: usize> LeftInverseStep<M, A, B> for ()
where
    C<M>: TypenumForm,
    C<A>: TypenumForm,
    C<B>: TypenumForm,
    // No impl for a divisor 0: a stride 0 is refused here too.
    <C<B> as TypenumForm>::U: DivRem<<C<A> as TypenumForm>::U>,
    <<C<B> as TypenumForm>::U as DivRem<<C<A> as TypenumForm>::U>>::R: IsEqual<U0, Output = B1>,
    <<C<B> as TypenumForm>::U as DivRem<<C<A> as TypenumForm>::U>>::Q:
        IsGreaterOrEqual<<C<M> as TypenumForm>::U, Output = B1> + 'static,
{
    type Q = <<C<B> as TypenumForm>::U as DivRem<<C<A> as TypenumForm>::U>>::Q;
}

/// A sorted mode's shape `Self`, its stride `D0` and the next stride `D1`
/// against [`LeftInverseStep`], with `DivRem`'s quotient: `C<N>` leaves as
/// values, a computed `S<U>` leaf as a typenum ([`StepU`], its value
/// printed only when refused).
#[doc(hidden)]
pub trait StepOf<D0, D1> {
    type Q: Unsigned + 'static;
}
impl<const M: usize, D0: StepStride<M, D1>, D1> StepOf<D0, D1> for C<M> {
    type Q = D0::Q;
}
impl<U: StepU<D0::U, D1::U>, D0: StaticInt, D1: StaticInt> StepOf<D0, D1> for S<U> {
    type Q = U::Q;
}
impl<D0: StaticInt, D1: StaticInt> StepOf<D0, D1> for usize
where
    D1::U: DivRem<D0::U>,
    <D1::U as DivRem<D0::U>>::Q: 'static,
{
    type Q = <D1::U as DivRem<D0::U>>::Q;
}
/// [`StepOf`] on the stride `Self`.
#[doc(hidden)]
pub trait StepStride<const M: usize, D1> {
    type Q: Unsigned + 'static;
}
impl<const M: usize, const A: usize, D1: StepNext<M, A>> StepStride<M, D1> for C<A> {
    type Q = D1::Q;
}
impl<const M: usize, U: Unsigned, D1: StaticInt> StepStride<M, D1> for S<U>
where
    C<M>: TypenumForm,
    <C<M> as TypenumForm>::U: StepU<U, D1::U>,
{
    type Q = <<C<M> as TypenumForm>::U as StepU<U, D1::U>>::Q;
}
/// [`StepOf`] on the next stride `Self`.
#[doc(hidden)]
pub trait StepNext<const M: usize, const A: usize> {
    type Q: Unsigned + 'static;
}
impl<const M: usize, const A: usize, const B: usize> StepNext<M, A> for C<B>
where
    (): LeftInverseStep<M, A, B>,
{
    type Q = <() as LeftInverseStep<M, A, B>>::Q;
}
impl<const M: usize, const A: usize, U> StepNext<M, A> for S<U>
where
    C<M>: TypenumForm,
    C<A>: TypenumForm,
    <C<M> as TypenumForm>::U: StepU<<C<A> as TypenumForm>::U, U>,
{
    type Q = <<C<M> as TypenumForm>::U as StepU<<C<A> as TypenumForm>::U, U>>::Q;
}
/// [`LeftInverseStep`] on typenums: the mode `Self:UA` followed by the
/// stride `UB` (`UB / UA` is whole and at least `Self`).
#[doc(hidden)]
pub trait StepU<UA, UB> {
    /// `UB / UA`.
    type Q: Unsigned + 'static;
}
impl<UM, UA, UB> StepU<UA, UB> for UM
where
    UB: DivRem<UA>,
    <UB as DivRem<UA>>::R: IsEqual<U0>,
    <UB as DivRem<UA>>::Q: IsGreaterOrEqual<UM>,
    <<UB as DivRem<UA>>::R as IsEqual<U0>>::Output:
        BitAnd<<<UB as DivRem<UA>>::Q as IsGreaterOrEqual<UM>>::Output>,
    And<
        <<UB as DivRem<UA>>::R as IsEqual<U0>>::Output,
        <<UB as DivRem<UA>>::Q as IsGreaterOrEqual<UM>>::Output,
    >: StepOr<UM, UA, UB>,
    <UB as DivRem<UA>>::Q: 'static,
{
    type Q = <UB as DivRem<UA>>::Q;
}
/// `B1`: the step holds; `B0`: [`LeftInverseStep`]'s refusal, the values
/// printed.
#[doc(hidden)]
pub trait StepOr<UM, UA, UB> {}
impl<UM, UA, UB> StepOr<UM, UA, UB> for B1 {}
impl<UM, UA, UB, const M: usize, const A: usize, const B: usize> StepOr<UM, UA, UB> for B0
where
    UM: ConstForm<C = C<M>>,
    UA: ConstForm<C = C<A>>,
    UB: ConstForm<C = C<B>>,
    (): LeftInverseStep<M, A, B>,
{
}
/// `left_inverse`'s injectivity, on the modes of the coalesced layout
/// (sorting keeps one mode per stride and skips stride 0, so it is checked
/// before): a mode `_M:_0` (`M > 1`) is never injective.
///
/// ```
/// use layout_core::{algebra::left_inverse, layout};
/// // Size 1: stride 0 maps its one coordinate to 0, and back.
/// assert_eq!(left_inverse(layout!((1):(0))).to_string(), "_1:_0");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::left_inverse, layout};
/// // error: left_inverse: the layout's mode _2:_0 has stride 0, so the
/// // layout is not injective
/// let _ = left_inverse(layout!((2,4):(0,1)));
/// ```
#[diagnostic::on_unimplemented(
    message = "left_inverse: the layout's mode _{M}:_{A} has stride 0, so the layout is not injective",
    label = "a left inverse needs an injective layout"
)]
pub trait LeftInverseZero<const M: usize, const A: usize> {}
#[diagnostic::do_not_recommend]
impl<const M: usize, const A: usize> LeftInverseZero<M, A> for ()
where
    C<M>: TypenumForm,
    C<A>: TypenumForm,
    <<C<A> as TypenumForm>::U as StaticZeroTag>::IsZero: Not,
    (
        <<<C<A> as TypenumForm>::U as StaticZeroTag>::IsZero as Not>::Output,
        <<C<M> as TypenumForm>::U as StaticOneTag>::IsOne,
    ): Either<Out = B1>,
{
}
/// `left_inverse`'s injectivity: two modes of the coalesced layout with
/// the same stride `_A` overlap.
///
/// ```
/// use layout_core::{algebra::left_inverse, layout};
/// assert_eq!(left_inverse(layout!((2,2):(1,2))).to_string(), "_4:_1");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::left_inverse, layout};
/// // error: left_inverse: two modes of the layout have the stride _1, so
/// // the layout is not injective
/// let _ = left_inverse(layout!((2,2):(1,1)));
/// ```
#[diagnostic::on_unimplemented(
    message = "left_inverse: two modes of the layout have the stride _{A}, so the layout is not injective",
    label = "a left inverse needs an injective layout"
)]
pub trait LeftInverseDistinct<const A: usize, const B: usize> {}
#[diagnostic::do_not_recommend]
impl<const A: usize, const B: usize> LeftInverseDistinct<A, B> for ()
where
    C<A>: TypenumForm,
    C<B>: TypenumForm,
    <C<A> as TypenumForm>::U: IsEqual<<C<B> as TypenumForm>::U, Output = B0>,
{
}

/// The modes `Self` (`(shape, stride, _)`) of a coalesced layout are
/// injective as far as [`LeftInverseZero`] and [`LeftInverseDistinct`] tell
/// (`C<N>` leaves as values, computed `S<U>` leaves as typenums; a
/// run-time leaf: `StaticInt`'s bound; [`Quotients::OK`] checks again after
/// monomorphisation).
#[doc(hidden)]
pub trait Injective {
    /// `Self`. The sort takes its list through this projection, so that a
    /// refusal is reported while the call's types are normalized, without
    /// a note on `left_inverse`'s where-clause (8 lines shorter).
    type Checked;
    /// Whether the static leaves pass both checks (the check after
    /// monomorphisation, which the type checker's makes unreachable).
    const OK: bool;
}
impl Injective for Nil {
    type Checked = Nil;
    const OK: bool = true;
}
impl<SH: Int, DH: Int + ZeroStride<SH> + DistinctStrides<T>, RH, T: Injective> Injective
    for Cons<(SH, DH, RH), T>
{
    type Checked = Self;
    const OK: bool = match (SH::STATIC, DH::STATIC) {
        (Some(s), Some(d)) => d != 0 || s == 1,
        _ => true,
    } && <DH as DistinctStrides<T>>::OK
        && T::OK;
}
/// The stride `Self` of a mode of shape `Sh`.
#[doc(hidden)]
pub trait ZeroStride<Sh> {}
impl<const A: usize, Sh: ZeroStrideShape<A>> ZeroStride<Sh> for C<A> {}
impl<U, Sh: ZeroShapeU<U>> ZeroStride<Sh> for S<U> {}
impl<Sh> ZeroStride<Sh> for usize {}
/// [`ZeroStride`] on the shape `Self`.
#[doc(hidden)]
pub trait ZeroStrideShape<const A: usize> {}
impl<const A: usize, const M: usize> ZeroStrideShape<A> for C<M> where (): LeftInverseZero<M, A> {}
impl<const A: usize, U> ZeroStrideShape<A> for S<U>
where
    C<A>: TypenumForm,
    (): ZeroU<U, <C<A> as TypenumForm>::U>,
{
}
impl<const A: usize> ZeroStrideShape<A> for usize {}
/// The shape `Self` of a mode whose stride is the computed `UD`.
#[doc(hidden)]
pub trait ZeroShapeU<UD> {}
impl<UD> ZeroShapeU<UD> for usize {}
impl<UD, const M: usize> ZeroShapeU<UD> for C<M>
where
    C<M>: TypenumForm,
    (): ZeroU<<C<M> as TypenumForm>::U, UD>,
{
}
impl<UD, U> ZeroShapeU<UD> for S<U> where (): ZeroU<U, UD> {}
/// [`LeftInverseZero`] on typenums: the mode `UM:UD` has a stride other
/// than 0, or size 1.
#[doc(hidden)]
pub trait ZeroU<UM, UD> {}
impl<UM: StaticOneTag, UD: StaticZeroTag> ZeroU<UM, UD> for ()
where
    UD::IsZero: Not,
    (<UD::IsZero as Not>::Output, UM::IsOne): Either,
    <(<UD::IsZero as Not>::Output, UM::IsOne) as Either>::Out: ZeroStrideOr<UM, UD>,
{
}
/// `B1`: holds; `B0`: [`LeftInverseZero`]'s refusal, the values printed.
#[doc(hidden)]
pub trait ZeroStrideOr<UM, UD> {}
impl<UM, UD> ZeroStrideOr<UM, UD> for B1 {}
impl<UM: ConstForm<C = C<M>>, UD: ConstForm<C = C<A>>, const M: usize, const A: usize>
    ZeroStrideOr<UM, UD> for B0
where
    (): LeftInverseZero<M, A>,
{
}
/// The stride `Self` against the strides of the later modes `T`.
#[doc(hidden)]
pub trait DistinctStrides<T> {
    /// Whether no static stride of `T` equals a static `Self`.
    const OK: bool;
}
impl<X> DistinctStrides<Nil> for X {
    const OK: bool = true;
}
impl<X: Int + DistinctStride<D>, S0, D: Int, R, T> DistinctStrides<Cons<(S0, D, R), T>> for X
where
    X: DistinctStrides<T>,
{
    const OK: bool = match (X::STATIC, D::STATIC) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    } && <X as DistinctStrides<T>>::OK;
}
/// Two strides, `Self` and `D`, differ.
#[doc(hidden)]
pub trait DistinctStride<D> {}
impl<const A: usize, D: DistinctFromC<A>> DistinctStride<D> for C<A> {}
impl<U, D: DistinctFromU<U>> DistinctStride<D> for S<U> {}
impl<D> DistinctStride<D> for usize {}
/// [`DistinctStride`] on the second stride `Self`.
#[doc(hidden)]
pub trait DistinctFromC<const A: usize> {}
impl<const A: usize, const B: usize> DistinctFromC<A> for C<B> where (): LeftInverseDistinct<A, B> {}
impl<const A: usize, U> DistinctFromC<A> for S<U>
where
    C<A>: TypenumForm,
    (): DistinctU<<C<A> as TypenumForm>::U, U>,
{
}
/// The second stride `Self` against a computed first one, `UA`.
#[doc(hidden)]
pub trait DistinctFromU<UA> {}
impl<UA> DistinctFromU<UA> for usize {}
impl<UA, const B: usize> DistinctFromU<UA> for C<B>
where
    C<B>: TypenumForm,
    (): DistinctU<UA, <C<B> as TypenumForm>::U>,
{
}
impl<UA, U> DistinctFromU<UA> for S<U> where (): DistinctU<UA, U> {}
/// [`LeftInverseDistinct`] on typenums: `UA` and `UB` differ.
#[doc(hidden)]
pub trait DistinctU<UA, UB> {}
impl<UA: IsEqual<UB>, UB> DistinctU<UA, UB> for () where
    <UA as IsEqual<UB>>::Output: DistinctOr<UA, UB>
{
}
/// `B0` (not equal): holds; `B1`: [`LeftInverseDistinct`]'s refusal, the
/// values printed.
#[doc(hidden)]
pub trait DistinctOr<UA, UB> {}
impl<UA, UB> DistinctOr<UA, UB> for B0 {}
impl<UA: ConstForm<C = C<A>>, UB: ConstForm<C = C<B>>, const A: usize, const B: usize>
    DistinctOr<UA, UB> for B1
where
    (): LeftInverseDistinct<A, B>,
{
}
impl<const A: usize> DistinctFromC<A> for usize {}

/// Shapes from consecutive strides (`d_next / d`), the last mode's own shape,
/// and each mode's compact stride; `OK` checks divisibility and injectivity
/// (for `C<N>` leaves the type checker has checked it already:
/// [`LeftInverseStep`]).
#[doc(hidden)]
pub trait Quotients {
    type Out: List;
    const OK: bool;
}
impl Quotients for Nil {
    type Out = Nil;
    const OK: bool = true;
}
impl<S0: Copy + Send + Sync + 'static, D0: StaticInt, R0: Copy + Send + Sync + 'static> Quotients
    for Cons<(S0, D0, R0), Nil>
where
    S0: StaticInt,
{
    type Out = Cons<(S0, R0), Nil>;
    const OK: bool = D0::VALUE != 0;
}
impl<S0, D0: StaticInt, R0: Copy + Send + Sync + 'static, S1, D1: StaticInt, R1, T> Quotients
    for Cons<(S0, D0, R0), Cons<(S1, D1, R1), T>>
where
    S0: StaticInt + StepOf<D0, D1>,
    Cons<(S1, D1, R1), T>: Quotients,
{
    type Out = Cons<(S<<S0 as StepOf<D0, D1>>::Q>, R0), <Cons<(S1, D1, R1), T> as Quotients>::Out>;
    const OK: bool = D0::VALUE != 0
        && D1::VALUE % D0::VALUE == 0
        && D1::VALUE / D0::VALUE >= S0::VALUE
        && <Cons<(S1, D1, R1), T> as Quotients>::OK;
}

/// A leading `(d0 : _0)` mode when the smallest stride is not 1.
#[doc(hidden)]
pub trait Lead {
    type Out: List;
}
impl Lead for Nil {
    type Out = Nil;
}
impl<S0, D0: StaticInt, R0, T> Lead for Cons<(S0, D0, R0), T>
where
    D0::U: StaticFormU,
    <D0::U as StaticFormU>::IsOne: LeadTag<D0>,
{
    type Out = <<D0::U as StaticFormU>::IsOne as LeadTag<D0>>::Out;
}
#[doc(hidden)]
pub trait LeadTag<D0> {
    type Out: List;
}
impl<D0> LeadTag<D0> for B1 {
    type Out = Nil;
}
impl<D0: Copy + Send + Sync + 'static> LeadTag<D0> for B0 {
    type Out = Cons<(D0, C<0>), Nil>;
}

/// The sorted modes of a coalesced static layout `F`, once [`Injective`]
/// (the sort skips stride 0 and keeps one mode per stride).
#[doc(hidden)]
pub type SortedOf<F> = <<<<F as Flat>::Leaves as Zip3<
    <F as Flat>::StrideLeaves,
    <F as Flat>::RLeaves,
>>::Out as Injective>::Checked as SortFrom<typenum::U0, Nil>>::Out;

/// The left inverse's modes before its final coalesce.
#[doc(hidden)]
pub type LeftModes<F> = <<SortedOf<F> as Lead>::Out as crate::typelevel::tuple::Concat<
    <SortedOf<F> as Quotients>::Out,
>>::Out;

/// CuTe's `left_inverse` of a static injective layout: `R(L(i)) == i` for
/// every i in L's domain. Strides that do not divide each other when sorted,
/// or modes that overlap, are compile errors.
///
/// ```
/// use layout_core::{algebra::left_inverse, layout};
/// assert_eq!(left_inverse(layout!((4,8):(16,1))).to_string(), "(_16,_4):(_4,_1)");
/// assert_eq!(left_inverse(layout!((2,3,2,2):(6,1,12,72))).to_string(), "(_6,_2,_6,_2):(_2,_1,_6,_12)");
/// ```
#[allow(clippy::type_complexity)]
pub fn left_inverse<Sh, D>(
    l: Layout<Sh, D>,
) -> <<LeftModes<<Layout<Sh, D> as Coalesce>::Output> as Assemble>::Layout as Coalesce>::Output
where
    Sh: Congruent<D>,
    D: IntTuple,
    Layout<Sh, D>: Coalesce,
    <Layout<Sh, D> as Coalesce>::Output: Flat,
    <<Layout<Sh, D> as Coalesce>::Output as Flat>::Leaves: Zip3<
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::StrideLeaves,
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::RLeaves,
    >,
    <<<Layout<Sh, D> as Coalesce>::Output as Flat>::Leaves as Zip3<
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::StrideLeaves,
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::RLeaves,
    >>::Out: Injective,
    <<<<Layout<Sh, D> as Coalesce>::Output as Flat>::Leaves as Zip3<
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::StrideLeaves,
        <<Layout<Sh, D> as Coalesce>::Output as Flat>::RLeaves,
    >>::Out as Injective>::Checked: SortFrom<typenum::U0, Nil>,
    SortedOf<<Layout<Sh, D> as Coalesce>::Output>: Lead + Quotients,
    <SortedOf<<Layout<Sh, D> as Coalesce>::Output> as Lead>::Out: crate::typelevel::tuple::Concat<
        <SortedOf<<Layout<Sh, D> as Coalesce>::Output> as Quotients>::Out,
    >,
    LeftModes<<Layout<Sh, D> as Coalesce>::Output>: Assemble,
    <LeftModes<<Layout<Sh, D> as Coalesce>::Output> as Assemble>::Layout: Coalesce,
    <<LeftModes<<Layout<Sh, D> as Coalesce>::Output> as Assemble>::Layout as Coalesce>::Output:
        Default,
{
    const {
        assert!(
            Layout::<Sh, D>::IS_STATIC,
            "the typed left_inverse needs a static layout (use DynLayout otherwise)"
        );
        assert!(
            <<<<Layout<Sh, D> as Coalesce>::Output as Flat>::Leaves as Zip3<
                <<Layout<Sh, D> as Coalesce>::Output as Flat>::StrideLeaves,
                <<Layout<Sh, D> as Coalesce>::Output as Flat>::RLeaves,
            >>::Out as Injective>::OK
                && <SortedOf<<Layout<Sh, D> as Coalesce>::Output> as Quotients>::OK,
            "left_inverse: the layout is not injective, or its strides do not divide each other when sorted"
        );
    };
    let _ = l;
    Default::default()
}
