//! The rest of CuTe's layout operations on `DynLayout`: common vectors,
//! up/down-casting, tiling a block to a shape, and swizzles.

use super::algebra::{ceil_div, nonempty};
use super::{
    blocked_product, coalesce, composition, invalid, make_ordered_layout, mul, right_inverse, DInt,
    DTuple, DynLayout,
};
use crate::error::LayoutError;
use alloc::format;
use alloc::vec::Vec;
use core::fmt;

type R<T> = Result<T, LayoutError>;

fn first_mode(l: &DynLayout) -> DynLayout {
    l.mode(0).unwrap_or_else(|| l.clone())
}

/// CuTe's `max_common_layout(a, b)`: the layout of the largest run of
/// elements that `a` and `b` both place contiguously (static only, else `_1:_0`).
pub fn max_common_layout(a: &DynLayout, b: &DynLayout) -> R<DynLayout> {
    nonempty(a, "max_common_layout")?;
    nonempty(b, "max_common_layout")?;
    let inv_b = right_inverse(b)?;
    let common = coalesce(&composition(a, &inv_b)?)?;
    let m0 = first_mode(&common);
    match (m0.shape(), m0.stride()) {
        (DTuple::Int(s), DTuple::Int(d)) if s.st && d.is(1) => composition(&inv_b, &m0),
        _ => Ok(DynLayout::int(DInt::s(1), DInt::s(0))),
    }
}

/// CuTe's `max_common_vector(a, b)`: how many elements from the start `a`
/// and `b` both place contiguously (static only, else `_1`).
pub fn max_common_vector(a: &DynLayout, b: &DynLayout) -> R<DInt> {
    nonempty(a, "max_common_vector")?;
    nonempty(b, "max_common_vector")?;
    let common = coalesce(&composition(a, &right_inverse(b)?)?)?;
    let m0 = first_mode(&common);
    Ok(match (m0.shape(), m0.stride()) {
        (DTuple::Int(s), DTuple::Int(d)) if s.st && d.is(1) => *s,
        _ => DInt::s(1),
    })
}

