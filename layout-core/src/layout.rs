//! `Layout<Shape, Stride>`: congruent shape and stride, and the function from
//! coordinates to offsets (CuTe's `crd2idx`).

use crate::coord::Crd2Idx;
use crate::int::Int;
use crate::tuple::{add_opt, for_each_leaf, mul_opt, Cons, IntList, IntTuple, List, Nil, Tuple};
use core::fmt;

/// A shape and a stride that nest the same way (CuTe's congruence), with the
/// 1-D index evaluation that needs both.
#[diagnostic::on_unimplemented(
    message = "stride `{D}` is not congruent with shape `{Self}`",
    label = "shape and stride must nest the same way",
    note = "a layout pairs every shape leaf with one stride leaf, as in `(2,(2,2)):(4,(2,1))`"
)]
pub trait Congruent<D: IntTuple>: IntTuple {
    /// The largest offset, when every leaf is static.
    const STATIC_SPAN: Option<usize>;
    /// The offset of a 1-D (colexicographic) index: the last mode takes
    /// whatever the others leave, as CuTe does.
    fn index_offset(self, d: D, i: usize) -> usize;
    /// The largest offset of any coordinate in the shape, `None` on overflow.
    fn checked_span(self, d: D) -> Option<usize>;
    /// Visit every (shape leaf, stride leaf) pair: `(s, s_static, d, d_static)`.
    fn for_each_pair(self, d: D, f: &mut dyn FnMut(usize, bool, usize, bool));
}

macro_rules! leaf_congruent {
    ($t:ty; $($g:tt)*) => {
        impl<D: Int, $($g)*> Congruent<D> for $t {
            const STATIC_SPAN: Option<usize> = match (<$t as Int>::STATIC, D::STATIC) {
                (Some(0), Some(_)) => Some(0),
                (Some(s), Some(d)) => mul_opt(Some(s - 1), Some(d)),
                _ => None,
            };
            #[inline(always)]
            fn index_offset(self, d: D, i: usize) -> usize {
                i * d.value()
            }
            fn checked_span(self, d: D) -> Option<usize> {
                self.value().saturating_sub(1).checked_mul(d.value())
            }
            fn for_each_pair(self, d: D, f: &mut dyn FnMut(usize, bool, usize, bool)) {
                f(self.value(), <$t as Int>::STATIC.is_some(), d.value(), D::STATIC.is_some())
            }
        }
    };
}
for_each_leaf!(leaf_congruent);

/// The list-level half of [`Congruent`].
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "stride modes `{D}` do not match shape modes `{Self}`",
    label = "different rank or nesting"
)]
pub trait CongruentList<D: List>: IntList {
    const STATIC_SPAN: Option<usize>;
    fn index_offset(self, d: D, i: usize) -> usize;
    fn checked_span(self, d: D) -> Option<usize>;
    fn for_each_pair(self, d: D, f: &mut dyn FnMut(usize, bool, usize, bool));
}

impl CongruentList<Nil> for Nil {
    const STATIC_SPAN: Option<usize> = Some(0);
    #[inline(always)]
    fn index_offset(self, _d: Nil, _i: usize) -> usize {
        0
    }
    fn checked_span(self, _d: Nil) -> Option<usize> {
        Some(0)
    }
    fn for_each_pair(self, _d: Nil, _f: &mut dyn FnMut(usize, bool, usize, bool)) {}
}

impl<SH, DH, ST, DT> CongruentList<Cons<DH, DT>> for Cons<SH, ST>
where
    SH: Congruent<DH>,
    DH: IntTuple,
    ST: CongruentList<DT>,
    DT: List,
    Cons<SH, ST>: IntList,
    Cons<DH, DT>: List,
{
    const STATIC_SPAN: Option<usize> = add_opt(SH::STATIC_SPAN, ST::STATIC_SPAN);
    #[inline(always)]
    fn index_offset(self, d: Cons<DH, DT>, i: usize) -> usize {
        if ST::LEN == 0 {
            // The last mode is not reduced modulo its size.
            self.0.index_offset(d.0, i)
        } else {
            let n = self.0.size();
            self.0.index_offset(d.0, i % n) + self.1.index_offset(d.1, i / n)
        }
    }
    fn checked_span(self, d: Cons<DH, DT>) -> Option<usize> {
        self.0.checked_span(d.0)?.checked_add(self.1.checked_span(d.1)?)
    }
    fn for_each_pair(self, d: Cons<DH, DT>, f: &mut dyn FnMut(usize, bool, usize, bool)) {
        self.0.for_each_pair(d.0, f);
        self.1.for_each_pair(d.1, f);
    }
}

