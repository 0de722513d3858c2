//! `max_common_layout` and `max_common_vector` on `DynLayout`: `common =
//! coalesce(A o right_inverse(B))`; when its first mode has a static stride
//! 1, that many elements are contiguous in both A and B. Mirrors
//! `algebra/max_common.rs`.

use super::arith::nonempty;
use super::{coalesce, composition, right_inverse, DInt, DynLayout, LKind};
use crate::error::LayoutError;

type R<T> = Result<T, LayoutError>;

fn first_mode(l: &DynLayout) -> DynLayout {
    l.mode(0).unwrap_or_else(|| l.clone())
}

/// CuTe's `max_common_layout(a, b)`: the layout of the largest run of
/// elements that `a` and `b` both place contiguously (static only, else `_1:_0`).
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints _4:_1.
/// assert_eq!(max_common_layout(&l("(_2,_2):(_1,_2)"), &l("_4:_1")).unwrap().to_string(), "_4:_1");
/// ```
pub fn max_common_layout(a: &DynLayout, b: &DynLayout) -> R<DynLayout> {
    nonempty(a.r(), "max_common_layout")?;
    nonempty(b.r(), "max_common_layout")?;
    let inv_b = right_inverse(b)?;
    let common = coalesce(&composition(a, &inv_b)?)?;
    let m0 = first_mode(&common);
    match m0.r().kind() {
        LKind::Leaf(s, d) if s.is_static && d.is_static_value(1) => composition(&inv_b, &m0),
        _ => Ok(DynLayout::int(DInt::new_static(1), DInt::new_static(0))),
    }
}

/// CuTe's `max_common_vector(a, b)`: how many elements from the start `a`
/// and `b` both place contiguously (static only, else `_1`).
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints _4.
/// assert_eq!(max_common_vector(&l("(_2,_2):(_1,_2)"), &l("_4:_1")).unwrap().to_string(), "_4");
/// ```
pub fn max_common_vector(a: &DynLayout, b: &DynLayout) -> R<DInt> {
    nonempty(a.r(), "max_common_vector")?;
    nonempty(b.r(), "max_common_vector")?;
    let common = coalesce(&composition(a, &right_inverse(b)?)?)?;
    let m0 = first_mode(&common);
    Ok(match m0.r().kind() {
        LKind::Leaf(s, d) if s.is_static && d.is_static_value(1) => s,
        _ => DInt::new_static(1),
    })
}
