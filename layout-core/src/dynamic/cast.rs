//! `upcast`, `downcast` and `recast_layout` on `DynLayout`: the layout
//! over elements `n` times wider or narrower, leaf by leaf, the structure
//! kept. Mirrors `algebra/cast.rs`.

use super::arith::{ceil_div, invalid, mul};
use super::{DInt, DynLayout};
use crate::error::LayoutError;
use alloc::format;
use alloc::vec::Vec;

type R<T> = Result<T, LayoutError>;

/// CuTe's `upcast<n>(layout)`: the layout over elements `n` times wider.
/// Every static non-zero stride must divide `n` or be a multiple of it.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints (_2,(_1,_2)):(_3,(_1,_3)).
/// assert_eq!(upcast(&l("(_2,(_2,_2)):(_6,(_1,_6))"), 2).unwrap().to_string(), "(_2,(_1,_2)):(_3,(_1,_3))");
/// ```
pub fn upcast(l: &DynLayout, n: i64) -> R<DynLayout> {
    if n <= 0 {
        return Err(invalid("upcast", format!("factor {n} is not positive")));
    }
    let nn = DInt::new_static(n);
    let mut bad = None;
    let shape_stride: Vec<(DInt, DInt)> = l
        .pairs()
        .into_iter()
        .map(|(s, d)| {
            if d.is_static_value(0) {
                return Ok((s, d));
            }
            // No stride is i64::MIN (refused by `DynLayout::new` and `mul`).
            let ad = DInt {
                value: d.value.saturating_abs(),
                is_static: d.is_static,
            };
            if d.is_static && ad.value % n != 0 && n % ad.value != 0 {
                bad = Some(d);
            }
            if ad.value == 0 {
                return Ok((s, d));
            }
            let ns = ceil_div(s, ceil_div(nn, ad, "upcast")?, "upcast")?;
            let mut nd = ceil_div(ad, nn, "upcast")?;
            if d.value < 0 {
                nd.value = -nd.value;
            }
            Ok((ns, nd))
        })
        .collect::<R<_>>()?;
    if let Some(d) = bad {
        return Err(invalid(
            "upcast",
            format!("{l}: stride {d} neither divides nor is a multiple of {n}"),
        ));
    }
    Ok(rebuild(l, &shape_stride))
}

/// CuTe's `downcast<n>(layout)`: the layout over elements `n` times narrower.
/// Needs a static unit stride.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints ((_4,_8),_10):((_80,_10),_1).
/// assert_eq!(downcast(&l("((_4,_8),_5):((_40,_5),_1)"), 2).unwrap().to_string(), "((_4,_8),_10):((_80,_10),_1)");
/// ```
pub fn downcast(l: &DynLayout, n: i64) -> R<DynLayout> {
    if n <= 0 {
        return Err(invalid("downcast", format!("factor {n} is not positive")));
    }
    if !l
        .pairs()
        .iter()
        .any(|(_, d)| d.is_static && d.value.abs() == 1)
    {
        return Err(invalid(
            "downcast",
            format!("{l} has no static unit stride"),
        ));
    }
    let nn = DInt::new_static(n);
    let ps = l
        .pairs()
        .into_iter()
        .map(|(s, d)| {
            if d.value.abs() == 1 {
                Ok((mul(s, nn, "downcast")?, d))
            } else {
                Ok((s, mul(d, nn, "downcast")?))
            }
        })
        .collect::<R<Vec<_>>>()?;
    Ok(rebuild(l, &ps))
}

/// CuTe's `recast_layout<OLD, NEW>`, with element sizes in bytes.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // u32 elements seen as u16 (CuTe's recast_layout<uint32_t, uint16_t>): (_4,_8):(_1,_4).
/// assert_eq!(recast_layout(&l("(_2,_8):(_1,_2)"), 4, 2).unwrap().to_string(), "(_4,_8):(_1,_4)");
/// ```
pub fn recast_layout(l: &DynLayout, old_bytes: i64, new_bytes: i64) -> R<DynLayout> {
    if old_bytes <= 0 || new_bytes <= 0 {
        return Err(invalid(
            "recast_layout",
            "element sizes must be positive".into(),
        ));
    }
    if new_bytes > old_bytes && new_bytes % old_bytes == 0 {
        upcast(l, new_bytes / old_bytes)
    } else if old_bytes > new_bytes && old_bytes % new_bytes == 0 {
        downcast(l, old_bytes / new_bytes)
    } else if old_bytes == new_bytes {
        Ok(l.clone())
    } else {
        Err(invalid(
            "recast_layout",
            format!("{old_bytes}-byte and {new_bytes}-byte elements do not divide"),
        ))
    }
}

/// The same nesting with new leaves, in order.
fn rebuild(l: &DynLayout, leaves: &[(DInt, DInt)]) -> DynLayout {
    let mut k = 0;
    let shape = l.shape().map(&mut |_| {
        k += 1;
        leaves[k - 1].0
    });
    let mut k = 0;
    let stride = l.stride().map(&mut |_| {
        k += 1;
        leaves[k - 1].1
    });
    DynLayout::raw(shape, stride)
}
