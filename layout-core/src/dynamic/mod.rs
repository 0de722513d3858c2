//! `DynLayout`: a layout known at run time, with CuTe's whole algebra,
//! checked. Each leaf remembers whether CuTe would know it at compile time,
//! so results print as CuTe prints them (`_4` static, `4` dynamic).
//!
//! The operations have the typed ones' names. Each algebra operation lives
//! in the file named as its typed file (`dynamic/complement.rs` beside
//! `algebra/complement.rs`); compact strides are in `compact.rs` (as
//! `layout/compact.rs`), and coordinates, modes, slices and `print_layout`
//! in `ops.rs`. Every operation that can fail returns
//! `Result<_, LayoutError>`: preconditions that CuTe checks (or should
//! check) are errors naming the operation and the numbers, and every
//! arithmetic step is overflow-checked. The structural ones that cannot
//! fail (`flatten`, `append`, `prepend`, `append_to_rank`, `from_modes`)
//! return the layout itself.
//!
//! [`op`] is the table from the operations' names to them, for callers
//! that read operations as text.

mod arith;
mod by_mode;
mod cast;
mod coalesce;
mod compact;
mod complement;
mod composition;
mod divide;
mod filter;
mod inverse;
mod max_common;
pub mod op;
mod ops;
mod parse;
mod product;
mod profile;
mod swizzle;
mod tile;
mod tiler;
mod tuple;

pub use cast::{downcast, recast_layout, upcast};
pub use coalesce::coalesce;
pub use compact::{
    compact_col_major, compact_left, compact_right, compact_row_major, make_layout_left,
    make_layout_right, make_ordered_layout,
};
pub use complement::{complement, complement_default};
pub use composition::{composition, Compose};
pub use divide::{flat_divide, logical_divide, tiled_divide, zipped_divide};
pub use filter::{filter, filter_zeros};
pub use inverse::{left_inverse, right_inverse};
pub use max_common::{max_common_layout, max_common_vector};
pub use ops::*;
pub use parse::parse_tuple;
pub use product::{
    blocked_product, flat_product, logical_product, raked_product, tiled_product, zipped_product,
};
pub use profile::{coalesce_by, filter_by};
pub use swizzle::*;
pub use tile::*;
pub use tiler::{AsTiler, Tiler};
pub use tuple::{DInt, DTuple};

pub(crate) use tuple::{Kind, Mark, Modes, Node, TupleBuilder, TupleRef};

use crate::error::LayoutError;
use crate::layout::{Congruent, Layout};
use crate::typelevel::tuple::IntTuple;
use alloc::vec::Vec;
use arith::{check_shape, invalid};
use core::fmt;
use smallvec::SmallVec;

/// (shape leaf, stride leaf) pairs of a layout, on the stack up to 3 (the
/// algebra walks these for every operation).
pub(crate) type PairList = SmallVec<[(DInt, DInt); 3]>;

/// A borrowed layout: a shape and a stride subtree that nest the same way
/// (so their nodes pair up one to one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LayoutRef<'a> {
    pub(crate) s: TupleRef<'a>,
    pub(crate) d: TupleRef<'a>,
}

/// What a layout is at its top: an integer layout `s:d`, or modes.
pub(crate) enum LKind<'a> {
    Leaf(DInt, DInt),
    Tuple(LModes<'a>),
}

/// The modes of a layout, in order: the shape's modes, and the stride's
/// nodes split at the same places (they nest the same way).
#[derive(Clone, Debug)]
pub(crate) struct LModes<'a> {
    s: Modes<'a>,
    d: &'a [Node],
}

impl<'a> Iterator for LModes<'a> {
    type Item = LayoutRef<'a>;
    #[inline]
    fn next(&mut self) -> Option<LayoutRef<'a>> {
        let s = self.s.next()?;
        let (d, rest) = self.d.split_at(s.0.len());
        self.d = rest;
        Some(LayoutRef { s, d: TupleRef(d) })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.s.size_hint()
    }
}

impl ExactSizeIterator for LModes<'_> {}

