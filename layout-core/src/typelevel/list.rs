//! Type-level lists shared by several operations: building (push, pack),
//! zipping and unzipping, and the types of `size` and `cosize`.

use crate::typelevel::arith::{LMul, Leaf, MulT};
use crate::typelevel::form::{Known, Unknown};
use crate::typelevel::int::{C, S};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil};
use core::ops::{Add, Mul, Sub};
use typenum::{Add1, Prod, Sub1, Sum, Unsigned, B1};

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
impl<Sv: Sub<B1>, D, A> CosizeStep for (Known<Sv>, Known<D>, Known<A>)
where
    Sub1<Sv>: Mul<D>,
    A: Add<Prod<Sub1<Sv>, D>>,
{
    type Out = Known<Sum<A, Prod<Sub1<Sv>, D>>>;
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
