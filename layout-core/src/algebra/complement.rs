//! Typed `complement(A, M)`, CuTe 4.7's algorithm at the type level:
//! filter A, sort its modes by stride, take the quotients of consecutive
//! strides as the gaps to fill, then cover the rest of `M` with compact
//! strides from `d_last * s_last`, and coalesce.
//!
//! The fold computes the result type and the values of its run-time leaves
//! (no allocation). When `filter(A)` is one mode and the cotarget an
//! integer (every product, and A of any compact layout) the fold's result
//! is written in closed form ([`OneModeLeaf`]): the same types and values
//! for far less trait solving. For static inputs the definition is checked at compile
//! time: by the type checker in `complement`/`try_complement` where A's leaves are
//! `C<N>` ([`ComplementNotStacking`], [`ComplementGap`]), and for every static input
//! after monomorphisation ([`crate::algebra::admissible::check_complement`]); with
//! run-time leaves on the values.

use super::coalesce::Coalesce;
use super::filter::FilterZerosShape;
use crate::layout::LayoutParts as _;
use crate::typelevel::arith::{CeilDivT, DivT, LCeilDiv, LDiv, LMul, Leaf, MulT};
use crate::typelevel::form::Known;
use crate::typelevel::form::SameBit;
use crate::typelevel::form::StTag;
use crate::typelevel::list::{CeilDivShape, Pack, Push, Reverse, Sorted};
use crate::typelevel::tuple::AllStatic2;

use super::admits::{Admitted, Cf, Holds};
use crate::layout::compact::Compact;
use crate::layout::{Congruent, Layout};
use crate::typelevel::arith::DivRem;
use crate::typelevel::const_text::Text;
use crate::typelevel::form::{Both, StaticForm};
use crate::typelevel::int::{ConstForm, StaticInt, C};
use crate::typelevel::list::SizeT;
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, Nil};
use core::ops::{Add, Mul, Not};
use typenum::{Bit, IsEqual, IsGreater, Prod, Sum, B0, B1, U0, U1};

/// Zip two lists into a list of `(a, b, ())` triples (the sort's input form).
#[doc(hidden)]
pub trait Zip<B> {
    type Out: Copy + TripleAt;
    fn zip(self, b: B) -> Self::Out;
}
impl Zip<Nil> for Nil {
    type Out = Nil;
    #[inline(always)]
    fn zip(self, _b: Nil) -> Nil {
        Nil
    }
}
impl<AH: crate::typelevel::int::Int, AT: Zip<BT>, BH: crate::typelevel::int::Int, BT>
    Zip<Cons<BH, BT>> for Cons<AH, AT>
{
    type Out = Cons<(AH, BH, ()), AT::Out>;
    #[inline(always)]
    fn zip(self, b: Cons<BH, BT>) -> Self::Out {
        Cons((self.0, b.0, ()), self.1.zip(b.1))
    }
}

/// CuTe's `coalesce(shape)`: neighbours that are both static or both
/// run-time multiply together. `Self` is the leaf list, `Acc` the result
/// so far, last leaf first.
#[doc(hidden)]
pub trait CoalesceShapeList<Acc> {
    type Out;
    fn coalesce_shape(self, acc: Acc) -> Option<Self::Out>;
}
impl<Acc: Reverse> CoalesceShapeList<Acc> for Nil {
    type Out = Acc::Out;
    #[inline(always)]
    fn coalesce_shape(self, acc: Acc) -> Option<Acc::Out> {
        Some(acc.reverse())
    }
}
impl<X, T: CoalesceShapeList<Cons<X, Nil>>> CoalesceShapeList<Nil> for Cons<X, T> {
    type Out = T::Out;
    #[inline(always)]
    fn coalesce_shape(self, _acc: Nil) -> Option<T::Out> {
        self.1.coalesce_shape(Cons(self.0, Nil))
    }
}
impl<X: Leaf, T, P: Leaf, R> CoalesceShapeList<Cons<P, R>> for Cons<X, T>
where
    <X::Form as StTag>::St: Bit,
    X::Form: StTag,
    P::Form: StTag,
    (<X::Form as StTag>::St, <P::Form as StTag>::St): SameBit,
    <(<X::Form as StTag>::St, <P::Form as StTag>::St) as SameBit>::Out: MergeShape<X, T, P, R>,
{
    type Out = <<(<X::Form as StTag>::St, <P::Form as StTag>::St) as SameBit>::Out as MergeShape<
        X,
        T,
        P,
        R,
    >>::Out;
    #[inline(always)]
    fn coalesce_shape(self, acc: Cons<P, R>) -> Option<Self::Out> {
        <<(<X::Form as StTag>::St, <P::Form as StTag>::St) as SameBit>::Out as MergeShape<
            X,
            T,
            P,
            R,
        >>::go(self.0, self.1, acc)
    }
}
#[doc(hidden)]
pub trait MergeShape<X, T, P, R> {
    type Out;
    fn go(x: X, t: T, acc: Cons<P, R>) -> Option<Self::Out>;
}
impl<X, T, P, R> MergeShape<X, T, P, R> for B1
where
    (P, X): LMul,
    T: CoalesceShapeList<Cons<MulT<P, X>, R>>,
{
    type Out = <T as CoalesceShapeList<Cons<MulT<P, X>, R>>>::Out;
    #[inline(always)]
    fn go(x: X, t: T, acc: Cons<P, R>) -> Option<Self::Out> {
        t.coalesce_shape(Cons((acc.0, x).value()?, acc.1))
    }
}
impl<X, T, P, R> MergeShape<X, T, P, R> for B0
where
    T: CoalesceShapeList<Cons<X, Cons<P, R>>>,
{
    type Out = <T as CoalesceShapeList<Cons<X, Cons<P, R>>>>::Out;
    #[inline(always)]
    fn go(x: X, t: T, acc: Cons<P, R>) -> Option<Self::Out> {
        t.coalesce_shape(Cons(x, acc))
    }
}
/// The coalesced shape of a shape type.
pub type CoalesceShape<T> = <<<T as IntTuple>::Leaves as CoalesceShapeList<Nil>>::Out as Pack>::Out;

/// CuTe's `coalesce(shape)` on values.
#[inline(always)]
fn coalesce_shape<T: IntTuple>(t: T) -> Option<CoalesceShape<T>>
where
    T::Leaves: CoalesceShapeList<Nil>,
    <T::Leaves as CoalesceShapeList<Nil>>::Out: Pack,
{
    Some(t.leaves().coalesce_shape(Nil)?.pack())
}

/// The fold over the modes sorted by stride: quotients of consecutive
/// strides become shapes, `d * s` the next stride.
#[doc(hidden)]
pub trait Gaps<Last, Shs, Sts> {
    /// Shapes.
    type Shapes;
    /// Strides (starting with `_1`).
    type Strides;
    /// `d * s` of the last mode.
    type Next;
    /// The values; a run-time quotient of 0 (a mode inside the span of
    /// the modes below it) is refused, as CuTe refuses a static one.
    #[allow(clippy::type_complexity)]
    fn gaps(
        self,
        last: Last,
        shs: Shs,
        sts: Sts,
    ) -> Result<(Self::Shapes, Self::Strides, Self::Next), crate::Refusal>;
}
impl<S0: Leaf, D0: Leaf, Last: Leaf, Shs: Push<DivT<D0, Last>>, Sts> Gaps<Last, Shs, Sts>
    for Cons<(S0, D0, ()), Nil>
