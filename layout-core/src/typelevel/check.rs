//! Comparisons of static leaves decided by the type checker.
//!
//! A static misuse refused here is an unsatisfied trait bound: `cargo
//! check` and the editor report it, at the user's tokens. Each trait whose
//! failure a user reads takes the values as const parameters, so that its
//! message prints them in CuTe notation (`_3`), and its impl is marked
//! `do_not_recommend`, so that the error names that trait and not the
//! typenum comparison inside it. A run-time leaf on either side satisfies
//! every comparison: the operation checks its value at run time.

use crate::typelevel::int::{ConstForm, TypenumForm, C, S};
use typenum::{Bit, Eq, Gcd, Gcf, IsEqual, IsLess, Unsigned, B0, B1};

/// `_N < _M`, for a coordinate `_N` of a mode of size `_M`.
///
/// ```
/// use layout_core::{crd, layout};
/// let l = layout!((3,4):(4,1));
/// assert_eq!(l.to_string(), "(_3,_4):(_4,_1)");
/// assert_eq!(l.crd2idx(crd!(2, 3)), 11);
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{crd, layout};
/// // error: coordinate _3 is outside its mode of size _3
/// let _ = layout!((3,4):(4,1)).crd2idx(crd!(3, 0));
/// ```
#[diagnostic::on_unimplemented(
    message = "coordinate _{N} is outside its mode of size _{M}",
    label = "a coordinate of a mode of size _{M} is below {M}"
)]
pub trait CoordBelow<const N: usize, const M: usize> {}
#[diagnostic::do_not_recommend]
impl<const N: usize, const M: usize> CoordBelow<N, M> for ()
where
    C<N>: TypenumForm,
    C<M>: TypenumForm,
    <C<N> as TypenumForm>::U: IsLess<<C<M> as TypenumForm>::U, Output = B1>,
{
}

/// `B1` when two size leaves may be equal: both static and equal, or
/// either one run-time (the operation compares the values).
#[doc(hidden)]
pub trait MayEqual<R> {
    type Out: Bit;
}
impl<R> MayEqual<R> for usize {
    type Out = B1;
}
impl<const N: usize> MayEqual<usize> for C<N> {
    type Out = B1;
}
impl<U: Unsigned> MayEqual<usize> for S<U> {
    type Out = B1;
}
impl<const N: usize, R: TypenumForm> MayEqual<R> for C<N>
where
    C<N>: TypenumForm,
    <C<N> as TypenumForm>::U: IsEqual<R::U>,
{
    type Out = Eq<<C<N> as TypenumForm>::U, R::U>;
}
impl<U: Unsigned + IsEqual<R::U>, R: TypenumForm> MayEqual<R> for S<U> {
    type Out = Eq<U, R::U>;
}

/// Two sizes that [`MayEqual`]'s bit `Self` says differ (`B0`) are
/// refused through the refusal `R` (an operation and its operands, which
/// names the two sizes), with both sizes printed; `B1` holds.
#[doc(hidden)]
pub trait SizesOr<R> {}
impl<R> SizesOr<R> for B1 {}
impl<R: TwoSizes, const SX: usize, const SY: usize> SizesOr<R> for B0
where
    R::X: ConstForm<C = C<SX>>,
    R::Y: ConstForm<C = C<SY>>,
    R: Refuse<SX, SY>,
{
}
/// The two sizes (leaf types) a refusal compares.
#[doc(hidden)]
pub trait TwoSizes {
    /// The first size.
    type X;
    /// The second size.
    type Y;
}
/// The refusal `Self` names (an operation and its operands) of its two
/// static sizes ([`TwoSizes`]) when they differ, `_SX` and `_SY` printed:
/// its impl requires the operation's message trait, which nothing
/// implements.
#[doc(hidden)]
pub trait Refuse<const SX: usize, const SY: usize> {}

/// A leaf the comparisons above can take: run-time, a computed `S<U>`, or a
/// `C<N>` with a typenum form. Required outside the `do_not_recommend`
/// impls, so that a `C<N>` without a form is reported as such, not as a
/// failed comparison.
#[doc(hidden)]
pub trait Comparable {}
impl Comparable for usize {}
impl<const N: usize> Comparable for C<N> where C<N>: TypenumForm {}
impl<U: Unsigned> Comparable for S<U> {}

/// `B1` when the typenum `Self` divides `B`: gcd(a, b) is a (so 0 divides
/// only 0, and every value divides 0).
#[doc(hidden)]
pub trait DividesU<B> {
    type Out: Bit;
}
impl<A: Gcd<B>, B> DividesU<B> for A
where
    Gcf<A, B>: IsEqual<A>,
{
    type Out = Eq<Gcf<A, B>, A>;
}
