//! `right_inverse` and `left_inverse` on `DynLayout`: coalesce, then follow
//! the strides from 1. Mirrors `algebra/inverse.rs`.

use super::arith::{invalid, nonempty, nonnegative_strides, overflow};
use super::coalesce::{coalesce, coalesce_pairs};
use super::compact::compact_left;
use super::{DInt, DynLayout, LayoutBuilder, PairList};
use crate::error::LayoutError;
use alloc::format;
use alloc::vec::Vec;
use smallvec::SmallVec;

type R<T> = Result<T, LayoutError>;

/// CuTe's `right_inverse`: R with `A(R(i)) == i` on R's domain. Unlike CuTe,
/// dynamic strides are followed by value (CuTe gives up and returns `_1:_0`),
/// and a negative stride the inverse would follow is refused (CuTe follows
/// its absolute value, which breaks `A(R(i)) == i`).
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints (_3,_2,_8):(_2,_1,_6).
/// assert_eq!(right_inverse(&l("(_1,_2,_3,_8):(_48,_3,_1,_6)")).unwrap().to_string(), "(_3,_2,_8):(_2,_1,_6)");
/// ```
pub fn right_inverse(a: &DynLayout) -> R<DynLayout> {
    nonempty(a.r(), "right_inverse")?;
    let f = coalesce(a)?;
    let modes = f.pair_list();
    let rstride = compact_left(f.shape(), DInt::new_static(1))?.leaves();
    let mut seq: SmallVec<[usize; 8]> = SmallVec::new();
    let mut next: i64 = 1;
    // Among modes with the wanted stride, the largest (the last of equals), as CuTe 4.7 picks.
    while let Some((i, _)) = modes
        .iter()
        .enumerate()
        .filter(|(k, (_, d))| d.value.abs() == next && !seq.contains(k))
        .max_by_key(|(_, (s, _))| s.value)
    {
        let (s, d) = modes[i];
        if d.value < 0 {
            // CuTe 4.7 takes |stride| and negates the result's stride, which
            // indexes A at negative coordinates: no longer A(R(i)) == i.
            return Err(invalid(
                "right_inverse",
                format!(
                    "{a}: mode {s}:{d} has a negative stride, so no R with A(R(i)) == i uses it"
                ),
            ));
        }
        seq.push(i);
        let nx = s
            .value
            .checked_mul(d.value.abs())
            .ok_or(overflow("right_inverse"))?;
        if s.value <= 1 || nx == next {
            break;
        }
        next = nx;
    }
    if seq.is_empty() {
        return Ok(DynLayout::int(DInt::new_static(1), DInt::new_static(0)));
    }
    let p: PairList = seq.iter().map(|&i| (modes[i].0, rstride[i])).collect();
    Ok(LayoutBuilder::of_pairs(&p))
}

/// CuTe's `left_inverse`: R with `R(A(i)) == i` on A's domain. A must be
/// injective with static, non-negative strides that divide each other when
/// sorted.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints (_2,_2,_8,_2):(_32,_16,_2,_1).
/// assert_eq!(left_inverse(&l("(_2,_8,_2,_2):(_32,_4,_2,_1)")).unwrap().to_string(), "(_2,_2,_8,_2):(_32,_16,_2,_1)");
/// ```
pub fn left_inverse(a: &DynLayout) -> R<DynLayout> {
    nonempty(a.r(), "left_inverse")?;
    let op = "left_inverse";
    nonnegative_strides(
        a.r(),
        op,
        "its offsets below 0 have no preimage in a layout",
    )?;
    let f = coalesce(a)?;
    let all = f.pair_list();
    if all.iter().any(|(_, d)| !d.is_static) {
        return Err(invalid(
            op,
            format!("{a}: a left inverse needs static strides"),
        ));
    }
    let rstride = compact_left(f.shape(), DInt::new_static(1))?.leaves();
    let mut idx: Vec<usize> = (0..all.len())
        .filter(|&i| !all[i].0.is_static_value(1) && all[i].0.value != 1)
        .collect();
    if let Some(&i) = idx.iter().find(|&&i| all[i].1.value == 0) {
        return Err(invalid(
            op,
            format!(
                "{a}: mode {}:{} has stride 0, so A is not injective",
                all[i].0, all[i].1
            ),
        ));
    }
    if idx.is_empty() {
        return Ok(DynLayout::int(DInt::new_static(1), DInt::new_static(0)));
    }
    idx.sort_by_key(|&i| all[i].1.value.abs());
    let mut out = PairList::new();
    let d0 = all[idx[0]].1.value.abs();
    if d0 != 1 {
        out.push((DInt::new_static(d0), DInt::new_static(0)));
    }
    for (k, &i) in idx.iter().enumerate() {
        let (s, d) = all[i];
        let shape = if let Some(&j) = idx.get(k + 1) {
            let dn = all[j].1.value.abs();
            if dn % d.value.abs() != 0 {
                return Err(invalid(
                    op,
                    format!(
                        "{a}: stride {dn} is not a multiple of stride {}",
                        d.value.abs()
                    ),
                ));
            }
            let q = dn / d.value.abs();
            if q < s.value {
                return Err(invalid(
                    op,
                    format!("{a}: modes {s}:{d} and the next overlap, so A is not injective"),
                ));
            }
            DInt {
                value: q,
                is_static: true,
            }
        } else {
            s
        };
        let r = rstride[i];
        let stride = if d.value < 0 {
            DInt {
                value: -r.value,
                is_static: r.is_static,
            }
        } else {
            r
        };
        out.push((shape, stride));
    }
    Ok(coalesce_pairs(out.into_iter())?.into_layout())
}
