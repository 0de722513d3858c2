//! Typed `coalesce`: CuTe's `bw_coalesce` as a type-level fold over the
//! leaves from the back. Two modes merge only when the merge is provable at
//! compile time: both shapes and both strides static and `s*d == d_next`.

use crate::layout::{Congruent, Layout};
use crate::typelevel::arith::{LMul, Leaf, MulT};
use crate::typelevel::form::{Known, StaticForm, Unknown};
use crate::typelevel::int::{Int, IntMul, C};
use crate::typelevel::list::{Unzip, ZipRev};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil};
use typenum::{Bit, IsEqual, B0, B1};

/// Whether `s:d` merges into a front mode `fs:fd`, given the form of the
/// product `s*d` and of `fs` and `fd`: `B1` when `fs` is static and `s*d`
/// is provably `fd` (CuTe's rule; `_0 * s` is `_0` even for a run-time `s`).
#[doc(hidden)]
pub trait MergeTag {
    type Tag: Bit;
}
impl<FS, FD> MergeTag for (Unknown, FS, FD) {
    type Tag = B0;
}
impl<P, FD> MergeTag for (Known<P>, Unknown, FD) {
    type Tag = B0;
}
impl<P, E> MergeTag for (Known<P>, Known<E>, Unknown) {
    type Tag = B0;
}
impl<P: IsEqual<F>, E, F> MergeTag for (Known<P>, Known<E>, Known<F>)
where
    <P as IsEqual<F>>::Output: Bit,
{
    type Tag = <P as IsEqual<F>>::Output;
}

/// The accumulator while the modes are still one integer mode.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct One<Sh, St>(pub(crate) Sh, pub(crate) St);
/// The accumulator once it is a tuple of modes, front first.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Many<L>(pub(crate) L);

/// Fold one `(shape, stride)` leaf, walking from the back, into the accumulator.
#[doc(hidden)]
pub trait Step<Acc> {
    type Out;
    /// `None` when a merged run-time extent overflows `usize`.
    fn step(self, acc: Acc) -> Option<Self::Out>;
}

/// The first decision: a static size-1 leaf is skipped.
#[doc(hidden)]
pub trait SkipOne<P, Acc> {
    type Out;
    fn go(p: P, acc: Acc) -> Option<Self::Out>;
}
impl<P, Acc> SkipOne<P, Acc> for B1 {
    type Out = Acc;
    #[inline(always)]
    fn go(_p: P, acc: Acc) -> Option<Acc> {
        Some(acc)
    }
}
impl<P: NotOne<Acc>, Acc> SkipOne<P, Acc> for B0 {
    type Out = P::Out;
    #[inline(always)]
    fn go(p: P, acc: Acc) -> Option<P::Out> {
        p.not_one(acc)
    }
}

/// The leaf is not a static 1: replace a static-1 integer accumulator,
/// merge, or prepend.
#[doc(hidden)]
pub trait NotOne<Acc> {
    type Out;
    fn not_one(self, acc: Acc) -> Option<Self::Out>;
}
impl<Sh, St, FS: StaticForm, FD> NotOne<One<FS, FD>> for (Sh, St)
where
    FS::IsOne: ReplaceOr<(Sh, St), One<FS, FD>>,
{
    type Out = <FS::IsOne as ReplaceOr<(Sh, St), One<FS, FD>>>::Out;
    #[inline(always)]
    fn not_one(self, acc: One<FS, FD>) -> Option<Self::Out> {
        <FS::IsOne as ReplaceOr<(Sh, St), One<FS, FD>>>::go(self, acc)
    }
}
impl<Sh, St, FS, FD, R> NotOne<Many<Cons<(FS, FD), R>>> for (Sh, St)
where
    (Sh, St): MergeOrPrepend<Many<Cons<(FS, FD), R>>>,
{
    type Out = <(Sh, St) as MergeOrPrepend<Many<Cons<(FS, FD), R>>>>::Out;
    #[inline(always)]
    fn not_one(self, acc: Many<Cons<(FS, FD), R>>) -> Option<Self::Out> {
        self.merge_or_prepend(acc)
    }
}

