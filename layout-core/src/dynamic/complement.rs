//! `complement` on `DynLayout`: CuTe 4.7's algorithm (filter A, sort its
//! modes by stride, fill the gaps, cover the rest of the cotarget with
//! compact strides, coalesce), with the definition checked through
//! `algebra/admissible.rs`. Mirrors `algebra/complement.rs`.

use super::arith::{ceil_div, check_shape, div, invalid, mul, nonzero, overflow, zero_sized};
use super::coalesce::{coalesce_pairs, FlatLayout};
use super::compact::compact_pairs;
use super::filter::{filter, filter_pairs};
use super::{DInt, DTuple, DynLayout, Kind, LayoutRef, PairList, TupleRef};
use crate::error::{LayoutError, COMPLEMENT_CAP};
use alloc::format;
use smallvec::SmallVec;

type R<T> = Result<T, LayoutError>;

/// CuTe's `complement(A, cotarget)`: the layout R such that `(A, R)` is a
/// bijection onto `[0, cotarget)` (rounded up to whole copies of A).
///
/// Refused when A's modes, sorted by stride, do not stack (a stride that is
/// not a multiple of the span below it): no layout then fills the gaps.
///
/// ```
/// use layout_core::{dynamic::complement, parse_tuple, DynLayout};
/// let a: DynLayout = "(_4,_8):(_32,_1)".parse().unwrap();
/// assert_eq!(complement(&a, &parse_tuple("_1024").unwrap()).unwrap().to_string(), "(_4,_8):(_8,_128)");
/// ```
pub fn complement(a: &DynLayout, cotarget: &DTuple) -> R<DynLayout> {
    check_shape(cotarget, "complement")?;
    let a = a.r();
    nonzero(
        a,
        "complement",
        crate::algebra::admissible::size_zero::COMPLEMENT,
    )?;
    let cot = Cotarget::Tuple(cotarget.r());
    let r = complement_flat(a, cot)?;
    check_complement(a, &r, cot)?;
    Ok(r.into_layout())
}

/// CuTe's `complement(A)`: up to `cosize(filter(A))`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // The cotarget is A's cosize, 4: the complement of 2:2 in [0,4) is 2:1.
/// assert_eq!(complement_default(&l("_2:_2")).unwrap().to_string(), "_2:_1");
/// ```
pub fn complement_default(a: &DynLayout) -> R<DynLayout> {
    nonzero(
        a.r(),
        "complement",
        crate::algebra::admissible::size_zero::COMPLEMENT,
    )?;
    let f = filter(a)?;
    let cotarget = DTuple::int(f.cosize()?);
    complement(a, &cotarget)
}

/// Check the definition of `complement(A, M)` structurally: `(filter(A), R)`
/// must be injective (sorted by stride, every stride exceeds the largest
/// offset of the modes below it) and must cover `[0, M)` (the modes stack
/// from stride 1 without a gap up to M).
fn check_complement(a: LayoutRef<'_>, r: &FlatLayout, cotarget: Cotarget<'_>) -> R<()> {
    // The cotarget's size in usize, as the typed algebra's check takes it
    // (past usize both refuse).
    let m = cotarget
        .leaves()
        .iter()
        .try_fold(1usize, |m, x| m.checked_mul(usize::try_from(x.value).ok()?))
        .ok_or(overflow("complement"))?;
    let f = filter_pairs(a.pairs())?;
    let (s, d): (SmallVec<[usize; 16]>, SmallVec<[usize; 16]>) = f
        .modes
        .iter()
        .chain(&r.modes)
        .map(|(s, d)| {
            (
                usize::try_from(s.value).unwrap_or(0),
                usize::try_from(d.value).unwrap_or(0),
            )
        })
        .unzip();
    if s.len() > COMPLEMENT_CAP {
        return Err(invalid(
            "complement",
            format!("{a}: more than {COMPLEMENT_CAP} modes"),
        ));
    }
    crate::algebra::admissible::check_complement(&s, &d, m).map_err(|e| {
        invalid(
            "complement",
            format!(
                "{a}: {}",
                e.text(crate::typelevel::const_text::Text::EMPTY).as_str()
            ),
        )
    })
}

