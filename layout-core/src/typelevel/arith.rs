//! Leaf arithmetic at the type level, with CuTe's static/dynamic rules:
//! an operation on two static leaves is static (computed by typenum), any
//! run-time operand makes the result a run-time `usize`, except that a
//! static 0 times anything stays a static 0.
//!
//! Each operation is a trait on the pair `(A, B)` of leaf types, so the
//! dispatch sits in `Self`. Each trait also computes the value: a static
//! result is its type's constant (nothing is computed), a run-time one is
//! checked arithmetic (`None` on overflow or division by 0).

use crate::typelevel::form::{Known, StaticForm, Unknown};
use crate::typelevel::int::{Int, S};
use core::ops::{Add, Mul};
use typenum::{Bit, Minimum, Prod, UInt, UTerm, Unsigned, B0, B1};

/// `a % b` (`b > 0`) with a comparison first: divisions by run-time sizes
/// dominate the run-time checks, and most operands are already below.
#[inline(always)]
pub(crate) const fn rem(a: usize, b: usize) -> usize {
    if a < b {
        a
    } else {
        a % b
    }
}

/// `a / b` (`b > 0`) with the comparisons first, as [`rem`].
#[inline(always)]
pub(crate) const fn quot(a: usize, b: usize) -> usize {
    if a < b {
        0
    } else if a == b {
        1
    } else {
        a / b
    }
}

/// A leaf type with its static form: `C<N>`, `S<U>` or `usize`.
pub trait Leaf: Int + StaticForm + crate::typelevel::int::FromValue + Default {}
impl<T: Int + StaticForm + crate::typelevel::int::FromValue + Default> Leaf for T {}

/// The type of `a * b`.
#[doc(hidden)]
pub trait FMul {
    type Out: Leaf;
}
impl FMul for (Unknown, Unknown) {
    type Out = usize;
}
impl FMul for (Known<UTerm>, Unknown) {
    type Out = crate::typelevel::int::C<0>;
}
impl FMul for (Unknown, Known<UTerm>) {
    type Out = crate::typelevel::int::C<0>;
}
impl<U, B> FMul for (Known<UInt<U, B>>, Unknown) {
    type Out = usize;
}
impl<U, B> FMul for (Unknown, Known<UInt<U, B>>) {
    type Out = usize;
}
impl<A: Mul<B>, B> FMul for (Known<A>, Known<B>)
where
    Prod<A, B>: Unsigned
        + Default
        + 'static
        + crate::typelevel::int::StaticOneTag
        + crate::typelevel::int::StaticZeroTag,
{
    type Out = S<Prod<A, B>>;
}
/// `a * b` on leaf types.
pub trait LMul {
    /// The product's type.
    type Out: Leaf;
    /// The product (`None` on overflow).
    fn value(self) -> Option<Self::Out>;
}
impl<A: Leaf, B: Leaf> LMul for (A, B)
where
    (A::Form, B::Form): FMul,
{
    type Out = <(A::Form, B::Form) as FMul>::Out;
    #[inline(always)]
    fn value(self) -> Option<Self::Out> {
        leaf_result(|| self.0.value().checked_mul(self.1.value()))
    }
}

/// A result leaf: a static one is its constant (`f` is not called), a
/// run-time one takes `f`'s value.
#[inline(always)]
pub(crate) fn leaf_result<T: Leaf>(f: impl FnOnce() -> Option<usize>) -> Option<T> {
    if T::STATIC.is_some() {
        Some(T::default())
    } else {
        f().map(T::from_value)
    }
}
/// The type of `a * b`.
pub type MulT<A, B> = <(A, B) as LMul>::Out;

