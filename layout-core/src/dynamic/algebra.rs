//! CuTe's layout algebra on `DynLayout`, as CuTe 4.7 computes it (including
//! which leaves stay static), with every precondition checked.

use super::{
    check_shape, invalid, mul, DInt, DTuple, DynLayout, Kind, LKind, LayoutBuilder, LayoutRef,
    PairList, TupleRef,
};
use crate::error::{LayoutError, COMPLEMENT_CAP};
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;
use core::fmt;
use smallvec::SmallVec;

type R<T> = Result<T, LayoutError>;

fn of(op: &'static str) -> LayoutError {
    LayoutError::Overflow { op }
}
#[cold]
fn div_by_zero(op: &'static str, a: DInt, b: DInt) -> LayoutError {
    invalid(op, format!("division by zero ({a} / {b})"))
}
pub(crate) fn ceil_div(a: DInt, b: DInt, op: &'static str) -> R<DInt> {
    if b.value == 0 {
        return Err(div_by_zero(op, a, b));
    }
    // Quotient plus one for a remainder: no intermediate sum to overflow.
    let q = a.value.checked_div_euclid(b.value).ok_or(of(op))?;
    let v = q
        .checked_add(i64::from(a.value.rem_euclid(b.value) != 0))
        .ok_or(of(op))?;
    Ok(DInt {
        value: v,
        is_static: a.is_static && b.is_static,
    })
}
fn div(a: DInt, b: DInt, op: &'static str) -> R<DInt> {
    if b.value == 0 {
        return Err(div_by_zero(op, a, b));
    }
    Ok(DInt {
        value: a.value / b.value,
        is_static: a.is_static && b.is_static,
    })
}
fn min(a: DInt, b: DInt) -> DInt {
    DInt {
        value: a.value.min(b.value),
        is_static: a.is_static && b.is_static,
    }
}
fn abs(a: DInt) -> DInt {
    // No leaf is i64::MIN (refused by `DynLayout::new` and by `mul`).
    DInt {
        value: a.value.saturating_abs(),
        is_static: a.is_static,
    }
}
/// Compact column-major strides of `shape` starting at `cur` (CuTe's
/// `compact_col_major(shape, cur)`): a static size-1 leaf gets `_0`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
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
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // Row-major strides from a starting stride _2: 2*4 = 8, 2.
/// let t = layout_core::parse_tuple("(_3,_4)").unwrap();
/// assert_eq!(compact_right(&t, layout_core::DInt::new_static(2)).unwrap().to_string(), "(_8,_2)");
/// ```
pub fn compact_right(shape: &DTuple, cur: DInt) -> R<DTuple> {
    compact(shape, cur, true, "compact_row_major")
}

/// CuTe's `make_layout(shape)`: LayoutLeft strides.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
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
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
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

/// A flat layout: its modes, and whether they form a tuple (else it is the
/// integer layout of its one mode). Coalesce, filter and complement give
/// these; the algebra composes with them without building the layout.
#[derive(Clone)]
struct Acc {
    modes: PairList,
    tuple: bool,
}

/// CuTe's `bw_coalesce`: the modes `old_rev` (from the back) in front of
/// `last`, merging two modes only when the merge is statically provable.
fn bw_coalesce(old_rev: impl Iterator<Item = (DInt, DInt)>, last: (DInt, DInt)) -> R<Acc> {
    // Built back to front: the front mode is the last one pushed.
    let mut modes: PairList = smallvec::smallvec![last];
    let mut tuple = false;
    for (s, d) in old_rev {
        if s.is_static_value(1) {
            continue;
        }
        let front = modes.last_mut().expect("one mode at least");
        if !tuple && front.0.is_static_value(1) {
            *front = (s, d);
            continue;
        }
        let (fs, fd) = *front;
        // CuTe merges when the front shape is static and `s * d` is provably
        // the front stride: both static, or a static-0 stride (`_0 * s` is
        // `_0` whatever s is) in front of a static-0 stride. A product past
        // i64 is not the front stride: no merge (the layout is kept).
        let merges = mul(s, d, "coalesce")
            .is_ok_and(|p| fs.is_static && p.is_static && fd.is_static && p.value == fd.value);
        if merges {
            *front = (mul(s, fs, "coalesce")?, d);
        } else {
            modes.push((s, d));
            tuple = true;
        }
    }
    modes.reverse();
    // One mode of static size 1 is `_1:_0`, as CuTe's coalesce prints it.
    if !tuple && modes[0].0.is_static_value(1) {
        modes[0] = (DInt::new_static(1), DInt::new_static(0));
    }
    Ok(Acc { modes, tuple })
}

impl Acc {
    /// One integer mode.
    fn one(s: DInt, d: DInt) -> Acc {
        Acc {
            modes: smallvec::smallvec![(s, d)],
            tuple: false,
        }
    }
    /// The layout: an integer layout for one mode, else a tuple of the modes.
    fn into_layout(self) -> DynLayout {
        if self.tuple {
            LayoutBuilder::tuple_of_pairs(&self.modes)
        } else {
            DynLayout::int(self.modes[0].0, self.modes[0].1)
        }
    }
    /// `A' o B` into `out` with this flat layout as B (see [`compose_leaf`]).
    fn compose_into(&self, p: &[(DInt, DInt)], tuple: bool, out: &mut LayoutBuilder) -> R<()> {
        if !self.tuple {
            let (s, d) = self.modes[0];
            return compose_leaf(p, tuple, s, d, out);
        }
        let at = out.open();
        for &(s, d) in &self.modes {
            compose_leaf(p, tuple, s, d, out)?;
        }
        out.close(at);
        Ok(())
    }
}

