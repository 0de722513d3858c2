//! Values of a typed algebra result. A static result is zero-sized: it is
//! made without computing anything. A result with run-time leaves takes
//! their values from the run-time algebra, which computes the same layout.

use crate::error::LayoutError;
use crate::layout::{Congruent, Layout};
use crate::tuple::IntTuple;

/// A typed layout that can be made from the run-time algebra's result.
pub trait FromDyn: Sized {
    /// Whether every leaf is static (nothing to compute).
    const IS_STATIC: bool;
    /// The static layout (only meaningful when `IS_STATIC`).
    fn make_static() -> Self;
    /// Take the run-time leaves' values from `l`, in leaf order.
    #[cfg(feature = "alloc")]
    fn from_dyn(l: &crate::DynLayout) -> Self;
}

impl<S: Congruent<D>, D: IntTuple> FromDyn for Layout<S, D> {
    const IS_STATIC: bool = S::ALL_STATIC && D::ALL_STATIC;
    #[inline(always)]
    fn make_static() -> Self {
        Layout::new(S::fill(&mut [].iter()), D::fill(&mut [].iter()))
    }
    #[cfg(feature = "alloc")]
    fn from_dyn(l: &crate::DynLayout) -> Self {
        let vals = |t: &crate::dynamic::DTuple| -> alloc::vec::Vec<usize> {
            let mut out = alloc::vec::Vec::with_capacity(S::LEAF_COUNT.max(D::LEAF_COUNT));
            t.for_each_leaf(&mut |x| out.push(usize::try_from(x.v).unwrap_or(usize::MAX)));
            out
        };
        let (s, d) = (vals(l.shape()), vals(l.stride()));
        assert!(
            s.len() == S::LEAF_COUNT && d.len() == D::LEAF_COUNT,
            "internal: the typed result {}:{} and the run-time result {l} disagree",
            S::TEXT.as_str(),
            D::TEXT.as_str()
        );
        Layout::new(S::fill(&mut s.iter()), D::fill(&mut d.iter()))
    }
}

/// The typed result: made directly when static, else from the run-time algebra.
#[inline(always)]
#[cfg(feature = "alloc")]
pub(crate) fn typed<O: FromDyn>(
    f: impl FnOnce() -> Result<crate::DynLayout, LayoutError>,
) -> Result<O, LayoutError> {
    if O::IS_STATIC {
        Ok(O::make_static())
    } else {
        f().map(|l| O::from_dyn(&l))
    }
}

/// Without `alloc` only static results can be made: a result with run-time
/// leaves is a compile error.
#[inline(always)]
#[cfg(not(feature = "alloc"))]
pub(crate) fn typed_static<O: FromDyn>() -> Result<O, LayoutError> {
    const {
        assert!(
            O::IS_STATIC,
            "a typed algebra result with run-time leaves needs the `alloc` feature"
        )
    };
    Ok(O::make_static())
}

/// The typed result of an op: made directly when static; otherwise from
/// `$dyn`, the run-time algebra's `Result<DynLayout, LayoutError>` (only
/// compiled with `alloc`).
macro_rules! typed_result {
    ($dyn:expr) => {{
        #[cfg(feature = "alloc")]
        let r = $crate::algebra::values::typed(|| $dyn);
        #[cfg(not(feature = "alloc"))]
        let r = $crate::algebra::values::typed_static();
        r
    }};
}
pub(crate) use typed_result;

/// The infallible form: the run-time algebra's error as a panic.
#[inline(always)]
pub(crate) fn or_panic<T>(r: Result<T, LayoutError>) -> T {
    match r {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}