impl<'a> LModes<'a> {
    /// Mode `i`.
    pub(crate) fn get(&self, i: usize) -> Option<LayoutRef<'a>> {
        self.clone().nth(i)
    }
}

impl<'a> LayoutRef<'a> {
    /// An integer layout, or the modes of a tuple layout.
    #[inline]
    pub(crate) fn kind(self) -> LKind<'a> {
        match (self.s.kind(), self.d.0.first()) {
            (Kind::Tuple(s), _) => LKind::Tuple(LModes {
                s,
                d: self.d.0.get(1..).unwrap_or(&[]),
            }),
            (Kind::Int(s), Some(Node::Leaf(d))) => LKind::Leaf(s, *d),
            (Kind::Int(s), _) => LKind::Leaf(s, DInt::new_static(0)),
        }
    }
    /// The modes; an integer layout is its own one mode.
    pub(crate) fn modes(self) -> LModes<'a> {
        match self.kind() {
            LKind::Tuple(m) => m,
            LKind::Leaf(..) => LModes {
                s: self.s.modes(),
                d: self.d.0,
            },
        }
    }
    /// Mode `i` (an integer layout is its own mode 0).
    pub(crate) fn mode(self, i: usize) -> Option<LayoutRef<'a>> {
        self.modes().get(i)
    }
    /// CuTe's rank.
    pub(crate) fn rank(self) -> usize {
        self.s.rank()
    }
    /// (shape leaf, stride leaf) pairs in order.
    #[inline]
    pub(crate) fn pairs(self) -> Pairs<'a> {
        Pairs {
            s: self.s.0.iter(),
            d: self.d.0.iter(),
        }
    }
    /// The pairs on the stack.
    pub(crate) fn pair_list(self) -> PairList {
        self.pairs().collect()
    }
    /// CuTe's size.
    pub(crate) fn size(self) -> Result<DInt, LayoutError> {
        self.s.product()
    }
    /// An owned copy.
    pub(crate) fn to_layout(self) -> DynLayout {
        DynLayout {
            shape: self.s.to_tuple(),
            stride: self.d.to_tuple(),
        }
    }
}

/// A layout's (shape leaf, stride leaf) pairs in order.
#[derive(Clone, Debug)]
pub(crate) struct Pairs<'a> {
    s: core::slice::Iter<'a, Node>,
    d: core::slice::Iter<'a, Node>,
}

impl Iterator for Pairs<'_> {
    type Item = (DInt, DInt);
    #[inline]
    fn next(&mut self) -> Option<(DInt, DInt)> {
        loop {
            if let (Node::Leaf(s), Node::Leaf(d)) = (self.s.next()?, self.d.next()?) {
                return Some((*s, *d));
            }
        }
    }
}

impl DoubleEndedIterator for Pairs<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<(DInt, DInt)> {
        loop {
            if let (Node::Leaf(s), Node::Leaf(d)) = (self.s.next_back()?, self.d.next_back()?) {
                return Some((*s, *d));
            }
        }
    }
}

impl fmt::Display for LayoutRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.s, self.d)
    }
}

/// A layout under construction: shape and stride built in step, so they
/// nest the same way by construction.
#[derive(Default)]
pub(crate) struct LayoutBuilder {
    s: TupleBuilder,
    d: TupleBuilder,
}

