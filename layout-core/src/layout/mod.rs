//! `Layout<Shape, Stride>`: congruent shape and stride, and the function from
//! coordinates to offsets (CuTe's `crd2idx`).

pub mod compact;
pub mod congruent;
pub mod coord;
pub mod ops;
pub mod print;
pub mod respell;
pub mod slice;

use crate::error::{Note, NoteText};
pub use crate::layout::congruent::Congruent;
use crate::layout::coord::Crd2Idx;
use crate::typelevel::const_text::{Leaves, Text};
use crate::typelevel::tuple::{IntTuple, IntoTuple};
use core::fmt;

/// A layout: a shape and a congruent stride, mapping coordinates to offsets.
///
/// All-static layouts are zero-sized; dynamic leaves are `usize`.
///
/// ```
/// use layout_core::layout;
/// let h = layout!((2,(2,2)):(4,(2,1)));
/// assert_eq!(h.to_string(), "(_2,(_2,_2)):(_4,(_2,_1))");
/// assert_eq!(h.call(3), 6);
/// assert_eq!(core::mem::size_of_val(&h), 0);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Layout<S, D> {
    shape: S,
    stride: D,
}

impl<S: Congruent<D>, D: IntTuple> Layout<S, D> {
    /// Pair a shape with a congruent stride.
    ///
    /// ```
    /// use layout_core::{Layout, C};
    /// let row = Layout::new((3usize, 4usize), (4usize, C::<1>));
    /// assert_eq!(row.to_string(), "(3,4):(4,_1)");
    /// ```
    #[inline(always)]
    pub const fn new(shape: S, stride: D) -> Self {
        Layout { shape, stride }
    }

    /// The size as a constant, for a static shape: CuTe's `size_v<Layout>`
    /// beside its `size(layout)` ([`Layout::size`]), usable where Rust needs
    /// a constant (an array length). A run-time shape is a compile error.
    ///
    /// ```
    /// use layout_core::layout_type;
    /// type Acc = layout_type!((2,(2,2)):(4,(2,1)));
    /// let acc = [0f32; Acc::SIZE];
    /// assert_eq!(acc.len(), 8);
    /// ```
    pub const SIZE: usize = match S::STATIC_SIZE {
        Some(n) => n,
        None => panic!("Layout::SIZE needs a static shape, and this one has a run-time leaf: an identifier in `layout!` is run-time, `C<NAME>` is static (use `size()` for a run-time size)"),
    };
    /// The cosize as a constant when every leaf is static: CuTe's
    /// `cosize_v<Layout>` beside [`Layout::cosize`].
    ///
    /// ```
    /// use layout_core::layout_type;
    /// // (2,3):(1,4) reaches 1 + 2*4 = 9: ten elements of storage.
    /// assert_eq!(<layout_type!((2,3):(1,4))>::COSIZE, 10);
    /// ```
    pub const COSIZE: usize = match (S::STATIC_SIZE, S::STATIC_SPAN) {
        (Some(0), _) => 0,
        (Some(_), Some(span)) => span + 1,
        _ => panic!("Layout::COSIZE needs static leaves, and this layout has a run-time one: an identifier in `layout!` is run-time, `C<NAME>` is static (use `cosize()` for a run-time cosize)"),
    };
    /// CuTe's rank: the number of top-level modes.
    pub const RANK: usize = S::RANK;
    /// CuTe's depth.
    pub const DEPTH: usize = S::DEPTH;

