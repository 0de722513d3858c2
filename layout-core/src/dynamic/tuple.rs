//! `DInt` and `DTuple`: run-time integers and nested tuples of them, as
//! CuTe prints them (`_4` static, `4` run-time).
//!
//! A tuple is stored flat: its nodes in preorder in one inline array (no
//! allocation up to seven nodes, `INLINE`). A leaf node holds its integer;
//! a tuple node its rank and the number of nodes of its subtree, itself
//! included. So a mode is a sub-slice (a subtree copies as it is: spans
//! are relative), the leaves in order are the leaf nodes in order, and two
//! tuples nest the same way when their nodes agree kind by kind and rank by
//! rank.

use super::arith::mul;
use crate::error::LayoutError;
use crate::typelevel::tuple::IntTuple;
use alloc::vec::Vec;
use core::fmt;

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

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Node {
    /// An integer.
    Leaf(DInt),
    /// A tuple of `rank` modes whose subtree is `span` nodes, itself included.
    Tuple { rank: u32, span: u32 },
}

impl Node {
    #[inline]
    pub(crate) fn span(&self) -> usize {
        match self {
            Node::Leaf(_) => 1,
            Node::Tuple { span, .. } => *span as usize,
        }
    }
}

/// How many nodes a tuple holds without an allocation: a rank-2 tuple of
/// rank-2 modes is seven, and a tuple of seven fits 128 bytes, which a
/// move copies inline (no call to `memcpy`).
const INLINE: usize = 7;

/// The nodes of a tuple: inline up to [`INLINE`], on the heap past that.
pub(crate) type Nodes = smallvec::SmallVec<[Node; INLINE]>;

/// A borrowed tuple: one subtree, its root first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TupleRef<'a>(pub(crate) &'a [Node]);

/// What a tuple is at its top: an integer, or modes.
pub(crate) enum Kind<'a> {
    Int(DInt),
    Tuple(Modes<'a>),
}

/// The modes of a tuple, in order.
#[derive(Clone, Debug)]
pub(crate) struct Modes<'a> {
    rest: &'a [Node],
    left: usize,
}

impl<'a> Modes<'a> {
    /// How many nodes the next mode has (counted as taken: the caller
    /// splits them off the front).
    #[inline]
    pub(crate) fn next_span(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let n = self.rest.first().map_or(1, Node::span);
        Some(n)
    }
}

impl<'a> Iterator for Modes<'a> {
    type Item = TupleRef<'a>;
    #[inline]
    fn next(&mut self) -> Option<TupleRef<'a>> {
        let n = self.next_span()?;
        let (here, rest) = self.rest.split_at(n);
        self.rest = rest;
        Some(TupleRef(here))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Modes<'_> {}

impl<'a> Modes<'a> {
    /// Mode `i`.
    pub(crate) fn get(&self, i: usize) -> Option<TupleRef<'a>> {
        self.clone().nth(i)
    }
}

