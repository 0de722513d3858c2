//! Typed `composition(A, B)`, CuTe 4.7's algorithm at the type level:
//!
//! 1. A is coalesced into A' keeping its function outside the domain (a
//!    static size-1 last mode counts as 2), merging only what is provable.
//! 2. The result is congruent to B: each leaf `s:d` of B walks A''s modes.
//!    A static stride 0 gives `s:_0`; an integral A' `c:k` gives `s:(d*k)`;
//!    otherwise a fold over A''s modes but the last carries the rest shape
//!    and rest stride, taking `min(ceil_div(c, rest stride), rest shape)`
//!    of each mode unless that or the rest shape is a static 1.
//!
//! Each step computes its result type and, for run-time leaves, its value
//! (checked arithmetic): a static result is zero-sized and computes
//! nothing; a mixed one is computed in place, without allocating, by the
//! same fold that gives its type. Admissibility of static inputs is a
//! post-monomorphisation check ([`crate::algebra::admissible`]) whose message names
//! both layouts; with run-time leaves the same check runs on the values.

use super::coalesce::{FoldBack, Many, One};
use crate::typelevel::arith::{CeilDivT, DivT, LCeilDiv, LDiv, LMin, LMul, Leaf, MinT, MulT};
use crate::typelevel::form::Either;
use crate::typelevel::form::StaticForm;
use crate::typelevel::list::Pack;
use crate::typelevel::list::Push;
use crate::typelevel::list::ZipRev;

use super::values::step_failed;
use crate::layout::coord::Underscore;
use crate::layout::{Congruent, Layout};
use crate::layout::{LayoutParts, StaticText};
use crate::typelevel::const_text::Text;
use crate::typelevel::int::{C, S};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, Nil, Tuple};
use typenum::{B0, B1, U2};

/// A static 1 becomes a static 2 (the last mode of A' in `coalesce_x`).
#[doc(hidden)]
pub trait TwoIfOne<Sh> {
    type Out;
    fn two(s: Sh) -> Self::Out;
}
impl<Sh> TwoIfOne<Sh> for B1 {
    type Out = S<U2>;
    #[inline(always)]
    fn two(_s: Sh) -> S<U2> {
        S::new()
    }
}
impl<Sh> TwoIfOne<Sh> for B0 {
    type Out = Sh;
    #[inline(always)]
    fn two(s: Sh) -> Sh {
        s
    }
}

/// The coalesce accumulator as a list of `(shape, stride)` modes.
#[doc(hidden)]
pub trait PairsOf {
    type Pairs: Copy;
    fn pairs(self) -> Self::Pairs;
}
impl<Sh: Copy, St: Copy> PairsOf for One<Sh, St> {
    type Pairs = Cons<(Sh, St), Nil>;
    #[inline(always)]
    fn pairs(self) -> Self::Pairs {
        Cons((self.0, self.1), Nil)
    }
}
impl<L: Copy> PairsOf for Many<L> {
    type Pairs = L;
    #[inline(always)]
    fn pairs(self) -> L {
        self.0
    }
}

/// Start `coalesce_x` from the last leaf (the head of the reversed list).
#[doc(hidden)]
pub trait StartX {
    type Pairs: Copy;
    fn start_x(self) -> Option<Self::Pairs>;
}
impl StartX for Nil {
    type Pairs = Cons<(C<1>, C<0>), Nil>;
    #[inline(always)]
    fn start_x(self) -> Option<Self::Pairs> {
        Some(Cons((C, C), Nil))
    }
}
impl<Sh: StaticForm, St, R> StartX for Cons<(Sh, St), R>
where
    Sh::IsOne: TwoIfOne<Sh>,
    R: FoldBack<One<<Sh::IsOne as TwoIfOne<Sh>>::Out, St>>,
    <R as FoldBack<One<<Sh::IsOne as TwoIfOne<Sh>>::Out, St>>>::Out: PairsOf,
{
    type Pairs =
        <<R as FoldBack<One<<Sh::IsOne as TwoIfOne<Sh>>::Out, St>>>::Out as PairsOf>::Pairs;
    #[inline(always)]
    fn start_x(self) -> Option<Self::Pairs> {
        let (s, d) = self.0;
        Some(
            self.1
                .fold_back(One(<Sh::IsOne as TwoIfOne<Sh>>::two(s), d))?
                .pairs(),
        )
    }
}

/// A' of a layout: its modes after `coalesce_x`, as `(shape, stride)` leaves.
pub trait CoalesceX {
    /// The modes of A'.
    type Pairs: Copy;
    /// The modes of A' as values; `None` when a merged run-time extent
    /// overflows `usize`.
    fn pairs_x(self) -> Option<Self::Pairs>;
}
impl<Sh: Congruent<D>, D: IntTuple> CoalesceX for Layout<Sh, D>
where
    Sh::Leaves: ZipRev<D::Leaves, Nil>,
    <Sh::Leaves as ZipRev<D::Leaves, Nil>>::Out: StartX,
{
    type Pairs = <<Sh::Leaves as ZipRev<D::Leaves, Nil>>::Out as StartX>::Pairs;
    #[inline(always)]
    fn pairs_x(self) -> Option<Self::Pairs> {
        self.shape()
            .leaves()
            .zip_rev(self.stride().leaves(), Nil)
            .start_x()
    }
}

