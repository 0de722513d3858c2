//! The tiler the divides, products and composition take on `DynLayout`: a
//! layout, an integer, `_`, or a tuple of tilers. The typed algebra's
//! tilers are tuples of typed values (printed by `layout/print.rs`'s
//! `TilerText`), so no typed file holds a tiler type.

use super::arith::invalid;
use super::{DInt, DynLayout, LayoutRef};
use crate::error::LayoutError;
use alloc::borrow::Cow;
use alloc::format;
use alloc::vec::Vec;
use core::fmt;

type R<T> = Result<T, LayoutError>;

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
    /// `Err` when a tuple tiler has more modes than `l`.
    pub(super) fn rank_checked(&self, l: LayoutRef<'_>, op: &'static str) -> R<()> {
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

/// CuTe's `make_layout(n)` of an integer tiler: `n:_1` (`_1:_0` for a
/// static 1), as [`make_layout_left`] makes it.
pub(super) fn int_layout(n: DInt) -> R<DynLayout> {
    if n.value < 0 {
        return Err(invalid(
            "make_layout",
            format!("negative extent {n} in {n}"),
        ));
    }
    let d = if n.is_static_value(1) { 0 } else { 1 };
    Ok(DynLayout::int(n, DInt::new_static(d)))
}