impl<'a> TupleRef<'a> {
    /// An integer, or the modes of a tuple.
    pub(crate) fn kind(self) -> Kind<'a> {
        match self.0[0] {
            Node::Leaf(x) => Kind::Int(x),
            Node::Tuple { rank, .. } => Kind::Tuple(Modes {
                rest: &self.0[1..],
                left: rank as usize,
            }),
        }
    }
    /// The integer, when this is one.
    pub(crate) fn as_int(self) -> Option<DInt> {
        match self.0[0] {
            Node::Leaf(x) => Some(x),
            Node::Tuple { .. } => None,
        }
    }
    /// The modes; an integer is its own one mode.
    pub(crate) fn modes(self) -> Modes<'a> {
        match self.kind() {
            Kind::Tuple(m) => m,
            Kind::Int(_) => Modes {
                rest: self.0,
                left: 1,
            },
        }
    }
    /// CuTe's rank: 1 for an integer.
    pub(crate) fn rank(self) -> usize {
        self.modes().len()
    }
    /// Mode `i` (an integer is its own mode 0).
    pub(crate) fn mode(self, i: usize) -> Option<TupleRef<'a>> {
        self.modes().get(i)
    }
    /// CuTe's depth: 0 for an integer.
    pub(crate) fn depth(self) -> usize {
        match self.kind() {
            Kind::Int(_) => 0,
            Kind::Tuple(m) => 1 + m.map(TupleRef::depth).max().unwrap_or(0),
        }
    }
    /// The leaves in order.
    pub(crate) fn leaves(self) -> impl Iterator<Item = DInt> + Clone + 'a {
        self.0.iter().filter_map(|n| match n {
            Node::Leaf(x) => Some(*x),
            Node::Tuple { .. } => None,
        })
    }
    /// The product of the leaves; static when every leaf is, or when one is
    /// a static 0. A 0 leaf makes it 0 whatever the others are (no overflow
    /// is reported for a product that is 0).
    pub(crate) fn product(self) -> Result<DInt, LayoutError> {
        let mut zero = None;
        for x in self.leaves() {
            if x.value == 0 && !zero.is_some_and(|z: DInt| z.is_static) {
                zero = Some(x);
            }
        }
        if let Some(z) = zero {
            let all_static = self.leaves().all(|x| x.is_static);
            return Ok(DInt {
                value: 0,
                is_static: z.is_static || all_static,
            });
        }
        self.leaves()
            .try_fold(DInt::new_static(1), |a, b| mul(a, b, "size"))
    }
    /// Whether `self` and `other` nest the same way.
    pub(crate) fn congruent(self, other: TupleRef<'_>) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(other.0).all(|p| match p {
                (Node::Leaf(_), Node::Leaf(_)) => true,
                (Node::Tuple { rank: a, .. }, Node::Tuple { rank: b, .. }) => a == b,
                _ => false,
            })
    }
    /// An owned copy.
    pub(crate) fn to_tuple(self) -> DTuple {
        let mut nodes = Nodes::new();
        nodes.extend(self.0.iter().copied());
        DTuple { nodes }
    }
}

impl fmt::Display for TupleRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            Kind::Int(i) => write!(f, "{i}"),
            Kind::Tuple(modes) => {
                f.write_str("(")?;
                for (k, x) in modes.enumerate() {
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

/// A tuple under construction, in preorder: [`TupleBuilder::open`] starts
/// a tuple and gives where it is, [`TupleBuilder::close`] ends it there;
/// leaves and whole subtrees added in between are its modes.
pub(crate) struct TupleBuilder {
    nodes: Nodes,
}

impl Default for TupleBuilder {
    #[inline]
    fn default() -> Self {
        TupleBuilder {
            nodes: Nodes::new(),
        }
    }
}

/// Where an open tuple's node is.
#[derive(Clone, Copy)]
pub(crate) struct Mark(usize);

impl Mark {
    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0
    }
}

/// Past this many nodes (or modes) a tuple's node cannot count them; 64 GiB
/// of nodes would be needed first, so no run reaches it.
#[inline]
fn count(n: usize) -> u32 {
    u32::try_from(n).expect("a tuple of more than 2^32 nodes")
}

impl TupleBuilder {
    /// Add an integer.
    #[inline]
    pub(crate) fn leaf(&mut self, x: DInt) {
        self.nodes.push(Node::Leaf(x));
    }
    /// Open a tuple: what is added until it is closed are its modes.
    #[inline]
    pub(crate) fn open(&mut self) -> Mark {
        let at = self.nodes.len();
        self.nodes.push(Node::Tuple { rank: 0, span: 0 });
        Mark(at)
    }
    /// Close the tuple opened at `m` (every tuple opened after it is closed).
    #[inline]
    pub(crate) fn close(&mut self, m: Mark) {
        let nodes = &self.nodes[..];
        let (mut i, mut rank) = (m.0 + 1, 0);
        while i < nodes.len() {
            rank += 1;
            i += nodes[i].span();
        }
        self.close_with(m, rank);
    }
    /// [`TupleBuilder::close`] when the caller counted the `rank` modes added.
    #[inline]
    pub(crate) fn close_with(&mut self, m: Mark, rank: usize) {
        let span = count(self.nodes.len() - m.0);
        self.nodes[m.0] = Node::Tuple {
            rank: count(rank),
            span,
        };
    }
    /// How many nodes are built.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }
    /// The last node built.
    #[inline]
    pub(crate) fn last(&self) -> Option<Node> {
        self.nodes.last().copied()
    }
    /// Drop the nodes from `m` on and put `n` there.
    #[inline]
    pub(crate) fn truncate_to(&mut self, m: Mark, n: Node) {
        self.nodes.truncate(m.0);
        self.nodes.push(n);
    }
    /// Add a whole tuple as one mode.
    #[inline]
    pub(crate) fn append(&mut self, t: TupleRef<'_>) {
        // A push per node: SmallVec's slice insert calls memmove, which
        // costs more than the few nodes a mode has.
        for &n in t.0 {
            self.nodes.push(n);
        }
    }
    /// The tuple built: exactly one, every tuple closed.
    #[inline]
    pub(crate) fn finish(self) -> DTuple {
        debug_assert!(self
            .nodes
            .first()
            .is_some_and(|n| n.span() == self.nodes.len()));
        DTuple { nodes: self.nodes }
    }
}

/// A run-time nested tuple of integers (shapes, strides, coordinates,
/// profiles), printed in CuTe notation.
///
/// ```
/// use layout_core::{DInt, DTuple};
/// let t = DTuple::tuple([DTuple::int(DInt::new_static(2)), DTuple::int(DInt::new_dynamic(3))]);
/// assert_eq!(t.to_string(), "(_2,3)");
/// assert_eq!(t.mode(1).unwrap().as_int(), Some(DInt::new_dynamic(3)));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct DTuple {
    nodes: Nodes,
}