/// The end of the fold: `rest shape : rest stride * k_last` is appended
/// unless it is a static 1; nothing appended gives it alone.
#[doc(hidden)]
pub trait Finish<Rd, RS, LS> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn finish(self, rd: Rd, rest: RS, last: LS) -> (Self::Shape, Self::Stride);
}
impl<RS: IntTuple, LS: IntTuple> Finish<Nil, RS, LS> for Nil {
    type Shape = RS;
    type Stride = LS;
    #[inline(always)]
    fn finish(self, _rd: Nil, rest: RS, last: LS) -> (RS, LS) {
        (rest, last)
    }
}
impl<H, T, Rd, RS: Leaf, LS> Finish<Rd, RS, LS> for Cons<H, T>
where
    RS::IsOne: FinishOne<Cons<H, T>, Rd, RS, LS>,
{
    type Shape = <RS::IsOne as FinishOne<Cons<H, T>, Rd, RS, LS>>::Shape;
    type Stride = <RS::IsOne as FinishOne<Cons<H, T>, Rd, RS, LS>>::Stride;
    #[inline(always)]
    fn finish(self, rd: Rd, rest: RS, last: LS) -> (Self::Shape, Self::Stride) {
        <RS::IsOne as FinishOne<Cons<H, T>, Rd, RS, LS>>::go(self, rd, rest, last)
    }
}
#[doc(hidden)]
pub trait FinishOne<Rs, Rd, RS, LS> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn go(rs: Rs, rd: Rd, rest: RS, last: LS) -> (Self::Shape, Self::Stride);
}
impl<Rs: Pack, Rd: Pack, RS, LS> FinishOne<Rs, Rd, RS, LS> for B1 {
    type Shape = Rs::Out;
    type Stride = Rd::Out;
    #[inline(always)]
    fn go(rs: Rs, rd: Rd, _rest: RS, _last: LS) -> (Self::Shape, Self::Stride) {
        (rs.pack(), rd.pack())
    }
}
impl<Rs: Push<RS>, Rd: Push<LS>, RS, LS> FinishOne<Rs, Rd, RS, LS> for B0
where
    Rs::Out: Pack,
    Rd::Out: Pack,
{
    type Shape = <Rs::Out as Pack>::Out;
    type Stride = <Rd::Out as Pack>::Out;
    #[inline(always)]
    fn go(rs: Rs, rd: Rd, rest: RS, last: LS) -> (Self::Shape, Self::Stride) {
        (rs.push(rest).pack(), rd.push(last).pack())
    }
}

/// Why a step of the fold failed: a value past `usize`, or a size 0 it
/// would divide by (CuTe's `composition_impl` divides by it): a mode of A'
/// before its last, or a leaf of B. One byte, so that the fold's results
/// stay small; [`StepError::refusal`] says it in full.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepError {
    /// A value of the result does not fit `usize`.
    Overflow,
    /// A mode of A' before its last has size 0.
    ZeroA,
    /// A leaf of B of size 0 takes a mode of A'.
    ZeroB,
}

impl StepError {
    /// The refusal it is.
    #[cold]
    pub(crate) fn refusal(self) -> crate::Refusal {
        use crate::algebra::admissible::size_zero;
        match self {
            StepError::Overflow => crate::Refusal::Arithmetic,
            StepError::ZeroA => crate::Refusal::SizeZero {
                what: "A",
                why: size_zero::COMPOSE_A,
            },
            StepError::ZeroB => crate::Refusal::SizeZero {
                what: "B",
                why: size_zero::COMPOSE_B,
            },
        }
    }
}

/// The fold over A''s modes, carrying the result modes and the rest.
#[doc(hidden)]
pub trait Fold<Rs, Rd, RS, RD> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    /// The values; `Err` on a value past `usize` or a size 0 the fold
    /// would divide by (CuTe's `composition_impl` does).
    fn fold(
        self,
        rs: Rs,
        rd: Rd,
        rest: RS,
        rest_d: RD,
    ) -> Result<(Self::Shape, Self::Stride), StepError>;
}
impl<Cc, K: Copy, Rs, Rd, RS, RD: Copy> Fold<Rs, Rd, RS, RD> for Cons<(Cc, K), Nil>
where
    (RD, K): LMul,
    Rs: Finish<Rd, RS, MulT<RD, K>>,
{
    type Shape = <Rs as Finish<Rd, RS, MulT<RD, K>>>::Shape;
    type Stride = <Rs as Finish<Rd, RS, MulT<RD, K>>>::Stride;
    #[inline(always)]
    fn fold(
        self,
        rs: Rs,
        rd: Rd,
        rest: RS,
        rest_d: RD,
    ) -> Result<(Self::Shape, Self::Stride), StepError> {
        let last = (rest_d, (self.0).1).value().ok_or(StepError::Overflow)?;
        Ok(rs.finish(rd, rest, last))
    }
}
impl<Cc: Leaf, K, M, R, Rs, Rd, RS: Leaf, RD: Leaf> Fold<Rs, Rd, RS, RD>
    for Cons<(Cc, K), Cons<M, R>>
where
    (Cc, RD): LCeilDiv,
    (RD, Cc): LCeilDiv,
    (<CeilDivT<Cc, RD> as StaticForm>::IsOne, RS::IsOne): Either,
    <(<CeilDivT<Cc, RD> as StaticForm>::IsOne, RS::IsOne) as Either>::Out:
        StepCase<Cons<M, R>, Rs, Rd, RS, RD, K, CeilDivT<Cc, RD>, CeilDivT<RD, Cc>>,
{
    type Shape = <StepOf<Cc, K, M, R, Rs, Rd, RS, RD> as FoldOut>::Shape;
    type Stride = <StepOf<Cc, K, M, R, Rs, Rd, RS, RD> as FoldOut>::Stride;
    #[inline(always)]
    fn fold(
        self,
        rs: Rs,
        rd: Rd,
        rest: RS,
        rest_d: RD,
    ) -> Result<(Self::Shape, Self::Stride), StepError> {
        let (c, k) = self.0;
        // A run-time rest stride of 0 maps every coordinate to A(0): the
        // whole rest shape goes to the first mode taken, with stride 0
        // (never a division by 0).
        let (next_shape, next_stride): (CeilDivT<Cc, RD>, CeilDivT<RD, Cc>) = if rest_d.value() == 0
        {
            (
                crate::typelevel::arith::leaf_result(|| Some(rest.value()))
                    .ok_or(StepError::Overflow)?,
                crate::typelevel::arith::leaf_result(|| Some(0)).ok_or(StepError::Overflow)?,
            )
        } else {
            if c.value() == 0 {
                return Err(StepError::ZeroA);
            }
            (
                (c, rest_d).value().ok_or(StepError::Overflow)?,
                (rest_d, c).value().ok_or(StepError::Overflow)?,
            )
        };
        <<(<CeilDivT<Cc, RD> as StaticForm>::IsOne, RS::IsOne) as Either>::Out as StepCase<
            Cons<M, R>,
            Rs,
            Rd,
            RS,
            RD,
            K,
            CeilDivT<Cc, RD>,
            CeilDivT<RD, Cc>,
        >>::step(self.1, rs, rd, rest, rest_d, k, next_shape, next_stride)
    }
}
/// The fold's step for mode `c:k` with the rest `RS:RD`, as one type.
type StepOf<Cc, K, M, R, Rs, Rd, RS, RD> = Stepped<
    <(
        <CeilDivT<Cc, RD> as StaticForm>::IsOne,
        <RS as StaticForm>::IsOne,
    ) as Either>::Out,
    (
        Cons<M, R>,
        Rs,
        Rd,
        RS,
        RD,
        K,
        CeilDivT<Cc, RD>,
        CeilDivT<RD, Cc>,
    ),