impl LayoutBuilder {
    /// Add an integer mode `s:d`.
    pub(crate) fn leaf(&mut self, s: DInt, d: DInt) {
        self.s.leaf(s);
        self.d.leaf(d);
    }
    /// Open a tuple of modes.
    #[inline]
    pub(crate) fn open(&mut self) -> Mark {
        self.d.open();
        self.s.open()
    }
    /// Close the tuple opened at `m`.
    #[inline]
    pub(crate) fn close(&mut self, m: Mark) {
        self.s.close(m);
        self.d.close(m);
    }
    /// Close the tuple opened at `m`; a tuple of one integer mode becomes
    /// that mode (the node of the tuple is taken by the leaf).
    #[inline]
    pub(crate) fn close_flat(&mut self, m: Mark) {
        if self.s.len() == m.index() + 2 {
            if let (Some(s @ Node::Leaf(_)), Some(d)) = (self.s.last(), self.d.last()) {
                self.s.truncate_to(m, s);
                self.d.truncate_to(m, d);
                return;
            }
        }
        self.close(m);
    }
    /// Add a whole layout as one mode.
    pub(crate) fn append(&mut self, l: LayoutRef<'_>) {
        self.s.append(l.s);
        self.d.append(l.d);
    }
    /// The layout built.
    pub(crate) fn finish(self) -> DynLayout {
        DynLayout {
            shape: self.s.finish(),
            stride: self.d.finish(),
        }
    }
    /// A tuple layout of these modes.
    pub(crate) fn of_modes<'a>(modes: impl IntoIterator<Item = LayoutRef<'a>>) -> DynLayout {
        let mut b = LayoutBuilder::default();
        let at = b.open();
        modes.into_iter().for_each(|m| b.append(m));
        b.close(at);
        b.finish()
    }
    /// A flat layout of these leaves: an integer layout for one, else a tuple.
    pub(crate) fn of_pairs(p: &[(DInt, DInt)]) -> DynLayout {
        match p {
            [(s, d)] => DynLayout::int(*s, *d),
            _ => LayoutBuilder::tuple_of_pairs(p),
        }
    }
    /// A tuple layout of these leaves.
    pub(crate) fn tuple_of_pairs(p: &[(DInt, DInt)]) -> DynLayout {
        let mut b = LayoutBuilder::default();
        let at = b.open();
        p.iter().for_each(|&(s, d)| b.leaf(s, d));
        b.close(at);
        b.finish()
    }
}

/// The layout `f` writes into a new builder.
pub(crate) fn build(
    f: impl FnOnce(&mut LayoutBuilder) -> Result<(), LayoutError>,
) -> Result<DynLayout, LayoutError> {
    let mut out = LayoutBuilder::default();
    f(&mut out)?;
    Ok(out.finish())
}