/// `B1`: the accumulator is a static 1 and is replaced by the leaf.
#[doc(hidden)]
pub trait ReplaceOr<P, Acc> {
    type Out;
    fn go(p: P, acc: Acc) -> Option<Self::Out>;
}
impl<Sh, St, FS, FD> ReplaceOr<(Sh, St), One<FS, FD>> for B1 {
    type Out = One<Sh, St>;
    #[inline(always)]
    fn go(p: (Sh, St), _acc: One<FS, FD>) -> Option<One<Sh, St>> {
        Some(One(p.0, p.1))
    }
}
impl<Sh, St, FS, FD> ReplaceOr<(Sh, St), One<FS, FD>> for B0
where
    (Sh, St): MergeOrPrepend<One<FS, FD>>,
{
    type Out = <(Sh, St) as MergeOrPrepend<One<FS, FD>>>::Out;
    #[inline(always)]
    fn go(p: (Sh, St), acc: One<FS, FD>) -> Option<Self::Out> {
        p.merge_or_prepend(acc)
    }
}

/// The front mode of an accumulator, and the accumulator with it replaced
/// or with a mode in front.
#[doc(hidden)]
pub trait Front {
    type FS;
    type FD;
    type Replaced<NS, ND>;
    type Prepended<NS, ND>;
    fn front(&self) -> (Self::FS, Self::FD);
    fn replace<NS, ND>(self, s: NS, d: ND) -> Self::Replaced<NS, ND>;
    fn prepend<NS: Copy + Send + Sync + 'static, ND: Copy + Send + Sync + 'static>(
        self,
        s: NS,
        d: ND,
    ) -> Self::Prepended<NS, ND>;
}
impl<FS: Copy + Send + Sync + 'static, FD: Copy + Send + Sync + 'static> Front for One<FS, FD> {
    type FS = FS;
    type FD = FD;
    type Replaced<NS, ND> = One<NS, ND>;
    type Prepended<NS, ND> = Many<Cons<(NS, ND), Cons<(FS, FD), Nil>>>;
    fn front(&self) -> (FS, FD) {
        (self.0, self.1)
    }
    fn replace<NS, ND>(self, s: NS, d: ND) -> One<NS, ND> {
        One(s, d)
    }
    fn prepend<NS: Copy + Send + Sync + 'static, ND: Copy + Send + Sync + 'static>(
        self,
        s: NS,
        d: ND,
    ) -> Self::Prepended<NS, ND> {
        Many(Cons((s, d), Cons((self.0, self.1), Nil)))
    }
}
impl<FS: Copy, FD: Copy, R: List> Front for Many<Cons<(FS, FD), R>> {
    type FS = FS;
    type FD = FD;
    type Replaced<NS, ND> = Many<Cons<(NS, ND), R>>;
    type Prepended<NS, ND> = Many<Cons<(NS, ND), Cons<(FS, FD), R>>>;
    fn front(&self) -> (FS, FD) {
        (self.0 .0 .0, self.0 .0 .1)
    }
    fn replace<NS, ND>(self, s: NS, d: ND) -> Self::Replaced<NS, ND> {
        Many(Cons((s, d), self.0 .1))
    }
    fn prepend<NS: Copy + Send + Sync + 'static, ND: Copy + Send + Sync + 'static>(
        self,
        s: NS,
        d: ND,
    ) -> Self::Prepended<NS, ND> {
        Many(Cons((s, d), self.0))
    }
}

/// Merge into the front mode when provable, else prepend.
#[doc(hidden)]
pub trait MergeOrPrepend<Acc> {
    type Out;
    fn merge_or_prepend(self, acc: Acc) -> Option<Self::Out>;
}
/// The merge decision of `(Sh, St)` into the front of `Acc`.
type MergeOf<Sh, St, Acc> = <(
    <MulT<Sh, St> as StaticForm>::Form,
    <<Acc as Front>::FS as StaticForm>::Form,
    <<Acc as Front>::FD as StaticForm>::Form,
) as MergeTag>::Tag;
impl<Sh: Leaf, St: Leaf, Acc: Front> MergeOrPrepend<Acc> for (Sh, St)
where
    (Sh, St): LMul,
    Acc::FS: StaticForm,
    Acc::FD: StaticForm,
    (
        <MulT<Sh, St> as StaticForm>::Form,
        <Acc::FS as StaticForm>::Form,
        <Acc::FD as StaticForm>::Form,
    ): MergeTag,
    MergeOf<Sh, St, Acc>: Merge<(Sh, St), Acc>,
{
    type Out = <MergeOf<Sh, St, Acc> as Merge<(Sh, St), Acc>>::Out;
    #[inline(always)]
    fn merge_or_prepend(self, acc: Acc) -> Option<Self::Out> {
        <MergeOf<Sh, St, Acc> as Merge<(Sh, St), Acc>>::go(self, acc)
    }
}