/// CuTe's `upcast<n>(layout)`: the layout over elements `n` times wider.
/// Every static non-zero stride must divide `n` or be a multiple of it.
pub fn upcast(l: &DynLayout, n: i64) -> R<DynLayout> {
    if n <= 0 {
        return Err(invalid("upcast", format!("factor {n} is not positive")));
    }
    let nn = DInt::s(n);
    let mut bad = None;
    let shape_stride: Vec<(DInt, DInt)> = l
        .pairs()
        .into_iter()
        .map(|(s, d)| {
            if d.is(0) {
                return Ok((s, d));
            }
            // No stride is i64::MIN (refused by `DynLayout::new` and `mul`).
            let ad = DInt {
                v: d.v.saturating_abs(),
                st: d.st,
            };
            if d.st && ad.v % n != 0 && n % ad.v != 0 {
                bad = Some(d);
            }
            if ad.v == 0 {
                return Ok((s, d));
            }
            let ns = ceil_div(s, ceil_div(nn, ad, "upcast")?, "upcast")?;
            let mut nd = ceil_div(ad, nn, "upcast")?;
            if d.v < 0 {
                nd.v = -nd.v;
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
pub fn downcast(l: &DynLayout, n: i64) -> R<DynLayout> {
    if n <= 0 {
        return Err(invalid("downcast", format!("factor {n} is not positive")));
    }
    if !l.pairs().iter().any(|(_, d)| d.st && d.v.abs() == 1) {
        return Err(invalid(
            "downcast",
            format!("{l} has no static unit stride"),
        ));
    }
    let nn = DInt::s(n);
    let ps = l
        .pairs()
        .into_iter()
        .map(|(s, d)| {
            if d.v.abs() == 1 {
                Ok((mul(s, nn, "downcast")?, d))
            } else {
                Ok((s, mul(d, nn, "downcast")?))
            }
        })
        .collect::<R<Vec<_>>>()?;
    Ok(rebuild(l, &ps))
}

/// CuTe's `recast_layout<OLD, NEW>`, with element sizes in bytes.
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

/// CuTe's `tile_to_shape(block, shape, order)`: repeat `block` to cover
/// `shape` (each mode `(block_mode, repeat)`, not coalesced). The default
/// order is column-major.
pub fn tile_to_shape(block: &DynLayout, shape: &DTuple, order: Option<&DTuple>) -> R<DynLayout> {
    super::check_shape(shape, "tile_to_shape")?;
    let r = shape.rank();
    if block.rank() > r {
        return Err(invalid(
            "tile_to_shape",
            format!("block {block} has more modes than shape {shape}"),
        ));
    }
    // append<R> leaves an integer block alone when R is 1.
    let block = if r == 1 && block.shape().rank() == 1 && matches!(block.shape(), DTuple::Int(_)) {
        block.clone()
    } else {
        super::append_to_rank(block, r)
    };
    let mut reps = Vec::new();
    for i in 0..r {
        let target = shape
            .mode(i)
            .ok_or_else(|| invalid("tile_to_shape", format!("{shape} has no mode {i}")))?
            .product()?;
        let have = block
            .shape()
            .mode(i)
            .ok_or_else(|| invalid("tile_to_shape", format!("block {block} has no mode {i}")))?
            .product()?;
        if have.v == 0 || target.v % have.v != 0 {
            return Err(invalid(
                "tile_to_shape",
                format!("mode {i} of block {block} does not divide {target}"),
            ));
        }
        reps.push(DTuple::Int(ceil_div(target, have, "tile_to_shape")?));
    }
    let reps = DTuple::Tup(reps);
    let default: DTuple;
    let order = match order {
        Some(o) => o,
        None => {
            default = DTuple::Tup((0..r).map(|i| DTuple::Int(DInt::s(i as i64))).collect());
            &default
        }
    };
    let tiler = make_ordered_layout(&reps, order)?;
    blocked_product(&block, &tiler)
}

/// CuTe's `Swizzle<B,M,S>`: `offset ^ ((offset & yyy) >> S)`, which flips
/// the B bits above M+S-... into the B bits at M.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swizzle {
    b: u32,
    m: u32,
    s: i32,
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.b, self.m, self.s)
    }
}

impl Swizzle {
    /// `Swizzle<B,M,S>`; CuTe requires `|S| >= B`.
    pub fn new(b: i64, m: i64, s: i64) -> R<Swizzle> {
        if !(0..=30).contains(&b) || !(0..=30).contains(&m) || !(-30..=30).contains(&s) {
            return Err(invalid(
                "Swizzle",
                format!("Sw<{b},{m},{s}>: bits out of range"),
            ));
        }
        if s.abs() < b {
            return Err(invalid(
                "Swizzle",
                format!("Sw<{b},{m},{s}>: |S| must be at least B"),
            ));
        }
        Ok(Swizzle {
            b: b as u32,
            m: m as u32,
            s: s as i32,
        })
    }
    /// The swizzled offset.
    pub fn apply(&self, offset: i64) -> i64 {
        let bits = (1i64 << self.b) - 1;
        let yyy = bits << (self.m as i32 + self.s.max(0));
        if self.s >= 0 {
            offset ^ ((offset & yyy) >> self.s)
        } else {
            offset ^ ((offset & yyy) << (-self.s))
        }
    }
}

/// A swizzle after a layout (CuTe's `composition(Swizzle, Layout)`),
/// printed `Sw<B,M,S> o _0 o layout`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComposedLayout {
    /// The swizzle.
    pub swizzle: Swizzle,
    /// The layout.
    pub layout: DynLayout,
}

impl fmt::Display for ComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o _0 o {}", self.swizzle, self.layout)
    }
}

impl ComposedLayout {
    /// The offset of a 1-D index: the swizzle of the layout's offset.
    pub fn call(&self, i: i64) -> R<i64> {
        Ok(self.swizzle.apply(self.layout.call(i)?))
    }
    /// The 1-D table.
    pub fn table(&self) -> R<Vec<i64>> {
        (0..self.layout.size()?).map(|i| self.call(i)).collect()
    }
}

/// CuTe's `composition(Swizzle<B,M,S>{}, layout)`.
pub fn compose_swizzle(sw: Swizzle, l: &DynLayout) -> ComposedLayout {
    ComposedLayout {
        swizzle: sw,
        layout: l.clone(),
    }
}