impl fmt::Display for DTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.r().fmt(f)
    }
}

impl fmt::Debug for DTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DTuple({self})")
    }
}

impl DTuple {
    /// The borrowed form the algorithms walk.
    #[inline]
    pub(crate) fn r(&self) -> TupleRef<'_> {
        TupleRef(&self.nodes)
    }
    /// An integer.
    ///
    /// ```
    /// use layout_core::{DInt, DTuple};
    /// assert_eq!(DTuple::int(DInt::new_static(4)).to_string(), "_4");
    /// ```
    #[inline]
    pub fn int(x: DInt) -> DTuple {
        let mut nodes = Nodes::new();
        nodes.push(Node::Leaf(x));
        DTuple { nodes }
    }
    /// A tuple of these modes (CuTe's `make_tuple`); no modes make `()`.
    ///
    /// ```
    /// use layout_core::{parse_tuple, DTuple};
    /// let t = DTuple::tuple([parse_tuple("_2").unwrap(), parse_tuple("(3,_4)").unwrap()]);
    /// assert_eq!(t.to_string(), "(_2,(3,_4))");
    /// assert_eq!(DTuple::tuple([]).to_string(), "()");
    /// ```
    pub fn tuple<I: IntoIterator<Item = DTuple>>(modes: I) -> DTuple {
        let mut b = TupleBuilder::default();
        let at = b.open();
        let mut rank = 0;
        for m in modes {
            match m.nodes.as_slice() {
                [Node::Leaf(x)] => b.leaf(*x),
                nodes => b.append(TupleRef(nodes)),
            }
            rank += 1;
        }
        b.close_with(at, rank);
        b.finish()
    }
    /// The integer, when this is one (not a tuple).
    ///
    /// ```
    /// use layout_core::{parse_tuple, DInt};
    /// assert_eq!(parse_tuple("_4").unwrap().as_int(), Some(DInt::new_static(4)));
    /// assert_eq!(parse_tuple("(4)").unwrap().as_int(), None);
    /// ```
    pub fn as_int(&self) -> Option<DInt> {
        self.r().as_int()
    }
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
        /// Builds the tuple from the typed tuple's walk.
        struct Build {
            b: TupleBuilder,
            open: Vec<Mark>,
            too_large: bool,
        }
        impl crate::typelevel::tuple::TupleVisitor for Build {
            fn leaf(&mut self, v: usize, st: bool) {
                let v = i64::try_from(v).unwrap_or_else(|_| {
                    self.too_large = true;
                    0
                });
                self.b.leaf(DInt {
                    value: v,
                    is_static: st,
                });
            }
            fn open(&mut self) {
                let m = self.b.open();
                self.open.push(m);
            }
            fn close(&mut self) {
                if let Some(m) = self.open.pop() {
                    self.b.close(m);
                }
            }
        }
        let mut b = Build {
            b: TupleBuilder::default(),
            open: Vec::new(),
            too_large: false,
        };
        t.visit(&mut b);
        if b.too_large {
            return Err(LayoutError::Overflow {
                op: "DTuple::from_typed",
            });
        }
        if b.b.nodes.is_empty() {
            return Ok(DTuple::tuple([]));
        }
        Ok(b.b.finish())
    }
    /// CuTe's rank: 1 for an integer.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// assert_eq!(parse_tuple("(2,(3,4))").unwrap().rank(), 2);
    /// assert_eq!(parse_tuple("5").unwrap().rank(), 1);
    /// ```
    pub fn rank(&self) -> usize {
        self.r().rank()
    }
    /// CuTe's depth: 0 for an integer.
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// assert_eq!(parse_tuple("(2,(3,4))").unwrap().depth(), 2);
    /// assert_eq!(parse_tuple("5").unwrap().depth(), 0);
    /// ```
    pub fn depth(&self) -> usize {
        self.r().depth()
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
        self.r().leaves().collect()
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
        self.r().leaves().for_each(f)
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
    pub fn mode(&self, i: usize) -> Option<DTuple> {
        self.r().mode(i).map(TupleRef::to_tuple)
    }
    /// The modes as a list (an integer is one mode).
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// let m: Vec<String> = parse_tuple("(2,(_3,4))").unwrap().modes().iter().map(|x| x.to_string()).collect();
    /// assert_eq!(m, ["2", "(_3,4)"]);
    /// ```
    pub fn modes(&self) -> Vec<DTuple> {
        self.r().modes().map(TupleRef::to_tuple).collect()
    }
    /// The product of the leaves; static when every leaf is (or one is a
    /// static 0, as CuTe's `_0 * n` is `_0`).
    ///
    /// ```
    /// use layout_core::parse_tuple;
    /// assert_eq!(parse_tuple("(2,(_3,4))").unwrap().product().unwrap().to_string(), "24");
    /// assert_eq!(parse_tuple("(_2,_3)").unwrap().product().unwrap().to_string(), "_6");
    /// assert_eq!(parse_tuple("(5,_0)").unwrap().product().unwrap().to_string(), "_0");
    /// assert!(parse_tuple("(4294967296,4294967296)").unwrap().product().is_err());
    /// ```
    pub fn product(&self) -> Result<DInt, LayoutError> {
        self.r().product()
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
        self.r().congruent(other.r())
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
        let r: Result<DTuple, core::convert::Infallible> = self.try_map_leaves(false, |x| Ok(f(x)));
        match r {
            Ok(t) => t,
        }
    }
    /// The same nesting with every leaf mapped, in order or (`rev`) from
    /// the last leaf back; the first `Err` stops it.
    pub(crate) fn try_map_leaves<E>(
        &self,
        rev: bool,
        mut f: impl FnMut(DInt) -> Result<DInt, E>,
    ) -> Result<DTuple, E> {
        let mut t = self.clone();
        let mut step = |n: &mut Node| {
            if let Node::Leaf(x) = n {
                *x = f(*x)?;
            }
            Ok(())
        };
        if rev {
            t.nodes.iter_mut().rev().try_for_each(&mut step)?;
        } else {
            t.nodes.iter_mut().try_for_each(&mut step)?;
        }
        Ok(t)
    }
    /// A tuple of these integers.
    pub(crate) fn of_ints(xs: impl IntoIterator<Item = DInt>) -> DTuple {
        let mut b = TupleBuilder::default();
        let at = b.open();
        xs.into_iter().for_each(|x| b.leaf(x));
        b.close(at);
        b.finish()
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
        if self.as_int().is_some() {
            return self.clone();
        }
        DTuple::of_ints(self.r().leaves())
    }
}