    /// The shape.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::layout;
    /// let n = 5;
    /// assert_eq!(layout_core::to_cute_string(&layout!((3,n):(n,1)).shape()), "(_3,5)");
    /// ```
    pub fn shape(&self) -> S {
        self.shape
    }
    /// The stride.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::layout;
    /// let n = 5;
    /// assert_eq!(layout_core::to_cute_string(&layout!((3,n):(n,1)).stride()), "(5,_1)");
    /// ```
    pub fn stride(&self) -> D {
        self.stride
    }
    /// Number of coordinates: the product of the shape.
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((3,4):(6,1)).size(), 12);
    /// ```
    ///
    /// # Panics
    ///
    /// When run-time extents multiply past `usize` ([`Layout::try_size`]
    /// returns the error instead).
    #[inline(always)]
    #[track_caller]
    pub fn size(&self) -> usize {
        if S::STATIC_SIZE.is_some() {
            return self.shape.size();
        }
        match self.shape.checked_size() {
            Some(n) => n,
            None => panic!("size: the extents of {self} multiply past usize"),
        }
    }
    /// [`Layout::size`], or the error when it does not fit `usize`.
    ///
    /// ```
    /// use layout_core::layout;
    /// let big = 1usize << 40;
    /// assert!(layout!((big, big, big):(1, 1, 1)).try_size().is_err());
    /// assert_eq!(layout!((3,4)).try_size(), Ok(12));
    /// ```
    pub fn try_size(&self) -> Result<usize, crate::LayoutError> {
        self.shape
            .checked_size()
            .ok_or(crate::LayoutError::Overflow { op: "size" })
    }
    /// [`Layout::call`] checked: `Err` when `i` is not below the size or the
    /// layout's offsets do not fit `usize` ([`Layout::call`] does not check:
    /// the last mode takes any index, as CuTe's).
    ///
    /// ```
    /// use layout_core::layout;
    /// // 7 is (1, 2): 1 * 4 + 2 * 1.
    /// assert_eq!(layout!((3,4):(4,1)).try_call(7), Ok(6));
    /// assert!(layout!((3,4):(4,1)).try_call(12).is_err());
    /// ```
    pub fn try_call(&self, i: usize) -> Result<usize, crate::LayoutError> {
        if i >= self.try_size()? {
            return Err(crate::LayoutError::Refused {
                op: "call",
                why: crate::Refusal::OutOfShape,
            });
        }
        self.checked_cosize()
            .ok_or(crate::LayoutError::CosizeOverflow)?;
        Ok(self.call(i))
    }
    /// One past the largest offset (CuTe's `cosize`).
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((3,4):(6,1)).cosize(), 16);
    /// assert_eq!(layout!((3,4):(0,1)).cosize(), 4);
    /// ```
    ///
    /// # Panics
    ///
    /// When the cosize of run-time leaves overflows `usize`
    /// ([`Layout::checked_cosize`] returns `None` instead).
    #[inline(always)]
    pub fn cosize(&self) -> usize {
        self.checked_cosize().expect("cosize overflows usize")
    }
    /// Whether the layout maps index `i` to offset `i` for every `i` (its
    /// elements are consecutive, in order): CuTe's `coalesce(L) == N:_1`.
    /// A constant for static layouts.
    ///
    /// ```
    /// use layout_core::layout;
    /// assert!(layout!((4,(2,3)):(1,(4,8))).is_contiguous());
    /// assert!(!layout!((4,2):(2,1)).is_contiguous());
    /// ```
    #[inline(always)]
    pub fn is_contiguous(&self) -> bool {
        self.shape.contiguous_from(self.stride, Some(1)).is_some()
    }
    /// `cosize`, or `None` when it does not fit `usize`.
    #[inline]
    ///
    /// ```
    /// use layout_core::layout;
    /// // (3,4):(6,1): largest offset 2*6 + 3*1 = 15, cosize 16.
    /// assert_eq!(layout!((3,4):(6,1)).checked_cosize(), Some(16));
    /// let big = usize::MAX / 2;
    /// assert_eq!(layout!((3, 2):(big, 1)).checked_cosize(), None);
    /// ```
    pub fn checked_cosize(&self) -> Option<usize> {
        if self.shape.checked_size()? == 0 {
            return Some(0);
        }
        self.shape.checked_span(self.stride)?.checked_add(1)
    }
    /// CuTe's rank.
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((2,(2,2)):(4,(2,1))).rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        S::RANK
    }
    /// CuTe's depth.
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((2,(2,2)):(4,(2,1))).depth(), 2);
    /// ```
    pub fn depth(&self) -> usize {
        S::DEPTH
    }
    /// Whether every leaf of shape and stride is static.
    pub const IS_STATIC: bool = S::ALL_STATIC && D::ALL_STATIC;

    /// The offset of a coordinate: an integer (1-D index), a tuple with one
    /// entry per mode (each an integer or a tuple), or a natural coordinate.
    ///
    /// ```
    /// use layout_core::{crd, layout};
    /// let h = layout!((2,(2,2)):(4,(2,1)));
    /// assert_eq!(h.crd2idx(crd!(1, (1, 0))), 6);
    /// assert_eq!(h.crd2idx(crd!(1, 1)), 6);
    /// assert_eq!(h.crd2idx(3usize), 6);
    /// ```
    #[inline(always)]
    pub fn crd2idx<Crd: Crd2Idx<S, D>>(&self, c: Crd) -> usize
    where
        Crd::Checked: Copy,
    {
        c.crd2idx(self.shape, self.stride)
    }
    /// The offset of a 1-D index (CuTe's `layout(i)`).
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::layout;
    /// // Index 3 of (2,(2,2)) is the coordinate (1,(1,0)): 4 + 2 = 6.
    /// assert_eq!(layout!((2,(2,2)):(4,(2,1))).call(3), 6);
    /// ```
    pub fn call(&self, i: usize) -> usize {
        self.shape.index_offset(self.stride, i)
    }
    /// The natural coordinate of a 1-D index (CuTe's `idx2crd(i, shape)`).
    ///
    /// ```
    /// use layout_core::layout;
    /// let l = layout!((3,4):(4,1));
    /// assert_eq!(l.idx2crd(7), (1, 2));
    /// ```
    #[inline(always)]
    pub fn idx2crd(&self, i: usize) -> S::Dyn {
        self.shape.idx2crd(i)
    }
    /// The coordinate whose offset is `offset`, for a compact layout (CuTe's
    /// `get_hier_coord`, i.e. `idx2crd(offset, shape, stride)`): each leaf is
    /// `(offset / d) % s`. Only meaningful when the layout is a bijection onto
    /// its cosize.
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((3,4):(4,1)).get_hier_coord(7), (1, 3));
    /// ```
    #[inline(always)]
    pub fn get_hier_coord(&self, offset: usize) -> S::Dyn {
        self.shape
            .idx2crd(self.shape.hier_index(self.stride, offset))
    }
    /// The same layout with every leaf a run-time `usize` (still a typed
    /// [`Layout`]; [`crate::DynLayout`] is the layout known only at run time).
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((3,4):(4,1)).with_dynamic_leaves().to_string(), "(3,4):(4,1)");
    /// ```
    pub fn with_dynamic_leaves(&self) -> Layout<S::Dyn, D::Dyn>
    where
        D::Dyn: IntTuple,
        S::Dyn: Congruent<D::Dyn>,
    {
        Layout::new(self.shape.to_dyn(), self.stride.to_dyn())
    }
    /// The 1-D table `[L(0), L(1), ...]`.
    #[cfg(feature = "alloc")]
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((2,2):(2,1)).table(), vec![0, 2, 1, 3]);
    /// ```
    pub fn table(&self) -> alloc::vec::Vec<usize> {
        (0..self.size()).map(|i| self.call(i)).collect()
    }
}

