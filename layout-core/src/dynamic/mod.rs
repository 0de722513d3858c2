//! `DynLayout`: a layout known at run time, with CuTe's whole algebra,
//! checked. Each leaf remembers whether CuTe would know it at compile time,
//! so results print as CuTe prints them (`_4` static, `4` dynamic).
//!
//! Every operation returns `Result<_, LayoutError>`: preconditions that CuTe
//! checks (or should check) are errors naming the operation and the numbers,
//! and every arithmetic step is overflow-checked.

mod algebra;
mod cast;
mod ops;
mod parse;
mod swizzle;
mod tile;

pub use algebra::*;
pub use cast::*;
pub use ops::*;
pub use parse::parse_tuple;
pub use swizzle::*;
pub use tile::*;

use crate::error::LayoutError;
use crate::layout::{Congruent, Layout};
use crate::tuple::IntTuple;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use smallvec::SmallVec;

/// (shape leaf, stride leaf) pairs of a layout, on the stack up to 8 (the
/// algebra walks these for every operation).
pub(crate) type PairList = SmallVec<[(DInt, DInt); 8]>;

/// A tuple layout built mode by mode: one shape and one stride list.
pub(crate) struct ModesBuilder {
    shape: Vec<DTuple>,
    stride: Vec<DTuple>,
}

impl ModesBuilder {
    pub(crate) fn with_capacity(n: usize) -> Self {
        ModesBuilder {
            shape: Vec::with_capacity(n),
            stride: Vec::with_capacity(n),
        }
    }
    pub(crate) fn push(&mut self, m: DynLayout) {
        self.shape.push(m.shape);
        self.stride.push(m.stride);
    }
    pub(crate) fn push_parts(&mut self, s: DTuple, d: DTuple) {
        self.shape.push(s);
        self.stride.push(d);
    }
    pub(crate) fn finish(self) -> DynLayout {
        DynLayout {
            shape: DTuple::Tuple(self.shape),
            stride: DTuple::Tuple(self.stride),
        }
    }
}

/// An integer leaf with its static-ness: `_4` (static) or `4` (run-time).
///
/// ```
/// use layout_core::DInt;
/// assert_eq!(DInt::new_static(4).to_string(), "_4");
/// assert_eq!(DInt::new_dynamic(4).to_string(), "4");
/// assert!(DInt::new_static(1).is_static_value(1));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct DInt {
    /// The value (strides may be negative).
    pub value: i64,
    /// Whether CuTe would know the value at compile time (printed `_N`).
    pub is_static: bool,
}

impl DInt {
    /// A static leaf `_v`.
    ///
    /// ```
    /// use layout_core::DInt;
    /// assert_eq!(DInt::new_static(4).to_string(), "_4");
    /// ```
    pub const fn new_static(value: i64) -> Self {
        DInt {
            value,
            is_static: true,
        }
    }
    /// A run-time leaf `v`.
    ///
    /// ```
    /// use layout_core::DInt;
    /// assert_eq!(DInt::new_dynamic(4).to_string(), "4");
    /// ```
    pub const fn new_dynamic(value: i64) -> Self {
        DInt {
            value,
            is_static: false,
        }
    }
    /// Whether this is the static value `v`.
    ///
    /// ```
    /// use layout_core::DInt;
    /// assert!(DInt::new_static(1).is_static_value(1));
    /// assert!(!DInt::new_dynamic(1).is_static_value(1));
    /// assert!(!DInt::new_static(2).is_static_value(1));
    /// ```
    pub fn is_static_value(&self, v: i64) -> bool {
        self.is_static && self.value == v
    }
}

impl fmt::Display for DInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_static {
            write!(f, "_{}", self.value)
        } else {
            write!(f, "{}", self.value)
        }
    }
}

/// A run-time nested tuple of integers.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub enum DTuple {
    /// An integer.
    Int(DInt),
    /// A tuple of modes.
    Tuple(Vec<DTuple>),
}

