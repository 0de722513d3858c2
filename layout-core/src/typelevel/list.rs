//! Type-level lists shared by several operations: building (push, pack,
//! reverse), zipping and unzipping, `ceil_div` over a list, the two sorts
//! of `(shape, stride, _)` triples by static stride (stable, for
//! complement; strictly increasing, for right_inverse), and the types of
//! `size` and `cosize`.

use crate::typelevel::arith::{CeilDivT, LCeilDiv, LMul, Leaf, MulT};
use crate::typelevel::form::{Known, Unknown};
use crate::typelevel::int::{StaticInt, C, S};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil, Tuple};
use core::ops::{Add, Mul, Sub};
use typenum::{Add1, Prod, Sub1, Sum, UInt, UTerm, Unsigned, B0, B1};

/// A list of one element is that element; a longer list is a tuple.
#[doc(hidden)]
pub trait Pack {
    type Out: IntTuple;
    fn pack(self) -> Self::Out;
}
impl<H: IntTuple> Pack for Cons<H, Nil> {
    type Out = H;
    #[inline(always)]
    fn pack(self) -> H {
        self.0
    }
}
impl<H, H2, T> Pack for Cons<H, Cons<H2, T>>
where
    Cons<H, Cons<H2, T>>: IntoTuple,
    <Cons<H, Cons<H2, T>> as IntoTuple>::Tuple: IntTuple,
{
    type Out = <Cons<H, Cons<H2, T>> as IntoTuple>::Tuple;
    #[inline(always)]
    fn pack(self) -> Self::Out {
        self.into_tuple()
    }
}

/// The product of a list of leaves, with CuTe's static rules.
#[doc(hidden)]
pub trait SizeList<Acc> {
    type Out;
}
impl<Acc> SizeList<Acc> for Nil {
    type Out = Acc;
}
impl<X, T, Acc> SizeList<Acc> for Cons<X, T>
where
    (Acc, X): LMul,
    T: SizeList<MulT<Acc, X>>,
{
    type Out = <T as SizeList<MulT<Acc, X>>>::Out;
}
/// The type of `size(shape)`.
pub type SizeT<Sh> = <<Sh as IntTuple>::Leaves as SizeList<C<1>>>::Out;

/// One step of `cosize`: `acc + (s - 1) * d`, static only when all three are.
#[doc(hidden)]
pub trait CosizeStep {
    type Out;
}
impl<Sf, A> CosizeStep for (Sf, Unknown, A) {
    type Out = Unknown;
}
impl<D, A> CosizeStep for (Unknown, Known<D>, A) {
    type Out = Unknown;
}
impl<Sv, D> CosizeStep for (Known<Sv>, Known<D>, Unknown) {
    type Out = Unknown;
}
impl<H, Bt, D, A> CosizeStep for (Known<UInt<H, Bt>>, Known<D>, Known<A>)
where
    UInt<H, Bt>: Sub<B1>,
    Sub1<UInt<H, Bt>>: Mul<D>,
    A: Add<Prod<Sub1<UInt<H, Bt>>, D>>,
{
    type Out = Known<Sum<A, Prod<Sub1<UInt<H, Bt>>, D>>>;
}
/// A static mode of size 0: the layout has no offset, its cosize is 0
/// (CuTe's `cosize` of an empty layout, and the run-time `cosize`).
#[doc(hidden)]
pub struct Empty;
impl<D, A> CosizeStep for (Known<UTerm>, Known<D>, Known<A>) {
    type Out = Empty;
}
impl<Sv, D> CosizeStep for (Known<Sv>, Known<D>, Empty) {
    type Out = Empty;
}
#[doc(hidden)]
pub trait CosizeList<Acc> {
    type Out;
}
impl<Acc> CosizeList<Acc> for Nil {
    type Out = Acc;
}
impl<Sh: Leaf, St: Leaf, R, Acc> CosizeList<Acc> for Cons<(Sh, St), R>
where
    (Sh::Form, St::Form, Acc): CosizeStep,
    R: CosizeList<<(Sh::Form, St::Form, Acc) as CosizeStep>::Out>,
{
    type Out = <R as CosizeList<<(Sh::Form, St::Form, Acc) as CosizeStep>::Out>>::Out;
}
/// `Known<U>` is the static `U + 1`; `Unknown` a run-time `usize`.
#[doc(hidden)]
pub trait PlusOne {
    type Leaf;
}
impl PlusOne for Unknown {
    type Leaf = usize;
}
impl PlusOne for Empty {
    type Leaf = S<typenum::U0>;
}
impl<U: Add<B1>> PlusOne for Known<U>
where
    Add1<U>: Unsigned,
{
    type Leaf = S<Add1<U>>;
}
/// The type of `cosize(Layout<Sh, D>)`.
pub type CosizeT<Sh, D> =
    <<<<Sh as IntTuple>::Leaves as ZipModes<<D as IntTuple>::Leaves>>::Out as CosizeList<
        Known<typenum::U0>,
    >>::Out as PlusOne>::Leaf;

