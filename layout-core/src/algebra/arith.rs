//! Leaf arithmetic at the type level, with CuTe's static/dynamic rules:
//! an operation on two static leaves is static (computed by typenum), any
//! run-time operand makes the result a run-time `usize`, except that a
//! static 0 times anything stays a static 0.
//!
//! Each operation is a trait on the pair `(A, B)` of leaf types, so the
//! dispatch sits in `Self`. Each trait also computes the value: a static
//! result is its type's constant (nothing is computed), a run-time one is
//! checked arithmetic (`None` on overflow or division by 0).

use super::typelevel::{Known, StaticForm, Unknown};
use crate::int::{Int, S};
use core::ops::{Add, Div, Mul};
use typenum::{Minimum, Prod, Quot, Sub1, Sum, UInt, UTerm, Unsigned};

/// A leaf type with its static form: `C<N>`, `S<U>` or `usize`.
pub trait Leaf: Int + StaticForm + crate::int::FromValue + Default {}
impl<T: Int + StaticForm + crate::int::FromValue + Default> Leaf for T {}

/// The type of `a * b`.
#[doc(hidden)]
pub trait FMul {
    type Out: Leaf;
}
impl FMul for (Unknown, Unknown) {
    type Out = usize;
}
impl FMul for (Known<UTerm>, Unknown) {
    type Out = crate::int::C<0>;
}
impl FMul for (Unknown, Known<UTerm>) {
    type Out = crate::int::C<0>;
}
impl<U, B> FMul for (Known<UInt<U, B>>, Unknown) {
    type Out = usize;
}
impl<U, B> FMul for (Unknown, Known<UInt<U, B>>) {
    type Out = usize;
}
impl<A: Mul<B>, B> FMul for (Known<A>, Known<B>)
where
    Prod<A, B>: Unsigned + Default + 'static + crate::int::StaticOneTag + crate::int::StaticZeroTag,
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
            type Out = crate::int::C<0>;
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
    [A: Div<UInt<U, Bt>>, Quot<A, UInt<U, Bt>>: Unsigned + Default + 'static + crate::int::StaticOneTag + crate::int::StaticZeroTag],
    Quot<A, UInt<U, Bt>>,
    |a, b| if b == 0 { None } else { Some(crate::admissible::quot(a, b)) }
);
binary!(
    /// `min(a, b)`.
    FMin, LMin, MinT,
    [A: typenum::Min<UInt<U, Bt>>, Minimum<A, UInt<U, Bt>>: Unsigned + Default + 'static + crate::int::StaticOneTag + crate::int::StaticZeroTag],
    Minimum<A, UInt<U, Bt>>,
    |a, b| Some(a.min(b))
);
binary!(
    /// `ceil_div(a, b)`, that is `(a + b - 1) / b`.
    FCeilDiv, LCeilDiv, CeilDivT,
    [
        A: Add<UInt<U, Bt>>,
        Sum<A, UInt<U, Bt>>: core::ops::Sub<typenum::B1>,
        Sub1<Sum<A, UInt<U, Bt>>>: Div<UInt<U, Bt>>,
        Quot<Sub1<Sum<A, UInt<U, Bt>>>, UInt<U, Bt>>: Unsigned + Default + 'static + crate::int::StaticOneTag + crate::int::StaticZeroTag
    ],
    Quot<Sub1<Sum<A, UInt<U, Bt>>>, UInt<U, Bt>>,
    |a, b| if b == 0 {
        None
    } else if a <= b {
        // No division for the common operand below the divisor.
        Some((a != 0) as usize)
    } else {
        Some(a.div_ceil(b))
    }
);
