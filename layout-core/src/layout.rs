//! `Layout<Shape, Stride>`: congruent shape and stride, and the function from
//! coordinates to offsets (CuTe's `crd2idx`).

use crate::coord::Crd2Idx;
use crate::int::Int;
use crate::tuple::{add_opt, for_each_leaf, mul_opt, IntTuple};
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

/// Congruence of tuples, one impl per rank, so that a rank or nesting
/// mismatch is reported on `Congruent` itself, with both tuples named.
macro_rules! congruent_tuple {
    ($n:literal; $(($s:ident, $d:ident)),*) => {
        #[allow(non_snake_case, unused_mut, unused_variables, unused_assignments)]
        impl<$($s: Congruent<$d>, $d: IntTuple),*> Congruent<($($d,)*)> for ($($s,)*)
        where
            ($($s,)*): IntTuple,
            ($($d,)*): IntTuple,
        {
            const STATIC_SPAN: Option<usize> = {
                let mut acc = Some(0);
                $(acc = add_opt(acc, $s::STATIC_SPAN);)*
                acc
            };
            #[inline(always)]
            fn index_offset(self, d: ($($d,)*), i: usize) -> usize {
                let ($($s,)*) = self;
                let ($($d,)*) = d;
                let mut i = i;
                let mut off = 0;
                let mut left: usize = $n;
                $(
                    left -= 1;
                    if left == 0 {
                        // The last mode is not reduced modulo its size.
                        off += $s.index_offset($d, i);
                    } else {
                        let n = $s.size();
                        off += $s.index_offset($d, i % n);
                        i /= n;
                    }
                )*
                off
            }
            fn checked_span(self, d: ($($d,)*)) -> Option<usize> {
                let ($($s,)*) = self;
                let ($($d,)*) = d;
                let mut acc = 0usize;
                $(acc = acc.checked_add($s.checked_span($d)?)?;)*
                Some(acc)
            }
            fn for_each_pair(self, d: ($($d,)*), f: &mut dyn FnMut(usize, bool, usize, bool)) {
                let ($($s,)*) = self;
                let ($($d,)*) = d;
                $($s.for_each_pair($d, f);)*
            }
        }
    };
}
congruent_tuple!(0; );
congruent_tuple!(1; (S0, D0));
congruent_tuple!(2; (S0, D0), (S1, D1));
congruent_tuple!(3; (S0, D0), (S1, D1), (S2, D2));
congruent_tuple!(4; (S0, D0), (S1, D1), (S2, D2), (S3, D3));
congruent_tuple!(5; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4));
congruent_tuple!(6; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5));
congruent_tuple!(7; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6));
congruent_tuple!(8; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7));
congruent_tuple!(9; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7), (S8, D8));
congruent_tuple!(10; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7), (S8, D8), (S9, D9));
congruent_tuple!(11; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7), (S8, D8), (S9, D9), (S10, D10));
congruent_tuple!(12; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7), (S8, D8), (S9, D9), (S10, D10), (S11, D11));

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
                leaves[k] = if d == 0 || s == 0 {
                    0
                } else {
                    (offset / d) % s
                };
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
        // A static layout's text is a constant: printing it generates no
        // per-type code.
        if S::ALL_STATIC && D::ALL_STATIC {
            let t = const {
                crate::ctext::Text::EMPTY
                    .text(S::TEXT)
                    .byte(b':')
                    .text(D::TEXT)
            };
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