macro_rules! binary {
    ($(#[$m:meta])* $f:ident, $l:ident, $alias:ident, [$($bound:tt)*], $out:ty, |$a:ident, $b:ident| $val:expr) => {
        #[doc(hidden)]
        pub trait $f {
            type Out: Leaf;
        }
        impl $f for (Unknown, Unknown) {
            type Out = usize;
        }
        impl<B> $f for (Unknown, Known<B>) {
            type Out = usize;
        }
        impl<A> $f for (Known<A>, Unknown) {
            type Out = usize;
        }
        impl<A, U, Bt> $f for (Known<A>, Known<UInt<U, Bt>>)
        where
            $($bound)*
        {
            type Out = S<$out>;
        }
        /// A static divisor of 0 (only in inadmissible inputs, which the
        /// operation's check refuses) gives a static 0 instead of no type.
        impl<A> $f for (Known<A>, Known<UTerm>) {
            type Out = crate::typelevel::int::C<0>;
        }
        $(#[$m])*
        pub trait $l {
            /// The result's type.
            type Out: Leaf;
            /// The result (`None` on division by 0 or overflow).
            fn value(self) -> Option<Self::Out>;
        }
        impl<A: Leaf, B: Leaf> $l for (A, B)
        where
            (A::Form, B::Form): $f,
        {
            type Out = <(A::Form, B::Form) as $f>::Out;
            #[inline(always)]
            fn value(self) -> Option<Self::Out> {
                let ($a, $b) = (self.0.value(), self.1.value());
                leaf_result(|| $val)
            }
        }
        $(#[$m])*
        pub type $alias<A, B> = <(A, B) as $l>::Out;
    };
}

binary!(
    /// `a / b` (exact where CuTe uses it).
    FDiv, LDiv, DivT,
    [A: DivRem<UInt<U, Bt>>, <A as DivRem<UInt<U, Bt>>>::Q: Unsigned + Default + 'static + crate::typelevel::int::StaticOneTag + crate::typelevel::int::StaticZeroTag],
    <A as DivRem<UInt<U, Bt>>>::Q,
    |a, b| if b == 0 { None } else { Some(quot(a, b)) }
);
binary!(
    /// `min(a, b)`.
    FMin, LMin, MinT,
    [A: typenum::Min<UInt<U, Bt>>, Minimum<A, UInt<U, Bt>>: Unsigned + Default + 'static + crate::typelevel::int::StaticOneTag + crate::typelevel::int::StaticZeroTag],
    Minimum<A, UInt<U, Bt>>,
    |a, b| Some(a.min(b))
);
binary!(
    /// `ceil_div(a, b)`, that is `(a + b - 1) / b`.
    FCeilDiv, LCeilDiv, CeilDivT,
    [
        A: DivRem<UInt<U, Bt>>,
        <A as DivRem<UInt<U, Bt>>>::Q: CeilOf<<A as DivRem<UInt<U, Bt>>>::R>,
        CeilQuot<A, UInt<U, Bt>>: Unsigned + Default + 'static + crate::typelevel::int::StaticOneTag + crate::typelevel::int::StaticZeroTag
    ],
    CeilQuot<A, UInt<U, Bt>>,
    |a, b| if b == 0 {
        None
    } else if a <= b {
        // No division for the common operand below the divisor.
        Some((a != 0) as usize)
    } else {
        Some(a.div_ceil(b))
    }
);

// Type-level long division. typenum's `Div` walks the numerator through
// bit-index arithmetic (`GetBit`, `SetBit`, `Len`) and costs rustc ~8 ms
// per quotient of 10-bit numbers; this one recurses on the bits themselves,
// one subtract-with-borrow per bit, and its remainder comes with it.

/// `U * 2 + B` in typenum's canonical form (no leading zero bit).
#[doc(hidden)]
pub trait Shl1<B> {
    type Out: Unsigned;
}
impl Shl1<B0> for UTerm {
    type Out = UTerm;
}
impl Shl1<B1> for UTerm {
    type Out = UInt<UTerm, B1>;
}
impl<U: Unsigned, X: Bit, B: Bit> Shl1<B> for UInt<U, X> {
    type Out = UInt<UInt<U, X>, B>;
}
/// One bit of a subtraction: (minuend bit, subtrahend bit, borrow in).
#[doc(hidden)]
pub trait FullSub {
    type Bit: Bit;
    type Borrow: Bit;
}
macro_rules! full_sub {
    ($(($n:ty, $d:ty, $b:ty) => ($o:ty, $c:ty)),*) => {
        $(impl FullSub for ($n, $d, $b) {
            type Bit = $o;
            type Borrow = $c;
        })*
    };
}
full_sub!(
    (B0, B0, B0) => (B0, B0), (B0, B0, B1) => (B1, B1),
    (B0, B1, B0) => (B1, B1), (B0, B1, B1) => (B0, B1),
    (B1, B0, B0) => (B1, B0), (B1, B0, B1) => (B0, B0),
    (B1, B1, B0) => (B0, B0), (B1, B1, B1) => (B1, B1)
);
/// `Self - D - Bor`, least significant bit first: the borrow out (`B1` when
/// `Self < D + Bor`) and, when there is none, the difference.
#[doc(hidden)]
pub trait SubBorrow<D, Bor> {
    type Out: Unsigned;
    type Borrow: Bit;
}
impl<Bor: Bit> SubBorrow<UTerm, Bor> for UTerm {
    type Out = UTerm;
    type Borrow = Bor;
}
impl<DH, DB, Bor> SubBorrow<UInt<DH, DB>, Bor> for UTerm {
    type Out = UTerm;
    type Borrow = B1;
}
impl<NH, NB, Bor> SubBorrow<UTerm, Bor> for UInt<NH, NB>
where
    (NB, B0, Bor): FullSub,
    NH: SubBorrow<UTerm, <(NB, B0, Bor) as FullSub>::Borrow>,
    NH::Out: Shl1<<(NB, B0, Bor) as FullSub>::Bit>,
{
    type Out = <NH::Out as Shl1<<(NB, B0, Bor) as FullSub>::Bit>>::Out;
    type Borrow = NH::Borrow;
}
impl<NH, NB, DH, DB, Bor> SubBorrow<UInt<DH, DB>, Bor> for UInt<NH, NB>
where
    (NB, DB, Bor): FullSub,
    NH: SubBorrow<DH, <(NB, DB, Bor) as FullSub>::Borrow>,
    NH::Out: Shl1<<(NB, DB, Bor) as FullSub>::Bit>,
{
    type Out = <NH::Out as Shl1<<(NB, DB, Bor) as FullSub>::Bit>>::Out;
    type Borrow = NH::Borrow;
}
/// Quotient and remainder of `Self / D` (`D > 0`), most significant bit
/// first: each step appends a bit to the remainder and subtracts `D` when
/// no borrow comes out.
#[doc(hidden)]
pub trait DivRem<D> {
    type Q: Unsigned;
    type R: Unsigned;
}
// No impl for a divisor of 0 (`UTerm`): dividing by a static 0 is a
// compile error, as with typenum's `Div`.
impl<DH, DB> DivRem<UInt<DH, DB>> for UTerm {
    type Q = UTerm;
    type R = UTerm;
}
type Shifted<H, B, D> = <<H as DivRem<D>>::R as Shl1<B>>::Out;
type Trial<H, B, D> = <Shifted<H, B, D> as SubBorrow<D, B0>>::Borrow;
type Less<H, B, D> = <Shifted<H, B, D> as SubBorrow<D, B0>>::Out;
type QBitOf<H, B, D> = <Trial<H, B, D> as Keep<Shifted<H, B, D>, Less<H, B, D>>>::QBit;
type RemOf<H, B, D> = <Trial<H, B, D> as Keep<Shifted<H, B, D>, Less<H, B, D>>>::R;
// An odd divisor of 3 or more: one bit of long division per numerator bit.
impl<H: DivRem<UInt<UInt<DH, DHB>, B1>>, B: Bit, DH, DHB> DivRem<UInt<UInt<DH, DHB>, B1>>
    for UInt<H, B>
where
    H::R: Shl1<B>,
    Shifted<H, B, UInt<UInt<DH, DHB>, B1>>: SubBorrow<UInt<UInt<DH, DHB>, B1>, B0>,
    Trial<H, B, UInt<UInt<DH, DHB>, B1>>:
        Keep<Shifted<H, B, UInt<UInt<DH, DHB>, B1>>, Less<H, B, UInt<UInt<DH, DHB>, B1>>>,
    H::Q: Shl1<QBitOf<H, B, UInt<UInt<DH, DHB>, B1>>>,
{
    type Q = <H::Q as Shl1<QBitOf<H, B, UInt<UInt<DH, DHB>, B1>>>>::Out;
    type R = RemOf<H, B, UInt<UInt<DH, DHB>, B1>>;
}
// A divisor of 1.
impl<H: Unsigned, B: Bit> DivRem<UInt<UTerm, B1>> for UInt<H, B> {
    type Q = UInt<H, B>;
    type R = UTerm;
}
// An even divisor `2 DH`: with `H = q DH + r`, `2H + B = q (2 DH) + 2r + B`
// and `2r + B < 2 DH`, so the quotient is `H / DH`'s and the remainder
// takes the bit back. A power of two is a shift, whatever the numerator;
// other divisors divide by their odd part.
impl<H: DivRem<DH>, B: Bit, DH> DivRem<UInt<DH, B0>> for UInt<H, B>
where
    H::R: Shl1<B>,
{
    type Q = H::Q;
    type R = <H::R as Shl1<B>>::Out;
}
/// A borrow came out: keep the remainder (quotient bit 0); else take the
/// difference (quotient bit 1).
#[doc(hidden)]
pub trait Keep<R, Diff> {
    type QBit: Bit;
    type R: Unsigned;
}
impl<R: Unsigned, Diff> Keep<R, Diff> for B1 {
    type QBit = B0;
    type R = R;
}
impl<R, Diff: Unsigned> Keep<R, Diff> for B0 {
    type QBit = B1;
    type R = Diff;
}
/// `Self` plus one when the remainder `R` is not zero (a ceiling quotient).
#[doc(hidden)]
pub trait CeilOf<R> {
    type Out: Unsigned;
}
impl<Q: Unsigned> CeilOf<UTerm> for Q {
    type Out = Q;
}
impl<Q: Add<B1>, H, B> CeilOf<UInt<H, B>> for Q
where
    typenum::Add1<Q>: Unsigned,
{
    type Out = typenum::Add1<Q>;
}
/// `ceil(A / B)` of typenum values.
pub type CeilQuot<A, B> = <<A as DivRem<B>>::Q as CeilOf<<A as DivRem<B>>::R>>::Out;

#[cfg(test)]
mod tests {
    use super::{CeilQuot, DivRem};
    use crate::typelevel::int::{StaticInt, C};
    use typenum::Unsigned;

    type U<const N: usize> = <C<N> as StaticInt>::U;

    /// Quotient, remainder and ceiling quotient against the definition
    /// `n = q d + r`, `0 <= r < d`, for every numerator with every divisor.
    macro_rules! check {
        ($($n:literal)*; $ds:tt) => { $( check!(@one $n; $ds); )* };
        (@one $n:literal; [$($d:literal)*]) => {$(
            let got = (
                <<U<$n> as DivRem<U<$d>>>::Q as Unsigned>::USIZE,
                <<U<$n> as DivRem<U<$d>>>::R as Unsigned>::USIZE,
                <CeilQuot<U<$n>, U<$d>> as Unsigned>::USIZE,
            );
            assert_eq!(got, want($n, $d), "{} / {}", $n, $d);
        )*};
    }

    /// `(n / d, n % d, ceil(n / d))` by the machine.
    fn want(n: usize, d: usize) -> (usize, usize, usize) {
        (n / d, n % d, n.div_ceil(d))
    }

    #[test]
    fn long_division_matches_the_definition() {
        check!(
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 24 31 32 33 48 63 64 65 96 127 128 129
            255 256 257 384 511 512 1000 1023 1024 1032 4088 4096 4104 65536;
            [1 2 3 4 5 6 7 8 9 12 15 16 17 31 32 33 64 100 128 255 256 1024 4096]
        );
    }
}