>;
#[doc(hidden)]
pub struct Stepped<Tag, Args>(core::marker::PhantomData<(Tag, Args)>);
/// A step's result: shape and stride of the finished fold.
#[doc(hidden)]
pub trait FoldOut {
    type Shape: IntTuple;
    type Stride: IntTuple;
}
impl<Tag, L, Rs, Rd, RS, RD, K, NS, NST> FoldOut for Stepped<Tag, (L, Rs, Rd, RS, RD, K, NS, NST)>
where
    Tag: StepCase<L, Rs, Rd, RS, RD, K, NS, NST>,
{
    type Shape = Tag::Shape;
    type Stride = Tag::Stride;
}
/// One mode of the fold: `B1` skips it (only the rest stride moves on),
/// `B0` takes `min(next shape, rest shape)` of it.
#[doc(hidden)]
pub trait StepCase<L, Rs, Rd, RS, RD, K, NS, NST> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    #[allow(clippy::too_many_arguments)]
    fn step(
        l: L,
        rs: Rs,
        rd: Rd,
        rest: RS,
        rest_d: RD,
        k: K,
        ns: NS,
        nst: NST,
    ) -> Result<(Self::Shape, Self::Stride), StepError>;
}
impl<L: Fold<Rs, Rd, RS, NST>, Rs, Rd, RS, RD, K, NS, NST> StepCase<L, Rs, Rd, RS, RD, K, NS, NST>
    for B1
{
    type Shape = L::Shape;
    type Stride = L::Stride;
    #[inline(always)]
    fn step(
        l: L,
        rs: Rs,
        rd: Rd,
        rest: RS,
        _rest_d: RD,
        _k: K,
        _ns: NS,
        nst: NST,
    ) -> Result<(Self::Shape, Self::Stride), StepError> {
        l.fold(rs, rd, rest, nst)
    }
}
impl<L, Rs, Rd, RS: Copy, RD, K, NS, NST> StepCase<L, Rs, Rd, RS, RD, K, NS, NST> for B0
where
    (NS, RS): LMin,
    (RD, K): LMul,
    (RS, MinT<NS, RS>): LDiv,
    Rs: Push<MinT<NS, RS>>,
    Rd: Push<MulT<RD, K>>,
    L: Fold<
        <Rs as Push<MinT<NS, RS>>>::Out,
        <Rd as Push<MulT<RD, K>>>::Out,
        DivT<RS, MinT<NS, RS>>,
        NST,
    >,
{
    type Shape = <L as Fold<
        <Rs as Push<MinT<NS, RS>>>::Out,
        <Rd as Push<MulT<RD, K>>>::Out,
        DivT<RS, MinT<NS, RS>>,
        NST,
    >>::Shape;
    type Stride = <L as Fold<
        <Rs as Push<MinT<NS, RS>>>::Out,
        <Rd as Push<MulT<RD, K>>>::Out,
        DivT<RS, MinT<NS, RS>>,
        NST,
    >>::Stride;
    #[inline(always)]
    fn step(
        l: L,
        rs: Rs,
        rd: Rd,
        rest: RS,
        rest_d: RD,
        k: K,
        ns: NS,
        nst: NST,
    ) -> Result<(Self::Shape, Self::Stride), StepError> {
        let new: MinT<NS, RS> = (ns, rest).value().ok_or(StepError::Overflow)?;
        let stride: MulT<RD, K> = (rest_d, k).value().ok_or(StepError::Overflow)?;
        if crate::typelevel::int::Int::value(new) == 0 {
            return Err(StepError::ZeroB);
        }
        let rest: DivT<RS, MinT<NS, RS>> = (rest, new).value().ok_or(StepError::Overflow)?;
        l.fold(rs.push(new), rd.push(stride), rest, nst)
    }
}

/// An integral A' `c:k` gives `s:(d*k)`; otherwise fold.
#[doc(hidden)]
pub trait Walk<Sh, D> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn walk(self, s: Sh, d: D) -> Result<(Self::Shape, Self::Stride), StepError>;
}
impl<Cc, K, Sh: IntTuple, D> Walk<Sh, D> for Cons<(Cc, K), Nil>
where
    (D, K): LMul,
{
    type Shape = Sh;
    type Stride = MulT<D, K>;
    #[inline(always)]
    fn walk(self, s: Sh, d: D) -> Result<(Sh, MulT<D, K>), StepError> {
        Ok((s, (d, (self.0).1).value().ok_or(StepError::Overflow)?))
    }
}
impl<P, M, R, Sh, D> Walk<Sh, D> for Cons<P, Cons<M, R>>
where
    Cons<P, Cons<M, R>>: Fold<Nil, Nil, Sh, D>,
{
    type Shape = <Cons<P, Cons<M, R>> as Fold<Nil, Nil, Sh, D>>::Shape;
    type Stride = <Cons<P, Cons<M, R>> as Fold<Nil, Nil, Sh, D>>::Stride;
    #[inline(always)]
    fn walk(self, s: Sh, d: D) -> Result<(Self::Shape, Self::Stride), StepError> {
        self.fold(Nil, Nil, s, d)
    }
}