where
    (D0, Last): LDiv,
    (D0, S0): LMul,
{
    type Shapes = Shs::Out;
    type Strides = Sts;
    type Next = MulT<D0, S0>;
    #[inline(always)]
    fn gaps(
        self,
        last: Last,
        shs: Shs,
        sts: Sts,
    ) -> Result<(Self::Shapes, Self::Strides, Self::Next), crate::Refusal> {
        let (s0, d0, ()) = self.0;
        let q = gap(s0, d0, last)?;
        let next = (d0, s0).value().ok_or(crate::Refusal::Arithmetic)?;
        Ok((shs.push(q), sts, next))
    }
}
/// The gap below mode `s:d`, `d / span`; a run-time 0 is refused.
#[inline(always)]
fn gap<S: Leaf, D: Leaf, Last: Leaf>(
    s: S,
    d: D,
    span: Last,
) -> Result<DivT<D, Last>, crate::Refusal>
where
    (D, Last): LDiv,
{
    let q = (d, span).value().ok_or(crate::Refusal::Arithmetic)?;
    if <DivT<D, Last> as crate::typelevel::int::Int>::STATIC.is_none()
        && crate::typelevel::int::Int::value(q) == 0
    {
        return Err(crate::Refusal::Complement(
            crate::error::ComplementError::NotMultiple {
                s: s.value(),
                d: d.value(),
                span: span.value(),
            },
        ));
    }
    Ok(q)
}
impl<S0: Leaf, D0: Leaf, X, R, Last: Leaf, Shs: Push<DivT<D0, Last>>, Sts: Push<MulT<D0, S0>>>
    Gaps<Last, Shs, Sts> for Cons<(S0, D0, ()), Cons<X, R>>
where
    (D0, Last): LDiv,
    (D0, S0): LMul,
    Cons<X, R>: Gaps<MulT<D0, S0>, Shs::Out, Sts::Out>,
{
    type Shapes = <Cons<X, R> as Gaps<MulT<D0, S0>, Shs::Out, Sts::Out>>::Shapes;
    type Strides = <Cons<X, R> as Gaps<MulT<D0, S0>, Shs::Out, Sts::Out>>::Strides;
    type Next = <Cons<X, R> as Gaps<MulT<D0, S0>, Shs::Out, Sts::Out>>::Next;
    #[inline(always)]
    fn gaps(
        self,
        last: Last,
        shs: Shs,
        sts: Sts,
    ) -> Result<(Self::Shapes, Self::Strides, Self::Next), crate::Refusal> {
        let (s0, d0, ()) = self.0;
        let q = gap(s0, d0, last)?;
        let next = (d0, s0).value().ok_or(crate::Refusal::Arithmetic)?;
        self.1.gaps(next, shs.push(q), sts.push(next))
    }
}

/// The modes of `filter(A)` as sort triples.
#[doc(hidden)]
pub trait FilteredModes {
    type Triples: Copy + TripleAt;
    /// `filter(A)`'s modes as values.
    fn triples(self) -> Self::Triples;
}
impl<Sh: Congruent<D> + FilterZerosShape<D>, D: IntTuple> FilteredModes for Layout<Sh, D>
where
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
    Layout<<Sh as FilterZerosShape<D>>::Out, D>: Coalesce,
    <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output: super::LayoutParts,
    <<<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::LayoutParts>::Shape as IntTuple>::Leaves:
        Zip<<<<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::LayoutParts>::Stride as IntTuple>::Leaves>,
{
    type Triples = <<<<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::LayoutParts>::Shape as IntTuple>::Leaves as Zip<
        <<<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::LayoutParts>::Stride as IntTuple>::Leaves,
    >>::Out;
    #[inline(always)]
    fn triples(self) -> Self::Triples {
        let (s, d) = Layout::new(self.shape().filter_zeros_shape(), self.stride())
            .coalesce()
            .parts();
        s.leaves().zip(d.leaves())
    }
}

/// Mode `i` of a list of `(shape, stride, ())` triples, as values.
#[doc(hidden)]
pub trait TripleAt: Copy {
    const LEN: usize;
    const SHAPES: crate::typelevel::const_text::Leaves;
    const STRIDES: crate::typelevel::const_text::Leaves;
    fn at(&self, i: usize) -> (usize, usize);
}
impl TripleAt for Nil {
    const LEN: usize = 0;
    const SHAPES: crate::typelevel::const_text::Leaves =
        crate::typelevel::const_text::Leaves::EMPTY;
    const STRIDES: crate::typelevel::const_text::Leaves =
        crate::typelevel::const_text::Leaves::EMPTY;
    #[inline(always)]
    fn at(&self, _i: usize) -> (usize, usize) {
        (0, 0)
    }
}
impl<S: crate::typelevel::int::Int, D: crate::typelevel::int::Int, R: TripleAt> TripleAt
    for Cons<(S, D, ()), R>
{
    const LEN: usize = 1 + R::LEN;
    const SHAPES: crate::typelevel::const_text::Leaves = S::LEAF_VALUES.concat(R::SHAPES);
    const STRIDES: crate::typelevel::const_text::Leaves = D::LEAF_VALUES.concat(R::STRIDES);
    #[inline(always)]
    fn at(&self, i: usize) -> (usize, usize) {
        if i == 0 {
            ((self.0).0.value(), (self.0).1.value())
        } else {
            self.1.at(i - 1)
        }
    }
}