/// `B1` merges (`front shape = s * front shape`, stride `d`), `B0` prepends.
/// A merged run-time extent (a run-time shape over static-0 strides) that
/// overflows `usize` is `None`.
#[doc(hidden)]
pub trait Merge<P, Acc> {
    type Out;
    fn go(p: P, acc: Acc) -> Option<Self::Out>;
}
impl<Sh: IntMul<<Acc as Front>::FS>, St, Acc: Front> Merge<(Sh, St), Acc> for B1
where
    Acc::FS: Int,
{
    type Out = Acc::Replaced<Sh::Output, St>;
    #[inline(always)]
    fn go(p: (Sh, St), acc: Acc) -> Option<Self::Out> {
        let (fs, _) = acc.front();
        Some(acc.replace(p.0.checked_mul(fs)?, p.1))
    }
}
impl<Sh: Copy + Send + Sync + 'static, St: Copy + Send + Sync + 'static, Acc: Front>
    Merge<(Sh, St), Acc> for B0
{
    type Out = Acc::Prepended<Sh, St>;
    #[inline(always)]
    fn go(p: (Sh, St), acc: Acc) -> Option<Self::Out> {
        Some(acc.prepend(p.0, p.1))
    }
}

impl<Sh: StaticForm, St, Acc> Step<Acc> for (Sh, St)
where
    Sh::IsOne: SkipOne<(Sh, St), Acc>,
{
    type Out = <Sh::IsOne as SkipOne<(Sh, St), Acc>>::Out;
    #[inline(always)]
    fn step(self, acc: Acc) -> Option<Self::Out> {
        <Sh::IsOne as SkipOne<(Sh, St), Acc>>::go(self, acc)
    }
}

/// Fold a list of leaf pairs, given back to front, into an accumulator.
#[doc(hidden)]
pub trait FoldBack<Acc> {
    type Out;
    /// `None` when a merged run-time extent overflows `usize`.
    fn fold_back(self, acc: Acc) -> Option<Self::Out>;
}
impl<Acc> FoldBack<Acc> for Nil {
    type Out = Acc;
    #[inline(always)]
    fn fold_back(self, acc: Acc) -> Option<Acc> {
        Some(acc)
    }
}
impl<P: Step<Acc>, R: FoldBack<P::Out>, Acc> FoldBack<Acc> for Cons<P, R> {
    type Out = R::Out;
    #[inline(always)]
    fn fold_back(self, acc: Acc) -> Option<R::Out> {
        self.1.fold_back(self.0.step(acc)?)
    }
}

/// The accumulator as a layout: `_1:_0` for a static 1, an integer layout,
/// or a tuple of modes.
#[doc(hidden)]
pub trait Finish {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn finish(self) -> (Self::Shape, Self::Stride);
}
#[doc(hidden)]
pub trait FinishOne<Sh, St> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn go(s: Sh, d: St) -> (Self::Shape, Self::Stride);
}
impl<Sh, St> FinishOne<Sh, St> for B1 {
    type Shape = C<1>;
    type Stride = C<0>;
    fn go(_s: Sh, _d: St) -> (C<1>, C<0>) {
        (C, C)
    }
}
impl<Sh: IntTuple, St: IntTuple> FinishOne<Sh, St> for B0 {
    type Shape = Sh;
    type Stride = St;
    fn go(s: Sh, d: St) -> (Sh, St) {
        (s, d)
    }
}
impl<Sh: StaticForm, St> Finish for One<Sh, St>
where
    Sh::IsOne: FinishOne<Sh, St>,
{
    type Shape = <Sh::IsOne as FinishOne<Sh, St>>::Shape;
    type Stride = <Sh::IsOne as FinishOne<Sh, St>>::Stride;
    fn finish(self) -> (Self::Shape, Self::Stride) {
        <Sh::IsOne as FinishOne<Sh, St>>::go(self.0, self.1)
    }
}
impl<L: Unzip> Finish for Many<L>
where
    L::A: IntoTuple,
    L::B: IntoTuple,
    <L::A as IntoTuple>::Tuple: IntTuple,
    <L::B as IntoTuple>::Tuple: IntTuple,
{
    type Shape = <L::A as IntoTuple>::Tuple;
    type Stride = <L::B as IntoTuple>::Tuple;
    fn finish(self) -> (Self::Shape, Self::Stride) {
        let (a, b) = self.0.unzip();
        (a.into_tuple(), b.into_tuple())
    }
}

/// Start the fold with the last leaf as a one-mode accumulator.
#[doc(hidden)]
pub trait Start {
    type Out;
    fn start(self) -> Option<Self::Out>;
}
impl<Sh, St, R: FoldBack<One<Sh, St>>> Start for Cons<(Sh, St), R> {
    type Out = R::Out;
    #[inline(always)]
    fn start(self) -> Option<R::Out> {
        self.1.fold_back(One((self.0).0, (self.0).1))
    }
}