/// A static stride 0 gives `s:_0` without walking A'.
#[doc(hidden)]
pub trait ZeroCase<AL, Sh, D> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn go(al: AL, s: Sh, d: D) -> Result<(Self::Shape, Self::Stride), StepError>;
}
impl<AL, Sh: IntTuple, D: IntTuple> ZeroCase<AL, Sh, D> for B1 {
    type Shape = Sh;
    type Stride = D;
    #[inline(always)]
    fn go(_al: AL, s: Sh, d: D) -> Result<(Sh, D), StepError> {
        Ok((s, d))
    }
}
impl<AL: Walk<Sh, D>, Sh, D> ZeroCase<AL, Sh, D> for B0 {
    type Shape = AL::Shape;
    type Stride = AL::Stride;
    #[inline(always)]
    fn go(al: AL, s: Sh, d: D) -> Result<(Self::Shape, Self::Stride), StepError> {
        al.walk(s, d)
    }
}

/// Compose A' (`Self`, a mode list) with B's shape/stride pair, mode by mode.
#[doc(hidden)]
pub trait CompTree<AL> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn comp(self, al: AL) -> Result<(Self::Shape, Self::Stride), StepError>;
}
impl<AL, Sh: IntTuple, St> CompTree<AL> for (Sh, St)
where
    Sh::IsLeaf: TreeCase<AL, Sh, St>,
{
    type Shape = <Sh::IsLeaf as TreeCase<AL, Sh, St>>::Shape;
    type Stride = <Sh::IsLeaf as TreeCase<AL, Sh, St>>::Stride;
    #[inline(always)]
    fn comp(self, al: AL) -> Result<(Self::Shape, Self::Stride), StepError> {
        <Sh::IsLeaf as TreeCase<AL, Sh, St>>::go(al, self.0, self.1)
    }
}
#[doc(hidden)]
pub trait TreeCase<AL, Sh, St> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn go(al: AL, s: Sh, d: St) -> Result<(Self::Shape, Self::Stride), StepError>;
}
impl<AL, Sh, St: Leaf> TreeCase<AL, Sh, St> for B1
where
    St::IsZero: ZeroCase<AL, Sh, St>,
{
    type Shape = <St::IsZero as ZeroCase<AL, Sh, St>>::Shape;
    type Stride = <St::IsZero as ZeroCase<AL, Sh, St>>::Stride;
    #[inline(always)]
    fn go(al: AL, s: Sh, d: St) -> Result<(Self::Shape, Self::Stride), StepError> {
        <St::IsZero as ZeroCase<AL, Sh, St>>::go(al, s, d)
    }
}
impl<AL, Sh: Tuple, St: Tuple> TreeCase<AL, Sh, St> for B0
where
    (Sh::List, St::List): CompList<AL>,
    <(Sh::List, St::List) as CompList<AL>>::Shapes: IntoTuple,
    <(Sh::List, St::List) as CompList<AL>>::Strides: IntoTuple,
    <<(Sh::List, St::List) as CompList<AL>>::Shapes as IntoTuple>::Tuple: IntTuple,
    <<(Sh::List, St::List) as CompList<AL>>::Strides as IntoTuple>::Tuple: IntTuple,
{
    type Shape = <<(Sh::List, St::List) as CompList<AL>>::Shapes as IntoTuple>::Tuple;
    type Stride = <<(Sh::List, St::List) as CompList<AL>>::Strides as IntoTuple>::Tuple;
    #[inline(always)]
    fn go(al: AL, s: Sh, d: St) -> Result<(Self::Shape, Self::Stride), StepError> {
        let (a, b) = (s.into_list(), d.into_list()).comp_list(al)?;
        Ok((a.into_tuple(), b.into_tuple()))
    }
}
#[doc(hidden)]
pub trait CompList<AL> {
    type Shapes;
    type Strides;
    fn comp_list(self, al: AL) -> Result<(Self::Shapes, Self::Strides), StepError>;
}
impl<AL> CompList<AL> for (Nil, Nil) {
    type Shapes = Nil;
    type Strides = Nil;
    #[inline(always)]
    fn comp_list(self, _al: AL) -> Result<(Nil, Nil), StepError> {
        Ok((Nil, Nil))
    }
}
impl<AL: Copy, SH, ST, DH, DT> CompList<AL> for (Cons<SH, ST>, Cons<DH, DT>)
where
    (SH, DH): CompTree<AL>,
    (ST, DT): CompList<AL>,
{
    type Shapes = Cons<<(SH, DH) as CompTree<AL>>::Shape, <(ST, DT) as CompList<AL>>::Shapes>;
    type Strides = Cons<<(SH, DH) as CompTree<AL>>::Stride, <(ST, DT) as CompList<AL>>::Strides>;
    #[inline(always)]
    fn comp_list(self, al: AL) -> Result<(Self::Shapes, Self::Strides), StepError> {
        let (s, d) = self;
        let (hs, hd) = (s.0, d.0).comp(al)?;
        let (ts, td) = (s.1, d.1).comp_list(al)?;
        Ok((Cons(hs, ts), Cons(hd, td)))
    }
}

/// The leaf sizes of A' as a constant (for the admissibility check).
#[doc(hidden)]
pub trait PairSizes {
    const SIZES: crate::typelevel::const_text::Leaves;
    /// Write the sizes from `buf[i]` on (as far as `buf` goes).
    fn sizes_into(&self, buf: &mut [usize], i: usize);
}
impl PairSizes for Nil {
    const SIZES: crate::typelevel::const_text::Leaves = crate::typelevel::const_text::Leaves::EMPTY;
    #[inline(always)]
    fn sizes_into(&self, _buf: &mut [usize], _i: usize) {}
}
impl<Sh: IntTuple, St, R: PairSizes> PairSizes for Cons<(Sh, St), R> {
    const SIZES: crate::typelevel::const_text::Leaves = Sh::LEAF_VALUES.concat(R::SIZES);
    #[inline(always)]
    fn sizes_into(&self, buf: &mut [usize], i: usize) {
        if let Some(x) = buf.get_mut(i) {
            *x = (self.0).0.size();
        }
        self.1.sizes_into(buf, i + 1);
    }
}

/// The run-time admissibility of `A' o B` (A' given by its modes `al`),
/// for inputs with run-time leaves: [`crate::algebra::admissible::check_composition`]
/// on the values. An integral A' has no boundary to cross: nothing to check.
#[inline(always)]
pub(crate) fn check_runtime<
    AL: PairSizes + crate::typelevel::tuple::List,
    BS: IntTuple,
    BD: IntTuple,