/// The complement's type, given the filtered modes (`Self`) and the cotarget.
#[doc(hidden)]
pub trait ComplementOf<Cot> {
    /// The complement, one layout type (not a shape and a stride type:
    /// rustc would evaluate the whole fold once for each).
    type Out: super::LayoutParts + super::StaticText + super::StaticResult + Copy;
    /// The values; `None` on overflow or division by 0.
    fn complement_of(self, cot: Cot) -> Result<Self::Out, crate::Refusal>;
}
/// The complement's shape, given the filtered modes `T`.
pub type ComplementShape<T, Cot> = <<T as ComplementOf<Cot>>::Out as super::LayoutParts>::Shape;
/// The complement's stride, given the filtered modes `T`.
pub type ComplementStride<T, Cot> = <<T as ComplementOf<Cot>>::Out as super::LayoutParts>::Stride;
impl<S0, D0: Leaf, X, R, Cot> ComplementOf<Cot> for Cons<(S0, D0, ()), Cons<X, R>>
where
    D0::IsZero: ZeroStrideCase<Cons<(S0, D0, ()), Cons<X, R>>, Cot>,
{
    type Out = <D0::IsZero as ZeroStrideCase<Cons<(S0, D0, ()), Cons<X, R>>, Cot>>::Out;
    #[inline(always)]
    fn complement_of(self, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        <D0::IsZero as ZeroStrideCase<Cons<(S0, D0, ()), Cons<X, R>>, Cot>>::go(self, cot)
    }
}
/// One mode of `filter(A)` (the common case: a compact A coalesces to one
/// mode): a static-0 stride takes the compact cotarget, an integer
/// cotarget the closed form of [`OneModeLeaf`], a tuple the general fold.
impl<S0, D0: Leaf, Cot: IntTuple> ComplementOf<Cot> for Cons<(S0, D0, ()), Nil>
where
    (D0::IsZero, Cot::IsLeaf): OneModeCase<S0, D0, Cot>,
{
    type Out = <(D0::IsZero, Cot::IsLeaf) as OneModeCase<S0, D0, Cot>>::Out;
    #[inline(always)]
    fn complement_of(self, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        <(D0::IsZero, Cot::IsLeaf) as OneModeCase<S0, D0, Cot>>::go(self, cot)
    }
}
/// The complement of one mode `S0:D0` in `Cot`, by (static-0 stride,
/// integer cotarget).
#[doc(hidden)]
pub trait OneModeCase<S0, D0, Cot> {
    type Out: super::LayoutParts + super::StaticText + super::StaticResult + Copy;
    fn go(m: Cons<(S0, D0, ()), Nil>, cot: Cot) -> Result<Self::Out, crate::Refusal>;
}
impl<S0, D0, Cot, L> OneModeCase<S0, D0, Cot> for (B1, L)
where
    B1: ZeroStrideCase<Cons<(S0, D0, ()), Nil>, Cot>,
{
    type Out = <B1 as ZeroStrideCase<Cons<(S0, D0, ()), Nil>, Cot>>::Out;
    #[inline(always)]
    fn go(m: Cons<(S0, D0, ()), Nil>, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        <B1 as ZeroStrideCase<Cons<(S0, D0, ()), Nil>, Cot>>::go(m, cot)
    }
}
impl<S0, D0, Cot> OneModeCase<S0, D0, Cot> for (B0, B0)
where
    B0: ZeroStrideCase<Cons<(S0, D0, ()), Nil>, Cot>,
{
    type Out = <B0 as ZeroStrideCase<Cons<(S0, D0, ()), Nil>, Cot>>::Out;
    #[inline(always)]
    fn go(m: Cons<(S0, D0, ()), Nil>, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        <B0 as ZeroStrideCase<Cons<(S0, D0, ()), Nil>, Cot>>::go(m, cot)
    }
}
/// A non-zero stride and an integer cotarget: the fold's result in closed
/// form. The gap below the mode is `q = D0 / 1`, the rest starts at
/// `next = D0 * S0` with `rest = ceil(Cot / next)` modes, and coalescing
/// `(q, rest):(_1, next)` drops a static-1 `q` or `rest` (they never merge:
/// `q * 1 == next` would need `S0 == 1`, which filter removes). The types,
/// values and refusals are the fold's, step for step; `q` is computed only
/// where it is kept (a type-level quotient costs the solver more than the
/// rest of the case).
impl<S0: Leaf, D0: Leaf, Cot: Leaf> OneModeCase<S0, D0, Cot> for (B0, B1)
where
    (D0, S0): LMul,
    (Cot, MulT<D0, S0>): LCeilDiv,
    (
        D0::IsOne,
        <OneRest<S0, D0, Cot> as crate::typelevel::form::StaticForm>::IsOne,
    ): OneModeLeaf<S0, D0, Cot>,
{
    type Out = <(
        D0::IsOne,
        <OneRest<S0, D0, Cot> as crate::typelevel::form::StaticForm>::IsOne,
    ) as OneModeLeaf<S0, D0, Cot>>::Out;
    #[inline(always)]
    fn go(m: Cons<(S0, D0, ()), Nil>, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        let (s0, d0, ()) = m.0;
        <(
            D0::IsOne,
            <OneRest<S0, D0, Cot> as crate::typelevel::form::StaticForm>::IsOne,
        ) as OneModeLeaf<S0, D0, Cot>>::go(s0, d0, cot)
    }
}
/// `ceil(Cot / (D0 * S0))`, the rest of a one-mode complement.
type OneRest<S0, D0, Cot> = CeilDivT<Cot, MulT<D0, S0>>;
/// `(next, rest)` of a one-mode complement.
type NextRest<S0, D0, Cot> = (MulT<D0, S0>, OneRest<S0, D0, Cot>);
/// `next` and `rest` of a one-mode complement, as the fold computes them.
#[inline(always)]
fn one_rest<S0: Leaf, D0: Leaf, Cot: Leaf>(
    s0: S0,
    d0: D0,
    cot: Cot,
) -> Result<NextRest<S0, D0, Cot>, crate::Refusal>
where
    (D0, S0): LMul,
    (Cot, MulT<D0, S0>): LCeilDiv,
{
    let next: MulT<D0, S0> = (d0, s0).value().ok_or(crate::Refusal::Arithmetic)?;
    let rest = (cot, next).value().ok_or(crate::Refusal::Arithmetic)?;
    Ok((next, rest))
}
/// `coalesce((q, rest):(_1, next))` by (`D0`, so `q`, is a static 1,
/// `rest` is a static 1).
#[doc(hidden)]
pub trait OneModeLeaf<S0, D0, Cot> {
    type Out: super::LayoutParts + super::StaticText + super::StaticResult + Copy;
    fn go(s0: S0, d0: D0, cot: Cot) -> Result<Self::Out, crate::Refusal>;
}
impl<S0: Leaf, D0: Leaf, Cot: Leaf> OneModeLeaf<S0, D0, Cot> for (B1, B1)
where
    (D0, S0): LMul,
    (Cot, MulT<D0, S0>): LCeilDiv,
    Layout<C<1>, C<0>>: super::LayoutParts + super::StaticText + super::StaticResult + Copy,
{
    type Out = Layout<C<1>, C<0>>;
    #[inline(always)]
    fn go(s0: S0, d0: D0, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        one_rest(s0, d0, cot)?;
        Ok(Layout::raw(C, C))
    }
}
impl<S0: Leaf, D0: Leaf, Cot: Leaf> OneModeLeaf<S0, D0, Cot> for (B1, B0)
where
    (D0, S0): LMul,
    (Cot, MulT<D0, S0>): LCeilDiv,
    OneRest<S0, D0, Cot>: Compact<MulT<D0, S0>> + Congruent<MulT<D0, S0>>,
    Layout<OneRest<S0, D0, Cot>, MulT<D0, S0>>:
        super::LayoutParts + super::StaticText + super::StaticResult + Copy,
{
    type Out = Layout<OneRest<S0, D0, Cot>, MulT<D0, S0>>;
    #[inline(always)]
    fn go(s0: S0, d0: D0, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        let (next, rest) = one_rest(s0, d0, cot)?;
        Ok(Layout::raw(rest, next))
    }
}
impl<S0: Leaf, D0: Leaf, Cot: Leaf> OneModeLeaf<S0, D0, Cot> for (B0, B1)
where
    (D0, C<1>): LDiv,
    (D0, S0): LMul,
    (Cot, MulT<D0, S0>): LCeilDiv,
    DivT<D0, C<1>>: Congruent<C<1>>,
    Layout<DivT<D0, C<1>>, C<1>>:
        super::LayoutParts + super::StaticText + super::StaticResult + Copy,
{
    type Out = Layout<DivT<D0, C<1>>, C<1>>;
    #[inline(always)]
    fn go(s0: S0, d0: D0, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        let q = gap(s0, d0, C::<1>)?;
        one_rest(s0, d0, cot)?;
        Ok(Layout::raw(q, C))
    }
}
impl<S0: Leaf, D0: Leaf, Cot: Leaf> OneModeLeaf<S0, D0, Cot> for (B0, B0)
where
    (D0, C<1>): LDiv,
    (D0, S0): LMul,
    (Cot, MulT<D0, S0>): LCeilDiv,
    OneRest<S0, D0, Cot>: Compact<MulT<D0, S0>>,
    (C<1>, MulT<D0, S0>): IntTuple,
    (DivT<D0, C<1>>, OneRest<S0, D0, Cot>): Congruent<(C<1>, MulT<D0, S0>)>,
    Layout<(DivT<D0, C<1>>, OneRest<S0, D0, Cot>), (C<1>, MulT<D0, S0>)>:
        super::LayoutParts + super::StaticText + super::StaticResult + Copy,
{
    type Out = Layout<(DivT<D0, C<1>>, OneRest<S0, D0, Cot>), (C<1>, MulT<D0, S0>)>;
    #[inline(always)]
    fn go(s0: S0, d0: D0, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        let q = gap(s0, d0, C::<1>)?;
        let (next, rest) = one_rest(s0, d0, cot)?;
        Ok(Layout::raw((q, rest), (C, next)))
    }
}

/// CuTe's compact column-major strides of `shape` from `cur`, without the
/// product past the last leaf: that is no stride of the result, and may
/// exceed `usize` where every stride fits (`None` when a stride does not).
#[inline(always)]
pub(crate) fn compact_strides<Sh: Compact<Cur>, Cur: crate::typelevel::int::Int>(
    shape: Sh,
    cur: Cur,
) -> Option<Sh::Left> {
    const CAP: usize = crate::typelevel::const_text::Leaves::CAP;
    let n = Sh::LEAF_COUNT;
    if n > CAP {
        return None;
    }
    let mut v = [0usize; CAP];
    let mut c = Some(cur.value());
    let mut i = 0;
    while i < n {
        let x = shape.leaf(i);
        // A static stride's value is not read (fill skips it); a run-time
        // one is the running product, which must fit.
        v[i] = c.unwrap_or(0);
        if c.is_none() && !<Sh::Left as IntTuple>::LEAF_VALUES.st[i] {
            return None;
        }
        // A static 1 does not count (its stride is `_0`); 1 is neutral anyway.
        c = c.and_then(|c| c.checked_mul(x));
        i += 1;
    }
    Some(<Sh::Left as IntTuple>::fill(&mut v[..n].iter()))
}