/// CuTe's `coalesce`: fewest modes with the same function on the domain.
///
/// ```
/// use layout_core::{dynamic::coalesce, DynLayout};
/// let l: DynLayout = "(_2,(_4,_8)):(_1,(_2,_8))".parse().unwrap();
/// assert_eq!(coalesce(&l).unwrap().to_string(), "_64:_1");
/// ```
pub fn coalesce(l: &DynLayout) -> R<DynLayout> {
    Ok(coalesce_pairs(l.r().pairs())?.into_layout())
}

/// [`coalesce`] of the flat layout with these (shape, stride) leaves.
fn coalesce_pairs(p: impl DoubleEndedIterator<Item = (DInt, DInt)>) -> R<Acc> {
    let mut rev = p.rev();
    match rev.next() {
        Some(last) => bw_coalesce(rev, last),
        None => Ok(Acc::one(DInt::new_static(1), DInt::new_static(0))),
    }
}

/// CuTe's `coalesce_x` of the layout with these leaves: like `coalesce`,
/// but keeps the function outside the domain too (a static size-1 last mode
/// counts as size 2). Its modes, and whether they form a tuple (rank > 1)
/// or an integer layout.
fn coalesce_x(p: impl DoubleEndedIterator<Item = (DInt, DInt)>) -> R<(PairList, bool)> {
    let mut rev = p.rev();
    let Some((s, d)) = rev.next() else {
        return Ok((
            smallvec::smallvec![(DInt::new_static(1), DInt::new_static(0))],
            false,
        ));
    };
    let s = if s.is_static_value(1) {
        DInt::new_static(2)
    } else {
        s
    };
    bw_coalesce(rev, (s, d)).map(|acc| (acc.modes, acc.tuple))
}