>(
    al: &AL,
    bs: &BS,
    bd: &BD,
) -> Result<(), crate::LayoutError> {
    const CAP: usize = crate::typelevel::const_text::Leaves::CAP;
    if AL::LEN <= 1 {
        return Ok(());
    }
    let refuse = |why| crate::LayoutError::Refused {
        op: "composition",
        why,
    };
    let n = if AL::LEN > BS::LEAF_COUNT {
        AL::LEN
    } else {
        BS::LEAF_COUNT
    };
    if n > CAP {
        return Err(refuse(crate::Refusal::TooManyLeaves { n, cap: CAP }));
    }
    // Static sizes of A' and a static B (A's strides may be run-time): the
    // answer is a constant, decided at compile time.
    if let Some(r) = Decided::<AL, BS, BD>::RESULT {
        return r.map_err(|e| refuse(crate::Refusal::Composition(e)));
    }
    if BS::LEAF_COUNT > UNROLL {
        let mut a = [0usize; CAP];
        al.sizes_into(&mut a, 0);
        let (mut s, mut d) = ([0usize; CAP], [0usize; CAP]);
        let mut i = 0;
        while i < BS::LEAF_COUNT {
            s[i] = bs.leaf(i);
            d[i] = bd.leaf(i);
            i += 1;
        }
        let (a, s, d) = (&a[..AL::LEN], &s[..BS::LEAF_COUNT], &d[..BS::LEAF_COUNT]);
        return crate::algebra::admissible::check_composition(a, s, d)
            .map_err(|e| refuse(crate::Refusal::Composition(e)));
    }
    // Up to UNROLL leaves of B: the same check (the steps of
    // `check_composition`) with the loop over B's leaves unrolled, so that
    // B's static leaves fold into the arithmetic; a small buffer for A'
    // when it fits (zeroing the full capacity costs more than the check).
    let mut buf = [0usize; CAP];
    let mut small = [0usize; UNROLL];
    let a: &mut [usize] = if AL::LEN <= UNROLL {
        &mut small
    } else {
        &mut buf
    };
    al.sizes_into(a, 0);
    let a = &a[..AL::LEN];
    let mut live = 0;
    unroll!(l, {
        if l < BS::LEAF_COUNT
            && crate::algebra::admissible::walk_leaf(a, bs.leaf(l), bd.leaf(l))
                .map_err(|e| refuse(crate::Refusal::Composition(e)))?
        {
            live += 1;
        }
    });
    if live > 1 {
        let (mut p, mut i) = (1, 0);
        while let Some(q) = crate::algebra::admissible::next_boundary(a, i, p) {
            p = q;
            let mut total: usize = 0;
            unroll!(l, {
                if l < BS::LEAF_COUNT {
                    let r = crate::algebra::admissible::leaf_residue(bs.leaf(l), bd.leaf(l), p);
                    total = total.saturating_add(r);
                }
            });
            if total >= p {
                let e = crate::error::CompositionError::Overlap { i, p };
                return Err(refuse(crate::Refusal::Composition(e)));
            }
            i += 1;
        }
        if crate::algebra::admissible::boundary_overflows(a, i, p) {
            let mut total: u128 = 0;
            unroll!(l, {
                if l < BS::LEAF_COUNT {
                    let r = crate::algebra::admissible::leaf_reach(bs.leaf(l), bd.leaf(l));
                    total = total.saturating_add(r);
                }
            });
            if total > usize::MAX as u128 {
                let e = crate::error::CompositionError::PastUsize { i };
                return Err(refuse(crate::Refusal::Composition(e)));
            }
        }
    }
    Ok(())
}

/// [`check_runtime`]'s answer when every value it reads is static.
struct Decided<AL, BS, BD>(core::marker::PhantomData<(AL, BS, BD)>);
impl<AL: PairSizes + crate::typelevel::tuple::List, BS: IntTuple, BD: IntTuple>
    Decided<AL, BS, BD>
{
    const RESULT: Option<Result<(), crate::error::CompositionError>> = {
        let (a, s, d) = (AL::SIZES, BS::LEAF_VALUES, BD::LEAF_VALUES);
        if a.n == AL::LEN && a.all_static() && s.all_static() && d.all_static() && s.n == d.n {
            Some(crate::algebra::admissible::check_composition(
                a.v.split_at(a.n).0,
                s.v.split_at(s.n).0,
                d.v.split_at(d.n).0,
            ))
        } else {
            None
        }
    };
}

/// How many leaves of B the run-time check unrolls.
const UNROLL: usize = 8;

/// `$body` for `$l` in `0..UNROLL`, each with a constant index.
macro_rules! unroll {
    ($l:ident, $body:block) => {
        unroll!(@ $l, $body, 0 1 2 3 4 5 6 7)
    };
    (@ $l:ident, $body:block, $($k:literal)*) => {
        $({
            let $l: usize = $k;
            $body
        })*
    };
}
use unroll;

/// The error of a static composition, if any, without failing the build:
/// what the compile-time check evaluates. `None` when admissible or when
/// an input has run-time leaves (checked at run time then).
///
/// ```
/// use layout_core::{algebra::composition_error, layout_type};
/// type A = layout_type!((8,5):(5,1));
/// type B = layout_type!((2,3):(4,2));
/// assert!(composition_error::<A, B>().unwrap().starts_with("composition: (_8,_5):(_5,_1) o (_2,_3):(_4,_2): B's modes overlap"));
/// assert_eq!(composition_error::<layout_type!((6,2):(8,2)), layout_type!((4,3):(3,1))>(), None);
/// ```
pub fn composition_error<A, B: ComposeOnto<A>>() -> Option<&'static str> {
    match &B::ERROR {
        Some(t) => Some(t.as_str()),
        None => None,
    }
}

