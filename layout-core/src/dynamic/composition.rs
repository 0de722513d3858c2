//! `composition` on `DynLayout`: CuTe 4.7's algorithm (coalesce A keeping
//! its function outside the domain, then compose with each leaf of B), with
//! the admissibility check of `algebra/admissible.rs`; of a layout with a
//! layout or a tiler. Mirrors `algebra/composition.rs`.

use super::arith::{abs, ceil_div, check_shape, div, invalid, min, mul, zero_sized};
use super::coalesce::{bw_coalesce, FlatLayout};
use super::{build, DInt, DTuple, DynLayout, LKind, LayoutBuilder, LayoutRef, PairList, Tiler};
use crate::error::LayoutError;
use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

type R<T> = Result<T, LayoutError>;

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
                        FlatLayout {
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
pub(super) fn compose_layouts(
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
pub(super) fn compose_pair(
    a: LayoutRef<'_>,
    b0: LayoutRef<'_>,
    b1: &FlatLayout,
    out: &mut LayoutBuilder,
) -> R<()> {
    let (p, tuple) = coalesce_x(a.pairs())?;
    let mut bp = b0.pair_list();
    bp.extend(b1.modes.iter().copied());
    check_composition(&p, &bp, || {
        let b1 = FlatLayout {
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

impl FlatLayout {
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