/// CuTe's complement algorithm with only CuTe's own checks (a stride
/// quotient of 0, dynamic strides at rank > 1), as a flat layout. Divides
/// and products are defined through it; their own checks are on the
/// compositions.
pub(super) fn complement_flat(a: LayoutRef<'_>, cotarget: Cotarget<'_>) -> R<FlatLayout> {
    let op = "complement";
    let mut modes = filter_pairs(a.pairs())?.modes;
    if modes.len() == 1 && modes[0].1.is_static_value(0) {
        // make_layout(coalesce(cotarget)), LayoutLeft strides.
        let shape = coalesce_shape(cotarget.leaves().into_iter())?;
        let mut out = PairList::new();
        compact_pairs(&shape, DInt::new_static(1), &mut out)?;
        return Ok(FlatLayout {
            tuple: out.len() != 1,
            modes: out,
        });
    }
    if modes.len() > 1 && modes.iter().any(|(_, d)| !d.is_static) {
        return Err(invalid(
            op,
            format!("{a}: a complement with dynamic strides needs a rank-1 layout"),
        ));
    }
    if let Some((s, d)) = modes.iter().find(|(_, d)| d.value <= 0) {
        return Err(invalid(
            op,
            format!("{a}: stride of mode {s}:{d} is not positive"),
        ));
    }
    // (shape, stride) of the result's modes below the rest, stride first.
    let mut all = PairList::new();
    let mut below = DInt::new_static(1);
    while modes.len() > 1 {
        let (idx, _) = modes
            .iter()
            .enumerate()
            .min_by_key(|(_, (_, d))| d.value)
            .unwrap();
        let (s, d) = modes.remove(idx);
        let q = div(d, below, op)?;
        if q.value == 0 {
            return Err(not_stacking(a, s, d, below));
        }
        all.push((q, below));
        below = mul(d, s, op)?;
    }
    let (s0, d0) = modes[0];
    let q = div(d0, below, op)?;
    if q.value == 0 {
        return Err(not_stacking(a, s0, d0, below));
    }
    all.push((q, below));
    let new_stride = mul(d0, s0, op)?;
    let rest_shape = coalesce_shape(cotarget.ceil_div(new_stride)?.into_iter())?;
    compact_pairs(&rest_shape, new_stride, &mut all)?;
    // The result is coalesced: only its leaves matter, no tuple is built.
    coalesce_pairs(all.into_iter())
}

fn not_stacking(a: LayoutRef<'_>, s: DInt, d: DInt, below: DInt) -> LayoutError {
    let e = crate::error::ComplementError::NotMultiple {
        s: usize::try_from(s.value).unwrap_or(0),
        d: usize::try_from(d.value).unwrap_or(0),
        span: usize::try_from(below.value).unwrap_or(0),
    };
    invalid(
        "complement",
        format!(
            "{a}: {}",
            e.text(crate::typelevel::const_text::Text::EMPTY).as_str()
        ),
    )
}

/// CuTe's `coalesce(shape)` of a shape with these leaves: merge neighbours
/// that are both static or both dynamic (only the leaves are kept).
fn coalesce_shape(leaves: impl Iterator<Item = DInt>) -> R<Ints> {
    let mut out = Ints::new();
    for x in leaves {
        match out.last_mut() {
            Some(b) if b.is_static == x.is_static => *b = mul(*b, x, "coalesce")?,
            _ => out.push(x),
        }
    }
    Ok(out)
}

/// Integers on the stack up to 4.
pub(super) type Ints = SmallVec<[DInt; 4]>;

/// A complement's cotarget: a tuple, or a flat shape given by its leaves
/// (the shape of a coalesced layout, or one integer).
#[derive(Clone, Copy)]
pub(super) enum Cotarget<'a> {
    Tuple(TupleRef<'a>),
    Flat(&'a [DInt]),
}

impl Cotarget<'_> {
    fn leaves(&self) -> Ints {
        match self {
            Cotarget::Tuple(t) => t.leaves().collect(),
            Cotarget::Flat(v) => v.iter().copied().collect(),
        }
    }
    /// CuTe's `ceil_div(shape, n)`: divide the modes in order (a flat
    /// shape of one mode is an integer: a coalesced layout's shape).
    fn ceil_div(&self, b: DInt) -> R<Ints> {
        let op = "complement";
        let Cotarget::Tuple(t) = self else {
            if let [x] = self.leaves()[..] {
                return Ok(smallvec::smallvec![ceil_div(x, b, op)?]);
            }
            return self.sequential_ceil_div(self.leaves(), b);
        };
        match t.kind() {
            Kind::Int(x) => Ok(smallvec::smallvec![ceil_div(x, b, op)?]),
            Kind::Tuple(modes) => {
                let sizes = modes
                    .map(|m| m.as_int().map_or_else(|| m.product(), Ok))
                    .collect::<R<Ints>>()?;
                self.sequential_ceil_div(sizes, b)
            }
        }
    }
    /// CuTe's `ceil_div` of a tuple by an integer: each mode divided by
    /// what the modes before it leave, and that divided by each mode (so a
    /// mode of size 0 is a division by 0: refused, naming the cotarget).
    fn sequential_ceil_div(&self, sizes: Ints, b: DInt) -> R<Ints> {
        let op = "complement";
        if sizes.iter().any(|x| x.value == 0) {
            return Err(zero_sized(
                op,
                &format_args!("{}", DTuple::of_ints(self.leaves())),
                crate::algebra::admissible::size_zero::COTARGET,
            ));
        }
        let mut rest = b;
        let mut out = Ints::new();
        for x in sizes {
            out.push(ceil_div(x, rest, op)?);
            rest = ceil_div(rest, x, op)?;
        }
        Ok(out)
    }
}