struct ErrText<A, B>(core::marker::PhantomData<(A, B)>);
impl<A: StaticText + CoalesceX, B: StaticText> ErrText<A, B>
where
    A::Pairs: PairSizes,
{
    const TEXT: Option<Text> = {
        let a = <A::Pairs as PairSizes>::SIZES;
        let (bs, bd) = (B::SHAPE, B::STRIDE);
        if a.all_static() && bs.all_static() && bd.all_static() {
            let (asz, _) = a.v.split_at(a.n);
            let (bsv, _) = bs.v.split_at(bs.n);
            let (bdv, _) = bd.v.split_at(bd.n);
            let what = Text::EMPTY
                .str("composition: ")
                .text(A::TEXT)
                .str(" o ")
                .text(B::TEXT)
                .str(": ");
            match crate::algebra::admissible::check_composition(asz, bsv, bdv) {
                Err(e) => Some(e.text(what)),
                Ok(()) => match crate::algebra::admissible::zero_division(asz, bsv, bdv) {
                    Err((who, why)) => Some(what.str(who).str(" has size 0: ").str(why)),
                    Ok(()) => None,
                },
            }
        } else {
            None
        }
    };
}

/// The verdict of `composition(A, B)` for layouts A and B.
#[doc(hidden)]
pub type VerdictOf<AS, AD, BS, BD> =
    <(BS, BD) as super::admits::CompositionVerdict<<Layout<AS, AD> as CoalesceX>::Pairs>>::Out;

/// The type checker's verdict on `composition(A, B)` for layouts A and B:
/// the refusal, or `None` when admitted (or decided at run time).
///
/// ```
/// use layout_core::{algebra::composition_verdict, error::CompositionError, layout_type};
/// // B's mode 3:2 steps by 2 over A's first mode, of size 3.
/// assert_eq!(
///     composition_verdict::<layout_type!((3,4):(1,5)), layout_type!(3:2)>(),
///     Some(CompositionError::NotDividing { s: 3, d: 2, i: 0, c: 3 })
/// );
/// // A run-time leaf: decided at run time.
/// assert_eq!(composition_verdict::<layout_type!((3,4):(1,5)), layout_core::Layout<usize, layout_core::C<2>>>(), None);
/// ```
pub fn composition_verdict<A, B>() -> Option<crate::error::CompositionError>
where
    A: CoalesceX + LayoutParts,
    B: LayoutParts,
    (B::Shape, B::Stride): super::admits::CompositionVerdict<A::Pairs>,
    <(B::Shape, B::Stride) as super::admits::CompositionVerdict<A::Pairs>>::Out:
        super::admits::VerdictValue,
{
    <<(B::Shape, B::Stride) as super::admits::CompositionVerdict<A::Pairs>>::Out as super::admits::VerdictValue>::ERROR
}

/// The check of `composition(A, B)` for layouts `B` and `A`, whose A' has
/// the modes `AL`, decided when the checked trait asks whether it holds
/// (not when the unchecked operation is used: the verdict's type-level
/// work is then not done).
#[doc(hidden)]
pub struct CompositionCheck<B, A, AL>(core::marker::PhantomData<(B, A, AL)>);
impl<BS, BD, A, AL> super::admits::Holds<super::admits::ComposeOp>
    for CompositionCheck<Layout<BS, BD>, A, AL>
where
    (BS, BD): super::admits::CompositionVerdict<AL>,
    <(BS, BD) as super::admits::CompositionVerdict<AL>>::Out:
        super::admits::Holds<super::admits::ComposeOp>,
{
}
/// A right operand of composition (a layout, an integer, `_`, or a tuple
/// of those): `A o Self`. The tiler is `Self` so that the compiler picks the
/// impl from the tiler's type alone.
#[diagnostic::on_unimplemented(
    message = "composition: `{Self}` is not a tiler of this layout",
    label = "not a tiler of this layout",
    note = "a tiler is a layout, an integer, `_` (on a rank-2 mode for the zipped forms) or a tuple of those with at most as many modes as the layout (CuTe: \"Mismatched Ranks\")"
)]
pub trait ComposeOnto<A> {
    /// The result layout.
    type Output;
    /// The type checker's verdict on static inputs ([`crate::algebra::admits`]):
    /// `Admitted`, or the refusal the checked trait reports.
    #[doc(hidden)]
    type Verdict;
    /// Why `A o Self` is inadmissible, when every leaf involved is static
    /// (the build fails with this text); `None` otherwise.
    const ERROR: Option<Text>;
    /// `A o Self`; panics with the reason when run-time
    /// leaves make it inadmissible.
    fn compose_onto(self, a: A) -> Self::Output;
    /// `A o Self`, or the reason it is inadmissible.
    fn try_compose_onto(self, a: A) -> Result<Self::Output, crate::LayoutError>;
    /// [`ComposeOnto::try_compose_onto`] without the compile-time check, for
    /// operations defined through a composition that make that check
    /// themselves (one error at the user's call, not a second one here).
    #[doc(hidden)]
    fn compose_values(self, a: A) -> Result<Self::Output, crate::LayoutError>;
}

/// The result type of `Self o B` (unchecked: a refused input is reported
/// once, by [`Composition`]'s bound, and not again for the call's type).
#[doc(hidden)]
pub trait CompositionOut<B> {
    /// The result layout.
    type Output;
}
impl<A, B: ComposeOnto<A>> CompositionOut<B> for A {
    type Output = B::Output;
}

/// Typed composition `Self o B`, for any tiler `B`. Static inputs that
/// are not admissible do not implement it: `cargo check` reports them.
pub trait Composition<B>: CompositionOut<B> {
    /// The refusal of static inputs, as text (`None`: admissible, or
    /// decided at run time).
    #[doc(hidden)]
    const ERROR: Option<Text>;
    /// `()`, read by [`composition`]'s where-clause: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
    /// `Self o B`.
    fn composition(self, b: B) -> Self::Output;
    /// `Self o B`, or the reason it is inadmissible.
    fn try_composition(self, b: B) -> Result<Self::Output, crate::LayoutError>;
}
// The admissibility of static inputs, decided by the type checker: here,
// not in `ComposeOnto`, which the operations built on a composition use
// unchecked (each names its own refusal).
impl<A, B: ComposeOnto<A>> Composition<B> for A
where
    B::Verdict: super::admits::Holds<super::admits::ComposeOp>,
{
    const ERROR: Option<Text> = B::ERROR;
    type Checked = ();
    #[inline(always)]
    fn composition(self, b: B) -> Self::Output {
        b.compose_onto(self)
    }
    #[inline(always)]
    fn try_composition(self, b: B) -> Result<Self::Output, crate::LayoutError> {
        b.try_compose_onto(self)
    }
}