/// `filter(A)` is `_1:_0`: the complement is the compact coalesced cotarget.
#[doc(hidden)]
pub trait ZeroStrideCase<M, Cot> {
    type Out: super::LayoutParts + super::StaticText + super::StaticResult + Copy;
    fn go(m: M, cot: Cot) -> Result<Self::Out, crate::Refusal>;
}
impl<M, Cot: IntTuple> ZeroStrideCase<M, Cot> for B1
where
    Cot::Leaves: CoalesceShapeList<Nil>,
    <Cot::Leaves as CoalesceShapeList<Nil>>::Out: Pack,
    CoalesceShape<Cot>: Compact<C<1>> + Congruent<<CoalesceShape<Cot> as Compact<C<1>>>::Left>,
{
    type Out = Layout<CoalesceShape<Cot>, <CoalesceShape<Cot> as Compact<C<1>>>::Left>;
    #[inline(always)]
    fn go(_m: M, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        let s = coalesce_shape(cot).ok_or(crate::Refusal::Arithmetic)?;
        Ok(Layout::raw(
            s,
            compact_strides(s, C).ok_or(crate::Refusal::Arithmetic)?,
        ))
    }
}
impl<M: Sorted, Cot: IntTuple> ZeroStrideCase<M, Cot> for B0
where
    SortedModes<M>: Gaps<C<1>, Nil, Cons<C<1>, Nil>>,
    GapNext<M>: crate::typelevel::int::Int,
    Cot: CeilDivShape<GapNext<M>>,
    <RestOf<M, Cot> as IntTuple>::Leaves: CoalesceShapeList<Nil>,
    <<RestOf<M, Cot> as IntTuple>::Leaves as CoalesceShapeList<Nil>>::Out: Pack,
    RestShape<M, Cot>: Compact<GapNext<M>>,
    GapShapes<M>: Push<RestShape<M, Cot>>,
    GapStrides<M>: Push<RestStride<M, Cot>>,
    PreShape<M, Cot>: IntoTuple,
    PreStride<M, Cot>: IntoTuple,
    <PreShape<M, Cot> as IntoTuple>::Tuple: Congruent<<PreStride<M, Cot> as IntoTuple>::Tuple>,
    <PreStride<M, Cot> as IntoTuple>::Tuple: IntTuple,
    Uncoalesced<M, Cot>: Coalesce,
    <Uncoalesced<M, Cot> as Coalesce>::Output:
        super::LayoutParts + super::StaticText + super::StaticResult + Copy,
{
    type Out = <Uncoalesced<M, Cot> as Coalesce>::Output;
    #[inline(always)]
    fn go(m: M, cot: Cot) -> Result<Self::Out, crate::Refusal> {
        let (shs, sts, next) = m.sorted().gaps(C::<1>, Nil, Cons(C::<1>, Nil))?;
        let rest = cot
            .ceil_div_shape(next)
            .and_then(coalesce_shape)
            .ok_or_else(|| cotarget_failed(&cot))?;
        let rest_stride = compact_strides(rest, next).ok_or(crate::Refusal::Arithmetic)?;
        let pre = Layout::new(
            shs.push(rest).into_tuple(),
            sts.push(rest_stride).into_tuple(),
        );
        pre.try_coalesce().map_err(|_| crate::Refusal::Arithmetic)
    }
}
/// The modes sorted by stride.
type SortedModes<M> = <M as Sorted>::Out;
type GapNext<M> = <SortedModes<M> as Gaps<C<1>, Nil, Cons<C<1>, Nil>>>::Next;
type GapShapes<M> = <SortedModes<M> as Gaps<C<1>, Nil, Cons<C<1>, Nil>>>::Shapes;
type GapStrides<M> = <SortedModes<M> as Gaps<C<1>, Nil, Cons<C<1>, Nil>>>::Strides;
type RestOf<M, Cot> = <Cot as CeilDivShape<GapNext<M>>>::Out;
type RestShape<M, Cot> = CoalesceShape<RestOf<M, Cot>>;
type RestStride<M, Cot> = <RestShape<M, Cot> as Compact<GapNext<M>>>::Left;
type PreShape<M, Cot> = <GapShapes<M> as Push<RestShape<M, Cot>>>::Out;
type PreStride<M, Cot> = <GapStrides<M> as Push<RestStride<M, Cot>>>::Out;
/// The complement before coalescing: the gaps between the sorted modes,
/// then the rest of the cotarget.
type Uncoalesced<M, Cot> =
    Layout<<PreShape<M, Cot> as IntoTuple>::Tuple, <PreStride<M, Cot> as IntoTuple>::Tuple>;

/// The type of `complement(A, M)`.
pub type ComplementT<A, Cot> = <<A as FilteredModes>::Triples as ComplementOf<Cot>>::Out;

/// The definition of the complement, checked on static inputs: the text of
/// the reason it fails, or `None` (also `None` with run-time leaves, which
/// are checked at run time).
struct ErrText<A, Cot>(core::marker::PhantomData<(A, Cot)>);
impl<A: super::StaticText + FilteredModes, Cot: IntTuple> ErrText<A, Cot>
where
    A::Triples: ComplementOf<Cot>,
    ComplementT<A, Cot>: super::StaticText,
    A: FilteredText,
{
    const TEXT: Option<Text> = {
        let (fs, fd) = (<A as FilteredText>::SHAPE, <A as FilteredText>::STRIDE);
        let (rs, rd) = (
            <ComplementT<A, Cot> as super::StaticText>::SHAPE,
            <ComplementT<A, Cot> as super::StaticText>::STRIDE,
        );
        let cot = Cot::LEAF_VALUES;
        // The message is built only when there is a fault (const
        // evaluation of text is slow, and this runs for every complement).
        if fs.n + rs.n > crate::error::COMPLEMENT_CAP {
            Some(
                crate::error::ComplementError::TooManyModes { n: fs.n + rs.n }
                    .text(complement_what::<A>()),
            )
        } else if fs.all_static()
            && fd.all_static()
            && rs.all_static()
            && rd.all_static()
            && cot.all_static()
        {
            let s = fs.concat(rs);
            let d = fd.concat(rd);
            // The cotarget's size, as the run-time check takes it: past
            // usize it is refused there, and so here.
            let mut m = Some(1usize);
            let mut i = 0;
            while i < cot.n {
                m = match m {
                    Some(m) => m.checked_mul(cot.v[i]),
                    None => None,
                };
                i += 1;
            }
            let (sv, _) = s.v.split_at(s.n);
            let (dv, _) = d.v.split_at(d.n);
            match m {
                None => Some(complement_what::<A>().str("the cotarget's size does not fit usize")),
                Some(m) => match crate::algebra::admissible::check_complement(sv, dv, m) {
                    Err(e) => Some(e.text(complement_what::<A>())),
                    Ok(()) => None,
                },
            }
        } else if let Some(Err(e)) = Reach::<A::Triples>::REACH {
            // A static filter(A) that does not stack has no complement,
            // whatever the cotarget.
            Some(e.text(complement_what::<A>()))
        } else {
            None
        }
    };
}

/// `complement: A: `, the start of a complement's message.
const fn complement_what<A: super::StaticText>() -> Text {
    Text::EMPTY.str("complement: ").text(A::TEXT).str(": ")
}