/// Append at the back of a list.
#[doc(hidden)]
pub trait Push<X> {
    type Out: List;
    fn push(self, x: X) -> Self::Out;
}
impl<X: Copy + Send + Sync + 'static> Push<X> for Nil {
    type Out = Cons<X, Nil>;
    #[inline(always)]
    fn push(self, x: X) -> Self::Out {
        Cons(x, Nil)
    }
}
impl<H: Copy + Send + Sync + 'static, T: Push<X>, X> Push<X> for Cons<H, T> {
    type Out = Cons<H, T::Out>;
    #[inline(always)]
    fn push(self, x: X) -> Self::Out {
        Cons(self.0, self.1.push(x))
    }
}

/// Split a list of pairs into the list of firsts and the list of seconds.
#[doc(hidden)]
pub trait Unzip {
    type A: List;
    type B: List;
    fn unzip(self) -> (Self::A, Self::B);
}
impl Unzip for Nil {
    type A = Nil;
    type B = Nil;
    fn unzip(self) -> (Nil, Nil) {
        (Nil, Nil)
    }
}
impl<X: Copy + Send + Sync + 'static, Y: Copy + Send + Sync + 'static, R: Unzip> Unzip
    for Cons<(X, Y), R>
{
    type A = Cons<X, R::A>;
    type B = Cons<Y, R::B>;
    fn unzip(self) -> (Self::A, Self::B) {
        let (a, b) = self.1.unzip();
        (Cons((self.0).0, a), Cons((self.0).1, b))
    }
}

/// Zip shape and stride mode lists into a list of pairs.
#[doc(hidden)]
pub trait ZipModes<D> {
    type Out: crate::typelevel::tuple::List;
    fn zip_modes(self, d: D) -> Self::Out;
}
impl ZipModes<Nil> for Nil {
    type Out = Nil;
    #[inline(always)]
    fn zip_modes(self, _d: Nil) -> Nil {
        Nil
    }
}
impl<SH: Copy + Send + Sync + 'static, ST: ZipModes<DT>, DH: Copy + Send + Sync + 'static, DT>
    ZipModes<Cons<DH, DT>> for Cons<SH, ST>
{
    type Out = Cons<(SH, DH), ST::Out>;
    #[inline(always)]
    fn zip_modes(self, d: Cons<DH, DT>) -> Self::Out {
        Cons((self.0, d.0), self.1.zip_modes(d.1))
    }
}

/// Calls `$cb!((args) [tiler modes]; [kept modes])` once for every tiler rank n
/// from 1 to 4 and every rank of A from n to 12 (the largest tuple): the
/// tuple-tiler impls are one per (n, rank of A), so that rustc matches the
/// layout's tuple types directly instead of splitting and rebuilding lists.
/// Tiler mode i is `Ti Si Di i` (its tiler, A's shape and stride of mode
/// i); the kept modes are `Sj Dj`.
macro_rules! for_tiler_ranks {
    ($($cb:ident)::+ ($($x:tt)*)) => {
        $crate::typelevel::list::for_tiler_ranks!(@r ($($cb)::+) ($($x)*) [T0 S0 D0 0]; [];
            [S1 D1 S2 D2 S3 D3 S4 D4 S5 D5 S6 D6 S7 D7 S8 D8 S9 D9 S10 D10 S11 D11]);
        $crate::typelevel::list::for_tiler_ranks!(@r ($($cb)::+) ($($x)*) [T0 S0 D0 0 T1 S1 D1 1]; [];
            [S2 D2 S3 D3 S4 D4 S5 D5 S6 D6 S7 D7 S8 D8 S9 D9 S10 D10 S11 D11]);
        $crate::typelevel::list::for_tiler_ranks!(@r ($($cb)::+) ($($x)*) [T0 S0 D0 0 T1 S1 D1 1 T2 S2 D2 2]; [];
            [S3 D3 S4 D4 S5 D5 S6 D6 S7 D7 S8 D8 S9 D9 S10 D10 S11 D11]);
        $crate::typelevel::list::for_tiler_ranks!(@r ($($cb)::+) ($($x)*) [T0 S0 D0 0 T1 S1 D1 1 T2 S2 D2 2 T3 S3 D3 3]; [];
            [S4 D4 S5 D5 S6 D6 S7 D7 S8 D8 S9 D9 S10 D10 S11 D11]);
    };
    (@r ($($cb:ident)::+) ($($x:tt)*) [$($t:tt)+]; [$($k:ident)*]; []) => {
        $($cb)::+!(($($x)*) [$($t)+]; [$($k)*]);
    };
    (@r ($($cb:ident)::+) ($($x:tt)*) [$($t:tt)+]; [$($k:ident)*]; [$ns:ident $nd:ident $($p:ident)*]) => {
        $($cb)::+!(($($x)*) [$($t)+]; [$($k)*]);
        $crate::typelevel::list::for_tiler_ranks!(@r ($($cb)::+) ($($x)*) [$($t)+]; [$($k)* $ns $nd]; [$($p)*]);
    };
}
pub(crate) use for_tiler_ranks;