/// A layout known at run time: shape and stride tuples of equal nesting.
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
    #[inline]
    pub fn new(shape: DTuple, stride: DTuple) -> Result<Self, LayoutError> {
        // One walk: the same node kinds and ranks, extents not negative,
        // strides negatable; the error names the first problem of the three.
        let (s, d) = (shape.r().0, stride.r().0);
        let ok = s.len() == d.len()
            && s.iter().zip(d).all(|p| match p {
                (Node::Leaf(x), Node::Leaf(y)) => x.value >= 0 && y.value != i64::MIN,
                (Node::Tuple { rank: a, .. }, Node::Tuple { rank: b, .. }) => a == b,
                _ => false,
            });
        if !ok {
            return Err(Self::refused(&shape, &stride));
        }
        Ok(DynLayout { shape, stride })
    }
    #[cold]
    fn refused(shape: &DTuple, stride: &DTuple) -> LayoutError {
        if !shape.congruent(stride) {
            return invalid(
                "make_layout",
                alloc::format!("shape {shape} and stride {stride} do not nest the same way"),
            );
        }
        if let Err(e) = check_shape(shape, "make_layout") {
            return e;
        }
        invalid(
            "make_layout",
            alloc::format!("stride {} in {stride} has no negation", i64::MIN),
        )
    }
    /// Trusted construction inside the algebra (congruent by construction).
    pub(crate) fn raw(shape: DTuple, stride: DTuple) -> Self {
        debug_assert!(shape.congruent(&stride));
        DynLayout { shape, stride }
    }
    /// The borrowed form the algorithms walk.
    pub(crate) fn r(&self) -> LayoutRef<'_> {
        LayoutRef {
            s: self.shape.r(),
            d: self.stride.r(),
        }
    }
    /// An integer layout `s:d`.
    ///
    /// ```
    /// use layout_core::{DInt, DynLayout};
    /// assert_eq!(DynLayout::int(DInt::new_static(4), DInt::new_dynamic(2)).to_string(), "_4:2");
    /// ```
    #[inline]
    pub fn int(s: DInt, d: DInt) -> Self {
        DynLayout {
            shape: DTuple::int(s),
            stride: DTuple::int(d),
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
        self.r().mode(i).map(LayoutRef::to_layout)
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
        self.shape
            .r()
            .mode(i)
            .map_or(Ok(1), |m| Ok(m.product()?.value))
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
        self.r().modes().map(LayoutRef::to_layout).collect()
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
        LayoutBuilder::of_modes(modes.iter().map(DynLayout::r))
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
        self.r().pairs().collect()
    }
    /// [`DynLayout::pairs`] without an allocation for up to 3 leaves.
    pub(crate) fn pair_list(&self) -> PairList {
        self.r().pair_list()
    }
    /// The offset of a 1-D index; the last mode takes what the others leave.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,3):(3,_1)".parse().unwrap();
    /// // Index 5 is the coordinate (5 % 4, 5 / 4) = (1, 1): 1*3 + 1*1.
    /// assert_eq!(l.call(5).unwrap(), 4);
    /// ```
    #[inline]
    pub fn call(&self, i: i64) -> Result<i64, LayoutError> {
        fn go(l: LayoutRef<'_>, i: i64) -> Option<i64> {
            match l.kind() {
                LKind::Leaf(_, d) => i.checked_mul(d.value),
                LKind::Tuple(modes) => {
                    let last = modes.len().saturating_sub(1);
                    let mut rest = i;
                    let mut acc: i64 = 0;
                    for (k, m) in modes.enumerate() {
                        let part = if k == last {
                            go(m, rest)?
                        } else {
                            // Shapes were checked when the layout was made:
                            // a size past i64 is an overflow like the others.
                            let n = m.s.product().ok()?.value;
                            if n == 0 {
                                return Some(acc);
                            }
                            let p = go(m, rest % n)?;
                            rest /= n;
                            p
                        };
                        acc = acc.checked_add(part)?;
                    }
                    Some(acc)
                }
            }
        }
        // With every extent non-zero the nesting does not matter: each mode
        // but the last takes its index modulo its size, and so, digit by
        // digit, does each leaf but the last. A zero extent stops the walk
        // at the mode that holds it, so those layouts take the tree walk.
        let flat = || {
            let mut pairs = self.r().pairs();
            let mut acc: i64 = 0;
            let mut rest = i;
            let mut cur = pairs.next()?;
            for next in pairs {
                let (s, d) = cur;
                if s.value == 0 {
                    return None;
                }
                acc = acc.checked_add((rest % s.value).checked_mul(d.value)?)?;
                rest /= s.value;
                cur = next;
            }
            Some(Some(acc.checked_add(rest.checked_mul(cur.1.value)?)?))
        };
        match flat() {
            Some(v) => v,
            None => go(self.r(), i),
        }
        .ok_or(LayoutError::Overflow { op: "crd2idx" })
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
    /// The most nodes (tuples and leaves of the shape) in a layout that
    /// [`DynLayout::append`] or [`DynLayout::prepend`] grows from a count.
    pub const MAX_NODES: usize = 1 << 16;
    /// How many nodes (tuples and leaves) the shape holds.
    pub(crate) fn node_count(&self) -> usize {
        self.r().s.0.len()
    }
    /// CuTe's `cosize`: one past the largest offset (for non-negative
    /// strides), static when every leaf is.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,_3):(_3,_1)".parse().unwrap();
    /// assert_eq!(l.cosize().unwrap().to_string(), "_12");
    /// ```
    pub fn cosize(&self) -> Result<DInt, LayoutError> {
        let is_static = self.r().pairs().all(|(s, d)| s.is_static && d.is_static);
        Ok(DInt {
            value: self.cosize_value()?,
            is_static,
        })
    }

    fn cosize_value(&self) -> Result<i64, LayoutError> {
        let of = LayoutError::Overflow { op: "cosize" };
        // Size 0 (a leaf 0; the size itself may be past i64 otherwise).
        if self.r().pairs().any(|(s, _)| s.value == 0) {
            return Ok(0);
        }
        let mut hi: i64 = 0;
        for (s, d) in self.r().pairs() {
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
