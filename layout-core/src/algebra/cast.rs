//! Typed `upcast<N>` and `downcast<N>`: the layout over elements N times
//! wider or narrower. Leaf by leaf; the structure is kept.

use super::filter::StrideZero;
use crate::layout::{Congruent, Layout};
use crate::typelevel::arith::{CeilOf, CeilQuot, DivRem};
use crate::typelevel::check::DividesU;
use crate::typelevel::form::StaticForm;
use crate::typelevel::int::{ConstForm, TypenumForm};
use crate::typelevel::int::{Int, IntMul, StaticInt, C, S};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil, Tuple};
use core::ops::BitOr;
use typenum::{Unsigned, B0, B1};

/// Ceiling division of leaves: static over static stays static (typenum).
pub trait IntCeilDiv<R: Int>: Int {
    /// The quotient's leaf type.
    type Output: Int;
    /// `ceil(self / r)`.
    fn ceil_div(self, r: R) -> Self::Output;
}
impl IntCeilDiv<usize> for usize {
    type Output = usize;
    fn ceil_div(self, r: usize) -> usize {
        self.div_ceil(r)
    }
}
impl<A: StaticInt> IntCeilDiv<usize> for A {
    type Output = usize;
    fn ceil_div(self, r: usize) -> usize {
        A::VALUE.div_ceil(r)
    }
}
impl<B: StaticInt> IntCeilDiv<B> for usize {
    type Output = usize;
    fn ceil_div(self, _r: B) -> usize {
        const { assert!(B::VALUE != 0, "division by a static zero") };
        self.div_ceil(B::VALUE)
    }
}
impl<A: StaticInt, B: StaticInt> IntCeilDiv<B> for A
where
    A::U: DivRem<B::U>,
    <A::U as DivRem<B::U>>::Q: CeilOf<<A::U as DivRem<B::U>>::R>,
    CeilQuot<A::U, B::U>: Unsigned + 'static,
{
    type Output = S<CeilQuot<A::U, B::U>>;
    fn ceil_div(self, _r: B) -> Self::Output {
        S::new()
    }
}

/// A leaf-pair operation: `(shape leaf, stride leaf) -> (shape, stride)`.
#[doc(hidden)]
pub trait PairOp<Sh, St> {
    type OS: IntTuple;
    type OD: IntTuple;
    fn apply(s: Sh, d: St) -> (Self::OS, Self::OD);
}

