//! What the type checker knows of a leaf: `Known<U>` (a static value, as a
//! typenum unsigned) or `Unknown` (run-time), and the bits the operations
//! branch on (one, zero, either, both, equal).

use crate::typelevel::int::{StaticInt, StaticOneTag, StaticZeroTag, C, S};
use typenum::{Bit, Unsigned, B0, B1};

/// `Some` static value as a typenum unsigned, or none for a dynamic leaf.
#[doc(hidden)]
pub trait StaticForm {
    /// `Known<U>` or `Unknown`.
    type Form;
    /// `B1` for a static 1.
    type IsOne: Bit;
    /// `B1` for a static 0.
    type IsZero: Bit;
}
#[doc(hidden)]
pub struct Known<U>(U);
#[doc(hidden)]
pub struct Unknown;
impl StaticForm for usize {
    type Form = Unknown;
    type IsOne = B0;
    type IsZero = B0;
}
impl<const N: usize> StaticForm for C<N>
where
    C<N>: StaticInt,
    <C<N> as StaticInt>::U: StaticOneTag + StaticZeroTag,
{
    type Form = Known<<C<N> as StaticInt>::U>;
    type IsOne = <<C<N> as StaticInt>::U as StaticOneTag>::IsOne;
    type IsZero = <<C<N> as StaticInt>::U as StaticZeroTag>::IsZero;
}
impl<U: Unsigned + StaticOneTag + StaticZeroTag + 'static> StaticForm for S<U> {
    type Form = Known<U>;
    type IsOne = <U as StaticOneTag>::IsOne;
    type IsZero = <U as StaticZeroTag>::IsZero;
}

/// `B1` for the typenum 1.
#[doc(hidden)]
pub trait StaticFormU {
    type IsOne: Bit;
}
impl<U: StaticOneTag> StaticFormU for U {
    type IsOne = <U as StaticOneTag>::IsOne;
}

/// `B1` when either bit is.
#[doc(hidden)]
pub trait Either {
    type Out: Bit;
}
impl Either for (B0, B0) {
    type Out = B0;
}
impl<X> Either for (B1, X) {
    type Out = B1;
}
impl Either for (B0, B1) {
    type Out = B1;
}

/// `B1` when both bits are.
#[doc(hidden)]
pub trait Both {
    type Out: Bit;
}
impl<X> Both for (B0, X) {
    type Out = B0;
}
impl Both for (B1, B0) {
    type Out = B0;
}
impl Both for (B1, B1) {
    type Out = B1;
}

/// `B1` for a static leaf.
#[doc(hidden)]
pub trait StTag {
    type St: Bit;
}
impl<U> StTag for Known<U> {
    type St = B1;
}
impl StTag for Unknown {
    type St = B0;
}
/// `B1` when two bits are equal.
#[doc(hidden)]
pub trait SameBit {
    type Out: Bit;
}
impl SameBit for (B0, B0) {
    type Out = B1;
}
impl SameBit for (B1, B1) {
    type Out = B1;
}
impl SameBit for (B0, B1) {
    type Out = B0;
}
impl SameBit for (B1, B0) {
    type Out = B0;
}