/// Write `l` into `out` with `f` applied to the modes the profile (or
/// tiler) reaches; the other modes are kept.
fn by_mode(
    l: LayoutRef<'_>,
    n: usize,
    op: &'static str,
    out: &mut LayoutBuilder,
    mut f: impl FnMut(usize, LayoutRef<'_>, &mut LayoutBuilder) -> R<()>,
) -> R<()> {
    if n > l.rank() {
        return Err(invalid(
            op,
            format!("{n} modes given for layout {l} of rank {}", l.rank()),
        ));
    }
    let at = out.open();
    for (i, m) in l.modes().enumerate() {
        if i < n {
            f(i, m, out)?;
        } else {
            out.append(m);
        }
    }
    out.close(at);
    Ok(())
}

/// The layout `f` writes into a new builder.
fn build(f: impl FnOnce(&mut LayoutBuilder) -> R<()>) -> R<DynLayout> {
    let mut out = LayoutBuilder::default();
    f(&mut out)?;
    Ok(out.finish())
}

/// CuTe's `coalesce(layout, profile)`: coalesce at the terminals of the profile.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // Profile (_1,_1): each mode coalesced on its own, (_2,_2):(_1,_2) -> _4:_1.
/// let a = l("((_2,_2),(_3,_1)):((_1,_2),(_4,_12))");
/// let p = layout_core::parse_tuple("(_1,_1)").unwrap();
/// assert_eq!(coalesce_by(&a, &p).unwrap().to_string(), "(_4,_3):(_1,_4)");
/// ```
pub fn coalesce_by(l: &DynLayout, profile: &DTuple) -> R<DynLayout> {
    let flat = |p: PairIter<'_>| coalesce_pairs(p);
    build(|out| by_profile(l.r(), profile.r(), "coalesce", flat, out))
}

/// `flat` of each mode the profile reaches at one of its integers.
fn by_profile(
    l: LayoutRef<'_>,
    profile: TupleRef<'_>,
    op: &'static str,
    flat: fn(PairIter<'_>) -> R<Acc>,
    out: &mut LayoutBuilder,
) -> R<()> {
    match profile.kind() {
        Kind::Int(_) => {
            out.append(flat(l.pairs())?.into_layout().r());
            Ok(())
        }
        Kind::Tuple(p) => by_mode(l, p.len(), op, out, |i, m, out| {
            by_profile(m, p.get(i).expect("i < rank"), op, flat, out)
        }),
    }
}

/// A layout's leaf pairs, as [`LayoutRef::pairs`] walks them.
type PairIter<'a> = super::Pairs<'a>;

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
fn filter_pairs(p: PairIter<'_>) -> R<Acc> {
    coalesce_pairs(p.map(zero_filtered))
}

/// CuTe's `filter(layout, profile)`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // Profile (_1,_1): mode by mode, (_2,_3):(_0,_1) -> _3:_1 and _4:_3 stays.
/// let p = layout_core::parse_tuple("(_1,_1)").unwrap();
/// assert_eq!(filter_by(&l("((_2,_3),_4):((_0,_1),_3)"), &p).unwrap().to_string(), "(_3,_4):(_1,_3)");
/// ```
pub fn filter_by(l: &DynLayout, profile: &DTuple) -> R<DynLayout> {
    build(|out| by_profile(l.r(), profile.r(), "filter", filter_pairs, out))
}

/// The admissibility of `A' o B` (see [`crate::algebra::admissible::check_composition`]).
/// `bp` is B's leaf pairs; `shown` prints `A o B` for the error.
fn check_composition(
    a: &[(DInt, DInt)],
    bp: &[(DInt, DInt)],
    shown: impl FnOnce() -> alloc::string::String,
) -> R<()> {
    const SMALL: usize = 8;
    let size = |c: DInt| usize::try_from(c.value).unwrap_or(0);
    let stride = |d: DInt| usize::try_from(d.value.unsigned_abs()).unwrap_or(usize::MAX);
    // On the stack when small: this runs on every composition.
    let (mut sa, mut sb, mut sd) = ([0; SMALL], [0; SMALL], [0; SMALL]);
    let (mut va, mut vb, mut vd) = (Vec::new(), Vec::new(), Vec::new());
    let (sizes, bs, bd): (&[usize], &[usize], &[usize]) = if a.len().max(bp.len()) <= SMALL {
        for (x, &(c, _)) in sa.iter_mut().zip(a) {
            *x = size(c);
        }
        for ((x, y), &(s, d)) in sb.iter_mut().zip(sd.iter_mut()).zip(bp) {
            (*x, *y) = (size(s), stride(d));
        }
        (&sa[..a.len()], &sb[..bp.len()], &sd[..bp.len()])
    } else {
        va.extend(a.iter().map(|&(c, _)| size(c)));
        vb.extend(bp.iter().map(|&(s, _)| size(s)));
        vd.extend(bp.iter().map(|&(_, d)| stride(d)));
        (&va, &vb, &vd)
    };
    crate::algebra::admissible::check_composition(sizes, bs, bd).map_err(|e| {
        invalid(
            "composition",
            format!(
                "{}: {}",
                shown(),
                e.text(crate::typelevel::const_text::Text::EMPTY).as_str()
            ),
        )
    })
}

/// Compose the flat A' with one leaf `s:d` of B (CuTe 4.7's `composition_impl`)
/// into `out`. `p` is A's modes, `tuple` whether A' is a tuple (else an
/// integer layout).
fn compose_leaf(
    p: &[(DInt, DInt)],
    tuple: bool,
    s: DInt,
    d: DInt,
    out: &mut LayoutBuilder,
) -> R<()> {
    let op = "composition";
    if d.is_static_value(0) {
        // A static stride 0 selects A(0) = 0 for every coordinate.
        out.leaf(s, d);
        return Ok(());
    }
    if !tuple {
        out.leaf(s, mul(d, p[0].1, op)?);
        return Ok(());
    }
    let (&(_, k_last), front) = p.split_last().expect("a tuple A' has modes");
    // The modes go straight into `out`; one mode alone is not a tuple.
    let at = out.open();
    let mut count = 0;
    let (mut rest_shape, mut rest_stride) = (s, d);
    for &(c, k) in front {
        let ars = abs(rest_stride);
        let (next_shape, next_stride) = if ars.value == 0 {
            // A run-time stride 0 stays at A(0): the whole rest goes to the
            // first mode taken, with stride 0 (as the typed fold; CuTe would
            // divide by the 0).
            let is_static = c.is_static && ars.is_static;
            (
                DInt {
                    value: rest_shape.value,
                    is_static,
                },
                DInt {
                    value: 0,
                    is_static,
                },
            )
        } else {
            if c.value == 0 {
                return Err(zero_sized(
                    op,
                    &format_args!(
                        "{}",
                        Acc {
                            modes: p.iter().copied().collect(),
                            tuple
                        }
                        .into_layout()
                    ),
                    crate::algebra::admissible::size_zero::COMPOSE_A,
                ));
            }
            let mut next_stride = ceil_div(ars, c, op)?;
            if rest_stride.value < 0 {
                next_stride.value = -next_stride.value;
            }
            (ceil_div(c, ars, op)?, next_stride)
        };
        if next_shape.is_static_value(1) || rest_shape.is_static_value(1) {
            rest_stride = next_stride;
            continue;
        }
        let new = min(next_shape, rest_shape);
        if new.value == 0 {
            return Err(zero_sized(
                op,
                &format_args!("{s}:{d}"),
                crate::algebra::admissible::size_zero::COMPOSE_B,
            ));
        }
        out.leaf(new, mul(rest_stride, k, op)?);
        count += 1;
        rest_shape = div(rest_shape, new, op)?;
        rest_stride = next_stride;
    }
    let last_stride = mul(rest_stride, k_last, op)?;
    if count == 0 || !rest_shape.is_static_value(1) {
        out.leaf(rest_shape, last_stride);
    }
    out.close_flat(at);
    Ok(())
}

/// CuTe's `composition(A, B)`: `R(c) == A(B(c))` for every c in B's domain,
/// congruent with B. Refused when B's modes would walk A unevenly or carry
/// into each other (the inputs where CuTe prints a wrong layout).
///
/// ```
/// use layout_core::{dynamic::composition, DynLayout};
/// let a: DynLayout = "(_6,_2):(_8,_2)".parse().unwrap();
/// let b: DynLayout = "(_4,_3):(_3,_1)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "((_2,_2),_3):((_24,_2),_8)");
/// // With run-time leaves CuTe keeps every intermediate mode; so do we.
/// let a: DynLayout = "(6,2):(8,2)".parse().unwrap();
/// let b: DynLayout = "(4,3):(3,1)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "((2,2),(3,1)):((24,2),(8,2))");
/// // CuTe prints (_2,_3):(_20,_10) here, which gives 20 + 2*10 = 40 at
/// // coordinate (1,2), but B(1,2) = 4 + 4 = 8 and A(8) = 1: B's modes carry
/// // past A's first mode.
/// let a: DynLayout = "(_8,_5):(_5,_1)".parse().unwrap();
/// let b: DynLayout = "(_2,_3):(_4,_2)".parse().unwrap();
/// assert!(composition(&a, &b).is_err());
/// ```
pub fn composition<A: Compose<B> + ?Sized, B: ?Sized>(a: &A, b: &B) -> R<A::Output> {
    a.compose(b)
}

/// What [`composition`] composes, as CuTe's overloads of it: a layout
/// with a layout or a [`Tiler`], a [`Swizzle`](super::Swizzle) with a layout.
pub trait Compose<B: ?Sized> {
    /// The composite.
    type Output;
    /// `self o b`.
    fn compose(&self, b: &B) -> R<Self::Output>;
}

impl Compose<DynLayout> for DynLayout {
    type Output = DynLayout;
    fn compose(&self, b: &DynLayout) -> R<DynLayout> {
        build(|out| compose_layouts(self.r().pairs(), &|| self.to_string(), b.r(), out))
    }
}

impl Compose<Tiler> for DynLayout {
    type Output = DynLayout;
    fn compose(&self, t: &Tiler) -> R<DynLayout> {
        build(|out| compose_tiler(self.r(), t, out))
    }
}

/// `A' o B` into `out`, A' given by its coalesced modes `p`.
fn compose_by_leaf(
    p: &[(DInt, DInt)],
    tuple: bool,
    b: LayoutRef<'_>,
    out: &mut LayoutBuilder,
) -> R<()> {
    match b.kind() {
        LKind::Leaf(s, d) => compose_leaf(p, tuple, s, d, out),
        LKind::Tuple(modes) => {
            let at = out.open();
            for m in modes {
                compose_by_leaf(p, tuple, m, out)?;
            }
            out.close(at);
            Ok(())
        }
    }
}

/// `A o B` into `out`, A given by its leaves (`shown` prints it for an error).
fn compose_layouts(
    a: impl DoubleEndedIterator<Item = (DInt, DInt)>,
    shown: &dyn Fn() -> alloc::string::String,
    b: LayoutRef<'_>,
    out: &mut LayoutBuilder,
) -> R<()> {
    let (p, tuple) = coalesce_x(a)?;
    check_composition(&p, &b.pair_list(), || format!("{} o {b}", shown()))?;
    compose_by_leaf(&p, tuple, b, out)
}

/// `A o (B0, B1)` into `out` without building the tuple `(B0, B1)`
/// (logical_divide's `A o (T, complement(T))`, B1 flat).
fn compose_pair(a: LayoutRef<'_>, b0: LayoutRef<'_>, b1: &Acc, out: &mut LayoutBuilder) -> R<()> {
    let (p, tuple) = coalesce_x(a.pairs())?;
    let mut bp = b0.pair_list();
    bp.extend(b1.modes.iter().copied());
    check_composition(&p, &bp, || {
        let b1 = Acc {
            modes: b1.modes.clone(),
            tuple: b1.tuple,
        }
        .into_layout();
        let b = LayoutBuilder::of_modes([b0, b1.r()]);
        format!("{a} o {b}")
    })?;
    let at = out.open();
    compose_by_leaf(&p, tuple, b0, out)?;
    b1.compose_into(&p, tuple, out)?;
    out.close(at);
    Ok(())
}

/// A tiler argument of the divides and products: a [`Tiler`], or a
/// [`DynLayout`] (a layout is a tiler), as in CuTe.
pub trait AsTiler {
    /// The tiler.
    fn as_tiler(&self) -> Cow<'_, Tiler>;
}
impl AsTiler for Tiler {
    fn as_tiler(&self) -> Cow<'_, Tiler> {
        Cow::Borrowed(self)
    }
}
impl AsTiler for DynLayout {
    fn as_tiler(&self) -> Cow<'_, Tiler> {
        Cow::Owned(Tiler::Layout(self.clone()))
    }
}

