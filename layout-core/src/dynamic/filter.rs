//! `filter_zeros` and `filter` on `DynLayout`: a static 0 stride makes its
//! mode size `_1`; `filter` then coalesces. Mirrors `algebra/filter.rs`.

use super::coalesce::{coalesce_pairs, FlatLayout};
use super::{DInt, DynLayout, Pairs};
use crate::error::LayoutError;

type R<T> = Result<T, LayoutError>;

/// CuTe's `filter_zeros`: modes with a static 0 stride get size `_1`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // The stride-0 mode gets size _1; the shape of the others is kept.
/// assert_eq!(filter_zeros(&l("(_2,_3):(_0,_1)")).unwrap().to_string(), "(_1,_3):(_0,_1)");
/// ```
pub fn filter_zeros(l: &DynLayout) -> R<DynLayout> {
    let mut strides = l.r().d.leaves();
    let shape = l.shape().map(&mut |s| match strides.next() {
        Some(d) if d.is_static_value(0) => DInt::new_static(1),
        _ => s,
    });
    Ok(DynLayout::raw(shape, l.stride().clone()))
}

/// `filter_zeros` of one leaf.
fn zero_filtered((s, d): (DInt, DInt)) -> (DInt, DInt) {
    if d.is_static_value(0) {
        (DInt::new_static(1), d)
    } else {
        (s, d)
    }
}

/// CuTe's `filter`: drop stride-0 and size-1 modes, then coalesce.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints (_3,_3):(_2,_12).
/// assert_eq!(filter(&l("(_2,_3,_2,_3):(_0,_2,_0,_12)")).unwrap().to_string(), "(_3,_3):(_2,_12)");
/// ```
pub fn filter(l: &DynLayout) -> R<DynLayout> {
    Ok(filter_pairs(l.r().pairs())?.into_layout())
}

/// [`filter`] of the layout with these leaves.
pub(super) fn filter_pairs(p: Pairs<'_>) -> R<FlatLayout> {
    coalesce_pairs(p.map(zero_filtered))
}
