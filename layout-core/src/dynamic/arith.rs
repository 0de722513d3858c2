//! What the run-time algebra shares: leaf arithmetic on `DInt`
//! (overflow-checked, static where CuTe's result is static), the run-time
//! side of `typelevel/arith.rs`; and the refusals several operations make,
//! each a `LayoutError` naming the operation.

use super::{DInt, DTuple, LayoutRef};
use crate::error::LayoutError;
use alloc::format;
use alloc::string::String;
use core::fmt;

type R<T> = Result<T, LayoutError>;

/// Static-aware checked multiplication.
pub(super) fn mul(a: DInt, b: DInt, op: &'static str) -> Result<DInt, LayoutError> {
    Ok(DInt {
        // i64::MIN has no negation (strides are negated and taken absolute
        // further on): refused as an overflow, like the products past it.
        value: a
            .value
            .checked_mul(b.value)
            .filter(|&v| v != i64::MIN)
            .ok_or(LayoutError::Overflow { op })?,
        // CuTe: a static 0 times anything is a static 0.
        is_static: (a.is_static && (b.is_static || a.value == 0)) || (b.is_static && b.value == 0),
    })
}

/// An overflow in `op`.
pub(super) fn overflow(op: &'static str) -> LayoutError {
    LayoutError::Overflow { op }
}

#[cold]
fn div_by_zero(op: &'static str, a: DInt, b: DInt) -> LayoutError {
    invalid(op, format!("division by zero ({a} / {b})"))
}

/// CuTe's `ceil_div`: `a / b` rounded up (for a positive `b`), static
/// when both are.
pub(super) fn ceil_div(a: DInt, b: DInt, op: &'static str) -> R<DInt> {
    if b.value == 0 {
        return Err(div_by_zero(op, a, b));
    }
    // Quotient plus one for a remainder: no intermediate sum to overflow.
    let q = a.value.checked_div_euclid(b.value).ok_or(overflow(op))?;
    let v = q
        .checked_add(i64::from(a.value.rem_euclid(b.value) != 0))
        .ok_or(overflow(op))?;
    Ok(DInt {
        value: v,
        is_static: a.is_static && b.is_static,
    })
}

/// Truncating division, static when both are.
pub(super) fn div(a: DInt, b: DInt, op: &'static str) -> R<DInt> {
    if b.value == 0 {
        return Err(div_by_zero(op, a, b));
    }
    Ok(DInt {
        value: a.value / b.value,
        is_static: a.is_static && b.is_static,
    })
}

/// The smaller, static when both are.
pub(super) fn min(a: DInt, b: DInt) -> DInt {
    DInt {
        value: a.value.min(b.value),
        is_static: a.is_static && b.is_static,
    }
}

/// The absolute value.
pub(super) fn abs(a: DInt) -> DInt {
    // No leaf is i64::MIN (refused by `DynLayout::new` and by `mul`).
    DInt {
        value: a.value.saturating_abs(),
        is_static: a.is_static,
    }
}

/// The refusal of `op`, saying why.
pub(super) fn invalid(op: &'static str, why: String) -> LayoutError {
    LayoutError::Invalid { op, why }
}

/// `Err` unless every leaf of `t` is a valid extent (not negative), for the
/// operations that take a shape or an integer tiler on their own.
pub(super) fn check_shape(t: &DTuple, op: &'static str) -> Result<(), LayoutError> {
    match t.r().leaves().find(|l| l.value < 0) {
        Some(b) => Err(invalid(op, format!("negative extent {b} in {t}"))),
        None => Ok(()),
    }
}

/// `Err` when `l` has no element: the inverses and `max_common_*` are
/// defined through the offsets a layout reaches, and a layout of size 0
/// reaches none (CuTe computes something there; the definitions give
/// nothing to check it against). The complement, divides and products
/// follow CuTe's formulas instead ([`nonzero`]).
pub(super) fn nonempty(l: LayoutRef<'_>, op: &'static str) -> R<()> {
    if l.size()?.value == 0 {
        return Err(invalid(
            op,
            format!("{l} has size 0: it reaches no offset, so {op} is not defined"),
        ));
    }
    Ok(())
}

/// `Err` naming `l` when it has size 0 and `op`'s formula divides by that
/// size (`why`), as the typed algebra refuses it.
pub(super) fn nonzero(l: LayoutRef<'_>, op: &'static str, why: &'static str) -> R<()> {
    if l.pairs().any(|(s, _)| s.value == 0) {
        return Err(zero_sized(op, &l, why));
    }
    Ok(())
}

/// The refusal of a size 0 (`what` prints the layout or cotarget), in the
/// typed algebra's words.
#[cold]
pub(super) fn zero_sized(
    op: &'static str,
    what: &dyn fmt::Display,
    why: &'static str,
) -> LayoutError {
    invalid(op, format!("{what} has size 0: {why}"))
}

/// `Err` when a stride of `l` is negative: `what` says why `op` needs them not.
pub(super) fn nonnegative_strides(l: LayoutRef<'_>, op: &'static str, what: &str) -> R<()> {
    match l.pairs().find(|(_, d)| d.value < 0) {
        Some((s, d)) => Err(invalid(
            op,
            format!("{l}: mode {s}:{d} has a negative stride; {what}"),
        )),
        None => Ok(()),
    }
}
