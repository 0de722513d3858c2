//! The products on `DynLayout`: `logical_product(A, B) = (A, complement(A,
//! size(A)*cosize(B)) o B)`, by mode for a tuple tiler, its zipped, tiled
//! and flat rearrangements, and `blocked_product` / `raked_product`.
//! Mirrors `algebra/product.rs`.

use super::arith::{invalid, mul, nonnegative_strides, nonzero};
use super::by_mode::{by_mode, unpack, zip2_by, Unpack};
use super::complement::{complement_flat, Cotarget};
use super::composition::compose_layouts;
use super::tiler::int_layout;
use super::{append_to_rank, build, AsTiler, DynLayout, LayoutBuilder, LayoutRef, Tiler};
use crate::error::LayoutError;
use alloc::format;
use alloc::string::ToString;

type R<T> = Result<T, LayoutError>;

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
    Ok(unpack(&zipped_product(a, t)?, Unpack::Rest))
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
    Ok(unpack(&zipped_product(a, t)?, Unpack::TileAndRest))
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