/// For a static `filter(A)` (its modes `T`): how far its modes and the gaps
/// between them stack, and where the rest starts (see
/// [`crate::algebra::admissible::complement_reach`]).
pub(crate) struct Reach<T>(core::marker::PhantomData<T>);
impl<T: TripleAt> Reach<T> {
    pub(crate) const REACH: Option<Result<(usize, usize), crate::error::ComplementError>> = {
        let (fs, fd) = (T::SHAPES, T::STRIDES);
        if fs.all_static() && fd.all_static() {
            let (sv, _) = fs.v.split_at(fs.n);
            let (dv, _) = fd.v.split_at(fd.n);
            Some(crate::algebra::admissible::complement_reach(sv, dv))
        } else {
            None
        }
    };
}

/// Why `ceil_div(cot, next)` failed: CuTe divides by each mode of a tuple
/// cotarget, so a mode of size 0 refuses it; else a value past `usize`.
#[cold]
fn cotarget_failed<Cot: IntTuple>(cot: &Cot) -> crate::Refusal {
    if !Cot::IS_INT && (0..Cot::LEAF_COUNT).any(|i| cot.leaf(i) == 0) {
        crate::Refusal::SizeZero {
            what: "the cotarget",
            why: crate::algebra::admissible::size_zero::COTARGET,
        }
    } else {
        crate::Refusal::Arithmetic
    }
}

/// `Err` naming `l` (as `what`) when a run-time extent of it is 0, for an
/// operation (`op`) whose formula divides by its size (`why` says how).
#[inline(always)]
pub(crate) fn nonempty<Sh: Congruent<D>, D: IntTuple>(
    l: &Layout<Sh, D>,
    op: &'static str,
    what: &'static str,
    why: &'static str,
) -> Result<(), crate::LayoutError> {
    let s = l.shape();
    let mut i = 0;
    while i < Sh::LEAF_COUNT {
        if s.leaf(i) == 0 {
            return Err(crate::LayoutError::Refused {
                op,
                why: crate::Refusal::SizeZero { what, why },
            });
        }
        i += 1;
    }
    Ok(())
}

/// The complement of `filter(A)` (its modes `t`) in `cot` with run-time
/// leaves. `checked`: the definition is checked (the complement itself);
/// otherwise only CuTe's own refusal applies (the divides and products,
/// whose compositions are checked), as in the run-time algebra.
#[inline(always)]
pub(crate) fn complement_values<T: TripleAt + ComplementOf<Cot>, Cot: IntTuple>(
    t: T,
    cot: Cot,
    checked: bool,
) -> Result<T::Out, crate::LayoutError> {
    let r = t
        .complement_of(cot)
        .map_err(|why| crate::LayoutError::Refused {
            op: "complement",
            why,
        })?;
    if checked {
        check_runtime(Reach::<T>::REACH, &cot, &t, r.parts())?;
    }
    Ok(r)
}

/// The run-time check of a complement with run-time leaves: with a static
/// `filter(A)` only the cotarget can leave a gap (one comparison); otherwise
/// the definition is checked on the values of `filter(A)` and the result.
#[inline(always)]
fn check_runtime<Cot: IntTuple, F: TripleAt, RS: IntTuple, RD: IntTuple>(
    reach: Option<Result<(usize, usize), crate::error::ComplementError>>,
    cot: &Cot,
    f: &F,
    r: (RS, RD),
) -> Result<(), crate::LayoutError> {
    use crate::algebra::admissible::check_complement;
    use crate::error::ComplementError;
    use crate::error::COMPLEMENT_CAP;
    let refuse = |e| crate::LayoutError::Refused {
        op: "complement",
        why: crate::Refusal::Complement(e),
    };
    let m = cot
        .checked_size()
        .ok_or(crate::LayoutError::Overflow { op: "complement" })?;
    match reach {
        Some(Ok((reach, next))) => {
            if reach < next && m > 1 && m > reach {
                return Err(refuse(ComplementError::Gap { reach, m }));
            }
            Ok(())
        }
        Some(Err(e)) => Err(refuse(e)),
        None => {
            let n = F::LEN + RS::LEAF_COUNT;
            if n > COMPLEMENT_CAP {
                return Err(refuse(ComplementError::TooManyModes { n }));
            }
            let (mut s, mut d) = ([0usize; COMPLEMENT_CAP], [0usize; COMPLEMENT_CAP]);
            let mut i = 0;
            while i < n {
                (s[i], d[i]) = if i < F::LEN {
                    f.at(i)
                } else {
                    (r.0.leaf(i - F::LEN), r.1.leaf(i - F::LEN))
                };
                i += 1;
            }
            check_complement(&s[..n], &d[..n], m).map_err(refuse)
        }
    }
}

/// The leaves of `filter(A)` as constants.
#[doc(hidden)]
pub trait FilteredText {
    const SHAPE: crate::typelevel::const_text::Leaves;
    const STRIDE: crate::typelevel::const_text::Leaves;
}
impl<Sh: Congruent<D> + FilterZerosShape<D>, D: IntTuple> FilteredText for Layout<Sh, D>
where
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
    Layout<<Sh as FilterZerosShape<D>>::Out, D>: Coalesce,
    <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output: super::StaticText,
{
    const SHAPE: crate::typelevel::const_text::Leaves =
        <<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::StaticText>::SHAPE;
    const STRIDE: crate::typelevel::const_text::Leaves = <<Layout<
        <Sh as FilterZerosShape<D>>::Out,
        D,
    > as Coalesce>::Output as super::StaticText>::STRIDE;
}

/// Typed complement.
pub trait Complement<Cot> {
    /// The result layout.
    type Output;
    /// Why the complement does not exist, for static inputs.
    const ERROR: Option<Text>;
    /// `complement(Self, cot)`, or the reason it is inadmissible.
    fn try_complement(self, cot: Cot) -> Result<Self::Output, crate::LayoutError>;
}
impl<Sh: Congruent<D>, D: IntTuple, Cot: IntTuple> Complement<Cot> for Layout<Sh, D>
where
    Layout<Sh, D>: FilteredModes + FilteredText,
    <Layout<Sh, D> as FilteredModes>::Triples: ComplementOf<Cot>,
{
    type Output = ComplementT<Layout<Sh, D>, Cot>;
    const ERROR: Option<Text> = ErrText::<Layout<Sh, D>, Cot>::TEXT;
    #[inline(always)]
    fn try_complement(self, cot: Cot) -> Result<Self::Output, crate::LayoutError> {
        const {
            if let Some(t) = Self::ERROR {
                panic!("{}", t.as_str())
            }
        }
        super::values::run::<crate::typelevel::tuple::AllStatic4<Sh, D, Cot, C<1>>, _>(move || {
            nonempty(
                &self,
                "complement",
                "A",
                crate::algebra::admissible::size_zero::COMPLEMENT,
            )?;
            complement_values(self.triples(), cot, true)
        })
    }
}

/// CuTe's `complement(A, M)`: the layout R, ordered by stride, such that
/// `(A, R)` maps onto `[0, M)` one to one (rounded up to whole copies of A).
/// Inadmissible static inputs are compile errors; with run-time leaves it
/// panics with the reason ([`try_complement`] returns it).
///
/// ```
/// use layout_core::{algebra::complement, layout, C};
/// let r = complement(layout!((4,8):(32,1)), C::<1024>);
/// assert_eq!(r.to_string(), "(_4,_8):(_8,_128)");
/// assert_eq!(core::mem::size_of_val(&r), 0);
/// assert_eq!(complement(layout!(4:2), 16usize).to_string(), "(_2,2):(_1,_8)");
/// ```
///
/// # Panics
///
/// When run-time leaves make the input inadmissible (overlapping modes, a
/// size-0 layout, arithmetic past `usize`), with the reason
/// ([`try_complement`] returns it); never for static inputs.
#[inline(always)]
pub fn complement<A, Cot: CotargetOf<A>>(a: A, cot: Cot) -> Cot::Output
where
    Cot::Checked: Copy,
{
    super::values::or_panic(cot.try_complement_of(a))
}

