//! Compact strides on `DynLayout`: CuTe's `compact_col_major`,
//! `compact_row_major`, `make_layout(shape)` (LayoutLeft and LayoutRight)
//! and `make_ordered_layout`; mirrors `layout/compact.rs`.

use super::arith::{check_shape, invalid, mul};
use super::{DInt, DTuple, DynLayout, Kind, PairList, TupleRef};
use crate::error::LayoutError;
use alloc::format;
use alloc::vec::Vec;

type R<T> = Result<T, LayoutError>;

/// Compact column-major strides of `shape` starting at `cur` (CuTe's
/// `compact_col_major(shape, cur)`): a static size-1 leaf gets `_0`.
///
/// ```
/// use layout_core::dynamic::*;
/// // Column-major strides from a starting stride _2: 2, 2*3 = 6.
/// let t = layout_core::parse_tuple("(_3,_4)").unwrap();
/// assert_eq!(compact_left(&t, layout_core::DInt::new_static(2)).unwrap().to_string(), "(_2,_6)");
/// ```
pub fn compact_left(shape: &DTuple, cur: DInt) -> R<DTuple> {
    compact(shape, cur, false, "compact_col_major")
}

/// Compact strides in leaf order (LayoutLeft) or from the last leaf back
/// (LayoutRight): a static size-1 leaf gets `_0` and does not count.
fn compact(shape: &DTuple, mut cur: DInt, rev: bool, op: &'static str) -> R<DTuple> {
    shape.try_map_leaves(rev, |x| {
        if x.is_static_value(1) {
            return Ok(DInt::new_static(0));
        }
        let d = cur;
        cur = mul(cur, x, op)?;
        Ok(d)
    })
}

/// Compact row-major strides of `shape` (CuTe's `compact_row_major`).
///
/// ```
/// use layout_core::dynamic::*;
/// // Row-major strides from a starting stride _2: 2*4 = 8, 2.
/// let t = layout_core::parse_tuple("(_3,_4)").unwrap();
/// assert_eq!(compact_right(&t, layout_core::DInt::new_static(2)).unwrap().to_string(), "(_8,_2)");
/// ```
pub fn compact_right(shape: &DTuple, cur: DInt) -> R<DTuple> {
    compact(shape, cur, true, "compact_row_major")
}

/// CuTe's `compact_col_major(shape)`.
///
/// ```
/// use layout_core::dynamic::*;
/// // CuTe prints (((_1,_3),_6),((_0,_0),_12,_48)).
/// let s = layout_core::parse_tuple("(((_3,_2),_2),((_1,_1),_4,_4))").unwrap();
/// assert_eq!(compact_col_major(&s).unwrap().to_string(), "(((_1,_3),_6),((_0,_0),_12,_48))");
/// ```
pub fn compact_col_major(shape: &DTuple) -> R<DTuple> {
    compact_left(shape, DInt::new_static(1))
}
/// CuTe's `compact_row_major(shape)`.
///
/// ```
/// use layout_core::dynamic::*;
/// // CuTe prints (((_64,_32),_16),((_0,_0),_4,_1)).
/// let s = layout_core::parse_tuple("(((_3,_2),_2),((_1,_1),_4,_4))").unwrap();
/// assert_eq!(compact_row_major(&s).unwrap().to_string(), "(((_64,_32),_16),((_0,_0),_4,_1))");
/// ```
pub fn compact_row_major(shape: &DTuple) -> R<DTuple> {
    compact_right(shape, DInt::new_static(1))
}

/// Compact column-major strides from `cur` for a flat shape, as pairs
/// (CuTe's `compact_col_major`: a static size-1 leaf gets `_0`). The
/// running product past the last stride may exceed i64: only the strides
/// are kept.
pub(super) fn compact_pairs(shape: &[DInt], cur: DInt, out: &mut PairList) -> R<()> {
    let mut cur = Ok(cur);
    for &x in shape {
        if x.is_static_value(1) {
            out.push((x, DInt::new_static(0)));
        } else {
            let d = cur?;
            out.push((x, d));
            cur = mul(d, x, "compact_col_major");
        }
    }
    Ok(())
}