/// Reverse a list.
#[doc(hidden)]
pub trait Reverse {
    type Out;
    fn reverse(self) -> Self::Out;
}
impl Reverse for Nil {
    type Out = Nil;
    #[inline(always)]
    fn reverse(self) -> Nil {
        Nil
    }
}
impl<H: Copy + Send + Sync + 'static, T: Reverse> Reverse for Cons<H, T>
where
    T::Out: Push<H>,
{
    type Out = <T::Out as Push<H>>::Out;
    #[inline(always)]
    fn reverse(self) -> Self::Out {
        self.1.reverse().push(self.0)
    }
}

/// Zip the shape leaves with the stride leaves, reversed (back first).
#[doc(hidden)]
pub trait ZipRev<D, Acc> {
    type Out;
    fn zip_rev(self, d: D, acc: Acc) -> Self::Out;
}
impl<Acc> ZipRev<Nil, Acc> for Nil {
    type Out = Acc;
    #[inline(always)]
    fn zip_rev(self, _d: Nil, acc: Acc) -> Acc {
        acc
    }
}
impl<SH, ST: ZipRev<DT, Cons<(SH, DH), Acc>>, DH, DT, Acc> ZipRev<Cons<DH, DT>, Acc>
    for Cons<SH, ST>
{
    type Out = ST::Out;
    #[inline(always)]
    fn zip_rev(self, d: Cons<DH, DT>, acc: Acc) -> Self::Out {
        self.1.zip_rev(d.1, Cons((self.0, d.0), acc))
    }
}

/// CuTe's `ceil_div(shape, n)`: divide the modes in order, carrying the rest.
#[doc(hidden)]
pub trait CeilDivList<B> {
    type Out;
    fn ceil_div_list(self, b: B) -> Option<Self::Out>;
}
impl<B> CeilDivList<B> for Nil {
    type Out = Nil;
    #[inline(always)]
    fn ceil_div_list(self, _b: B) -> Option<Nil> {
        Some(Nil)
    }
}
impl<X: Copy, T, B: Copy> CeilDivList<B> for Cons<X, T>
where
    (X, B): LCeilDiv,
    (B, X): LCeilDiv,
    T: CeilDivList<CeilDivT<B, X>>,
{
    type Out = Cons<CeilDivT<X, B>, <T as CeilDivList<CeilDivT<B, X>>>::Out>;
    #[inline(always)]
    fn ceil_div_list(self, b: B) -> Option<Self::Out> {
        let h = (self.0, b).value()?;
        Some(Cons(h, self.1.ceil_div_list((b, self.0).value()?)?))
    }
}
/// `ceil_div` of a cotarget (an integer or a flat tuple) by `B`.
#[doc(hidden)]
pub trait CeilDivShape<B> {
    type Out: IntTuple;
    fn ceil_div_shape(self, b: B) -> Option<Self::Out>;
}
impl<T: IntTuple, B> CeilDivShape<B> for T
where
    T::IsLeaf: CeilDivCase<T, B>,
{
    type Out = <T::IsLeaf as CeilDivCase<T, B>>::Out;
    #[inline(always)]
    fn ceil_div_shape(self, b: B) -> Option<Self::Out> {
        <T::IsLeaf as CeilDivCase<T, B>>::go(self, b)
    }
}
#[doc(hidden)]
pub trait CeilDivCase<T, B> {
    type Out: IntTuple;
    fn go(t: T, b: B) -> Option<Self::Out>;
}
impl<T, B> CeilDivCase<T, B> for B1
where
    (T, B): LCeilDiv,
{
    type Out = CeilDivT<T, B>;
    #[inline(always)]
    fn go(t: T, b: B) -> Option<Self::Out> {
        (t, b).value()
    }
}
impl<T: Tuple, B> CeilDivCase<T, B> for B0
where
    T::List: CeilDivList<B>,
    <T::List as CeilDivList<B>>::Out: IntoTuple,
    <<T::List as CeilDivList<B>>::Out as IntoTuple>::Tuple: IntTuple,
{
    type Out = <<T::List as CeilDivList<B>>::Out as IntoTuple>::Tuple;
    #[inline(always)]
    fn go(t: T, b: B) -> Option<Self::Out> {
        Some(t.into_list().ceil_div_list(b)?.into_tuple())
    }
}

