//! What every typed algebra operation shares about its result: a static
//! result is zero-sized and made without computing anything; a result with
//! run-time leaves is computed in place by the operation's own type-level
//! fold (no allocation, no run-time tree); a refusal is a `LayoutError`, or
//! a panic with the same text in the infallible forms.

use crate::error::LayoutError;
use crate::layout::{Congruent, Layout};
use crate::tuple::IntTuple;

/// A typed algebra result: whether every leaf is static, and the static value.
///
/// ```
/// use layout_core::{algebra::StaticResult, layout_type};
/// type L = layout_type!((2,4):(1,2));
/// assert!(<L as StaticResult>::IS_STATIC);
/// assert_eq!(<L as StaticResult>::make_static().to_string(), "(_2,_4):(_1,_2)");
/// ```
pub trait StaticResult: Sized {
    /// Whether every leaf is static (nothing to compute).
    const IS_STATIC: bool;
    /// The static layout (only meaningful when `IS_STATIC`).
    fn make_static() -> Self;
}

impl<S: Congruent<D>, D: IntTuple> StaticResult for Layout<S, D> {
    const IS_STATIC: bool = S::ALL_STATIC && D::ALL_STATIC;
    #[inline(always)]
    fn make_static() -> Self {
        Layout::new(S::fill(&mut [].iter()), D::fill(&mut [].iter()))
    }
}

/// The infallible form: the error as a panic, with its text.
#[inline(always)]
pub(crate) fn or_panic<T>(r: Result<T, LayoutError>) -> T {
    match r {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}

/// Whether an operation's inputs `A`..`D` and its result `O` are all
/// static, as one constant: an op tests `if Inputs::<..>::STATIC` so that
/// rustc sees a constant condition and does not instantiate the value path
/// of a static op (a condition built from several constants with `&&` is
/// not folded before monomorphisation, and every static op then pays for
/// the code of the mixed case).
pub(crate) struct Inputs<
    A,
    B,
    C = crate::int::C<1>,
    D = crate::int::C<1>,
    O = Layout<crate::int::C<1>, crate::int::C<0>>,
>(core::marker::PhantomData<(A, B, C, D, O)>);
impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, O: StaticResult> Inputs<A, B, C, D, O> {
    pub(crate) const STATIC: bool =
        A::ALL_STATIC && B::ALL_STATIC && C::ALL_STATIC && D::ALL_STATIC && O::IS_STATIC;
}