/// [`complement`], returning the reason instead of panicking at run time.
///
/// ```
/// use layout_core::{layout, try_complement, C};
/// // CuTe prints _2:_24.
/// assert_eq!(try_complement(layout!((2,2,6):(1,2,4)), C::<48>).unwrap().to_string(), "_2:_24");
/// ```
#[inline(always)]
pub fn try_complement<A, Cot: CotargetOf<A>>(
    a: A,
    cot: Cot,
) -> Result<Cot::Output, crate::LayoutError>
where
    Cot::Checked: Copy,
{
    cot.try_complement_of(a)
}

/// [`Complement`] seen from the cotarget: the functions bound their last
/// argument, so that the type-level work starts once both input types are
/// known (with A's bound first, the solver explores while `Cot` is unknown).
#[doc(hidden)]
pub trait CotargetOf<A>: CotargetOut<A> {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
    fn try_complement_of(self, a: A) -> Result<Self::Output, crate::LayoutError>;
}
/// The complement's type, seen from the cotarget, without the definition's
/// check: a refused input is then reported once, at the cotarget, not a
/// second time for the call's type.
#[doc(hidden)]
pub trait CotargetOut<A> {
    type Output;
}
impl<Sh: Congruent<D>, D: IntTuple, Cot: IntTuple> CotargetOut<Layout<Sh, D>> for Cot
where
    Layout<Sh, D>: Complement<Cot>,
{
    type Output = <Layout<Sh, D> as Complement<Cot>>::Output;
}
impl<Sh: Congruent<D>, D: IntTuple, Cot: IntTuple> CotargetOf<Layout<Sh, D>> for Cot
where
    Layout<Sh, D>: Complement<Cot> + FilteredModes,
    // The definition, decided by the type checker for static inputs (here,
    // not in `Complement`, whose `ERROR` reports the refusal as a value).
    <Layout<Sh, D> as FilteredModes>::Triples: Admits<Cot, Sh, D>,
    <<Layout<Sh, D> as FilteredModes>::Triples as Admits<Cot, Sh, D>>::Out: Holds<ComplementOp>,
{
    type Checked = ();
    #[inline(always)]
    fn try_complement_of(self, a: Layout<Sh, D>) -> Result<Self::Output, crate::LayoutError> {
        a.try_complement(self)
    }
}

/// The error of a static complement, if any (what the compile-time check evaluates).
///
/// ```
/// use layout_core::{algebra::complement_error, layout_type, C};
/// assert!(complement_error::<layout_type!((2,2):(2,3)), C<16>>().is_some());
/// assert!(complement_error::<layout_type!((4,8):(32,1)), C<1024>>().is_none());
/// ```
pub fn complement_error<A: Complement<Cot>, Cot>() -> Option<&'static str> {
    match &A::ERROR {
        Some(t) => Some(t.as_str()),
        None => None,
    }
}

/// Whether a constant leaf list has a static 0: the complement's shape of
/// modes that overlap (CuTe's "not stacking" case), an inadmissible input.
pub(crate) const fn has_static_zero(l: crate::typelevel::const_text::Leaves) -> bool {
    let mut i = 0;
    while i < l.n && i < crate::typelevel::const_text::Leaves::CAP {
        if l.st[i] && l.v[i] == 0 {
            return true;
        }
        i += 1;
    }
    false
}

/// The type of `cosize(filter(A))`, CuTe's default cotarget of `complement(A)`.
pub trait DefaultCotarget {
    /// The cotarget's leaf type (static when every leaf of A is).
    type Cot: crate::typelevel::int::FromValue;
    /// Its value, `None` when it overflows `usize`.
    fn cotarget(&self) -> Option<usize>;
}
impl<Sh: Congruent<D> + FilterZerosShape<D>, D: IntTuple> DefaultCotarget for Layout<Sh, D>
where
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
    Layout<<Sh as FilterZerosShape<D>>::Out, D>: Coalesce,
    <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output: super::LayoutParts,
    <<FilteredParts<Sh, D> as super::LayoutParts>::Shape as IntTuple>::Leaves: crate::typelevel::list::ZipModes<
        <<FilteredParts<Sh, D> as super::LayoutParts>::Stride as IntTuple>::Leaves,
    >,
    <<<FilteredParts<Sh, D> as super::LayoutParts>::Shape as IntTuple>::Leaves as crate::typelevel::list::ZipModes<
        <<FilteredParts<Sh, D> as super::LayoutParts>::Stride as IntTuple>::Leaves,
    >>::Out: crate::typelevel::list::CosizeList<Known<typenum::U0>>,
    <<<<FilteredParts<Sh, D> as super::LayoutParts>::Shape as IntTuple>::Leaves as crate::typelevel::list::ZipModes<
        <<FilteredParts<Sh, D> as super::LayoutParts>::Stride as IntTuple>::Leaves,
    >>::Out as crate::typelevel::list::CosizeList<Known<typenum::U0>>>::Out: crate::typelevel::list::PlusOne,
    FilteredCosize<Sh, D>: crate::typelevel::int::FromValue,
{
    type Cot = FilteredCosize<Sh, D>;
    fn cotarget(&self) -> Option<usize> {
        // cosize(filter(A)) = 1 + sum of (s - 1) * d over the modes with d != 0.
        let (s, d) = (self.shape(), self.stride());
        let mut total = 1usize;
        let mut i = 0;
        while i < Sh::LEAF_COUNT {
            let (si, di) = (s.leaf(i), d.leaf(i));
            if si == 0 {
                return Some(0);
            }
            total = total.checked_add((si - 1).checked_mul(di)?)?;
            i += 1;
        }
        Some(total)
    }
}
type FilteredParts<Sh, D> = <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output;
type FilteredCosize<Sh, D> = crate::typelevel::list::CosizeT<
    <FilteredParts<Sh, D> as super::LayoutParts>::Shape,
    <FilteredParts<Sh, D> as super::LayoutParts>::Stride,
>;

/// CuTe's `complement(A)`: the complement up to `cosize(filter(A))`.
///
/// ```
/// use layout_core::{algebra::complement_default, layout};
/// assert_eq!(complement_default(layout!((4,6):(1,8))).to_string(), "_2:_4");
/// ```
///
/// A static A that does not stack into its cosize is a type error, as
/// [`complement`]'s inputs are:
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::complement_default, layout};
/// // error: complement: A's mode _2:_1 does not stack on A's modes with
/// // smaller strides, so A is not injective
/// let _ = complement_default(layout!((2,2):(1,1)));
/// ```
///
/// # Panics
///
/// As [`complement`], with the reason ([`try_complement_default`] returns
/// it); never for static inputs.
#[inline(always)]
pub fn complement_default<A: DefaultCotarget>(a: A) -> <A::Cot as CotargetOut<A>>::Output
where
    <A::Cot as CotargetOf<A>>::Checked: Copy,
    A::Cot: CotargetOf<A>,
{
    super::values::or_panic(try_complement_default(a))
}

/// [`complement_default`], returning the reason instead of panicking at run time.
///
/// ```
/// use layout_core::{layout, try_complement_default};
/// // The cotarget is the cosize, 4: the complement of 2:2 in [0,4) is 2:1.
/// assert_eq!(try_complement_default(layout!(2:2)).unwrap().to_string(), "_2:_1");
/// ```
#[inline(always)]
pub fn try_complement_default<A: DefaultCotarget>(
    a: A,
) -> Result<<A::Cot as CotargetOut<A>>::Output, crate::LayoutError>
where
    <A::Cot as CotargetOf<A>>::Checked: Copy,
    A::Cot: CotargetOf<A>,
{
    let cot = a
        .cotarget()
        .ok_or(crate::LayoutError::Overflow { op: "complement" })?;
    <A::Cot as crate::typelevel::int::FromValue>::from_value(cot).try_complement_of(a)
}