/// The result type of `composition(A, B)` for layouts.
pub type CompositionOf<AS, AD, BS, BD> =
    <(BS, BD) as CompLayout<<Layout<AS, AD> as CoalesceX>::Pairs>>::Out;

/// [`CompTree`]'s result as one layout type: a bound on it costs rustc one
/// evaluation of the fold, where a bound on its shape and one on its stride
/// cost one each.
#[doc(hidden)]
pub trait CompLayout<AL> {
    type Out: LayoutParts + StaticText + super::StaticResult + Copy;
    fn comp_layout(self, al: AL) -> Result<Self::Out, StepError>;
}
impl<AL, B: CompTree<AL>> CompLayout<AL> for B
where
    B::Shape: Congruent<B::Stride>,
{
    type Out = Layout<B::Shape, B::Stride>;
    #[inline(always)]
    fn comp_layout(self, al: AL) -> Result<Self::Out, StepError> {
        let (s, d) = self.comp(al)?;
        Ok(Layout::raw(s, d))
    }
}

impl<AS: Congruent<AD>, AD: IntTuple, BS: Congruent<BD>, BD: IntTuple> ComposeOnto<Layout<AS, AD>>
    for Layout<BS, BD>
where
    Layout<AS, AD>: CoalesceX,
    <Layout<AS, AD> as CoalesceX>::Pairs: PairSizes + crate::typelevel::tuple::List,
    (BS, BD): CompLayout<<Layout<AS, AD> as CoalesceX>::Pairs>,
{
    type Output = CompositionOf<AS, AD, BS, BD>;
    type Verdict =
        CompositionCheck<Layout<BS, BD>, Layout<AS, AD>, <Layout<AS, AD> as CoalesceX>::Pairs>;
    const ERROR: Option<Text> = ErrText::<Layout<AS, AD>, Layout<BS, BD>>::TEXT;
    #[inline(always)]
    fn compose_onto(self, a: Layout<AS, AD>) -> Self::Output {
        super::values::or_panic(self.try_compose_onto(a))
    }
    #[inline(always)]
    fn try_compose_onto(self, a: Layout<AS, AD>) -> Result<Self::Output, crate::LayoutError> {
        const {
            if let Some(t) = <Self as ComposeOnto<Layout<AS, AD>>>::ERROR {
                panic!("{}", t.as_str())
            }
        }
        super::values::run::<crate::typelevel::tuple::AllStatic4<AS, AD, BS, BD>, _>(move || {
            self.compose_values(a)
        })
    }
    #[inline(always)]
    fn compose_values(self, a: Layout<AS, AD>) -> Result<Self::Output, crate::LayoutError> {
        let al = a.pairs_x().ok_or(step_failed("composition"))?;
        check_runtime(&al, &self.shape(), &self.stride())?;
        (self.shape(), self.stride())
            .comp_layout(al)
            .map_err(|e| crate::LayoutError::Refused {
                op: "composition",
                why: e.refusal(),
            })
    }
}

/// CuTe's `composition(A, B)`: `R(c) == A(B(c))` for every `c` in B's
/// domain, congruent with B. B may be a layout, an integer `n` (the layout
/// `n:_1`), `_` (keep A) or a tuple of those applied mode by mode.
///
/// ```
/// use layout_core::{algebra::composition, layout};
/// let a = layout!((6,2):(8,2));
/// let r = composition(a, layout!((4,3):(3,1)));
/// assert_eq!(r.to_string(), "((_2,_2),_3):((_24,_2),_8)");
/// assert_eq!(core::mem::size_of_val(&r), 0);
/// // With run-time leaves CuTe keeps every intermediate mode, and a stride
/// // computed from a run-time size (ceil_div(3, m)) is a run-time value.
/// let (m, n) = (6, 2);
/// let r = composition(layout!((m,n):(8,2)), layout!((4,3):(3,1)));
/// assert_eq!(r.to_string(), "((2,2),(3,1)):((_24,2),(_8,2))");
/// ```
///
/// # Panics
///
/// When run-time leaves make the composition inadmissible, with the reason
/// ([`try_composition`] returns it); an inadmissible static input is a
/// compile error instead.
#[inline(always)]
pub fn composition<A: Composition<B>, B>(a: A, b: B) -> A::Output
where
    A::Checked: Copy,
{
    // Checked here too: the refusal of static inputs then names the
    // caller's line (the instantiation note points at this call).
    const {
        if let Some(e) = A::ERROR {
            panic!("{}", e.as_str())
        }
    }
    a.composition(b)
}

/// [`composition`], returning the reason instead of panicking when run-time
/// leaves make it inadmissible.
///
/// ```
/// use layout_core::{layout, try_composition};
/// // B steps over A's first mode: offsets 0 and A(4) = 1.
/// assert_eq!(try_composition(layout!((4,2):(2,1)), layout!(2:4)).unwrap().to_string(), "_2:_1");
/// // A run-time leaf makes the check run at run time: (m,5):(5,1) o (2,3):(4,2)
/// // with m = 8 carries past A's first mode (CuTe prints a wrong layout).
/// let m = 8;
/// assert!(try_composition(layout!((m,5):(5,1)), layout!((2,3):(4,2))).is_err());
/// ```
#[inline(always)]
pub fn try_composition<A: Composition<B>, B>(a: A, b: B) -> Result<A::Output, crate::LayoutError> {
    a.try_composition(b)
}

/// `_` as a tiler keeps the layout.
impl<AS: Congruent<AD>, AD: IntTuple> ComposeOnto<Layout<AS, AD>> for Underscore {
    type Output = Layout<AS, AD>;
    type Verdict = super::admits::Admitted;
    const ERROR: Option<Text> = None;
    #[inline(always)]
    fn compose_onto(self, a: Layout<AS, AD>) -> Layout<AS, AD> {
        a
    }
    #[inline(always)]
    fn try_compose_onto(self, a: Layout<AS, AD>) -> Result<Layout<AS, AD>, crate::LayoutError> {
        Ok(a)
    }
    #[inline(always)]
    fn compose_values(self, a: Layout<AS, AD>) -> Result<Layout<AS, AD>, crate::LayoutError> {
        Ok(a)
    }
}