/// CuTe's `make_layout(shape)`: LayoutLeft strides.
///
/// ```
/// use layout_core::dynamic::*;
/// // CuTe prints ((_4,(_1,_3,_3)),_4):((_1,(_0,_4,_12)),_36).
/// let t = layout_core::parse_tuple("((_4,(_1,_3,_3)),_4)").unwrap();
/// assert_eq!(make_layout_left(&t).unwrap().to_string(), "((_4,(_1,_3,_3)),_4):((_1,(_0,_4,_12)),_36)");
/// ```
pub fn make_layout_left(shape: &DTuple) -> R<DynLayout> {
    check_shape(shape, "make_layout")?;
    Ok(DynLayout::raw(
        shape.clone(),
        compact_left(shape, DInt::new_static(1))?,
    ))
}

/// CuTe's `make_layout(shape, LayoutRight{})`.
///
/// ```
/// use layout_core::dynamic::*;
/// // CuTe prints ((_4,(_1,_3,_3)),_4):((_36,(_0,_12,_4)),_1).
/// let t = layout_core::parse_tuple("((_4,(_1,_3,_3)),_4)").unwrap();
/// assert_eq!(make_layout_right(&t).unwrap().to_string(), "((_4,(_1,_3,_3)),_4):((_36,(_0,_12,_4)),_1)");
/// ```
pub fn make_layout_right(shape: &DTuple) -> R<DynLayout> {
    check_shape(shape, "make_layout")?;
    Ok(DynLayout::raw(
        shape.clone(),
        compact_right(shape, DInt::new_static(1))?,
    ))
}

/// CuTe's `make_ordered_layout(shape, order)`: compact strides growing in the
/// order of the (static) ranks, congruent with the shape or one per mode.
///
/// ```
/// use layout_core::dynamic::*;
/// // CuTe prints ((_4,_3),_5):((_3,_1),_12).
/// let s = layout_core::parse_tuple("((_4,_3),_5)").unwrap();
/// let o = layout_core::parse_tuple("((_1,_0),_2)").unwrap();
/// assert_eq!(make_ordered_layout(&s, &o).unwrap().to_string(), "((_4,_3),_5):((_3,_1),_12)");
/// ```
pub fn make_ordered_layout(shape: &DTuple, order: &DTuple) -> R<DynLayout> {
    check_shape(shape, "make_ordered_layout")?;
    let mut pairs: Vec<(DInt, TupleRef<'_>)> = Vec::new();
    fn collect<'a>(o: TupleRef<'_>, s: TupleRef<'a>, out: &mut Vec<(DInt, TupleRef<'a>)>) -> R<()> {
        match (o.kind(), s.kind()) {
            (Kind::Int(o), _) => {
                out.push((o, s));
                Ok(())
            }
            (Kind::Tuple(os), Kind::Tuple(ss)) if os.len() == ss.len() => {
                os.zip(ss).try_for_each(|(o, s)| collect(o, s, out))
            }
            _ => Err(invalid(
                "make_ordered_layout",
                format!("order {o} does not match shape {s}"),
            )),
        }
    }
    collect(order.r(), shape.r(), &mut pairs)?;
    fn build(o: TupleRef<'_>, s: TupleRef<'_>, pairs: &[(DInt, TupleRef<'_>)]) -> R<DTuple> {
        match (o.kind(), s.kind()) {
            (Kind::Int(o), _) => {
                let mut d = DInt::new_static(1);
                for (oj, xj) in pairs {
                    if oj.value < o.value {
                        d = mul(d, xj.product()?, "make_ordered_layout")?;
                    }
                }
                compact_left(&s.to_tuple(), d)
            }
            (Kind::Tuple(os), Kind::Tuple(ss)) => Ok(DTuple::tuple(
                os.zip(ss)
                    .map(|(o, s)| build(o, s, pairs))
                    .collect::<R<Vec<_>>>()?,
            )),
            _ => Err(invalid(
                "make_ordered_layout",
                "order and shape differ".into(),
            )),
        }
    }
    Ok(DynLayout::raw(
        shape.clone(),
        build(order.r(), shape.r(), &pairs)?,
    ))
}