impl<S: Tuple + IntTuple, D: Tuple + IntTuple> Congruent<D> for S
where
    S::List: CongruentList<D::List>,
{
    const STATIC_SPAN: Option<usize> = <S::List as CongruentList<D::List>>::STATIC_SPAN;
    #[inline(always)]
    fn index_offset(self, d: D, i: usize) -> usize {
        self.into_list().index_offset(d.into_list(), i)
    }
    fn checked_span(self, d: D) -> Option<usize> {
        self.into_list().checked_span(d.into_list())
    }
    fn for_each_pair(self, d: D, f: &mut dyn FnMut(usize, bool, usize, bool)) {
        self.into_list().for_each_pair(d.into_list(), f)
    }
}

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

    /// The size of the layout when its shape is static (CuTe's `size` as a constant).
    pub const SIZE: usize = match S::STATIC_SIZE {
        Some(n) => n,
        None => panic!("SIZE needs a layout with a static shape"),
    };
    /// The cosize when every leaf is static.
    pub const COSIZE: usize = match (S::STATIC_SIZE, S::STATIC_SPAN) {
        (Some(0), _) => 0,
        (Some(_), Some(span)) => span + 1,
        _ => panic!("COSIZE needs a layout whose leaves are all static"),
    };
    /// CuTe's rank: the number of top-level modes.
    pub const RANK: usize = S::RANK;
    /// CuTe's depth.
    pub const DEPTH: usize = S::DEPTH;

    /// The shape.
    #[inline(always)]
    pub fn shape(&self) -> S {
        self.shape
    }
    /// The stride.
    #[inline(always)]
    pub fn stride(&self) -> D {
        self.stride
    }
    /// Number of coordinates: the product of the shape.
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((3,4):(6,1)).size(), 12);
    /// ```
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.shape.size()
    }
    /// One past the largest offset (CuTe's `cosize`).
    ///
    /// ```
    /// use layout_core::layout;
    /// assert_eq!(layout!((3,4):(6,1)).cosize(), 16);
    /// assert_eq!(layout!((3,4):(0,1)).cosize(), 4);
    /// ```
    #[inline(always)]
    pub fn cosize(&self) -> usize {
        self.checked_cosize().expect("cosize overflows usize")
    }
    /// `cosize`, or `None` when it does not fit `usize`.
    pub fn checked_cosize(&self) -> Option<usize> {
        if self.shape.checked_size()? == 0 {
            return Some(0);
        }
        self.shape.checked_span(self.stride)?.checked_add(1)
    }
    /// CuTe's rank.
    pub fn rank(&self) -> usize {
        S::RANK
    }
    /// CuTe's depth.
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
    pub fn crd2idx<Crd: Crd2Idx<S, D>>(&self, c: Crd) -> usize {
        c.crd2idx(self.shape, self.stride)
    }
    /// The offset of a 1-D index (CuTe's `layout(i)`).
    #[inline(always)]
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
    /// Mode `I` as a layout (CuTe's `layout<I>(l)`); chain for paths
    /// (`l.get::<1>().get::<0>()` is CuTe's `layout<1,0>(l)`).
    ///
    /// ```
    /// use layout_core::layout;
    /// let h = layout!((2,(2,2)):(4,(2,1)));
    /// assert_eq!(h.get::<1>().to_string(), "(_2,_2):(_2,_1)");
    /// assert_eq!(h.get::<1>().get::<0>().size(), 2);
    /// ```
    #[inline(always)]
    pub fn get<const I: usize>(self) -> <Self as crate::ops::Mode<I>>::Output
    where
        Self: crate::ops::Mode<I>,
    {
        crate::ops::Mode::<I>::get(self)
    }
    /// The shape of mode `I` (CuTe's `shape<I>(l)`).
    #[inline(always)]
    pub fn shape_at<const I: usize>(&self) -> <S as crate::ops::Mode<I>>::Output
    where
        S: crate::ops::Mode<I>,
    {
        crate::ops::Mode::<I>::get(self.shape)
    }
    /// The stride of mode `I` (CuTe's `stride<I>(l)`).
    #[inline(always)]
    pub fn stride_at<const I: usize>(&self) -> <D as crate::ops::Mode<I>>::Output
    where
        D: crate::ops::Mode<I>,
    {
        crate::ops::Mode::<I>::get(self.stride)
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
    pub fn get_hier_coord(&self, offset: usize) -> S::Dyn {
        let mut leaves = [0usize; 64];
        let mut k = 0;
        self.shape.for_each_pair(self.stride, &mut |s, _, d, _| {
            if k < leaves.len() {
                leaves[k] = if d == 0 || s == 0 { 0 } else { (offset / d) % s };
            }
            k += 1;
        });
        // Refill a natural coordinate with these leaves, in order.
        let mut n = 0;
        let mut idx = 0usize;
        let mut mult = 1usize;
        self.shape.for_each_leaf(&mut |s, _| {
            if n < leaves.len() {
                idx += leaves[n] * mult;
            }
            mult = mult.saturating_mul(s);
            n += 1;
        });
        self.shape.idx2crd(idx)
    }
    /// The same layout with every leaf dynamic.
    pub fn to_dyn(&self) -> Layout<S::Dyn, D::Dyn>
    where
        D::Dyn: IntTuple,
        S::Dyn: Congruent<D::Dyn>,
    {
        Layout::new(self.shape.to_dyn(), self.stride.to_dyn())
    }
    /// The 1-D table `[L(0), L(1), ...]`.
    #[cfg(feature = "alloc")]
    pub fn table(&self) -> alloc::vec::Vec<usize> {
        (0..self.size()).map(|i| self.call(i)).collect()
    }
}

impl<S: Congruent<D>, D: IntTuple> fmt::Display for Layout<S, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