impl fmt::Display for DTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DTuple::Int(i) => write!(f, "{i}"),
            DTuple::Tuple(v) => {
                f.write_str("(")?;
                for (k, x) in v.iter().enumerate() {
                    if k > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl DTuple {
    /// A typed tuple's run-time twin, printing the same; `Err` when a
    /// run-time leaf does not fit an `i64` (2^63 or more), rather than a
    /// clamped value.
    ///
    /// ```
    /// use layout_core::{DTuple, C};
    /// let t = DTuple::from_typed(&(C::<2>, (3usize, C::<4>))).unwrap();
    /// assert_eq!(t.to_string(), "(_2,(3,_4))");
    /// assert!(DTuple::from_typed(&(1usize << 63)).is_err());
    /// ```
    pub fn from_typed<T: IntTuple>(t: &T) -> Result<DTuple, LayoutError> {
        /// Builds the tree from the typed tuple's walk.
        struct Build {
            open: Vec<Vec<DTuple>>,
            done: Option<DTuple>,
            too_large: bool,
        }
        impl Build {
            fn put(&mut self, t: DTuple) {
                match self.open.last_mut() {
                    Some(modes) => modes.push(t),
                    None => self.done = Some(t),
                }
            }
        }
        impl crate::tuple::TupleVisitor for Build {
            fn leaf(&mut self, v: usize, st: bool) {
                let v = i64::try_from(v).unwrap_or_else(|_| {
                    self.too_large = true;
                    0
                });
                self.put(DTuple::Int(DInt {
                    value: v,
                    is_static: st,
                }));
            }
            fn open(&mut self) {
                self.open.push(Vec::new());
            }
            fn close(&mut self) {
                let modes = self.open.pop().unwrap_or_default();
                self.put(DTuple::Tuple(modes));
            }
        }
        let mut b = Build {
            open: Vec::new(),
            done: None,
            too_large: false,
        };
        t.visit(&mut b);
        if b.too_large {
            return Err(LayoutError::Overflow {
                op: "DTuple::from_typed",
            });
        }
        Ok(b.done.unwrap_or(DTuple::Tuple(Vec::new())))
    }
    /// CuTe's rank: 1 for an integer.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// assert_eq!(parse_tuple("(2,(3,4))").unwrap().rank(), 2);
    /// assert_eq!(parse_tuple("5").unwrap().rank(), 1);
    /// ```
    pub fn rank(&self) -> usize {
        match self {
            DTuple::Int(_) => 1,
            DTuple::Tuple(v) => v.len(),
        }
    }
    /// CuTe's depth: 0 for an integer.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// assert_eq!(parse_tuple("(2,(3,4))").unwrap().depth(), 2);
    /// assert_eq!(parse_tuple("5").unwrap().depth(), 0);
    /// ```
    pub fn depth(&self) -> usize {
        match self {
            DTuple::Int(_) => 0,
            DTuple::Tuple(v) => 1 + v.iter().map(DTuple::depth).max().unwrap_or(0),
        }
    }
    /// The leaves in order.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// let t = parse_tuple("(2,(_3,4))").unwrap();
    /// let leaves: Vec<String> = t.leaves().iter().map(|l| l.to_string()).collect();
    /// assert_eq!(leaves, ["2", "_3", "4"]);
    /// ```
    pub fn leaves(&self) -> Vec<DInt> {
        let mut out = Vec::new();
        self.for_each_leaf(&mut |x| out.push(x));
        out
    }
    /// Visit every leaf in order, without collecting them.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// let mut sum = 0;
    /// parse_tuple("(2,(_3,4))").unwrap().for_each_leaf(&mut |l| sum += l.value);
    /// assert_eq!(sum, 9);
    /// ```
    pub fn for_each_leaf(&self, f: &mut dyn FnMut(DInt)) {
        match self {
            DTuple::Int(i) => f(*i),
            DTuple::Tuple(v) => v.iter().for_each(|x| x.for_each_leaf(f)),
        }
    }
    /// Mode `i` (an integer is its own mode 0).
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// let t = parse_tuple("(2,(_3,4))").unwrap();
    /// assert_eq!(t.mode(1).unwrap().to_string(), "(_3,4)");
    /// assert!(t.mode(2).is_none());
    /// assert_eq!(parse_tuple("5").unwrap().mode(0).unwrap().to_string(), "5");
    /// ```
    pub fn mode(&self, i: usize) -> Option<&DTuple> {
        match self {
            DTuple::Int(_) if i == 0 => Some(self),
            DTuple::Int(_) => None,
            DTuple::Tuple(v) => v.get(i),
        }
    }
    /// The modes as a list (an integer is one mode).
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// let m: Vec<String> = parse_tuple("(2,(_3,4))").unwrap().modes().iter().map(|x| x.to_string()).collect();
    /// assert_eq!(m, ["2", "(_3,4)"]);
    /// ```
    pub fn modes(&self) -> Vec<DTuple> {
        match self {
            DTuple::Int(_) => alloc::vec![self.clone()],
            DTuple::Tuple(v) => v.clone(),
        }
    }
    /// The product of the leaves; static when every leaf is.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// assert_eq!(parse_tuple("(2,(_3,4))").unwrap().product().unwrap().to_string(), "24");
    /// assert_eq!(parse_tuple("(_2,_3)").unwrap().product().unwrap().to_string(), "_6");
    /// assert!(parse_tuple("(4294967296,4294967296)").unwrap().product().is_err());
    /// ```
    pub fn product(&self) -> Result<DInt, LayoutError> {
        // A walk, not `leaves()`: this runs per mode of every evaluation.
        match self {
            DTuple::Int(i) => Ok(*i),
            DTuple::Tuple(v) => v
                .iter()
                .try_fold(DInt::new_static(1), |a, b| mul(a, b.product()?, "size")),
        }
    }
    /// Whether `self` and `other` nest the same way.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// let t = parse_tuple("(2,(3,4))").unwrap();
    /// assert!(t.congruent(&parse_tuple("(1,(_1,0))").unwrap()));
    /// assert!(!t.congruent(&parse_tuple("(1,1,1)").unwrap()));
    /// ```
    pub fn congruent(&self, other: &DTuple) -> bool {
        match (self, other) {
            (DTuple::Int(_), DTuple::Int(_)) => true,
            (DTuple::Tuple(a), DTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }
    /// The same nesting with every leaf mapped.
    ///
    /// ```
    /// use layout_core::{parse_tuple, DInt};
    /// let t = parse_tuple("(2,(_3,4))").unwrap();
    /// let doubled = t.map(&mut |l| DInt { value: 2 * l.value, ..l });
    /// assert_eq!(doubled.to_string(), "(4,(_6,8))");
    /// ```
    pub fn map(&self, f: &mut dyn FnMut(DInt) -> DInt) -> DTuple {
        match self {
            DTuple::Int(i) => DTuple::Int(f(*i)),
            DTuple::Tuple(v) => DTuple::Tuple(v.iter().map(|x| x.map(f)).collect()),
        }
    }
    /// Every leaf made dynamic.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// assert_eq!(parse_tuple("(_2,(_3,4))").unwrap().with_dynamic_leaves().to_string(), "(2,(3,4))");
    /// ```
    pub fn with_dynamic_leaves(&self) -> DTuple {
        self.map(&mut |i| DInt::new_dynamic(i.value))
    }
    /// A tuple of the leaves (CuTe's `flatten`); an integer stays an integer.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// assert_eq!(parse_tuple("(2,(_3,4))").unwrap().flatten().to_string(), "(2,_3,4)");
    /// assert_eq!(parse_tuple("5").unwrap().flatten().to_string(), "5");
    /// ```
    pub fn flatten(&self) -> DTuple {
        match self {
            DTuple::Int(_) => self.clone(),
            DTuple::Tuple(_) => DTuple::Tuple(self.leaves().into_iter().map(DTuple::Int).collect()),
        }
    }
}

/// Static-aware checked multiplication.
pub(crate) fn mul(a: DInt, b: DInt, op: &'static str) -> Result<DInt, LayoutError> {
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

/// `Err` unless every leaf of `t` is a valid extent (not negative), for the
/// operations that take a shape or an integer tiler on their own.
pub(crate) fn check_shape(t: &DTuple, op: &'static str) -> Result<(), LayoutError> {
    let mut bad = None;
    t.for_each_leaf(&mut |l| {
        if l.value < 0 && bad.is_none() {
            bad = Some(l)
        }
    });
    match bad {
        Some(b) => Err(invalid(op, alloc::format!("negative extent {b} in {t}"))),
        None => Ok(()),
    }
}

/// A layout known at run time: shape and stride trees of equal nesting.
///
/// ```
/// use layout_core::DynLayout;
/// let l: DynLayout = "(_2,(_2,_2)):(_4,(_2,_1))".parse().unwrap();
/// assert_eq!(l.to_string(), "(_2,(_2,_2)):(_4,(_2,_1))");
/// assert_eq!(l.call(3).unwrap(), 6);
/// assert_eq!(l.size().unwrap().to_string(), "_8");
/// ```
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct DynLayout {
    shape: DTuple,
    stride: DTuple,
}

impl fmt::Display for DynLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

impl core::str::FromStr for DynLayout {
    type Err = LayoutError;
    /// Parse CuTe notation: `shape:stride`, or a shape alone (LayoutLeft strides).
    fn from_str(s: &str) -> Result<Self, LayoutError> {
        parse::layout(s)
    }
}

impl DynLayout {
    /// Pair a shape and a stride; `Err` unless they nest the same way and
    /// every shape leaf is non-negative.
    ///
    /// ```
    /// use layout_core::{parse_tuple, DynLayout};
    /// let l = DynLayout::new(parse_tuple("(2,3)").unwrap(), parse_tuple("(_1,2)").unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(2,3):(_1,2)");
    /// assert!(DynLayout::new(parse_tuple("(2,3)").unwrap(), parse_tuple("1").unwrap()).is_err());
    /// ```
    pub fn new(shape: DTuple, stride: DTuple) -> Result<Self, LayoutError> {
        if !shape.congruent(&stride) {
            return Err(invalid(
                "make_layout",
                alloc::format!("shape {shape} and stride {stride} do not nest the same way"),
            ));
        }
        check_shape(&shape, "make_layout")?;
        let mut min = false;
        stride.for_each_leaf(&mut |l| min |= l.value == i64::MIN);
        if min {
            return Err(invalid(
                "make_layout",
                alloc::format!("stride {} in {stride} has no negation", i64::MIN),
            ));
        }
        Ok(DynLayout { shape, stride })
    }
    /// Trusted construction inside the algebra (congruent by construction).
    pub(crate) fn raw(shape: DTuple, stride: DTuple) -> Self {
        debug_assert!(shape.congruent(&stride));
        DynLayout { shape, stride }
    }
    /// An integer layout `s:d`.
    ///
    /// ```
    /// use layout_core::{DInt, DynLayout};
    /// assert_eq!(DynLayout::int(DInt::new_static(4), DInt::new_dynamic(2)).to_string(), "_4:2");
    /// ```
    pub fn int(s: DInt, d: DInt) -> Self {
        DynLayout {
            shape: DTuple::Int(s),
            stride: DTuple::Int(d),
        }
    }
    /// The shape.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,3):(3,_1)".parse().unwrap();
    /// assert_eq!(l.shape().to_string(), "(_4,3)");
    /// ```
    pub fn shape(&self) -> &DTuple {
        &self.shape
    }
    /// The stride.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,3):(3,_1)".parse().unwrap();
    /// assert_eq!(l.stride().to_string(), "(3,_1)");
    /// ```
    pub fn stride(&self) -> &DTuple {
        &self.stride
    }
    /// CuTe's rank.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,(3,2)):(_1,(_4,12))".parse().unwrap();
    /// assert_eq!(l.rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        self.shape.rank()
    }
    /// CuTe's depth.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,(3,2)):(_1,(_4,12))".parse().unwrap();
    /// assert_eq!(l.depth(), 2);
    /// ```
    pub fn depth(&self) -> usize {
        self.shape.depth()
    }
    /// CuTe's `size`: the number of coordinates, static when the shape is.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,3):(3,_1)".parse().unwrap();
    /// assert_eq!(l.size().unwrap().to_string(), "12");
    /// assert_eq!(l.size().unwrap().value, 12);
    /// ```
    pub fn size(&self) -> Result<DInt, LayoutError> {
        self.shape.product()
    }
    /// Mode `i` as a layout.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,(3,2)):(_1,(_4,12))".parse().unwrap();
    /// assert_eq!(l.mode(1).unwrap().to_string(), "(3,2):(_4,12)");
    /// assert!(l.mode(2).is_none());
    /// ```
    pub fn mode(&self, i: usize) -> Option<DynLayout> {
        Some(DynLayout {
            shape: self.shape.mode(i)?.clone(),
            stride: self.stride.mode(i)?.clone(),
        })
    }
    /// The size of mode `i` (1 past the last mode).
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,(3,2)):(_1,(_4,12))".parse().unwrap();
    /// assert_eq!(l.mode_size(1).unwrap(), 6);
    /// assert_eq!(l.mode_size(2).unwrap(), 1);
    /// ```
    pub fn mode_size(&self, i: usize) -> Result<i64, LayoutError> {
        self.shape.mode(i).map_or(Ok(1), |m| Ok(m.product()?.value))
    }
    /// The modes as layouts.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,(3,2)):(_1,(_4,12))".parse().unwrap();
    /// let m: Vec<String> = l.modes().iter().map(|x| x.to_string()).collect();
    /// assert_eq!(m, ["_4:_1", "(3,2):(_4,12)"]);
    /// ```
    pub fn modes(&self) -> Vec<DynLayout> {
        match (&self.shape, &self.stride) {
            (DTuple::Tuple(s), DTuple::Tuple(d)) => s
                .iter()
                .zip(d)
                .map(|(s, d)| DynLayout::raw(s.clone(), d.clone()))
                .collect(),
            _ => alloc::vec![self.clone()],
        }
    }
    /// The modes as layouts, taken apart without copying.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,(3,2)):(_1,(_4,12))".parse().unwrap();
    /// let m: Vec<String> = l.into_modes().iter().map(|x| x.to_string()).collect();
    /// assert_eq!(m, ["_4:_1", "(3,2):(_4,12)"]);
    /// ```
    pub fn into_modes(self) -> Vec<DynLayout> {
        let (s, d) = self.into_mode_lists();
        s.into_iter()
            .zip(d)
            .map(|(s, d)| DynLayout::raw(s, d))
            .collect()
    }
    /// The modes' shapes and strides, taken apart without copying (an
    /// integer layout is one mode).
    pub(crate) fn into_mode_lists(self) -> (Vec<DTuple>, Vec<DTuple>) {
        match (self.shape, self.stride) {
            (DTuple::Tuple(s), DTuple::Tuple(d)) => (s, d),
            (s, d) => (alloc::vec![s], alloc::vec![d]),
        }
    }
    /// A tuple layout from modes (CuTe's `make_layout(l0, l1, ...)`).
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let a: DynLayout = "_4:_1".parse().unwrap();
    /// let b: DynLayout = "3:_4".parse().unwrap();
    /// assert_eq!(DynLayout::from_modes(vec![a, b]).to_string(), "(_4,3):(_1,_4)");
    /// ```
    pub fn from_modes(modes: Vec<DynLayout>) -> DynLayout {
        let mut b = ModesBuilder::with_capacity(modes.len());
        modes.into_iter().for_each(|m| b.push(m));
        b.finish()
    }
    /// (shape leaf, stride leaf) pairs in order.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,3):(3,_1)".parse().unwrap();
    /// let p: Vec<String> = l.pairs().iter().map(|(s, d)| format!("{s}:{d}")).collect();
    /// assert_eq!(p, ["_4:3", "3:_1"]);
    /// ```
    pub fn pairs(&self) -> Vec<(DInt, DInt)> {
        self.pair_list().into_vec()
    }
    /// [`DynLayout::pairs`] without an allocation for up to 8 leaves.
    pub(crate) fn pair_list(&self) -> PairList {
        // One walk over both trees (they nest the same way).
        fn go(s: &DTuple, d: &DTuple, out: &mut PairList) {
            match (s, d) {
                (DTuple::Int(a), DTuple::Int(b)) => out.push((*a, *b)),
                (DTuple::Tuple(x), DTuple::Tuple(y)) if x.len() == y.len() => {
                    x.iter().zip(y).for_each(|(a, b)| go(a, b, out))
                }
                _ => out.extend(s.leaves().into_iter().zip(d.leaves())),
            }
        }
        let mut out = PairList::new();
        go(&self.shape, &self.stride, &mut out);
        out
    }
    /// The offset of a 1-D index; the last mode takes what the others leave.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,3):(3,_1)".parse().unwrap();
    /// // Index 5 is the coordinate (5 % 4, 5 / 4) = (1, 1): 1*3 + 1*1.
    /// assert_eq!(l.call(5).unwrap(), 4);
    /// ```
    pub fn call(&self, i: i64) -> Result<i64, LayoutError> {
        fn go(s: &DTuple, d: &DTuple, i: i64) -> Result<i64, LayoutError> {
            let of = LayoutError::Overflow { op: "crd2idx" };
            match (s, d) {
                (DTuple::Int(_), DTuple::Int(d)) => i.checked_mul(d.value).ok_or(of),
                (DTuple::Tuple(ss), DTuple::Tuple(ds)) => {
                    let mut rest = i;
                    let mut acc: i64 = 0;
                    for (k, (sk, dk)) in ss.iter().zip(ds).enumerate() {
                        let part = if k + 1 == ss.len() {
                            go(sk, dk, rest)?
                        } else {
                            let n = sk.product()?.value;
                            if n == 0 {
                                return Ok(acc);
                            }
                            let p = go(sk, dk, rest % n)?;
                            rest /= n;
                            p
                        };
                        acc = acc.checked_add(part).ok_or(of.clone())?;
                    }
                    Ok(acc)
                }
                _ => Err(invalid(
                    "crd2idx",
                    "shape and stride do not nest the same way".into(),
                )),
            }
        }
        go(&self.shape, &self.stride, i)
    }
    /// The 1-D table `[L(0), L(1), ...]`.
    /// `Err` past [`DynLayout::TABLE_LIMIT`] entries.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(2,3):(3,1)".parse().unwrap();
    /// // (0,0) (1,0) (0,1) (1,1) (0,2) (1,2)
    /// assert_eq!(l.table().unwrap(), [0, 3, 1, 4, 2, 5]);
    /// ```
    pub fn table(&self) -> Result<Vec<i64>, LayoutError> {
        let n = self.size()?.value;
        if n > Self::TABLE_LIMIT {
            return Err(invalid(
                "table",
                alloc::format!(
                    "{self} has {n} elements, more than the {} a table lists; take a part of it (slice or local_tile)",
                    Self::TABLE_LIMIT
                ),
            ));
        }
        (0..n).map(|i| self.call(i)).collect()
    }
    /// The most entries [`DynLayout::table`] lists.
    pub const TABLE_LIMIT: i64 = 1 << 24;
    /// CuTe's `cosize`: one past the largest offset (for non-negative
    /// strides), static when every leaf is.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,_3):(_3,_1)".parse().unwrap();
    /// assert_eq!(l.cosize().unwrap().to_string(), "_12");
    /// ```
    pub fn cosize(&self) -> Result<DInt, LayoutError> {
        let p = self.pair_list();
        let is_static = p.iter().all(|(s, d)| s.is_static && d.is_static);
        Ok(DInt {
            value: self.cosize_value(&p)?,
            is_static,
        })
    }

    fn cosize_value(&self, p: &PairList) -> Result<i64, LayoutError> {
        let of = LayoutError::Overflow { op: "cosize" };
        if self.size()?.value == 0 {
            return Ok(0);
        }
        let mut hi: i64 = 0;
        for &(s, d) in p {
            let span = (s.value - 1).checked_mul(d.value).ok_or(of.clone())?;
            if span > 0 {
                hi = hi.checked_add(span).ok_or(of.clone())?;
            }
        }
        hi.checked_add(1).ok_or(of)
    }
    /// Every leaf made dynamic.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,3):(3,_1)".parse().unwrap();
    /// assert_eq!(l.with_dynamic_leaves().to_string(), "(4,3):(3,1)");
    /// ```
    pub fn with_dynamic_leaves(&self) -> DynLayout {
        DynLayout {
            shape: self.shape.with_dynamic_leaves(),
            stride: self.stride.with_dynamic_leaves(),
        }
    }
    /// The typed layout's run-time twin, printing the same; `Err` when a
    /// run-time leaf is 2^63 or more (an `i64` cannot hold it).
    ///
    /// ```
    /// use layout_core::{layout, DynLayout};
    /// let n = 5;
    /// let d = DynLayout::from_typed(&layout!((3, n):(n, 1))).unwrap();
    /// assert_eq!(d.to_string(), "(_3,5):(5,_1)");
    /// let big = 1usize << 63;
    /// assert!(DynLayout::from_typed(&layout!((2, big):(1, 2))).is_err());
    /// ```
    pub fn from_typed<S: Congruent<D>, D: IntTuple>(
        l: &Layout<S, D>,
    ) -> Result<DynLayout, LayoutError> {
        Ok(DynLayout {
            shape: DTuple::from_typed(&l.shape())?,
            stride: DTuple::from_typed(&l.stride())?,
        })
    }
}

impl<S: Congruent<D>, D: IntTuple> TryFrom<Layout<S, D>> for DynLayout {
    type Error = LayoutError;
    /// [`DynLayout::from_typed`].
    fn try_from(l: Layout<S, D>) -> Result<Self, LayoutError> {
        DynLayout::from_typed(&l)
    }
}

pub(crate) fn invalid(op: &'static str, why: String) -> LayoutError {
    LayoutError::Invalid { op, why }
}
