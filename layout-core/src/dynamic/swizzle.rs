//! CuTe's `Swizzle` and its composition with a `DynLayout`, the
//! `ComposedLayout` printed `Sw<B,M,S> o _0 o layout`. Mirrors
//! `algebra/swizzle.rs`.

use super::arith::invalid;
use super::DynLayout;
use crate::error::LayoutError;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

type R<T> = Result<T, LayoutError>;

/// CuTe's `Swizzle<B,M,S>`: the B bits of an offset at bit M + S XOR-ed
/// into its B bits at bit M (for S >= 0; for S < 0, the B bits at M into
/// those at M - S).
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

impl core::str::FromStr for Swizzle {
    type Err = LayoutError;
    /// Parse a swizzle as it prints: `Sw<B,M,S>`.
    ///
    /// ```
    /// use layout_core::dynamic::Swizzle;
    /// let sw: Swizzle = "Sw<3,4,3>".parse().unwrap();
    /// assert_eq!(sw, Swizzle::new(3, 4, 3).unwrap());
    /// assert!("Sw<3,4,2>".parse::<Swizzle>().is_err()); // |S| < B
    /// ```
    fn from_str(s: &str) -> R<Swizzle> {
        super::parse::swizzle(s)
    }
}

impl Swizzle {
    /// `Swizzle<B,M,S>`; CuTe requires `|S| >= B`.
    ///
    /// ```
    /// use layout_core::dynamic::Swizzle;
    /// assert_eq!(Swizzle::new(3, 3, 3).unwrap().to_string(), "Sw<3,3,3>");
    /// assert!(Swizzle::new(3, 3, 2).is_err()); // |S| < B
    /// ```
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
    ///
    /// ```
    /// use layout_core::dynamic::Swizzle;
    /// let sw = Swizzle::new(3, 3, 3).unwrap();
    /// // Bits 6..9 are xor-ed into bits 3..6: 0b101_011_001 -> 0b101_110_001.
    /// assert_eq!(sw.apply(0b101_011_001), 0b101_110_001);
    /// assert_eq!(sw.apply(7), 7);
    /// ```
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

impl core::str::FromStr for ComposedLayout {
    type Err = LayoutError;
    /// Parse a swizzled layout as CuTe (and this library) prints it:
    /// `Sw<B,M,S> o _0 o layout`. The offset between the two must be 0.
    ///
    /// ```
    /// use layout_core::dynamic::{composition, ComposedLayout, Swizzle};
    /// use layout_core::DynLayout;
    /// let c: ComposedLayout = "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)".parse().unwrap();
    /// let l: DynLayout = "(_8,_64):(_64,_1)".parse().unwrap();
    /// assert_eq!(c, composition(&Swizzle::new(3, 4, 3).unwrap(), &l).unwrap());
    /// assert_eq!(c.to_string(), "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)");
    /// assert!("Sw<3,4,3> o _8 o (_8,_64):(_64,_1)".parse::<ComposedLayout>().is_err());
    /// ```
    fn from_str(s: &str) -> R<ComposedLayout> {
        super::parse::composed(s)
    }
}

impl ComposedLayout {
    /// The offset of a 1-D index: the swizzle of the layout's offset.
    ///
    /// ```
    /// use layout_core::dynamic::{composition, Swizzle};
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "_4:_1".parse().unwrap();
    /// // Sw<1,0,1> flips bit 0 where bit 1 is set: 2 -> 3.
    /// let c = composition(&Swizzle::new(1, 0, 1).unwrap(), &l).unwrap();
    /// assert_eq!(c.call(2).unwrap(), 3);
    /// ```
    pub fn call(&self, i: i64) -> R<i64> {
        Ok(self.swizzle.apply(self.layout.call(i)?))
    }
    /// The 1-D table; `Err` past [`DynLayout::TABLE_LIMIT`] entries, as
    /// for a layout.
    ///
    /// ```
    /// use layout_core::dynamic::{composition, Swizzle};
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "_4:_1".parse().unwrap();
    /// let c = composition(&Swizzle::new(1, 0, 1).unwrap(), &l).unwrap();
    /// assert_eq!(c.table().unwrap(), [0, 1, 3, 2]);
    /// let huge: DynLayout = "(4096,4096,2):(1,4096,16777216)".parse().unwrap();
    /// assert!(composition(&Swizzle::new(1, 0, 1).unwrap(), &huge).unwrap().table().is_err());
    /// ```
    pub fn table(&self) -> R<Vec<i64>> {
        let n = self.layout.size()?.value;
        if n > DynLayout::TABLE_LIMIT {
            return Err(invalid(
                "table",
                format!(
                    "{self} has {n} elements, more than the {} a table lists; swizzle a part of the layout",
                    DynLayout::TABLE_LIMIT
                ),
            ));
        }
        (0..n).map(|i| self.call(i)).collect()
    }
    /// CuTe's `print_layout` of a rank-2 swizzled layout: the layout's
    /// table with each offset swizzled, cells as wide as CuTe makes them
    /// (from the layout's cosize, which is CuTe's cosize of a swizzled
    /// layout). `Err` past [`PRINT_LIMIT`](crate::layout::print::PRINT_LIMIT) cells.
    ///
    /// ```
    /// use layout_core::dynamic::ComposedLayout;
    /// let c: ComposedLayout = "Sw<1,0,1> o _0 o (_2,_2):(_1,_2)".parse().unwrap();
    /// // Offsets 0 1 / 2 3 by column; Sw<1,0,1> flips bit 0 where bit 1 is set.
    /// let t = c.print_layout().unwrap();
    /// assert!(t.starts_with("Sw<1,0,1> o _0 o (_2,_2):(_1,_2)\n"));
    /// assert!(t.contains(" 0  | 0 | 3 |") && t.contains(" 1  | 1 | 2 |"), "{t}");
    /// ```
    pub fn print_layout(&self) -> R<String> {
        super::ops::print_table(self, &self.layout, "print_layout", |i| self.call(i))
    }
}

/// CuTe's `composition(Swizzle<B,M,S>{}, layout)`.
///
/// ```
/// use layout_core::dynamic::{composition, Swizzle};
/// use layout_core::DynLayout;
/// let l: DynLayout = "(_8,_64):(_64,_1)".parse().unwrap();
/// let r = composition(&Swizzle::new(3, 3, 3).unwrap(), &l).unwrap();
/// assert_eq!(r.to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
/// assert_eq!(r.call(1).unwrap(), 64 ^ 8);
/// ```
impl super::Compose<DynLayout> for Swizzle {
    type Output = ComposedLayout;
    fn compose(&self, l: &DynLayout) -> R<ComposedLayout> {
        Ok(ComposedLayout {
            swizzle: *self,
            layout: l.clone(),
        })
    }
}