/// A tiler: a layout, an integer `n` (the layout `n:_1`), `_` (keep the
/// mode), or a tuple of tilers applied mode by mode.
#[derive(Clone, Debug, PartialEq, Eq)]
// A layout is held inline (no allocation: its tuples are inline up to seven
// nodes); a boxed one would allocate for every divide by a layout.
#[allow(clippy::large_enum_variant)]
pub enum Tiler {
    /// A layout.
    Layout(DynLayout),
    /// An integer `n`, meaning `n:_1`.
    Int(DInt),
    /// `_`: keep the mode.
    Underscore,
    /// One tiler per mode.
    Tuple(Vec<Tiler>),
}

impl core::str::FromStr for Tiler {
    type Err = LayoutError;
    /// Parse a tiler in CuTe notation: `(_2:_1,_4,_)`, `((_2,_2):(_1,_2),_4)`, `(_16,_16)`, `_6:_1`.
    fn from_str(s: &str) -> R<Tiler> {
        super::parse::tiler(s)
    }
}

/// CuTe notation, as the parser reads it back: `(_2:_1,_4,_)`.
///
/// ```
/// use layout_core::Tiler;
/// let t: Tiler = "((_2,_2):(_1,_2),4,_)".parse().unwrap();
/// assert_eq!(t.to_string(), "((_2,_2):(_1,_2),4,_)");
/// assert_eq!(t.to_string().parse::<Tiler>().unwrap(), t);
/// ```
impl fmt::Display for Tiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::Int(i) => write!(f, "{i}"),
            Tiler::Underscore => f.write_str("_"),
            Tiler::Tuple(v) => {
                f.write_str("(")?;
                for (k, t) in v.iter().enumerate() {
                    if k > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl Tiler {
    fn rank_checked(&self, l: LayoutRef<'_>, op: &'static str) -> R<()> {
        if let Tiler::Tuple(t) = self {
            if t.len() > l.rank() {
                return Err(invalid(
                    op,
                    format!(
                        "the tiler has {} modes but layout {l} has rank {}",
                        t.len(),
                        l.rank()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// CuTe's `composition(A, tiler)`: by mode for a tuple tiler (modes of A the
/// tiler does not reach are dropped), `_` keeps a mode, `n` means `n:_1`.
fn compose_tiler(a: LayoutRef<'_>, t: &Tiler, out: &mut LayoutBuilder) -> R<()> {
    t.rank_checked(a, "composition")?;
    let shown = || a.to_string();
    match t {
        Tiler::Layout(b) => compose_layouts(a.pairs(), &shown, b.r(), out),
        Tiler::Underscore => {
            out.append(a);
            Ok(())
        }
        Tiler::Int(n) => {
            check_shape(&DTuple::int(*n), "composition")?;
            let b = DynLayout::int(*n, DInt::new_static(1));
            compose_layouts(a.pairs(), &shown, b.r(), out)
        }
        Tiler::Tuple(ts) => {
            let at = out.open();
            for (i, ti) in ts.iter().enumerate() {
                let m = a.mode(i).expect("rank checked");
                compose_tiler(m, ti, out)?;
            }
            out.close(at);
            Ok(())
        }
    }
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

/// Integers on the stack up to 8.
type Ints = SmallVec<[DInt; 4]>;

/// A complement's cotarget: a tuple, or a flat shape given by its leaves
/// (the shape of a coalesced layout, or one integer).
#[derive(Clone, Copy)]
enum Cotarget<'a> {
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

/// Compact column-major strides from `cur` for a flat shape, as pairs
/// (CuTe's `compact_col_major`: a static size-1 leaf gets `_0`). The
/// running product past the last stride may exceed i64: only the strides
/// are kept.
fn compact_pairs(shape: &[DInt], cur: DInt, out: &mut PairList) -> R<()> {
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

/// Check the definition of `complement(A, M)` structurally: `(filter(A), R)`
/// must be injective (sorted by stride, every stride exceeds the largest
/// offset of the modes below it) and must cover `[0, M)` (the modes stack
/// from stride 1 without a gap up to M).
fn check_complement(a: LayoutRef<'_>, r: &Acc, cotarget: Cotarget<'_>) -> R<()> {
    // The cotarget's size in usize, as the typed algebra's check takes it
    // (past usize both refuse).
    let m = cotarget
        .leaves()
        .iter()
        .try_fold(1usize, |m, x| m.checked_mul(usize::try_from(x.value).ok()?))
        .ok_or(of("complement"))?;
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
fn complement_flat(a: LayoutRef<'_>, cotarget: Cotarget<'_>) -> R<Acc> {
    let op = "complement";
    let mut modes = filter_pairs(a.pairs())?.modes;
    if modes.len() == 1 && modes[0].1.is_static_value(0) {
        // make_layout(coalesce(cotarget)), LayoutLeft strides.
        let shape = coalesce_shape(cotarget.leaves().into_iter())?;
        let mut out = PairList::new();
        compact_pairs(&shape, DInt::new_static(1), &mut out)?;
        return Ok(Acc {
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
            .ok_or(of("right_inverse"))?;
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

/// `Err` when `l` has no element: the inverses and `max_common_*` are
/// defined through the offsets a layout reaches, and a layout of size 0
/// reaches none (CuTe computes something there; the definitions give
/// nothing to check it against). The complement, divides and products
/// follow CuTe's formulas instead ([`nonzero`]).
pub(crate) fn nonempty(l: LayoutRef<'_>, op: &'static str) -> R<()> {
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
fn nonzero(l: LayoutRef<'_>, op: &'static str, why: &'static str) -> R<()> {
    if l.pairs().any(|(s, _)| s.value == 0) {
        return Err(zero_sized(op, &l, why));
    }
    Ok(())
}

/// The refusal of a size 0 (`what` prints the layout or cotarget), in the
/// typed algebra's words.
#[cold]
fn zero_sized(op: &'static str, what: &dyn fmt::Display, why: &'static str) -> LayoutError {
    invalid(op, format!("{what} has size 0: {why}"))
}

/// `Err` when a stride of `l` is negative: `what` says why `op` needs them not.
fn nonnegative_strides(l: LayoutRef<'_>, op: &'static str, what: &str) -> R<()> {
    match l.pairs().find(|(_, d)| d.value < 0) {
        Some((s, d)) => Err(invalid(
            op,
            format!("{l}: mode {s}:{d} has a negative stride; {what}"),
        )),
        None => Ok(()),
    }
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

/// CuTe's `logical_divide(A, tiler)`: `A o (T, complement(T, shape(A)))`, by mode for tuples.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // A 2-element tile of 8:1: (tile, rest) = (_2:_1, _4:_2).
/// assert_eq!(logical_divide(&l("_8:_1"), &l("_2:_1")).unwrap().to_string(), "(_2,_4):(_1,_2)");
/// ```
pub fn logical_divide<T: AsTiler + ?Sized>(a: &DynLayout, t: &T) -> R<DynLayout> {
    build(|out| logical_divide_into(a.r(), &t.as_tiler(), out))
}

fn logical_divide_into(a: LayoutRef<'_>, t: &Tiler, out: &mut LayoutBuilder) -> R<()> {
    // A of size 0 is divided as CuTe divides it (a grid of no tiles); the
    // complement refuses what CuTe would divide by 0.
    t.rank_checked(a, "logical_divide")?;
    match t {
        Tiler::Layout(tl) => divide_by_layout(a, tl.r(), out),
        Tiler::Underscore => {
            out.append(a);
            Ok(())
        }
        Tiler::Int(n) => {
            let t = int_layout(*n)?;
            match a.kind() {
                // An integer mode s:d: the complement of n in s is
                // ceil(s/n):n in closed form (as the typed algebra's
                // integer divide); the composition is the general one.
                LKind::Leaf(s, _) => compose_pair(a, t.r(), &int_complement(*n, s)?, out),
                LKind::Tuple(_) => divide_by_layout(a, t.r(), out),
            }
        }
        Tiler::Tuple(ts) => by_mode(a, ts.len(), "logical_divide", out, |i, m, out| {
            logical_divide_into(m, &ts[i], out)
        }),
    }
}

/// CuTe's `make_layout(n)` of an integer tiler: `n:_1` (`_1:_0` for a
/// static 1), as [`make_layout_left`] makes it.
fn int_layout(n: DInt) -> R<DynLayout> {
    if n.value < 0 {
        return Err(invalid(
            "make_layout",
            format!("negative extent {n} in {n}"),
        ));
    }
    let d = if n.is_static_value(1) { 0 } else { 1 };
    Ok(DynLayout::int(n, DInt::new_static(d)))
}

/// `complement(make_layout(n), s)` for a non-empty extent s: what
/// [`complement_flat`] computes for that input, in closed form (the same
/// values, static leaves and errors): `s:_1` for a static `n` of 1, else
/// `ceil(s/n):n`, a static 1 printed `_1:_0`.
fn int_complement(n: DInt, s: DInt) -> R<Acc> {
    if n.value == 0 {
        return Err(zero_sized(
            "logical_divide",
            &int_layout(n)?,
            crate::algebra::admissible::size_zero::TILER,
        ));
    }
    if n.is_static_value(1) {
        let d = if s.is_static_value(1) {
            DInt::new_static(0)
        } else {
            DInt::new_static(1)
        };
        return Ok(Acc::one(s, d));
    }
    let q = ceil_div(s, n, "complement")?;
    if q.is_static_value(1) {
        return Ok(Acc::one(q, DInt::new_static(0)));
    }
    Ok(Acc::one(q, n))
}

/// `A o (T, complement(T, shape(A)))` into `out`.
fn divide_by_layout(a: LayoutRef<'_>, t: LayoutRef<'_>, out: &mut LayoutBuilder) -> R<()> {
    nonzero(
        t,
        "logical_divide",
        crate::algebra::admissible::size_zero::TILER,
    )?;
    let shape: Ints = coalesce_pairs(a.pairs())?
        .modes
        .iter()
        .map(|m| m.0)
        .collect();
    let c = complement_flat(t, Cotarget::Flat(&shape))?;
    compose_pair(a, t, &c, out)
}

/// CuTe's `zip2_by`: gather the first and second halves of the modes the tiler reaches.
fn zip2_by(l: LayoutRef<'_>, t: &Tiler) -> R<DynLayout> {
    let Tiler::Tuple(ts) = t else {
        return Ok(l.to_layout());
    };
    let mut out = LayoutBuilder::default();
    let whole = out.open();
    // The first halves, then the second halves (and the modes the tiler
    // does not reach); a nested tuple tiler's mode is regrouped in each pass.
    for half in 0..2 {
        let part = out.open();
        for (i, m) in l.modes().enumerate() {
            let Some(ti) = ts.get(i) else {
                if half == 1 {
                    out.append(m);
                }
                continue;
            };
            let zipped;
            let z = if let Tiler::Tuple(_) = ti {
                zipped = zip2_by(m, ti)?;
                zipped.r()
            } else if m.rank() != 2 {
                // `_` keeps a mode: only a rank-2 one splits into two
                // halves (any other rank would lose or lack modes).
                return Err(invalid("zip2_by", format!("mode {m} is not rank 2")));
            } else {
                m
            };
            match z.kind() {
                LKind::Tuple(mut halves) if halves.len() == 2 => {
                    let first = halves.next();
                    let h = if half == 0 { first } else { halves.next() };
                    out.append(h.expect("two halves"));
                }
                _ => {
                    return Err(invalid(
                        "zip2_by",
                        "a divided mode is not rank 2".to_string(),
                    ))
                }
            }
        }
        out.close(part);
    }
    out.close(whole);
    Ok(out.finish())
}

fn unpack(l: &DynLayout, first: bool, second: bool) -> DynLayout {
    let mut out = LayoutBuilder::default();
    let at = out.open();
    for (i, m) in l.r().modes().enumerate() {
        // CuTe slices with `repeat<rank>(_)`, which is a tuple only for rank > 1.
        let open = (i == 0 && first) || (i == 1 && second);
        match (open, m.kind()) {
            (true, LKind::Tuple(v)) if v.len() > 1 => v.for_each(|x| out.append(x)),
            _ => out.append(m),
        }
    }
    out.close(at);
    out.finish()
}

/// CuTe's `zipped_divide`: `((tile modes), (rest modes))`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints ((_3,_1),(_1,_3)):((_9,_0),(_0,_1)).
/// let t: Tiler = "(_3,_1)".parse().unwrap();
/// assert_eq!(zipped_divide(&l("(_3,(_3)):(_9,(_1))"), &t).unwrap().to_string(), "((_3,_1),(_1,_3)):((_9,_0),(_0,_1))");
/// ```
pub fn zipped_divide<T: AsTiler + ?Sized>(a: &DynLayout, t: &T) -> R<DynLayout> {
    let t = &*t.as_tiler();
    zip2_by(build(|out| logical_divide_into(a.r(), t, out))?.r(), t)
}
/// CuTe's `tiled_divide`: `((tile modes), rest0, rest1, ...)`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // zipped_divide's ((_3,_1),(_1,_3)) with the rest modes unpacked.
/// let t: Tiler = "(_3,_1)".parse().unwrap();
/// assert_eq!(tiled_divide(&l("(_3,(_3)):(_9,(_1))"), &t).unwrap().to_string(), "((_3,_1),_1,_3):((_9,_0),_0,_1)");
/// ```
pub fn tiled_divide<T: AsTiler + ?Sized>(a: &DynLayout, t: &T) -> R<DynLayout> {
    let t = &*t.as_tiler();
    Ok(unpack(&zipped_divide(a, t)?, false, true))
}
/// CuTe's `flat_divide`: `(tile0, tile1, ..., rest0, rest1, ...)`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints (_2,_4,_3,_1):(_1,_6,_2,_0).
/// let t: Tiler = "(_2,_4)".parse().unwrap();
/// assert_eq!(flat_divide(&l("((_6),_4):((_1),_6)"), &t).unwrap().to_string(), "(_2,_4,_3,_1):(_1,_6,_2,_0)");
/// ```
pub fn flat_divide<T: AsTiler + ?Sized>(a: &DynLayout, t: &T) -> R<DynLayout> {
    let t = &*t.as_tiler();
    Ok(unpack(&zipped_divide(a, t)?, true, true))
}

/// CuTe's `logical_product(A, tiler)`: `(A, complement(A, size(A)*cosize(T)) o T)`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints ((_3),(_8,_8)):((_1),(_24,_3)).
/// assert_eq!(logical_product(&l("(_3):(_1)"), &l("(_8,_8):(_8,_1)")).unwrap().to_string(), "((_3),(_8,_8)):((_1),(_24,_3))");
/// ```
pub fn logical_product<T: AsTiler + ?Sized>(a: &DynLayout, t: &T) -> R<DynLayout> {
    build(|out| logical_product_into(a.r(), &t.as_tiler(), out))
}

fn logical_product_into(a: LayoutRef<'_>, t: &Tiler, out: &mut LayoutBuilder) -> R<()> {
    nonzero(
        a,
        "logical_product",
        crate::algebra::admissible::size_zero::PRODUCT,
    )?;
    t.rank_checked(a, "logical_product")?;
    match t {
        Tiler::Layout(tl) => {
            nonnegative_strides(
                tl.r(),
                "logical_product",
                "the product's repeats are defined for strides of 0 and up",
            )?;
            let cot = mul(a.size()?, tl.cosize()?, "logical_product")?;
            let c = complement_flat(a, Cotarget::Flat(&[cot]))?;
            let at = out.open();
            out.append(a);
            let shown = || c.clone().into_layout().to_string();
            compose_layouts(c.modes.iter().copied(), &shown, tl.r(), out)?;
            out.close(at);
            Ok(())
        }
        Tiler::Underscore => {
            out.append(a);
            Ok(())
        }
        Tiler::Int(n) => logical_product_into(a, &Tiler::Layout(int_layout(*n)?), out),
        Tiler::Tuple(ts) => by_mode(a, ts.len(), "logical_product", out, |i, m, out| {
            logical_product_into(m, &ts[i], out)
        }),
    }
}
/// CuTe's `zipped_product`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints ((_3),(_4,_2)):((_1),(_0,_12)).
/// assert_eq!(zipped_product(&l("(_3):(_1)"), &l("(_4,_2):(_0,_4)")).unwrap().to_string(), "((_3),(_4,_2)):((_1),(_0,_12))");
/// ```
pub fn zipped_product<T: AsTiler + ?Sized>(a: &DynLayout, t: &T) -> R<DynLayout> {
    let t = &*t.as_tiler();
    zip2_by(build(|out| logical_product_into(a.r(), t, out))?.r(), t)
}
/// CuTe's `tiled_product`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints ((_2,_8),(_3)):((_8,_1),(_16)).
/// assert_eq!(tiled_product(&l("(_2,_8):(_8,_1)"), &l("(_3):(_1)")).unwrap().to_string(), "((_2,_8),(_3)):((_8,_1),(_16))");
/// ```
pub fn tiled_product<T: AsTiler + ?Sized>(a: &DynLayout, t: &T) -> R<DynLayout> {
    let t = &*t.as_tiler();
    Ok(unpack(&zipped_product(a, t)?, false, true))
}
/// CuTe's `flat_product`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints (_5,_8,_1,_3):(_1,_15,_15,_5).
/// assert_eq!(flat_product(&l("_5:_1"), &l("(_8,_1,_3):(_3,_3,_1)")).unwrap().to_string(), "(_5,_8,_1,_3):(_1,_15,_15,_5)");
/// ```
pub fn flat_product<T: AsTiler + ?Sized>(a: &DynLayout, t: &T) -> R<DynLayout> {
    let t = &*t.as_tiler();
    Ok(unpack(&zipped_product(a, t)?, true, true))
}

/// CuTe's `append<N>(layout)`: pad with `_1:_0` up to rank N.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // Padded with _1:_0 up to rank 3.
/// assert_eq!(append_to_rank(&l("(_2,_3):(_1,_2)"), 3).to_string(), "(_2,_3,_1):(_1,_2,_0)");
/// ```
pub fn append_to_rank(l: &DynLayout, n: usize) -> DynLayout {
    let mut out = LayoutBuilder::default();
    let at = out.open();
    l.r().modes().for_each(|m| out.append(m));
    for _ in l.rank()..n {
        out.leaf(DInt::new_static(1), DInt::new_static(0));
    }
    out.close(at);
    out.finish()
}

fn product_zip(a: &DynLayout, b: &DynLayout, raked: bool) -> R<DynLayout> {
    let pair = |u: LayoutRef<'_>, v: LayoutRef<'_>, out: &mut LayoutBuilder| {
        let at = out.open();
        if raked {
            out.append(v);
            out.append(u);
        } else {
            out.append(u);
            out.append(v);
        }
        out.close(at);
    };
    let mut out = LayoutBuilder::default();
    if a.rank() == 1 && b.rank() == 1 {
        // CuTe's zip of an integer with a layout pairs it with the whole layout.
        let p = logical_product(a, b)?;
        if let (Some(x), Some(y)) = (p.r().mode(0), p.r().mode(1)) {
            if (if raked { y } else { x }).s.as_int().is_some() {
                let at = out.open();
                pair(x, y, &mut out);
                out.close(at);
                return Ok(out.finish());
            }
        }
    }
    let r = a.rank().max(b.rank());
    let (a, b) = (append_to_rank(a, r), append_to_rank(b, r));
    let p = logical_product(&a, &b)?;
    let (Some(x), Some(y)) = (p.r().mode(0), p.r().mode(1)) else {
        return Err(invalid(
            "blocked_product",
            "logical_product is not rank 2".to_string(),
        ));
    };
    if x.rank() != r || y.rank() != r {
        return Err(invalid(
            "blocked_product",
            format!("{x} and {y} do not both have rank {r}"),
        ));
    }
    let at = out.open();
    for (u, v) in x.modes().zip(y.modes()) {
        pair(u, v, &mut out);
    }
    out.close(at);
    Ok(out.finish())
}

/// CuTe's `blocked_product(A, B)`: each mode is `(a_i, b_i)`.
///
/// ```
/// use layout_core::{dynamic::blocked_product, DynLayout};
/// let a: DynLayout = "(_3,_2):(_1,_3)".parse().unwrap();
/// let b: DynLayout = "(_2,_5):(_1,_2)".parse().unwrap();
/// assert_eq!(blocked_product(&a, &b).unwrap().to_string(), "((_3,_2),(_2,_5)):((_1,_6),(_3,_12))");
/// ```
pub fn blocked_product(a: &DynLayout, b: &DynLayout) -> R<DynLayout> {
    product_zip(a, b, false)
}
/// CuTe's `raked_product(A, B)`: each mode is `(b_i, a_i)`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints ((_4,_3),(_3,_1)):((_9,_1),(_3,_0)).
/// assert_eq!(raked_product(&l("(_3):(_1)"), &l("(_4,_3):(_3,_1)")).unwrap().to_string(), "((_4,_3),(_3,_1)):((_9,_1),(_3,_0))");
/// ```
pub fn raked_product(a: &DynLayout, b: &DynLayout) -> R<DynLayout> {
    product_zip(a, b, true)
}
