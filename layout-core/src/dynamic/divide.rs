//! The divides on `DynLayout`: `logical_divide(A, T) = A o (T,
//! complement(T, shape(coalesce(A))))` for a layout tiler, by mode for a
//! tuple tiler, and its zipped, tiled and flat rearrangements. Mirrors
//! `algebra/divide.rs`.

use super::arith::{ceil_div, nonzero, zero_sized};
use super::by_mode::{by_mode, unpack, zip2_by, Unpack};
use super::coalesce::{coalesce_pairs, FlatLayout};
use super::complement::{complement_flat, Cotarget, Ints};
use super::composition::compose_pair;
use super::tiler::int_layout;
use super::{build, AsTiler, DInt, DynLayout, LKind, LayoutBuilder, LayoutRef, Tiler};
use crate::error::LayoutError;

type R<T> = Result<T, LayoutError>;

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

/// `complement(make_layout(n), s)` for a non-empty extent s: what
/// [`complement_flat`] computes for that input, in closed form (the same
/// values, static leaves and errors): `s:_1` for a static `n` of 1, else
/// `ceil(s/n):n`, a static 1 printed `_1:_0`.
fn int_complement(n: DInt, s: DInt) -> R<FlatLayout> {
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
        return Ok(FlatLayout::one(s, d));
    }
    let q = ceil_div(s, n, "complement")?;
    if q.is_static_value(1) {
        return Ok(FlatLayout::one(q, DInt::new_static(0)));
    }
    Ok(FlatLayout::one(q, n))
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
    Ok(unpack(&zipped_divide(a, t)?, Unpack::Rest))
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
    Ok(unpack(&zipped_divide(a, t)?, Unpack::TileAndRest))
}