/// Apply a [`PairOp`] to every leaf pair of a shape `Self` with stride `D`.
#[doc(hidden)]
pub trait MapPairs<D, Op> {
    type OS: IntTuple;
    type OD: IntTuple;
    fn map_pairs(self, d: D) -> (Self::OS, Self::OD);
}
macro_rules! leaf_map_pairs {
    ($t:ty; $($g:tt)*) => {
        impl<D, Op: PairOp<$t, D>, $($g)*> MapPairs<D, Op> for $t {
            type OS = Op::OS;
            type OD = Op::OD;
            #[inline(always)]
            fn map_pairs(self, d: D) -> (Op::OS, Op::OD) {
                Op::apply(self, d)
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(leaf_map_pairs);
#[doc(hidden)]
pub trait MapPairsList<D, Op> {
    type OS: List;
    type OD: List;
    fn map_pairs(self, d: D) -> (Self::OS, Self::OD);
}
impl<Op> MapPairsList<Nil, Op> for Nil {
    type OS = Nil;
    type OD = Nil;
    fn map_pairs(self, _d: Nil) -> (Nil, Nil) {
        (Nil, Nil)
    }
}
impl<SH: MapPairs<DH, Op>, ST: MapPairsList<DT, Op>, DH, DT, Op> MapPairsList<Cons<DH, DT>, Op>
    for Cons<SH, ST>
{
    type OS = Cons<SH::OS, ST::OS>;
    type OD = Cons<SH::OD, ST::OD>;
    #[inline(always)]
    fn map_pairs(self, d: Cons<DH, DT>) -> (Self::OS, Self::OD) {
        let (a, b) = self.0.map_pairs(d.0);
        let (ra, rb) = self.1.map_pairs(d.1);
        (Cons(a, ra), Cons(b, rb))
    }
}
impl<Sh: Tuple, D: Tuple, Op> MapPairs<D, Op> for Sh
where
    Sh::List: MapPairsList<D::List, Op>,
    <Sh::List as MapPairsList<D::List, Op>>::OS: IntoTuple,
    <Sh::List as MapPairsList<D::List, Op>>::OD: IntoTuple,
    <<Sh::List as MapPairsList<D::List, Op>>::OS as IntoTuple>::Tuple: IntTuple,
    <<Sh::List as MapPairsList<D::List, Op>>::OD as IntoTuple>::Tuple: IntTuple,
{
    type OS = <<Sh::List as MapPairsList<D::List, Op>>::OS as IntoTuple>::Tuple;
    type OD = <<Sh::List as MapPairsList<D::List, Op>>::OD as IntoTuple>::Tuple;
    #[inline(always)]
    fn map_pairs(self, d: D) -> (Self::OS, Self::OD) {
        let (a, b) = self.into_list().map_pairs(d.into_list());
        (a.into_tuple(), b.into_tuple())
    }
}

/// `downcast<N>` of one leaf pair.
#[doc(hidden)]
pub struct DowncastOp<const N: usize>;
/// `B1`: a unit stride multiplies the shape; `B0`: the stride is multiplied.
#[doc(hidden)]
pub trait DownBranch<Sh, St, const N: usize> {
    type OS: IntTuple;
    type OD: IntTuple;
    fn go(s: Sh, d: St) -> (Self::OS, Self::OD);
}
impl<Sh: IntMul<C<N>>, St: IntTuple, const N: usize> DownBranch<Sh, St, N> for B1 {
    type OS = Sh::Output;
    type OD = St;
    fn go(s: Sh, d: St) -> (Sh::Output, St) {
        (s.mul(C::<N>), d)
    }
}
impl<Sh: IntTuple, St: IntMul<C<N>>, const N: usize> DownBranch<Sh, St, N> for B0 {
    type OS = Sh;
    type OD = St::Output;
    fn go(s: Sh, d: St) -> (Sh, St::Output) {
        (s, d.mul(C::<N>))
    }
}
impl<Sh, St: StaticForm, const N: usize> PairOp<Sh, St> for DowncastOp<N>
where
    St::IsOne: DownBranch<Sh, St, N>,
{
    type OS = <St::IsOne as DownBranch<Sh, St, N>>::OS;
    type OD = <St::IsOne as DownBranch<Sh, St, N>>::OD;
    fn apply(s: Sh, d: St) -> (Self::OS, Self::OD) {
        <St::IsOne as DownBranch<Sh, St, N>>::go(s, d)
    }
}

/// `upcast` by the static integer `F` of one leaf pair (`upcast<N>` is
/// [`UpcastOp<N>`]; a factor computed at the type level, as a tiled copy's
/// `retile` needs, is a leaf type).
#[doc(hidden)]
pub struct UpcastBy<F>(core::marker::PhantomData<F>);
/// `upcast<N>` of one leaf pair.
#[doc(hidden)]
pub type UpcastOp<const N: usize> = UpcastBy<C<N>>;
/// `B1`: a static 0 stride is kept; `B0`: `ceil(s / ceil(F/d)) : ceil(d/F)`.
#[doc(hidden)]
pub trait UpBranch<Sh, St, F> {
    type OS: IntTuple;
    type OD: IntTuple;
    fn go(s: Sh, d: St) -> (Self::OS, Self::OD);
}
impl<Sh: IntTuple, St: IntTuple, F> UpBranch<Sh, St, F> for B1 {
    type OS = Sh;
    type OD = St;
    fn go(s: Sh, d: St) -> (Sh, St) {
        (s, d)
    }
}
/// `upcast::<N>`'s precondition on a static stride `_D`: it divides `N` or
/// is a multiple of it, decided by the type checker.
///
/// ```
/// use layout_core::{algebra::upcast, layout};
/// assert_eq!(upcast::<2, _, _>(layout!((4,2):(1,4))).to_string(), "(_2,_2):(_1,_2)");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::upcast, layout};
/// // error: upcast::<2>: the static stride _3 neither divides 2 nor is a multiple of it
/// let _ = upcast::<2, _, _>(layout!((4,2):(3,12)));
/// ```
#[diagnostic::on_unimplemented(
    message = "upcast::<{N}>: the static stride _{D} neither divides {N} nor is a multiple of it",
    label = "a stride of this layout is not a divisor or a multiple of {N}"
)]
pub trait UpcastStride<const D: usize, const N: usize> {}
#[diagnostic::do_not_recommend]
impl<const D: usize, const N: usize> UpcastStride<D, N> for ()
where
    C<D>: TypenumForm,
    C<N>: TypenumForm,
    // d | n or n | d (a stride 0 is a multiple of n).
    <C<D> as TypenumForm>::U: DividesU<<C<N> as TypenumForm>::U>,
    <C<N> as TypenumForm>::U: DividesU<<C<D> as TypenumForm>::U>,
    <<C<D> as TypenumForm>::U as DividesU<<C<N> as TypenumForm>::U>>::Out:
        BitOr<<<C<N> as TypenumForm>::U as DividesU<<C<D> as TypenumForm>::U>>::Out, Output = B1>,
{
}
/// A stride leaf against the upcast factor `F`: `C<D>` against `C<N>` is
/// checked here, a computed `S<U>` as a typenum (its value printed only
/// when refused); a run-time stride at run time.
#[doc(hidden)]
pub trait UpStride<F> {}
impl<F> UpStride<F> for usize {}
impl<U, const N: usize> UpStride<C<N>> for S<U>
where
    C<N>: TypenumForm,
    U: DividesU<<C<N> as TypenumForm>::U>,
    <C<N> as TypenumForm>::U: DividesU<U>,
    <U as DividesU<<C<N> as TypenumForm>::U>>::Out:
        BitOr<<<C<N> as TypenumForm>::U as DividesU<U>>::Out>,
    <<U as DividesU<<C<N> as TypenumForm>::U>>::Out as BitOr<
        <<C<N> as TypenumForm>::U as DividesU<U>>::Out,
    >>::Output: UpStrideOr<U, N>,
{
}
/// `B1`: the computed stride (typenum `U`) divides `N` or is a multiple of
/// it; `B0`: the refusal, its value printed.
#[doc(hidden)]
pub trait UpStrideOr<U, const N: usize> {}
impl<U, const N: usize> UpStrideOr<U, N> for B1 {}
impl<U: ConstForm<C = C<D>>, const D: usize, const N: usize> UpStrideOr<U, N> for B0 where
    (): UpcastStride<D, N>
{
}
impl<F: UpFactor<D>, const D: usize> UpStride<F> for C<D> {}
/// [`UpStrides`] through one blanket impl: `upcast`'s bound, so that a
/// refusal lists no impls of the recursion (rustc offers the impls of the
/// bound's trait whose type resembles the refused one).
#[doc(hidden)]
pub trait UpcastStrides<F> {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
}
impl<F, X: UpStrides<F>> UpcastStrides<F> for X {
    type Checked = ();
}
/// Every stride leaf of a list against the upcast factor `F`.
#[doc(hidden)]
pub trait UpStrides<F> {}
#[diagnostic::do_not_recommend]
impl<F> UpStrides<F> for Nil {}
impl<F, H: UpStride<F>, T: UpStrides<F>> UpStrides<F> for Cons<H, T> {}
#[doc(hidden)]
pub trait UpFactor<const D: usize> {}
impl<const D: usize, U> UpFactor<D> for S<U> {}
// The table's forms outside the `do_not_recommend` impl: a value without
// one is reported as such.
impl<const D: usize, const N: usize> UpFactor<D> for C<N>
where
    C<D>: TypenumForm,
    C<N>: TypenumForm,
    (): UpcastStride<D, N>,
{
}

impl<Sh, St, F> UpBranch<Sh, St, F> for B0
where
    F: IntCeilDiv<St> + StaticInt,
    St: IntCeilDiv<F> + Int,
    Sh: IntCeilDiv<<F as IntCeilDiv<St>>::Output>,
    <Sh as IntCeilDiv<<F as IntCeilDiv<St>>::Output>>::Output: crate::typelevel::int::FromValue,
    <St as IntCeilDiv<F>>::Output: crate::typelevel::int::FromValue,
{
    type OS = <Sh as IntCeilDiv<<F as IntCeilDiv<St>>::Output>>::Output;
    type OD = <St as IntCeilDiv<F>>::Output;
    fn go(s: Sh, d: St) -> (Self::OS, Self::OD) {
        const {
            if let (Some(d), Some(n)) = (St::STATIC, F::STATIC) {
                assert!(
                    d % n == 0 || n % d == 0,
                    "upcast: a static stride neither divides N nor is a multiple of it"
                );
            }
        };
        if d.value() == 0 {
            // A run-time stride 0 broadcasts: kept, as a static 0 is (no
            // division by it).
            return (
                crate::typelevel::int::FromValue::from_value(s.value()),
                crate::typelevel::int::FromValue::from_value(0),
            );
        }
        (
            s.ceil_div(F::default().ceil_div(d)),
            d.ceil_div(F::default()),
        )
    }
}
impl<Sh, St: StrideZero, F> PairOp<Sh, St> for UpcastBy<F>
where
    St::IsZero: UpBranch<Sh, St, F>,
{
    type OS = <St::IsZero as UpBranch<Sh, St, F>>::OS;
    type OD = <St::IsZero as UpBranch<Sh, St, F>>::OD;
    fn apply(s: Sh, d: St) -> (Self::OS, Self::OD) {
        <St::IsZero as UpBranch<Sh, St, F>>::go(s, d)
    }
}

/// CuTe's `downcast<N>(layout)`: unit strides stretch their shape by N, the
/// other strides grow by N. Only non-negative strides exist here.
///
/// ```
/// use layout_core::{algebra::downcast, layout};
/// assert_eq!(downcast::<2, _, _>(layout!((4,3):(1,4))).to_string(), "(_8,_3):(_1,_8)");
/// ```
///
/// # Panics
///
/// When a run-time leaf times N overflows `usize` ([`try_downcast`] returns
/// the error instead).
#[inline(always)]
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn downcast<const N: usize, Sh, D>(
    l: Layout<Sh, D>,
) -> Layout<<Sh as MapPairs<D, DowncastOp<N>>>::OS, <Sh as MapPairs<D, DowncastOp<N>>>::OD>
where
    Sh: Congruent<D> + MapPairs<D, DowncastOp<N>>,
    D: IntTuple,
    <Sh as MapPairs<D, DowncastOp<N>>>::OS: Congruent<<Sh as MapPairs<D, DowncastOp<N>>>::OD>,
{
    super::values::or_panic(try_downcast::<N, Sh, D>(l))
}

/// [`downcast`], or the error when a run-time leaf times N overflows.
///
/// ```
/// use layout_core::{algebra::try_downcast, layout};
/// let big = usize::MAX / 2;
/// assert!(try_downcast::<4, _, _>(layout!((2, 3):(1, big))).is_err());
/// ```
#[inline(always)]
#[allow(clippy::type_complexity)]
pub fn try_downcast<const N: usize, Sh, D>(
    l: Layout<Sh, D>,
) -> Result<
    Layout<<Sh as MapPairs<D, DowncastOp<N>>>::OS, <Sh as MapPairs<D, DowncastOp<N>>>::OD>,
    crate::LayoutError,
>
where
    Sh: Congruent<D> + MapPairs<D, DowncastOp<N>>,
    D: IntTuple,
    <Sh as MapPairs<D, DowncastOp<N>>>::OS: Congruent<<Sh as MapPairs<D, DowncastOp<N>>>::OD>,
{
    if !Layout::<Sh, D>::IS_STATIC {
        // The leaf each pair multiplies: the shape under a static unit
        // stride, the stride otherwise (as `DownBranch`).
        let mut ok = true;
        l.shape()
            .for_each_pair(l.stride(), &mut |s, _, d, d_static| {
                let grown = if d_static && d == 1 { s } else { d };
                ok &= grown.checked_mul(N).is_some();
            });
        if !ok {
            return Err(crate::LayoutError::Overflow { op: "downcast" });
        }
    }
    let (s, d) = l.shape().map_pairs(l.stride());
    Ok(Layout::new(s, d))
}

/// CuTe's `upcast<N>(layout)`: per leaf `ceil(s / ceil(N/d)) : ceil(d/N)`,
/// strides of 0 (static or run-time) kept. It cannot fail: each step is a
/// ceiling division by a non-zero value.
///
/// ```
/// use layout_core::{algebra::upcast, layout};
/// assert_eq!(upcast::<2, _, _>(layout!(6:6)).to_string(), "_6:_3");
/// let zero = 0; // a run-time stride of 0
/// assert_eq!(upcast::<2, _, _>(layout!(6:zero)).to_string(), "6:0");
/// assert_eq!(upcast::<2, _, _>(layout!((3,4):(1,4))).to_string(), "(_2,_4):(_1,_2)");
/// ```
#[inline(always)]
#[allow(clippy::type_complexity)]
pub fn upcast<const N: usize, Sh, D>(
    l: Layout<Sh, D>,
) -> Layout<<Sh as MapPairs<D, UpcastOp<N>>>::OS, <Sh as MapPairs<D, UpcastOp<N>>>::OD>
where
    <D::Leaves as UpcastStrides<C<N>>>::Checked: Copy,
    Sh: Congruent<D> + MapPairs<D, UpcastOp<N>>,
    D: IntTuple,
    D::Leaves: UpcastStrides<C<N>>,
    <Sh as MapPairs<D, UpcastOp<N>>>::OS: Congruent<<Sh as MapPairs<D, UpcastOp<N>>>::OD>,
{
    let (s, d) = l.shape().map_pairs(l.stride());
    Layout::new(s, d)
}