// The definition of the complement, decided by the type checker for a static
// A with two or more modes (one mode always stacks and leaves no gap): the
// walk of `admissible::complement_reach` over A's modes sorted by stride,
// and the cotarget against how far they reach. A refusal names the mode it
// stops at, in CuTe notation where the leaves are `C<N>`; `Complement`'s
// const check stays for every input (computed leaves, the mode cap, a
// cotarget past `usize`).

/// `complement(A, M)`: A's mode `_S:_D`, sorted by stride, starts at or
/// below the largest offset of A's modes with smaller strides (never holds:
/// the refusal's message).
///
/// ```
/// use layout_core::{algebra::complement, layout, C};
/// // Sorted: _2:_1 reaches 1, then _2:_2 starts above it.
/// assert_eq!(complement(layout!((2,2):(1,2)), C::<8>).to_string(), "_2:_4");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::complement, layout, C};
/// // error: complement: A's mode _2:_1 does not stack on A's modes with
/// // smaller strides, so A is not injective
/// let _ = complement(layout!((2,2):(1,1)), C::<8>);
/// ```
#[diagnostic::on_unimplemented(
    message = "complement: A's mode _{S}:_{D} does not stack on A's modes with smaller strides, so A is not injective",
    label = "sorted by stride, each stride of A must be above the largest offset of the modes before it"
)]
pub trait ComplementNotStacking<const S: usize, const D: usize> {}

/// `complement(A, M)`: A's mode `_S:_D`, sorted by stride, starts at a stride
/// that is not a multiple of the span of the modes below it, and `[0, M)`
/// reaches past that gap (never holds: the refusal's message).
///
/// ```
/// use layout_core::{algebra::complement, layout, C};
/// // Sorted: _2:_1, then stride 3 is not a multiple of 2, but [0, 2) is
/// // covered before the gap.
/// assert_eq!(complement(layout!((2,2):(1,3)), C::<2>).to_string(), "_1:_0");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::complement, layout, C};
/// // error: complement: A's mode _2:_3 leaves a gap below its stride
/// // (not a multiple of the span below it), so [0, _8) is not covered
/// let _ = complement(layout!((2,2):(1,3)), C::<8>);
/// ```
#[diagnostic::on_unimplemented(
    message = "complement: A's mode _{S}:_{D} leaves a gap below its stride (not a multiple of the span below it), so [0, _{M}) is not covered",
    label = "no layout completes A to cover [0, _{M}) one to one"
)]
pub trait ComplementGap<const S: usize, const D: usize, const M: usize> {}

/// [`ComplementGap`] for a tuple cotarget `Cot` (never holds: the
/// refusal's message).
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::complement, layout, C};
/// // error: complement: A's mode _2:_3 leaves a gap below its stride (not
/// // a multiple of the span below it), so the cotarget (C<4>, C<2>) is not
/// // covered
/// let _ = complement(layout!((2,2):(1,3)), (C::<4>, C::<2>));
/// ```
#[diagnostic::on_unimplemented(
    message = "complement: A's mode _{S}:_{D} leaves a gap below its stride (not a multiple of the span below it), so the cotarget {Cot} is not covered",
    label = "no layout completes A to cover this cotarget one to one"
)]
pub trait ComplementGapTuple<const S: usize, const D: usize, Cot> {}

/// A mode `S:D` that the walk takes: `filter` and `coalesce` leave A's
/// modes (two or more) of size above 1 and stride not 0, but a size 0
/// (refused at run time, with its own message) is skipped here.
type Live<S> = <<S as StaticForm>::IsZero as Not>::Output;

/// The walk of [`crate::algebra::admissible::complement_reach`] over A's
/// static modes sorted by stride, from the state `St` = `(below, span,
/// (reach, whole, brk), fail)`: the largest offset so far (as two sums,
/// see [`WalkMode`]'s step), the span of the modes so far, how far they
/// reach without a gap, whether they have stacked without one, the mode
/// where the reach stopped (`()` while none), and the first mode that does
/// not stack (`B1` while every mode stacked). One associated type, the
/// final state: rustc normalizes each associated type of a fold separately.
#[doc(hidden)]
pub trait ReachWalk<St> {
    type Out;
}
impl<St> ReachWalk<St> for Nil {
    type Out = St;
}
impl<S: StaticForm, D, X, T, St> ReachWalk<St> for Cons<(S, D, X), T>
where
    <S as StaticForm>::IsZero: Not,
    Live<S>: WalkMode<S, D, T, St>,
{
    type Out = <Live<S> as WalkMode<S, D, T, St>>::Out;
}
/// One step of [`ReachWalk`]: `B0` skips the mode, `B1` takes it.
#[doc(hidden)]
pub trait WalkMode<S, D, T, St> {
    type Out;
}
impl<S, D, T: ReachWalk<St>, St> WalkMode<S, D, T, St> for B0 {
    type Out = T::Out;
}
// The walk's arithmetic is the fold's (`Gaps`: `d * s`, `d / span`), in
// the same operand order, so that rustc reuses what the fold computed.
type SpanOf<S, D> = Prod<<D as StaticInt>::U, <S as StaticInt>::U>;
type DivOf<D, N> = <<D as StaticInt>::U as DivRem<N>>::Q;
type RemOf<D, N> = <<D as StaticInt>::U as DivRem<N>>::R;
// Stacking: `d > below` with `below` the largest offset so far, kept as
// `(P, V)` = (the strides so far, their sum with `below`), which only adds:
// `d > below` is `P + d > V`, and the next `V` is `V + s * d`.
type PNext<D, P> = Sum<P, <D as StaticInt>::U>;
type DivBit<D, N> = <RemOf<D, N> as IsEqual<U0>>::Output;
type StacksBit<D, P, V, W, N> = <(W, DivBit<D, N>) as Stacks<PNext<D, P>, V>>::Out;
type NextState<S, D, P, V, N, R, W, K, O> = (
    (PNext<D, P>, Sum<V, SpanOf<S, D>>),
    SpanOf<S, D>,
    <(W, DivBit<D, N>) as Update<SpanOf<S, D>, N, DivOf<D, N>, R, K, (S, D)>>::Out,
    <O as FirstFail<StacksBit<D, P, V, W, N>, (S, D)>>::Out,
);
impl<S: StaticInt, D: StaticInt, T, P, V, N, R, W, K, O>
    WalkMode<S, D, T, ((P, V), N, (R, W, K), O)> for B1
