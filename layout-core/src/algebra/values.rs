//! What every typed algebra operation shares about its result: a static
//! result is zero-sized and made without computing anything; a result with
//! run-time leaves is computed in place by the operation's own type-level
//! fold (no allocation, no run-time tree); a refusal is a `LayoutError`, or
//! a panic with the same text in the infallible forms.

use crate::error::LayoutError;
use crate::layout::{Congruent, Layout};
use crate::typelevel::tuple::IntTuple;

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
    /// The same as a type.
    type AllStatic: crate::typelevel::tuple::StaticBit;
    /// The static layout (only meaningful when `IS_STATIC`).
    fn make_static() -> Self;
}

impl<S: Congruent<D>, D: IntTuple> StaticResult for Layout<S, D> {
    const IS_STATIC: bool = S::ALL_STATIC && D::ALL_STATIC;
    type AllStatic = <S::AllStatic as crate::typelevel::tuple::StaticBit>::And<D::AllStatic>;
    #[inline(always)]
    fn make_static() -> Self {
        Layout::new(S::fill(&mut [].iter()), D::fill(&mut [].iter()))
    }
}

/// The infallible form: the error as a panic, with its text.
#[inline(always)]
#[track_caller]
pub(crate) fn or_panic<T>(r: Result<T, LayoutError>) -> T {
    match r {
        Ok(t) => t,
        // On the GPU, a constant message: see `layout::compact::extents_overflow`.
        #[cfg(target_arch = "nvptx64")]
        Err(_) => panic!("layout error"),
        #[cfg(not(target_arch = "nvptx64"))]
        Err(e) => panic!("{e}"),
    }
}

/// An operation's result: the static one when `Bit` (inputs and result all
/// static, as a type) is `B1`, else `compute()`. The choice is by type
/// ([`StaticBit::pick`](crate::typelevel::tuple::StaticBit::pick)), so a static
/// operation never instantiates (nor makes rustc walk) the code of the
/// run-time case, which an `if` on a constant does not avoid; the result
/// type `O` comes from the caller, already normalized. The computation is a
/// closure calling the operation's own method, not a trait per operation:
/// selecting such a trait's impl when the code is generated would cost
/// rustc the operation's whole type-level computation once more.
#[inline(always)]
pub(crate) fn run<Bit: crate::typelevel::tuple::StaticBit, O: StaticResult>(
    compute: impl FnOnce() -> Result<O, LayoutError>,
) -> Result<O, LayoutError> {
    Bit::pick(|| Ok(O::make_static()), compute)
}

/// The tag of an operation with inputs `A`..`D` and result `O`.
pub(crate) type Tag<A, B, C, D, O> =
    <crate::typelevel::tuple::AllStatic4<A, B, C, D> as crate::typelevel::tuple::StaticBit>::And<
        <O as StaticResult>::AllStatic,
    >;

/// `None` from a value step: a value past `usize`.
#[inline(always)]
pub(crate) fn step_failed(op: &'static str) -> crate::LayoutError {
    crate::LayoutError::Refused {
        op,
        why: crate::Refusal::Arithmetic,
    }
}