macro_rules! int_tiler {
    ($t:ty; $($g:tt)*) => {
        /// An integer tiler `n` is the layout `n:_1`.
        impl<AS: Congruent<AD>, AD: IntTuple, $($g)*> ComposeOnto<Layout<AS, AD>> for $t
        where
            Layout<$t, C<1>>: ComposeOnto<Layout<AS, AD>>,
        {
            type Output = <Layout<$t, C<1>> as ComposeOnto<Layout<AS, AD>>>::Output;
            type Verdict = <Layout<$t, C<1>> as ComposeOnto<Layout<AS, AD>>>::Verdict;
            const ERROR: Option<Text> = <Layout<$t, C<1>> as ComposeOnto<Layout<AS, AD>>>::ERROR;
            #[inline(always)]
            fn compose_onto(self, a: Layout<AS, AD>) -> Self::Output {
                Layout::new(self, C::<1>).compose_onto(a)
            }
            #[inline(always)]
            fn try_compose_onto(self, a: Layout<AS, AD>) -> Result<Self::Output, crate::LayoutError> {
                Layout::new(self, C::<1>).try_compose_onto(a)
            }
            #[inline(always)]
            fn compose_values(self, a: Layout<AS, AD>) -> Result<Self::Output, crate::LayoutError> {
                Layout::new(self, C::<1>).compose_values(a)
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(int_tiler);

/// The first error of a list, if any.
pub(crate) const fn first_error(e: &[Option<Text>]) -> Option<Text> {
    let mut i = 0;
    while i < e.len() {
        if e[i].is_some() {
            return e[i];
        }
        i += 1;
    }
    None
}

/// A tuple tiler composes mode by mode; A's modes it does not reach are
/// dropped. One impl per rank of A (from the tiler's rank to 12), each
/// per-mode result spliced into the result type directly.
macro_rules! compose_tuple_tiler {
    (() [$($t:ident $s:ident $d:ident $i:tt)+]; [$($rs:ident $rd:ident)*]) => {
        impl<$($t, $s, $d,)+ $($rs, $rd,)*> ComposeOnto<Layout<($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)>> for ($($t,)+)
        where
            $(
                $t: ComposeOnto<Layout<$s, $d>>,
                <$t as ComposeOnto<Layout<$s, $d>>>::Output: LayoutParts,
            )+
        {
            type Output = Layout<
                ($(<<$t as ComposeOnto<Layout<$s, $d>>>::Output as LayoutParts>::Shape,)+),
                ($(<<$t as ComposeOnto<Layout<$s, $d>>>::Output as LayoutParts>::Stride,)+),
            >;
            type Verdict = super::admits::Modes<($(<$t as ComposeOnto<Layout<$s, $d>>>::Verdict,)+)>;
            const ERROR: Option<Text> = first_error(&[$(<$t as ComposeOnto<Layout<$s, $d>>>::ERROR,)+]);
            compose_tuple_tiler!(@methods [$($t $s $d $i)+]; [$($rs $rd)*]);
        }
    };
    (@methods [$($t:ident $s:ident $d:ident $i:tt)+]; [$($rs:ident $rd:ident)*]) => {
        #[inline(always)]
        // A's modes past the tiler are bound and dropped.
        #[allow(non_snake_case, unused_variables)]
        fn compose_onto(self, a: Layout<($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)>) -> Self::Output {
            super::values::or_panic(self.try_compose_onto(a))
        }
        #[inline(always)]
        // A's modes past the tiler are bound and dropped.
        #[allow(non_snake_case, unused_variables)]
        fn try_compose_onto(
            self,
            a: Layout<($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)>,
        ) -> Result<Self::Output, crate::LayoutError> {
            let (($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)) = a.into_raw();
            let r = ($(self.$i.try_compose_onto(Layout::raw($s, $d))?.parts(),)+);
            Ok(Layout::raw(($(r.$i.0,)+), ($(r.$i.1,)+)))
        }
        #[inline(always)]
        // A's modes past the tiler are bound and dropped.
        #[allow(non_snake_case, unused_variables)]
        fn compose_values(
            self,
            a: Layout<($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)>,
        ) -> Result<Self::Output, crate::LayoutError> {
            let (($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)) = a.into_raw();
            let r = ($(self.$i.compose_values(Layout::raw($s, $d))?.parts(),)+);
            Ok(Layout::raw(($(r.$i.0,)+), ($(r.$i.1,)+)))
        }
    };
}
crate::typelevel::list::for_tiler_ranks!(crate::algebra::composition::compose_tuple_tiler());
pub(crate) use compose_tuple_tiler;

/// `(t,)` on a layout whose shape is an integer (one mode).
macro_rules! compose_tuple_tiler_leaf {
    ($leaf:ty; $($g:tt)*) => {
        impl<T0, D, $($g)*> ComposeOnto<Layout<$leaf, D>> for (T0,)
        where
            T0: ComposeOnto<Layout<$leaf, D>>,
            <T0 as ComposeOnto<Layout<$leaf, D>>>::Output: LayoutParts,
        {
            type Output = Layout<
                (<<T0 as ComposeOnto<Layout<$leaf, D>>>::Output as LayoutParts>::Shape,),
                (<<T0 as ComposeOnto<Layout<$leaf, D>>>::Output as LayoutParts>::Stride,),
            >;
            type Verdict = <T0 as ComposeOnto<Layout<$leaf, D>>>::Verdict;
            const ERROR: Option<Text> = <T0 as ComposeOnto<Layout<$leaf, D>>>::ERROR;
            #[inline(always)]
            fn compose_onto(self, a: Layout<$leaf, D>) -> Self::Output {
                super::values::or_panic(self.try_compose_onto(a))
            }
            #[inline(always)]
            fn try_compose_onto(self, a: Layout<$leaf, D>) -> Result<Self::Output, crate::LayoutError> {
                let (s, d) = self.0.try_compose_onto(a)?.parts();
                Ok(Layout::raw((s,), (d,)))
            }
            #[inline(always)]
            fn compose_values(self, a: Layout<$leaf, D>) -> Result<Self::Output, crate::LayoutError> {
                let (s, d) = self.0.compose_values(a)?.parts();
                Ok(Layout::raw((s,), (d,)))
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(compose_tuple_tiler_leaf);