where
    D::U: DivRem<N> + Mul<S::U>,
    P: Add<D::U>,
    V: Add<SpanOf<S, D>>,
    RemOf<D, N>: IsEqual<U0>,
    (W, DivBit<D, N>): Stacks<PNext<D, P>, V> + Update<SpanOf<S, D>, N, DivOf<D, N>, R, K, (S, D)>,
    O: FirstFail<StacksBit<D, P, V, W, N>, (S, D)>,
    T: ReachWalk<NextState<S, D, P, V, N, R, W, K, O>>,
{
    type Out = <T as ReachWalk<NextState<S, D, P, V, N, R, W, K, O>>>::Out;
}
/// Whether a mode stacks, from `Self` = `(whole, divides)` and `(P + d,
/// V)`: a stride that is a multiple of the span of a chain without gaps is
/// past every offset below it (no comparison); otherwise `P + d > V`.
#[doc(hidden)]
pub trait Stacks<Pd, V> {
    type Out;
}
impl<Pd, V> Stacks<Pd, V> for (B1, B1) {
    type Out = B1;
}
impl<Pd: IsGreater<V>, V> Stacks<Pd, V> for (B1, B0) {
    type Out = <Pd as IsGreater<V>>::Output;
}
impl<X, Pd: IsGreater<V>, V> Stacks<Pd, V> for (B0, X) {
    type Out = <Pd as IsGreater<V>>::Output;
}
/// The first mode that does not stack: `Self` so far (`B1`: none), the
/// mode `M` and whether it stacks.
#[doc(hidden)]
pub trait FirstFail<Bit, M> {
    type Out;
}
impl<M> FirstFail<B1, M> for B1 {
    type Out = B1;
}
impl<M> FirstFail<B0, M> for B1 {
    type Out = M;
}
impl<S, D, Bit, M> FirstFail<Bit, M> for (S, D) {
    type Out = (S, D);
}
/// The reach after a mode, from `Self` = `(whole, divides)`, as `(reach,
/// whole, brk)`: stacked so far and the stride a multiple of the span
/// below (`N`): the reach is the mode's span `Sp`; not a multiple: the
/// whole copies of the span below it, `N * Q` (the only case that
/// multiplies), and the walk records the mode `M`; a gap already:
/// unchanged.
#[doc(hidden)]
pub trait Update<Sp, N, Q, R, K, M> {
    type Out;
}
impl<Sp, N, Q, R, K, M> Update<Sp, N, Q, R, K, M> for (B1, B1) {
    type Out = (Sp, B1, K);
}
impl<Sp, N: Mul<Q>, Q, R, K, M> Update<Sp, N, Q, R, K, M> for (B1, B0) {
    type Out = (Prod<N, Q>, B0, M);
}
impl<X, Sp, N, Q, R, K, M> Update<Sp, N, Q, R, K, M> for (B0, X) {
    type Out = (R, B0, K);
}

/// A's mode `S:D` does not stack on the modes with smaller strides (the
/// verdict; values as `C<N>`).
#[doc(hidden)]
pub struct NotStacking<S, D>(core::marker::PhantomData<(S, D)>);
/// A's mode `S:D` leaves a gap that the integer cotarget `M` reaches past.
#[doc(hidden)]
pub struct Gap<S, D, M>(core::marker::PhantomData<(S, D, M)>);
/// A's mode `S:D` leaves a gap that the tuple cotarget `Cot` reaches past.
#[doc(hidden)]
pub struct GapTuple<S, D, Cot>(core::marker::PhantomData<(S, D, Cot)>);
/// The operation a refusal names: `complement(A, M)`.
#[doc(hidden)]
pub struct ComplementOp;
impl<const S: usize, const D: usize> Holds<ComplementOp> for NotStacking<C<S>, C<D>> where
    (): ComplementNotStacking<S, D>
{
}
impl<const S: usize, const D: usize, const M: usize> Holds<ComplementOp> for Gap<C<S>, C<D>, C<M>> where
    (): ComplementGap<S, D, M>
{
}
impl<const S: usize, const D: usize, Cot> Holds<ComplementOp> for GapTuple<C<S>, C<D>, Cot> where
    (): ComplementGapTuple<S, D, Cot>
{
}

/// The complement's definition on static inputs, for the type checker,
/// of A's modes `Self` (A = `Layout<Sh, D>`): the verdict. Fewer than two
/// modes always stack and leave no gap (nothing to decide: the common case
/// costs one impl selection); run-time leaves are checked at run time.
#[doc(hidden)]
pub trait Admits<Cot, Sh, D> {
    type Out;
}
impl<Cot, Sh, D> Admits<Cot, Sh, D> for Nil {
    type Out = Admitted;
}
impl<P, Cot, Sh, D> Admits<Cot, Sh, D> for Cons<P, Nil> {
    type Out = Admitted;
}
impl<P, Q, T, Cot: IntTuple, Sh: IntTuple, D: IntTuple> Admits<Cot, Sh, D> for Cons<P, Cons<Q, T>>
where
    AllStatic2<Sh, D>: AdmitsStatic<Cons<P, Cons<Q, T>>, Cot, Cot::AllStatic>,
{
    type Out = <AllStatic2<Sh, D> as AdmitsStatic<Cons<P, Cons<Q, T>>, Cot, Cot::AllStatic>>::Out;
}
/// [`Admits`] once A has two or more modes: `Self` whether A is static,
/// `StC` whether the cotarget is.
#[doc(hidden)]
pub trait AdmitsStatic<L, Cot, StC> {
    type Out;
}
impl<L, Cot, StC> AdmitsStatic<L, Cot, StC> for B0 {
    type Out = Admitted;
}
/// The walk's start: nothing below, span 1, reach 1, every mode stacked.
type WalkStart = ((U0, U0), U1, (U1, B1, ()), B1);
type WalkEnd<L> = <<L as Sorted>::Out as ReachWalk<WalkStart>>::Out;
impl<L, Cot, StC> AdmitsStatic<L, Cot, StC> for B1
where
    L: Sorted,
    <L as Sorted>::Out: ReachWalk<WalkStart>,
    WalkEnd<L>: GapFinal<Cot, StC>,
{
    type Out = <WalkEnd<L> as GapFinal<Cot, StC>>::Out;
}
/// The walk's final state against the cotarget `Cot` (static when `StC`):
/// a mode that does not stack is the verdict (the cotarget is then not
/// checked: one refusal, as the const check gives).
#[doc(hidden)]
pub trait GapFinal<Cot, StC> {
    type Out;
}
impl<B, N, R, W, K, S: ConstForm, D: ConstForm, Cot, StC> GapFinal<Cot, StC>
    for (B, N, (R, W, K), (S, D))
{
    type Out = NotStacking<Cf<S>, Cf<D>>;
}
impl<B, N, R, W, K, Cot, StC: GapCheck<R, W, K, Cot>> GapFinal<Cot, StC> for (B, N, (R, W, K), B1) {
    type Out = StC::Out;
}
/// The cotarget against the walk's reach `R`: a gap (`W` = `B0`, at mode
/// `K`) refuses a cotarget `m > 1` past it. `Self`: whether the cotarget
/// is static.
#[doc(hidden)]
pub trait GapCheck<R, W, K, Cot> {
    type Out;
}
impl<R, W, K, Cot> GapCheck<R, W, K, Cot> for B0 {
    type Out = Admitted;
}
// A walk without a gap (`W` = `B1`) covers any cotarget.
impl<R, K, Cot> GapCheck<R, B1, K, Cot> for B1 {
    type Out = Admitted;
}
type CotU<Cot> = <SizeT<Cot> as StaticInt>::U;
type GapBit<R, Cot> = <(
    <CotU<Cot> as IsGreater<R>>::Output,
    <CotU<Cot> as IsGreater<U1>>::Output,
) as Both>::Out;
impl<R, K, Cot: IntTuple> GapCheck<R, B0, K, Cot> for B1
where
    Cot::Leaves: crate::typelevel::list::SizeList<C<1>>,
    SizeT<Cot>: StaticInt,
    CotU<Cot>: IsGreater<R> + IsGreater<U1>,
    (
        <CotU<Cot> as IsGreater<R>>::Output,
        <CotU<Cot> as IsGreater<U1>>::Output,
    ): Both,
    GapBit<R, Cot>: GapOr<K, Cot, Cot::IsLeaf>,
{
    type Out = <GapBit<R, Cot> as GapOr<K, Cot, Cot::IsLeaf>>::Out;
}
/// `B1` refuses the cotarget `Cot` (an integer when `Leaf`) for the gap
/// left at mode `K`.
#[doc(hidden)]
pub trait GapOr<K, Cot, Leaf> {
    type Out;
}
impl<K, Cot, Leaf> GapOr<K, Cot, Leaf> for B0 {
    type Out = Admitted;
}
impl<S: ConstForm, D: ConstForm, Cot: ConstForm> GapOr<(S, D), Cot, B1> for B1 {
    type Out = Gap<Cf<S>, Cf<D>, Cf<Cot>>;
}
impl<S: ConstForm, D: ConstForm, Cot> GapOr<(S, D), Cot, B0> for B1 {
    type Out = GapTuple<Cf<S>, Cf<D>, Cot>;
}
