//! CuTe's layout algebra on `DynLayout`, as CuTe 4.7 computes it (including
//! which leaves stay static), with every precondition checked.

use super::{invalid, mul, DInt, DTuple, DynLayout, ModesBuilder, PairList};
use crate::error::LayoutError;
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;
use smallvec::SmallVec;

type R<T> = Result<T, LayoutError>;

fn of(op: &'static str) -> LayoutError {
    LayoutError::Overflow { op }
}
pub(crate) fn ceil_div(a: DInt, b: DInt, op: &'static str) -> R<DInt> {
    if b.value == 0 {
        return Err(invalid(op, format!("division by zero ({a} / {b})")));
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
        return Err(invalid(op, format!("division by zero ({a} / {b})")));
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
    fn go(s: &DTuple, cur: &mut DInt) -> R<DTuple> {
        match s {
            DTuple::Int(x) if x.is_static_value(1) => Ok(DTuple::Int(DInt::new_static(0))),
            DTuple::Int(x) => {
                let d = *cur;
                *cur = mul(*cur, *x, "compact_col_major")?;
                Ok(DTuple::Int(d))
            }
            DTuple::Tuple(v) => Ok(DTuple::Tuple(
                v.iter().map(|x| go(x, cur)).collect::<R<_>>()?,
            )),
        }
    }
    let mut c = cur;
    go(shape, &mut c)
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
    fn go(s: &DTuple, cur: &mut DInt) -> R<DTuple> {
        match s {
            DTuple::Int(x) if x.is_static_value(1) => Ok(DTuple::Int(DInt::new_static(0))),
            DTuple::Int(x) => {
                let d = *cur;
                *cur = mul(*cur, *x, "compact_row_major")?;
                Ok(DTuple::Int(d))
            }
            DTuple::Tuple(v) => {
                let mut out: Vec<DTuple> = v.iter().rev().map(|x| go(x, cur)).collect::<R<_>>()?;
                out.reverse();
                Ok(DTuple::Tuple(out))
            }
        }
    }
    let mut c = cur;
    go(shape, &mut c)
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
    super::check_shape(shape, "make_layout")?;
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
    super::check_shape(shape, "make_layout")?;
    Ok(DynLayout::raw(
        shape.clone(),
        compact_right(shape, DInt::new_static(1))?,
    ))
}

/// The modes of a flat layout under construction by `bw_coalesce`.
struct Acc {
    modes: PairList,
    tuple: bool,
}

/// CuTe's `bw_coalesce`: walk `old` from the back into `acc`, merging two
/// modes only when the merge is statically provable.
fn bw_coalesce(old: &[(DInt, DInt)], mut acc: Acc) -> R<Acc> {
    for &(s, d) in old.iter().rev() {
        if s.is_static_value(1) {
            continue;
        }
        if !acc.tuple && acc.modes[0].0.is_static_value(1) {
            acc.modes[0] = (s, d);
            continue;
        }
        let (fs, fd) = acc.modes[0];
        // CuTe merges when the front shape is static and `s * d` is provably
        // the front stride: both static, or a static-0 stride (`_0 * s` is
        // `_0` whatever s is) in front of a static-0 stride.
        let p = mul(s, d, "coalesce")?;
        if fs.is_static && p.is_static && fd.is_static && p.value == fd.value {
            acc.modes[0] = (mul(s, fs, "coalesce")?, d);
        } else {
            acc.modes.insert(0, (s, d));
            acc.tuple = true;
        }
    }
    Ok(acc)
}

impl Acc {
    /// An integer layout for one mode (`_1:_0` for a static 1), else a
    /// tuple of the modes.
    fn into_layout(self) -> DynLayout {
        let tuple = self.tuple;
        let modes = self.into_pairs();
        if !tuple {
            return DynLayout::int(modes[0].0, modes[0].1);
        }
        let mut b = ModesBuilder::with_capacity(modes.len());
        for (s, d) in modes {
            b.push_parts(DTuple::Int(s), DTuple::Int(d));
        }
        b.finish()
    }
    /// The modes as [`Acc::into_layout`] lays them out, without building it.
    fn into_pairs(mut self) -> PairList {
        if !self.tuple && self.modes[0].0.is_static_value(1) {
            self.modes[0] = (DInt::new_static(1), DInt::new_static(0));
        }
        self.modes
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
    // An integer layout is its one mode, without the walk for its leaves:
    // tilers are mostly `n:1`.
    if let (DTuple::Int(s), DTuple::Int(d)) = (l.shape(), l.stride()) {
        let one = Acc {
            modes: smallvec::smallvec![(*s, *d)],
            tuple: false,
        };
        return Ok(one.into_layout());
    }
    coalesce_pairs(&l.pair_list())
}

/// [`coalesce`] of the flat layout with these (shape, stride) leaves.
fn coalesce_pairs(p: &[(DInt, DInt)]) -> R<DynLayout> {
    let Some((&last, rest)) = p.split_last() else {
        return Ok(DynLayout::int(DInt::new_static(1), DInt::new_static(0)));
    };
    Ok(bw_coalesce(
        rest,
        Acc {
            modes: smallvec::smallvec![last],
            tuple: false,
        },
    )?
    .into_layout())
}

/// CuTe's `coalesce_x`: like `coalesce`, but keeps the function outside the
/// domain too (a static size-1 last mode counts as size 2).
/// Its modes, and whether they form a tuple (rank > 1) or an integer layout.
fn coalesce_x(l: &DynLayout) -> R<(PairList, bool)> {
    let p = l.pair_list();
    let Some((&(s, d), rest)) = p.split_last() else {
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
    bw_coalesce(
        rest,
        Acc {
            modes: smallvec::smallvec![(s, d)],
            tuple: false,
        },
    )
    .map(|acc| {
        let tuple = acc.tuple;
        (acc.into_pairs(), tuple)
    })
}

/// Apply `f` to the modes the profile (or tiler) reaches; keep the others.
fn by_mode(
    l: &DynLayout,
    n: usize,
    op: &'static str,
    mut f: impl FnMut(usize, &DynLayout) -> R<DynLayout>,
) -> R<DynLayout> {
    if n > l.rank() {
        return Err(invalid(
            op,
            format!("{n} modes given for layout {l} of rank {}", l.rank()),
        ));
    }
    let rank = l.rank();
    let mut out = ModesBuilder::with_capacity(rank);
    for i in 0..rank {
        let m = l.mode(i).expect("i < rank");
        out.push(if i < n { f(i, &m)? } else { m });
    }
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
    match profile {
        DTuple::Int(_) => coalesce(l),
        DTuple::Tuple(p) => by_mode(l, p.len(), "coalesce", |i, m| coalesce_by(m, &p[i])),
    }
}

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
    fn go(s: &DTuple, d: &DTuple) -> DTuple {
        match (s, d) {
            (DTuple::Int(_), DTuple::Int(d)) if d.is_static_value(0) => {
                DTuple::Int(DInt::new_static(1))
            }
            (DTuple::Tuple(ss), DTuple::Tuple(ds)) => {
                DTuple::Tuple(ss.iter().zip(ds).map(|(a, b)| go(a, b)).collect())
            }
            _ => s.clone(),
        }
    }
    Ok(DynLayout::raw(
        go(l.shape(), l.stride()),
        l.stride().clone(),
    ))
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
    coalesce(&filter_zeros(l)?)
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
    match profile {
        DTuple::Int(_) => filter(l),
        DTuple::Tuple(p) => by_mode(l, p.len(), "filter", |i, m| filter_by(m, &p[i])),
    }
}

/// The admissibility of `A' o B` (see [`crate::admissible::check_composition`]).
/// `bp` is B's leaf pairs; `shown` prints `A o B` for the error.
fn check_composition(
    a: &[(DInt, DInt)],
    bp: &[(DInt, DInt)],
    shown: impl FnOnce() -> alloc::string::String,
) -> R<()> {
    const SMALL: usize = 16;
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
    crate::admissible::check_composition(sizes, bs, bd).map_err(|e| {
        invalid(
            "composition",
            format!(
                "{}: {}",
                shown(),
                e.text(crate::const_text::Text::EMPTY).as_str()
            ),
        )
    })
}

/// Compose the flat A' with one leaf `s:d` of B (CuTe 4.7's `composition_impl`).
/// `p` is A's modes, `tuple` whether A' is a tuple (else an integer layout).
fn compose_leaf(p: &[(DInt, DInt)], tuple: bool, s: DInt, d: DInt) -> R<(DTuple, DTuple)> {
    let op = "composition";
    if d.is_static_value(0) || d.value == 0 {
        // A stride 0 selects A(0) = 0 for every coordinate: never divide by it.
        return Ok((DTuple::Int(s), DTuple::Int(d)));
    }
    if !tuple {
        return Ok((DTuple::Int(s), DTuple::Int(mul(d, p[0].1, op)?)));
    }
    let (&(_, k_last), front) = p.split_last().expect("a tuple A' has modes");
    // Most leaves of B land in one mode of A: no list is allocated then.
    let mut shapes: SmallVec<[DTuple; 4]> = SmallVec::new();
    let mut strides: SmallVec<[DTuple; 4]> = SmallVec::new();
    let (mut rest_shape, mut rest_stride) = (s, d);
    for &(c, k) in front {
        let ars = abs(rest_stride);
        let next_shape = ceil_div(c, ars, op)?;
        let mut next_stride = ceil_div(ars, c, op)?;
        if rest_stride.value < 0 {
            next_stride.value = -next_stride.value;
        }
        if next_shape.is_static_value(1) || rest_shape.is_static_value(1) {
            rest_stride = next_stride;
            continue;
        }
        let new = min(next_shape, rest_shape);
        shapes.push(DTuple::Int(new));
        strides.push(DTuple::Int(mul(rest_stride, k, op)?));
        rest_shape = div(rest_shape, new, op)?;
        rest_stride = next_stride;
    }
    let last_stride = mul(rest_stride, k_last, op)?;
    if shapes.is_empty() {
        return Ok((DTuple::Int(rest_shape), DTuple::Int(last_stride)));
    }
    if !rest_shape.is_static_value(1) {
        shapes.push(DTuple::Int(rest_shape));
        strides.push(DTuple::Int(last_stride));
    }
    if shapes.len() == 1 {
        return Ok((shapes.pop().unwrap(), strides.pop().unwrap()));
    }
    Ok((
        DTuple::Tuple(shapes.into_vec()),
        DTuple::Tuple(strides.into_vec()),
    ))
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
/// with a layout or a [`Tiler`], a [`Swizzle`] with a layout.
pub trait Compose<B: ?Sized> {
    /// The composite.
    type Output;
    /// `self o b`.
    fn compose(&self, b: &B) -> R<Self::Output>;
}

impl Compose<DynLayout> for DynLayout {
    type Output = DynLayout;
    fn compose(&self, b: &DynLayout) -> R<DynLayout> {
        compose_layouts(self, b)
    }
}

impl Compose<Tiler> for DynLayout {
    type Output = DynLayout;
    fn compose(&self, t: &Tiler) -> R<DynLayout> {
        compose_tiler(self, t)
    }
}

/// `A' o B` for B's shape and stride, A' given by its coalesced modes `p`.
fn compose_by_leaf(p: &[(DInt, DInt)], tuple: bool, s: &DTuple, d: &DTuple) -> R<(DTuple, DTuple)> {
    match (s, d) {
        (DTuple::Int(s), DTuple::Int(d)) => compose_leaf(p, tuple, *s, *d),
        (DTuple::Tuple(ss), DTuple::Tuple(ds)) => {
            let (mut a, mut b) = (Vec::with_capacity(ss.len()), Vec::with_capacity(ss.len()));
            for (x, y) in ss.iter().zip(ds) {
                let (x, y) = compose_by_leaf(p, tuple, x, y)?;
                a.push(x);
                b.push(y);
            }
            Ok((DTuple::Tuple(a), DTuple::Tuple(b)))
        }
        _ => Err(invalid(
            "composition",
            "B's shape and stride do not nest the same way".to_string(),
        )),
    }
}

fn compose_layouts(a: &DynLayout, b: &DynLayout) -> R<DynLayout> {
    let (p, tuple) = coalesce_x(a)?;
    check_composition(&p, &b.pair_list(), || format!("{a} o {b}"))?;
    let (s, d) = compose_by_leaf(&p, tuple, b.shape(), b.stride())?;
    Ok(DynLayout::raw(s, d))
}

/// `A o (B0, B1)` without building the tuple `(B0, B1)` (logical_divide's
/// `A o (T, complement(T))`).
fn compose_pair(a: &DynLayout, b0: &DynLayout, b1: &DynLayout) -> R<DynLayout> {
    let (p, tuple) = coalesce_x(a)?;
    let mut bp = b0.pair_list();
    bp.extend(b1.pair_list());
    check_composition(&p, &bp, || {
        let b = DynLayout::from_modes(vec![b0.clone(), b1.clone()]);
        format!("{a} o {b}")
    })?;
    let mut out = ModesBuilder::with_capacity(2);
    for b in [b0, b1] {
        let (s, d) = compose_by_leaf(&p, tuple, b.shape(), b.stride())?;
        out.push_parts(s, d);
    }
    Ok(out.finish())
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

impl Tiler {
    fn rank_checked(&self, l: &DynLayout, op: &'static str) -> R<()> {
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
fn compose_tiler(a: &DynLayout, t: &Tiler) -> R<DynLayout> {
    t.rank_checked(a, "composition")?;
    match t {
        Tiler::Layout(b) => composition(a, b),
        Tiler::Underscore => Ok(a.clone()),
        Tiler::Int(n) => {
            super::check_shape(&DTuple::Int(*n), "composition")?;
            composition(a, &DynLayout::int(*n, DInt::new_static(1)))
        }
        Tiler::Tuple(ts) => {
            let mut out = ModesBuilder::with_capacity(ts.len());
            for (i, ti) in ts.iter().enumerate() {
                let m = a.mode(i).expect("rank checked");
                out.push(compose_tiler(&m, ti)?);
            }
            Ok(out.finish())
        }
    }
}

/// CuTe's `coalesce(shape)`: merge neighbours that are both static or both dynamic.
fn coalesce_shape(s: &DTuple) -> R<DTuple> {
    if let DTuple::Int(_) = s {
        return Ok(s.clone());
    }
    let mut out: SmallVec<[DInt; 8]> = SmallVec::new();
    let mut err = None;
    s.for_each_leaf(&mut |x| match out.last_mut() {
        Some(b) if b.is_static == x.is_static => match mul(*b, x, "coalesce") {
            Ok(v) => *b = v,
            Err(e) => err = Some(e),
        },
        _ => out.push(x),
    });
    if let Some(e) = err {
        return Err(e);
    }
    Ok(if out.len() == 1 {
        DTuple::Int(out[0])
    } else {
        DTuple::Tuple(out.into_iter().map(DTuple::Int).collect())
    })
}

/// CuTe's `ceil_div(shape, n)` for a tuple: divide the modes in order.
fn ceil_div_tuple(a: &DTuple, b: DInt) -> R<DTuple> {
    match a {
        DTuple::Int(x) => Ok(DTuple::Int(ceil_div(*x, b, "complement")?)),
        DTuple::Tuple(v) => {
            let mut rest = b;
            let mut out = Vec::with_capacity(v.len());
            for x in v {
                let xi = match x {
                    DTuple::Int(i) => *i,
                    t => t.product()?,
                };
                out.push(DTuple::Int(ceil_div(xi, rest, "complement")?));
                rest = ceil_div(rest, xi, "complement")?;
            }
            Ok(DTuple::Tuple(out))
        }
    }
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
    nonempty(a, "complement")?;
    let r = complement_unchecked(a, cotarget)?;
    check_complement(a, &r, cotarget)?;
    Ok(r)
}

/// Check the definition of `complement(A, M)` structurally: `(filter(A), R)`
/// must be injective (sorted by stride, every stride exceeds the largest
/// offset of the modes below it) and must cover `[0, M)` (the modes stack
/// from stride 1 without a gap up to M).
fn check_complement(a: &DynLayout, r: &DynLayout, cotarget: &DTuple) -> R<()> {
    let m = cotarget.product()?.value;
    let (s, d): (SmallVec<[usize; 16]>, SmallVec<[usize; 16]>) = filter(a)?
        .pair_list()
        .into_iter()
        .chain(r.pair_list())
        .map(|(s, d)| {
            (
                usize::try_from(s.value).unwrap_or(0),
                usize::try_from(d.value).unwrap_or(0),
            )
        })
        .unzip();
    if s.len() > 64 {
        return Err(invalid("complement", format!("{a}: more than 64 modes")));
    }
    crate::admissible::check_complement(&s, &d, usize::try_from(m).unwrap_or(0)).map_err(|e| {
        invalid(
            "complement",
            format!("{a}: {}", e.text(crate::const_text::Text::EMPTY).as_str()),
        )
    })
}

/// CuTe's complement algorithm with only CuTe's own checks (a stride
/// quotient of 0, dynamic strides at rank > 1). Divides and products are
/// defined through it; their own checks are on the compositions.
fn complement_unchecked(a: &DynLayout, cotarget: &DTuple) -> R<DynLayout> {
    let op = "complement";
    let f = filter(a)?;
    let mut modes = f.pair_list();
    if modes.len() == 1 && modes[0].1.is_static_value(0) {
        return make_layout_left(&coalesce_shape(cotarget)?);
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
    let mut shapes: SmallVec<[DInt; 8]> = SmallVec::new();
    let mut strides: SmallVec<[DInt; 8]> = smallvec::smallvec![DInt::new_static(1)];
    while modes.len() > 1 {
        let (idx, _) = modes
            .iter()
            .enumerate()
            .min_by_key(|(_, (_, d))| d.value)
            .unwrap();
        let (s, d) = modes.remove(idx);
        let q = div(d, *strides.last().unwrap(), op)?;
        if q.value == 0 {
            return Err(not_stacking(a, s, d, *strides.last().unwrap()));
        }
        shapes.push(q);
        strides.push(mul(d, s, op)?);
    }
    let (s0, d0) = modes[0];
    let q = div(d0, *strides.last().unwrap(), op)?;
    if q.value == 0 {
        return Err(not_stacking(a, s0, d0, *strides.last().unwrap()));
    }
    shapes.push(q);
    let new_stride = mul(d0, s0, op)?;
    let rest_shape = coalesce_shape(&ceil_div_tuple(cotarget, new_stride)?)?;
    let rest_stride = compact_left(&rest_shape, new_stride)?;
    // The result is coalesced: only its leaves matter, no tuple is built.
    let mut all: PairList = shapes.into_iter().zip(strides).collect();
    all.extend(DynLayout::raw(rest_shape, rest_stride).pair_list());
    coalesce_pairs(&all)
}

fn not_stacking(a: &DynLayout, s: DInt, d: DInt, below: DInt) -> LayoutError {
    let e = crate::admissible::ComplementError::NotMultiple {
        s: usize::try_from(s.value).unwrap_or(0),
        d: usize::try_from(d.value).unwrap_or(0),
        span: usize::try_from(below.value).unwrap_or(0),
    };
    invalid(
        "complement",
        format!("{a}: {}", e.text(crate::const_text::Text::EMPTY).as_str()),
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
    nonempty(a, "complement")?;
    let f = filter(a)?;
    let c = f.cosize()?.value;
    complement(
        a,
        &DTuple::Int(DInt {
            value: c,
            is_static: f
                .pair_list()
                .iter()
                .all(|(s, d)| s.is_static && d.is_static),
        }),
    )
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
    nonempty(a, "right_inverse")?;
    let f = coalesce(a)?;
    let modes = f.pair_list();
    let rstride = compact_left(f.shape(), DInt::new_static(1))?.leaves();
    let mut seq = Vec::new();
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
    let shapes: Vec<DTuple> = seq.iter().map(|&i| DTuple::Int(modes[i].0)).collect();
    let strides: Vec<DTuple> = seq.iter().map(|&i| DTuple::Int(rstride[i])).collect();
    Ok(unwrap(shapes, strides))
}

fn unwrap(mut s: Vec<DTuple>, mut d: Vec<DTuple>) -> DynLayout {
    if s.len() == 1 {
        DynLayout::raw(s.pop().unwrap(), d.pop().unwrap())
    } else {
        DynLayout::raw(DTuple::Tuple(s), DTuple::Tuple(d))
    }
}

/// `Err` when `l` has no element: complements, inverses, divides and
/// products are defined through the offsets a layout reaches, and a layout
/// of size 0 reaches none (CuTe computes something there; the definitions
/// give nothing to check it against).
pub(crate) fn nonempty(l: &DynLayout, op: &'static str) -> R<()> {
    if l.size()?.value == 0 {
        return Err(invalid(
            op,
            format!("{l} has size 0: it reaches no offset, so {op} is not defined"),
        ));
    }
    Ok(())
}

/// `Err` when a stride of `l` is negative: `what` says why `op` needs them not.
fn nonnegative_strides(l: &DynLayout, op: &'static str, what: &str) -> R<()> {
    match l.pair_list().iter().find(|(_, d)| d.value < 0) {
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
    nonempty(a, "left_inverse")?;
    let op = "left_inverse";
    nonnegative_strides(a, op, "its offsets below 0 have no preimage in a layout")?;
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
    let mut shapes = Vec::new();
    let mut strides = Vec::new();
    let d0 = all[idx[0]].1.value.abs();
    if d0 != 1 {
        shapes.push(DTuple::Int(DInt::new_static(d0)));
        strides.push(DTuple::Int(DInt::new_static(0)));
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
        shapes.push(DTuple::Int(shape));
        let r = rstride[i];
        strides.push(DTuple::Int(if d.value < 0 {
            DInt {
                value: -r.value,
                is_static: r.is_static,
            }
        } else {
            r
        }));
    }
    coalesce(&unwrap(shapes, strides))
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
    let t = &*t.as_tiler();
    nonempty(a, "logical_divide")?;
    t.rank_checked(a, "logical_divide")?;
    match t {
        Tiler::Layout(tl) => {
            let c = complement_unchecked(tl, coalesce(a)?.shape())?;
            compose_pair(a, tl, &c)
        }
        Tiler::Underscore => Ok(a.clone()),
        Tiler::Int(n) => logical_divide(a, &Tiler::Layout(make_layout_left(&DTuple::Int(*n))?)),
        Tiler::Tuple(ts) => by_mode(a, ts.len(), "logical_divide", |i, m| {
            logical_divide(m, &ts[i])
        }),
    }
}

/// CuTe's `zip2_by`: gather the first and second halves of the modes the tiler reaches.
fn zip2_by(l: DynLayout, t: &Tiler) -> R<DynLayout> {
    match t {
        Tiler::Tuple(ts) => {
            let mut firsts = ModesBuilder::with_capacity(ts.len());
            let mut seconds = ModesBuilder::with_capacity(l.rank());
            let (ss, ds) = l.into_mode_lists();
            for (i, (s, d)) in ss.into_iter().zip(ds).enumerate() {
                if i < ts.len() {
                    // `_` keeps a mode: only a rank-2 one splits into two
                    // halves (any other rank would lose or lack modes).
                    if !matches!(ts[i], Tiler::Tuple(_)) && s.rank() != 2 {
                        let m = DynLayout::raw(s, d);
                        return Err(invalid("zip2_by", format!("mode {m} is not rank 2")));
                    }
                    let (zs, zd) = zip2_by(DynLayout::raw(s, d), &ts[i])?.into_mode_lists();
                    let (Ok([s0, s1]), Ok([d0, d1])) =
                        (<[DTuple; 2]>::try_from(zs), <[DTuple; 2]>::try_from(zd))
                    else {
                        return Err(invalid(
                            "zip2_by",
                            "a divided mode is not rank 2".to_string(),
                        ));
                    };
                    firsts.push_parts(s0, d0);
                    seconds.push_parts(s1, d1);
                } else {
                    seconds.push_parts(s, d);
                }
            }
            let mut out = ModesBuilder::with_capacity(2);
            out.push(firsts.finish());
            out.push(seconds.finish());
            Ok(out.finish())
        }
        _ => Ok(l),
    }
}

fn unpack(l: &DynLayout, first: bool, second: bool) -> DynLayout {
    let mut out = Vec::new();
    for (i, m) in l.modes().into_iter().enumerate() {
        // CuTe slices with `repeat<rank>(_)`, which is a tuple only for rank > 1.
        let open = (i == 0 && first) || (i == 1 && second);
        match (open, m.shape()) {
            (true, DTuple::Tuple(v)) if v.len() > 1 => out.extend(m.modes()),
            _ => out.push(m),
        }
    }
    DynLayout::from_modes(out)
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
    zip2_by(logical_divide(a, t)?, t)
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
    let t = &*t.as_tiler();
    nonempty(a, "logical_product")?;
    t.rank_checked(a, "logical_product")?;
    match t {
        Tiler::Layout(tl) => {
            nonnegative_strides(
                tl,
                "logical_product",
                "the product's repeats are defined for strides of 0 and up",
            )?;
            let size = a.shape().product()?;
            let cot = mul(size, tl.cosize()?, "logical_product")?;
            let c = complement_unchecked(a, &DTuple::Int(cot))?;
            Ok(DynLayout::from_modes(vec![a.clone(), composition(&c, tl)?]))
        }
        Tiler::Underscore => Ok(a.clone()),
        Tiler::Int(n) => logical_product(a, &Tiler::Layout(make_layout_left(&DTuple::Int(*n))?)),
        Tiler::Tuple(ts) => by_mode(a, ts.len(), "logical_product", |i, m| {
            logical_product(m, &ts[i])
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
    zip2_by(logical_product(a, t)?, t)
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
    let mut modes = l.modes();
    while modes.len() < n {
        modes.push(DynLayout::int(DInt::new_static(1), DInt::new_static(0)));
    }
    DynLayout::from_modes(modes)
}

fn product_zip(a: &DynLayout, b: &DynLayout, raked: bool) -> R<DynLayout> {
    if a.rank() == 1 && b.rank() == 1 {
        // CuTe's zip of an integer with a layout pairs it with the whole layout.
        let p = logical_product(a, &Tiler::Layout(b.clone()))?;
        if let (Some(x), Some(y)) = (p.mode(0), p.mode(1)) {
            let (first, second) = if raked { (y, x) } else { (x, y) };
            if let DTuple::Int(_) = first.shape() {
                return Ok(DynLayout::from_modes(vec![DynLayout::from_modes(vec![
                    first, second,
                ])]));
            }
        }
    }
    let r = a.rank().max(b.rank());
    let (a, b) = (append_to_rank(a, r), append_to_rank(b, r));
    let p = logical_product(&a, &Tiler::Layout(b))?;
    let (Some(x), Some(y)) = (p.mode(0), p.mode(1)) else {
        return Err(invalid(
            "blocked_product",
            "logical_product is not rank 2".to_string(),
        ));
    };
    let (xm, ym) = (x.modes(), y.modes());
    if xm.len() != r || ym.len() != r {
        return Err(invalid(
            "blocked_product",
            format!("{x} and {y} do not both have rank {r}"),
        ));
    }
    Ok(DynLayout::from_modes(
        xm.into_iter()
            .zip(ym)
            .map(|(u, v)| {
                if raked {
                    DynLayout::from_modes(vec![v, u])
                } else {
                    DynLayout::from_modes(vec![u, v])
                }
            })
            .collect(),
    ))
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