impl<S: Congruent<D>, D: IntTuple> fmt::Display for Layout<S, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A static layout's text is a constant: printing it generates no
        // per-type code.
        if S::ALL_STATIC && D::ALL_STATIC {
            let t = const { Text::EMPTY.text(S::TEXT).byte(b':').text(D::TEXT) };
            if t.is_complete() {
                return f.write_str(t.as_str());
            }
        }
        self.shape.write_cute(f)?;
        f.write_str(":")?;
        self.stride.write_cute(f)
    }
}
impl<S: Congruent<D>, D: IntTuple> fmt::Debug for Layout<S, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Build a layout from a shape and a stride (CuTe's `make_layout(shape, stride)`).
///
/// ```
/// use layout_core::{make_layout, C};
/// let l = make_layout((C::<3>, C::<4>), (C::<4>, C::<1>));
/// assert_eq!(l.to_string(), "(_3,_4):(_4,_1)");
/// ```
#[inline(always)]
pub fn make_layout<S: Congruent<D>, D: IntTuple>(shape: S, stride: D) -> Layout<S, D> {
    Layout::new(shape, stride)
}

impl<S, D> Layout<S, D> {
    /// Pair a shape with a stride whose congruence the caller's types already
    /// guarantee (an algebra result type built from congruent parts).
    #[inline(always)]
    pub(crate) const fn raw(shape: S, stride: D) -> Self {
        Layout { shape, stride }
    }
    /// Shape and stride, whatever their bounds.
    #[inline(always)]
    pub(crate) fn into_raw(self) -> (S, D) {
        (self.shape, self.stride)
    }
}

/// Turn a list of `(shape, stride)` pairs into a layout.
#[doc(hidden)]
pub trait ModesToLayout {
    type Out;
    fn to_layout(self) -> Self::Out;
}
impl<L: crate::typelevel::list::Unzip> ModesToLayout for L
where
    L::A: IntoTuple,
    L::B: IntoTuple,
    <L::A as IntoTuple>::Tuple: Congruent<<L::B as IntoTuple>::Tuple>,
    <L::B as IntoTuple>::Tuple: IntTuple,
{
    type Out = Layout<<L::A as IntoTuple>::Tuple, <L::B as IntoTuple>::Tuple>;
    #[inline(always)]
    fn to_layout(self) -> Self::Out {
        let (a, b) = self.unzip();
        Layout::new(a.into_tuple(), b.into_tuple())
    }
}

impl<S: Congruent<D> + NoteText, D: IntTuple + NoteText> NoteText for Layout<S, D> {
    const TEXT: Text = Text::EMPTY
        .text(<S as NoteText>::TEXT)
        .byte(b':')
        .text(<D as NoteText>::TEXT);
    #[inline(always)]
    fn note_vals(&self, n: &mut Note) {
        self.shape().note_vals(n);
        self.stride().note_vals(n);
    }
}

/// A layout's parts as types.
pub trait LayoutParts {
    /// The shape type.
    type Shape: IntTuple;
    /// The stride type.
    type Stride: IntTuple;
    /// Shape and stride.
    fn parts(self) -> (Self::Shape, Self::Stride);
}
impl<Sh: Congruent<D>, D: IntTuple> LayoutParts for Layout<Sh, D> {
    type Shape = Sh;
    type Stride = D;
    #[inline(always)]
    fn parts(self) -> (Sh, D) {
        (self.shape(), self.stride())
    }
}

/// A layout type's text and leaves as constants.
pub trait StaticText {
    /// Shape leaves.
    const SHAPE: Leaves;
    /// Stride leaves.
    const STRIDE: Leaves;
    /// CuTe notation.
    const TEXT: Text;
}
impl<Sh: Congruent<D>, D: IntTuple> StaticText for Layout<Sh, D> {
    const SHAPE: Leaves = Sh::LEAF_VALUES;
    const STRIDE: Leaves = D::LEAF_VALUES;
    const TEXT: Text = layout_text::<Sh, D>();
}

/// A layout in CuTe notation, as a constant.
pub(crate) const fn layout_text<Sh: IntTuple, D: IntTuple>() -> Text {
    Text::EMPTY.text(Sh::TEXT).byte(b':').text(D::TEXT)
}