/// `(shape, stride, _)` triples sorted by static stride, stable: one mode
/// needs no sort (its stride may be a run-time value); more are sorted by
/// insertion (complement's order: CuTe picks the first smallest stride
/// each time, so equal strides keep their order).
#[doc(hidden)]
pub trait Sorted {
    type Out;
    fn sorted(self) -> Self::Out;
}
impl<P> Sorted for Cons<P, Nil> {
    type Out = Cons<P, Nil>;
    #[inline(always)]
    fn sorted(self) -> Self {
        self
    }
}
impl<P, Q, R> Sorted for Cons<P, Cons<Q, R>>
where
    Cons<P, Cons<Q, R>>: InsertAll<Nil>,
{
    type Out = <Cons<P, Cons<Q, R>> as InsertAll<Nil>>::Out;
    #[inline(always)]
    fn sorted(self) -> Self::Out {
        self.insert_all(Nil)
    }
}

/// Insertion sort by static stride, stable (equal strides keep their order,
/// as CuTe's repeated pick of the first smallest stride does).
#[doc(hidden)]
pub trait InsertAll<Acc> {
    type Out;
    fn insert_all(self, acc: Acc) -> Self::Out;
}
impl<Acc> InsertAll<Acc> for Nil {
    type Out = Acc;
    #[inline(always)]
    fn insert_all(self, acc: Acc) -> Acc {
        acc
    }
}
impl<X, T, Acc: Insert<X>> InsertAll<Acc> for Cons<X, T>
where
    T: InsertAll<Acc::Out>,
{
    type Out = <T as InsertAll<Acc::Out>>::Out;
    #[inline(always)]
    fn insert_all(self, acc: Acc) -> Self::Out {
        self.1.insert_all(acc.insert(self.0))
    }
}
/// Insert a mode before the first mode with a larger stride.
#[doc(hidden)]
pub trait Insert<X> {
    type Out;
    fn insert(self, x: X) -> Self::Out;
}
impl<X> Insert<X> for Nil {
    type Out = Cons<X, Nil>;
    #[inline(always)]
    fn insert(self, x: X) -> Self::Out {
        Cons(x, Nil)
    }
}
impl<SX, DX: StaticInt, RX, SH, DH: StaticInt, RH, T> Insert<(SX, DX, RX)> for Cons<(SH, DH, RH), T>
where
    DX::U: typenum::IsLess<DH::U>,
    <DX::U as typenum::IsLess<DH::U>>::Output: InsertHere<(SX, DX, RX), (SH, DH, RH), T>,
{
    type Out = <<DX::U as typenum::IsLess<DH::U>>::Output as InsertHere<
        (SX, DX, RX),
        (SH, DH, RH),
        T,
    >>::Out;
    #[inline(always)]
    fn insert(self, x: (SX, DX, RX)) -> Self::Out {
        <<DX::U as typenum::IsLess<DH::U>>::Output as InsertHere<(SX, DX, RX), (SH, DH, RH), T>>::go(
            x, self.0, self.1,
        )
    }
}
/// `B1`: the new mode goes first; `B0`: after the head.
#[doc(hidden)]
pub trait InsertHere<X, H, T> {
    type Out;
    fn go(x: X, h: H, t: T) -> Self::Out;
}
impl<X, H, T> InsertHere<X, H, T> for B1 {
    type Out = Cons<X, Cons<H, T>>;
    #[inline(always)]
    fn go(x: X, h: H, t: T) -> Self::Out {
        Cons(x, Cons(h, t))
    }
}
impl<X, H, T: Insert<X>> InsertHere<X, H, T> for B0 {
    type Out = Cons<H, T::Out>;
    #[inline(always)]
    fn go(x: X, h: H, t: T) -> Self::Out {
        Cons(h, t.insert(x))
    }
}

