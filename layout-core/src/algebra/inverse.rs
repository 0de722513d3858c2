//! Typed `right_inverse` of a static layout: coalesce, then follow the
//! strides from 1: each step takes the mode whose stride is the product
//! reached so far (the largest such mode, the last of equals, as CuTe 4.7
//! picks), until no mode continues the chain.

use super::coalesce::Coalesce;
use crate::layout::compact::Compact;
use crate::layout::{Congruent, Layout};
use crate::typelevel::form::StaticFormU;
use crate::typelevel::int::{StaticInt, C, S};
use crate::typelevel::list::{Found, NotFound, PickNew, Push, SortFrom};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil};
use core::ops::Mul;
use typenum::{Bit, IsEqual, IsGreaterOrEqual, Prod, Unsigned, B0, B1, U1};

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

/// Shapes from consecutive strides (`d_next / d`), the last mode's own shape,
/// and each mode's compact stride; `OK` checks divisibility and injectivity.
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
    S0: crate::typelevel::int::Int,
{
    type Out = Cons<(S0, R0), Nil>;
    const OK: bool = D0::VALUE != 0;
}
impl<S0, D0: StaticInt, R0: Copy + Send + Sync + 'static, S1, D1: StaticInt, R1, T> Quotients
    for Cons<(S0, D0, R0), Cons<(S1, D1, R1), T>>
where
    S0: StaticInt,
    D1::U: crate::typelevel::arith::DivRem<D0::U>,
    <D1::U as crate::typelevel::arith::DivRem<D0::U>>::Q: Unsigned + 'static,
    Cons<(S1, D1, R1), T>: Quotients,
{
    type Out = Cons<
        (S<<D1::U as crate::typelevel::arith::DivRem<D0::U>>::Q>, R0),
        <Cons<(S1, D1, R1), T> as Quotients>::Out,
    >;
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

/// The sorted modes of a coalesced static layout `F`.
#[doc(hidden)]
pub type SortedOf<F> = <<<F as Flat>::Leaves as Zip3<
    <F as Flat>::StrideLeaves,
    <F as Flat>::RLeaves,
>>::Out as SortFrom<typenum::U0, Nil>>::Out;

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
    >>::Out: SortFrom<typenum::U0, Nil>,
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
            <SortedOf<<Layout<Sh, D> as Coalesce>::Output> as Quotients>::OK,
            "left_inverse: the layout is not injective, or its strides do not divide each other when sorted"
        );
    };
    let _ = l;
    Default::default()
}