/// CuTe's `coalesce` on a typed layout.
pub trait Coalesce {
    /// The coalesced layout.
    type Output;
    /// Coalesce.
    ///
    /// # Panics
    ///
    /// When a merged run-time extent overflows `usize` (CuTe merges a
    /// run-time shape over static-0 strides: `(m,_4):(_0,_0)` is `4m:_0`);
    /// [`Coalesce::try_coalesce`] returns the error instead.
    #[track_caller]
    fn coalesce(self) -> Self::Output
    where
        Self: Sized,
    {
        super::values::or_panic(self.try_coalesce())
    }
    /// Coalesce, or the error when a merged run-time extent overflows `usize`.
    ///
    /// ```
    /// use layout_core::{algebra::Coalesce, layout};
    /// let m = 3usize;
    /// assert_eq!(layout!((m, 4):(0, 0)).try_coalesce().unwrap().to_string(), "12:_0");
    /// ```
    fn try_coalesce(self) -> Result<Self::Output, crate::LayoutError>;
}
impl<Sh: Congruent<D>, D: IntTuple> Coalesce for Layout<Sh, D>
where
    Sh::Leaves: ZipRev<D::Leaves, Nil>,
    <Sh::Leaves as ZipRev<D::Leaves, Nil>>::Out: Start,
    <<Sh::Leaves as ZipRev<D::Leaves, Nil>>::Out as Start>::Out: Finish,
    <<<Sh::Leaves as ZipRev<D::Leaves, Nil>>::Out as Start>::Out as Finish>::Shape:
        Congruent<<<<Sh::Leaves as ZipRev<D::Leaves, Nil>>::Out as Start>::Out as Finish>::Stride>,
{
    type Output = Layout<
        <<<Sh::Leaves as ZipRev<D::Leaves, Nil>>::Out as Start>::Out as Finish>::Shape,
        <<<Sh::Leaves as ZipRev<D::Leaves, Nil>>::Out as Start>::Out as Finish>::Stride,
    >;
    #[inline(always)]
    fn try_coalesce(self) -> Result<Self::Output, crate::LayoutError> {
        let (s, d) = self
            .shape()
            .leaves()
            .zip_rev(self.stride().leaves(), Nil)
            .start()
            .ok_or(crate::LayoutError::Refused {
                op: "coalesce",
                why: crate::Refusal::Arithmetic,
            })?
            .finish();
        Ok(Layout::new(s, d))
    }
}

/// CuTe's `coalesce(layout)`: the fewest modes with the same function,
/// merging only what is provable at compile time.
///
/// ```
/// use layout_core::{algebra::coalesce, layout};
/// assert_eq!(coalesce(layout!((2,(4,8)):(1,(2,8)))).to_string(), "_64:_1");
/// let n = 4;
/// // A dynamic leaf blocks the merge, as in CuTe.
/// assert_eq!(coalesce(layout!((2, n):(1, 2))).to_string(), "(_2,4):(_1,_2)");
/// assert_eq!(core::mem::size_of_val(&coalesce(layout!((2,(1,4)):(1,(7,2))))), 0);
/// // Statics beyond typenum's Const table work too.
/// assert_eq!(coalesce(layout!((1536,2):(1,1536))).to_string(), "_3072:_1");
/// ```
///
/// # Panics
///
/// When a merged run-time extent overflows `usize` ([`try_coalesce`]
/// returns the error): CuTe merges a run-time shape over static-0 strides,
/// `(m,_4):(_0,_0)` into `4m:_0`.
#[inline(always)]
#[track_caller]
pub fn coalesce<L: Coalesce>(l: L) -> L::Output {
    l.coalesce()
}

/// [`coalesce`], returning the error instead of panicking when a merged
/// run-time extent overflows `usize`.
///
/// ```
/// use layout_core::{algebra::try_coalesce, layout};
/// // Over static-0 strides CuTe merges a run-time shape: 4m:_0.
/// let m = 5usize;
/// assert_eq!(try_coalesce(layout!((m, 4):(0, 0))).unwrap().to_string(), "20:_0");
/// // 4 * 2^62 does not fit usize: refused, never wrapped.
/// let big = 1usize << 62;
/// assert!(try_coalesce(layout!((big, 4):(0, 0))).is_err());
/// ```
#[inline(always)]
pub fn try_coalesce<L: Coalesce>(l: L) -> Result<L::Output, crate::LayoutError> {
    l.try_coalesce()
}