/// The search result: nothing yet, or a (shape, stride, compact stride) triple.
#[doc(hidden)]
pub struct NotFound;
#[doc(hidden)]
pub struct Found<T>(T);

/// `B1`: the new candidate; `B0`: the old one.
#[doc(hidden)]
pub trait PickNew<N, O> {
    type Out;
}
impl<N, O> PickNew<N, O> for B1 {
    type Out = Found<N>;
}
impl<N, O> PickNew<N, O> for B0 {
    type Out = Found<O>;
}

/// The mode with the smallest static stride above `T` (`Found`) or none.
#[doc(hidden)]
pub trait MinAbove<T, Acc> {
    type Out;
}
impl<T, Acc> MinAbove<T, Acc> for Nil {
    type Out = Acc;
}
impl<T, Acc, SH, DH: StaticInt, RH, R> MinAbove<T, Acc> for Cons<(SH, DH, RH), R>
where
    DH::U: typenum::IsGreater<T>,
    <DH::U as typenum::IsGreater<T>>::Output: AboveTag<Acc, (SH, DH, RH)>,
    R: MinAbove<T, <<DH::U as typenum::IsGreater<T>>::Output as AboveTag<Acc, (SH, DH, RH)>>::Out>,
{
    type Out = <R as MinAbove<
        T,
        <<DH::U as typenum::IsGreater<T>>::Output as AboveTag<Acc, (SH, DH, RH)>>::Out,
    >>::Out;
}
/// `B1`: the stride is above the threshold; keep it if smaller than the candidate.
#[doc(hidden)]
pub trait AboveTag<Acc, X> {
    type Out;
}
impl<Acc, X> AboveTag<Acc, X> for B0 {
    type Out = Acc;
}
impl<Acc: Smaller<X>, X> AboveTag<Acc, X> for B1 {
    type Out = Acc::Out;
}
#[doc(hidden)]
pub trait Smaller<X> {
    type Out;
}
impl<X> Smaller<X> for NotFound {
    type Out = Found<X>;
}
impl<SO, DO: StaticInt, RO, SN, DN: StaticInt, RN> Smaller<(SN, DN, RN)> for Found<(SO, DO, RO)>
where
    DN::U: typenum::IsLess<DO::U>,
    <DN::U as typenum::IsLess<DO::U>>::Output: PickNew<(SN, DN, RN), (SO, DO, RO)>,
{
    type Out =
        <<DN::U as typenum::IsLess<DO::U>>::Output as PickNew<(SN, DN, RN), (SO, DO, RO)>>::Out;
}

/// `(shape, stride, _)` triples sorted by strictly increasing static stride
/// (a type only): repeatedly the smallest stride above the last, so of equal
/// strides only the first is kept (right_inverse's order: CuTe's walk takes
/// one mode per stride).
#[doc(hidden)]
pub trait SortFrom<T, Acc> {
    type Out;
}
impl<L: MinAbove<T, NotFound>, T, Acc> SortFrom<T, Acc> for L
where
    <L as MinAbove<T, NotFound>>::Out: SortNext<L, Acc>,
{
    type Out = <<L as MinAbove<T, NotFound>>::Out as SortNext<L, Acc>>::Out;
}
#[doc(hidden)]
pub trait SortNext<L, Acc> {
    type Out;
}
impl<L, Acc> SortNext<L, Acc> for NotFound {
    type Out = Acc;
}
impl<L, Acc: Push<(SF, DF, RF)>, SF, DF: StaticInt, RF> SortNext<L, Acc> for Found<(SF, DF, RF)>
where
    L: SortFrom<DF::U, <Acc as Push<(SF, DF, RF)>>::Out>,
    (SF, DF, RF): Copy + Send + Sync + 'static,
{
    type Out = <L as SortFrom<DF::U, <Acc as Push<(SF, DF, RF)>>::Out>>::Out;
}
