//! Register fragments: owned tensors over an array whose length is the
//! static cosize of their layout, known at compile time (no heap, no
//! run-time offset). CuTe's `make_fragment_like` / `make_layout_like` give
//! the compact layout of a fragment shaped like a partition.

use crate::layout::coord::Crd2Idx;
use crate::layout::{Congruent, Layout};
use crate::tensor::Tensor;
use crate::typelevel::form::Known;
use crate::typelevel::list::{CosizeList, ZipModes};
use crate::typelevel::tuple::IntTuple;
use core::ops::{Index, IndexMut};
use generic_array::{ArrayLength, GenericArray};

/// A layout whose cosize is static: the length of a fragment's array.
#[diagnostic::on_unimplemented(
    message = "a fragment needs a layout whose cosize is static; `{Self}` has run-time leaves",
    label = "the array length must be known at compile time"
)]
pub trait StaticCosize: Copy {
    /// The cosize as a typenum unsigned.
    type Len: ArrayLength;
}
/// The span `Known<U>` of a static layout: `U + 1` elements.
#[doc(hidden)]
pub trait KnownLen {
    type Len: ArrayLength;
}
impl<U: core::ops::Add<typenum::B1>> KnownLen for Known<U>
where
    typenum::Add1<U>: ArrayLength,
{
    type Len = typenum::Add1<U>;
}
type Span<S, D> =
    <<<S as IntTuple>::Leaves as ZipModes<<D as IntTuple>::Leaves>>::Out as CosizeList<
        Known<typenum::U0>,
    >>::Out;
impl<S: Congruent<D>, D: IntTuple> StaticCosize for Layout<S, D>
where
    S::Leaves: ZipModes<D::Leaves>,
    <S::Leaves as ZipModes<D::Leaves>>::Out: CosizeList<Known<typenum::U0>>,
    Span<S, D>: KnownLen,
{
    type Len = <Span<S, D> as KnownLen>::Len;
}

/// An owned tensor over `cosize(L)` elements held in place (CuTe's register
/// fragment, `make_tensor<T>(layout)` with a static layout). Indexing by a
/// coordinate is the layout's offset into the array: with a static layout
/// and coordinates in visible ranges it compiles to the same code as
/// indexing a plain array.
///
/// ```
/// use layout_core::{crd, tensor::fragment::Fragment, layout};
/// let mut acc: Fragment<f32, _> = Fragment::new(layout!((4,2):(2,1)));
/// acc[crd!(3, 1)] = 1.5;
/// assert_eq!(acc.as_slice()[3 * 2 + 1], 1.5);
/// assert_eq!(acc.as_slice().len(), 8);
/// assert_eq!(acc.layout().to_string(), "(_4,_2):(_2,_1)");
/// ```
pub struct Fragment<T, L: StaticCosize> {
    data: GenericArray<T, L::Len>,
    layout: L,
}

impl<T: Clone, L: StaticCosize> Clone for Fragment<T, L> {
    fn clone(&self) -> Self {
        Fragment {
            data: self.data.clone(),
            layout: self.layout,
        }
    }
}
impl<T: Copy, L: StaticCosize> Copy for Fragment<T, L> where GenericArray<T, L::Len>: Copy {}

impl<T: Default, L: StaticCosize> Fragment<T, L> {
    /// A fragment of default values (zeros for numbers).
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, tensor::fragment::Fragment, layout};
    /// let acc: Fragment<f32, _> = Fragment::new(layout!((2,2):(1,2)));
    /// assert_eq!(acc.as_slice(), &[0.0; 4]);
    /// ```
    pub fn new(layout: L) -> Self {
        Fragment {
            data: GenericArray::default(),
            layout,
        }
    }
}

impl<T, L: StaticCosize> Fragment<T, L> {
    /// The layout.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, tensor::fragment::Fragment, layout};
    /// let acc: Fragment<f32, _> = Fragment::new(layout!((2,4):(4,1)));
    /// assert_eq!(acc.layout().to_string(), "(_2,_4):(_4,_1)");
    /// ```
    pub fn layout(&self) -> L {
        self.layout
    }
    /// The elements, in storage order.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, tensor::fragment::Fragment, layout};
    /// let mut acc: Fragment<i32, _> = Fragment::new(layout!((2,2):(2,1)));
    /// acc[crd!(1, 0)] = 7; // offset 1*2 + 0
    /// assert_eq!(acc.as_slice(), &[0, 0, 7, 0]);
    /// ```
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
    /// The elements, in storage order.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, tensor::fragment::Fragment, layout};
    /// let mut acc: Fragment<i32, _> = Fragment::new(layout!((2,2):(2,1)));
    /// acc.as_mut_slice()[3] = 9;
    /// assert_eq!(acc[crd!(1, 1)], 9); // offset 1*2 + 1
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
    /// Set every element to `v` (one pass over the array, no per-element check).
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, tensor::fragment::Fragment, layout};
    /// let mut acc: Fragment<i32, _> = Fragment::new(layout!(3:1));
    /// acc.fill(4);
    /// assert_eq!(acc.as_slice(), &[4, 4, 4]);
    /// ```
    pub fn fill(&mut self, v: T)
    where
        T: Copy,
    {
        for x in self.data.iter_mut() {
            *x = v;
        }
    }
    /// Set every element to its default (zero): CuTe's `clear`.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, tensor::fragment::Fragment, layout};
    /// let mut acc: Fragment<i32, _> = Fragment::new(layout!(3:1));
    /// acc.fill(4);
    /// acc.clear();
    /// assert_eq!(acc.as_slice(), &[0, 0, 0]);
    /// ```
    pub fn clear(&mut self)
    where
        T: Copy + Default,
    {
        self.fill(T::default())
    }
}

impl<T, S: Congruent<D>, D: IntTuple> Fragment<T, Layout<S, D>>
where
    Layout<S, D>: StaticCosize,
{
    /// A read-only tensor view (to partition or copy from).
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, tensor::fragment::Fragment, layout};
    /// let mut acc: Fragment<i32, _> = Fragment::new(layout!((2,2):(2,1)));
    /// acc[crd!(0, 1)] = 5;
    /// let v = acc.view();
    /// assert_eq!(v.slice(crd!(0, _)).layout().to_string(), "(_2):(_1)");
    /// assert_eq!(v[crd!(0, 1)], 5);
    /// ```
    pub fn view(&self) -> Tensor<&[T], Layout<S, D>> {
        Tensor::covering(&self.data[..], self.layout)
    }
    /// A writable tensor view (to partition or copy into).
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, tensor::fragment::Fragment, layout};
    /// let mut acc: Fragment<i32, _> = Fragment::new(layout!((2,2):(2,1)));
    /// acc.view_mut()[crd!(1, 1)] = 6;
    /// assert_eq!(acc.as_slice()[3], 6);
    /// ```
    pub fn view_mut(&mut self) -> Tensor<&mut [T], Layout<S, D>> {
        Tensor::covering(&mut self.data[..], self.layout)
    }
}

impl<T, S: Congruent<D>, D: IntTuple, Crd: Crd2Idx<S, D>> Index<Crd> for Fragment<T, Layout<S, D>>
where
    Layout<S, D>: StaticCosize,
{
    type Output = T;
    /// The element at a coordinate; panics outside the shape.
    #[inline(always)]
    #[track_caller]
    fn index(&self, c: Crd) -> &T {
        assert!(
            c.in_shape(self.layout.shape()),
            "fragment coordinate outside the shape"
        );
        &self.data[self.layout.crd2idx(c)]
    }
}
impl<T, S: Congruent<D>, D: IntTuple, Crd: Crd2Idx<S, D>> IndexMut<Crd>
    for Fragment<T, Layout<S, D>>
where
    Layout<S, D>: StaticCosize,
{
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, c: Crd) -> &mut T {
        assert!(
            c.in_shape(self.layout.shape()),
            "fragment coordinate outside the shape"
        );
        &mut self.data[self.layout.crd2idx(c)]
    }
}

/// The layout of `make_layout_like(L)`: L's shape, compact strides in the
/// order of L's strides (stride-0 modes keep stride 0).
pub type LayoutLike<S, D> = Layout<
    S,
    <D as crate::layout::compact::OrderedStride<
        <S as crate::algebra::filter::FilterZerosShape<D>>::Out,
        <D as crate::layout::compact::OrderPairs<
            <S as crate::algebra::filter::FilterZerosShape<D>>::Out,
        >>::Pairs,
    >>::Stride,
>;

/// CuTe's `make_layout_like(layout)`: a compact layout of the same shape
/// whose strides follow the order of the layout's strides (modes of stride 0
/// stay broadcast). Static strides only (CuTe falls back to column-major for
/// run-time strides; the typed order needs them at compile time).
///
/// ```
/// use layout_core::{tensor::fragment::make_layout_like, layout};
/// let l = make_layout_like(layout!((4,(2,3),(4,1,2)):(16,(3,2),(4,8,8))));
/// assert_eq!(l.to_string(), "(_4,(_2,_3),(_4,_1,_2)):(_48,(_3,_1),(_6,_0,_24))");
/// ```
///
/// # Panics
///
/// When run-time extents multiply past `usize`; never for a static shape.
#[track_caller]
pub fn make_layout_like<S, D>(l: Layout<S, D>) -> LayoutLike<S, D>
where
    S: Congruent<D> + crate::algebra::filter::FilterZerosShape<D>,
    D: IntTuple
        + crate::layout::compact::OrderPairs<<S as crate::algebra::filter::FilterZerosShape<D>>::Out>
        + crate::layout::compact::OrderedStride<
            <S as crate::algebra::filter::FilterZerosShape<D>>::Out,
            <D as crate::layout::compact::OrderPairs<
                <S as crate::algebra::filter::FilterZerosShape<D>>::Out,
            >>::Pairs,
        >,
    S: Congruent<
        <D as crate::layout::compact::OrderedStride<
            <S as crate::algebra::filter::FilterZerosShape<D>>::Out,
            <D as crate::layout::compact::OrderPairs<
                <S as crate::algebra::filter::FilterZerosShape<D>>::Out,
            >>::Pairs,
        >>::Stride,
    >,
    <D as crate::layout::compact::OrderedStride<
        <S as crate::algebra::filter::FilterZerosShape<D>>::Out,
        <D as crate::layout::compact::OrderPairs<
            <S as crate::algebra::filter::FilterZerosShape<D>>::Out,
        >>::Pairs,
    >>::Stride: IntTuple,
    <S as crate::algebra::filter::FilterZerosShape<D>>::Out: Copy,
{
    let z = l.shape().filter_zeros_shape();
    let d = l.stride();
    let all = d.pairs(z);
    match d.ordered_stride(z, all) {
        Some(stride) => Layout::new(l.shape(), stride),
        None => crate::layout::compact::extents_overflow("make_layout_like"),
    }
}

/// A layout `make_fragment_like` applies to: its compact fragment layout.
#[diagnostic::on_unimplemented(
    message = "make_fragment_like: no fragment layout for `{Self}`",
    label = "a static shape of rank 1 to 4 with static strides"
)]
pub trait FragmentLike {
    /// CuTe's `make_fragment_like(layout)`.
    type Out: StaticCosize;
    /// The fragment layout.
    fn fragment_like(self) -> Self::Out;
}
macro_rules! leaf_fragment_like {
    ($t:ty; $($g:tt)*) => {
        impl<D: IntTuple, $($g)*> FragmentLike for Layout<$t, D>
        where
            $t: Congruent<D> + crate::layout::compact::Compact<crate::C<1>> + Congruent<<$t as crate::layout::compact::Compact<crate::C<1>>>::Left>,
            Layout<$t, <$t as crate::layout::compact::Compact<crate::C<1>>>::Left>: StaticCosize,
        {
            type Out = Layout<$t, <$t as crate::layout::compact::Compact<crate::C<1>>>::Left>;
            #[inline(always)]
            fn fragment_like(self) -> Self::Out {
                crate::layout::compact::make_layout_left(self.shape())
            }
        }
    };
}
// Static leaves only: a run-time extent has no compile-time array length.
leaf_fragment_like!(crate::C<N>; const N: usize);
leaf_fragment_like!(crate::S<U>; U: typenum::Unsigned + 'static);

/// Rank 1: the column-major layout of the shape.
impl<S0, D0> FragmentLike for Layout<(S0,), (D0,)>
where
    (S0,): Congruent<(D0,)>
        + crate::layout::compact::Compact<crate::C<1>>
        + Congruent<<(S0,) as crate::layout::compact::Compact<crate::C<1>>>::Left>,
    (D0,): IntTuple,
    Layout<(S0,), <(S0,) as crate::layout::compact::Compact<crate::C<1>>>::Left>: StaticCosize,
{
    type Out = Layout<(S0,), <(S0,) as crate::layout::compact::Compact<crate::C<1>>>::Left>;
    #[inline(always)]
    fn fragment_like(self) -> Self::Out {
        crate::layout::compact::make_layout_left(self.shape())
    }
}

/// The layout of a fragment's modes after the first: compact in the order
/// of their strides when those are static (CuTe's `make_ordered_layout`),
/// column-major when a stride is known only at run time (a register
/// fragment's order is a type: CuTe orders run-time strides at run time,
/// which changes which register holds which element, not the elements).
#[doc(hidden)]
pub trait RestOrder<S, D> {
    type Out: Copy;
    fn rest(s: S, d: D) -> Self::Out;
}
impl<S, D> RestOrder<S, D> for typenum::B1
where
    D: crate::layout::compact::OrderPairs<S>
        + crate::layout::compact::OrderedStride<
            S,
            <D as crate::layout::compact::OrderPairs<S>>::Pairs,
        > + Copy,
    S: Congruent<
            <D as crate::layout::compact::OrderedStride<
                S,
                <D as crate::layout::compact::OrderPairs<S>>::Pairs,
            >>::Stride,
        > + Copy,
    <D as crate::layout::compact::OrderedStride<
        S,
        <D as crate::layout::compact::OrderPairs<S>>::Pairs,
    >>::Stride: IntTuple,
{
    type Out = Layout<
        S,
        <D as crate::layout::compact::OrderedStride<
            S,
            <D as crate::layout::compact::OrderPairs<S>>::Pairs,
        >>::Stride,
    >;
    #[inline(always)]
    #[track_caller]
    fn rest(s: S, d: D) -> Self::Out {
        crate::layout::compact::make_ordered_layout(s, d)
    }
}
impl<S, D> RestOrder<S, D> for typenum::B0
where
    S: crate::layout::compact::Compact<crate::C<1>>
        + Congruent<<S as crate::layout::compact::Compact<crate::C<1>>>::Left>
        + Copy,
{
    type Out = Layout<S, <S as crate::layout::compact::Compact<crate::C<1>>>::Left>;
    #[inline(always)]
    #[track_caller]
    fn rest(s: S, _d: D) -> Self::Out {
        crate::layout::compact::make_layout_left(s)
    }
}
/// [`RestOrder`] chosen by whether the strides are all static.
type RestOf<S, D> = <<D as IntTuple>::AllStatic as RestOrder<S, D>>::Out;

/// Mode 0 made compact column-major (stride-0 leaves kept), the other modes
/// ordered like the layout's strides (column-major where a stride is a
/// run-time value), then `tiled_product` of the two: `(mode 0, (rest...))`
/// as CuTe builds a fragment for an MMA or copy atom.
macro_rules! tuple_fragment_like {
    ($($s:ident $d:ident),+) => {
        impl<S0, D0, $($s, $d),+> FragmentLike for Layout<(S0, $($s),+), (D0, $($d),+)>
        where
            (S0, $($s),+): Congruent<(D0, $($d),+)>,
            (D0, $($d),+): IntTuple,
            S0: Congruent<D0> + crate::algebra::filter::FilterZerosShape<D0>,
            D0: IntTuple,
            <S0 as crate::algebra::filter::FilterZerosShape<D0>>::Out: crate::layout::compact::Compact<crate::C<1>>,
            S0: Congruent<<<S0 as crate::algebra::filter::FilterZerosShape<D0>>::Out as crate::layout::compact::Compact<crate::C<1>>>::Left>,
            ($($s,)+): Congruent<($($d,)+)> + Copy,
            ($($d,)+): IntTuple,
            <($($d,)+) as IntTuple>::AllStatic: RestOrder<($($s,)+), ($($d,)+)>,
            RestOf<($($s,)+), ($($d,)+)>:
                crate::algebra::ProductParts<Layout<S0, <<S0 as crate::algebra::filter::FilterZerosShape<D0>>::Out as crate::layout::compact::Compact<crate::C<1>>>::Left>>
                + crate::algebra::ZipProductParts<Layout<S0, <<S0 as crate::algebra::filter::FilterZerosShape<D0>>::Out as crate::layout::compact::Compact<crate::C<1>>>::Left>>,
            <RestOf<($($s,)+), ($($d,)+)>
                as crate::algebra::ZipProductParts<Layout<S0, <<S0 as crate::algebra::filter::FilterZerosShape<D0>>::Out as crate::layout::compact::Compact<crate::C<1>>>::Left>>>::Zipped: crate::algebra::Unpack,
            <<RestOf<($($s,)+), ($($d,)+)>
                as crate::algebra::ZipProductParts<Layout<S0, <<S0 as crate::algebra::filter::FilterZerosShape<D0>>::Out as crate::layout::compact::Compact<crate::C<1>>>::Left>>>::Zipped as crate::algebra::Unpack>::Tiled:
                crate::algebra::StaticResult + StaticCosize,
        {
            type Out = <<RestOf<($($s,)+), ($($d,)+)>
                as crate::algebra::ZipProductParts<Layout<S0, <<S0 as crate::algebra::filter::FilterZerosShape<D0>>::Out as crate::layout::compact::Compact<crate::C<1>>>::Left>>>::Zipped as crate::algebra::Unpack>::Tiled;
            #[inline(always)]
            #[allow(non_snake_case)]
            fn fragment_like(self) -> Self::Out {
                let ((s0, $($s),+), (_d0, $($d),+)) = (self.shape(), self.stride());
                let z0 = s0.filter_zeros_shape();
                let first = Layout::new(s0, crate::layout::compact::compact_col_major(z0));
                let rest = <<($($d,)+) as IntTuple>::AllStatic as RestOrder<($($s,)+), ($($d,)+)>>::rest(($($s,)+), ($($d,)+));
                crate::algebra::values::or_panic(
                    crate::algebra::product::zipped_product_parts(first, rest, crate::algebra::Unpack::tiled),
                )
            }
        }
    };
}
tuple_fragment_like!(S1 D1);
tuple_fragment_like!(S1 D1, S2 D2);
tuple_fragment_like!(S1 D1, S2 D2, S3 D3);

/// CuTe's `make_fragment_like(layout)`: the compact layout a register
/// fragment of that shape gets (mode 0 column-major, the other modes in the
/// order of the layout's strides, column-major where a stride is a run-time
/// value), and a [`Fragment`] of it. The shape must be static.
///
/// ```
/// use layout_core::{tensor::fragment::make_fragment_like, layout};
/// let f = make_fragment_like::<f32, _>(layout!((4,5):(1,8)));
/// assert_eq!(f.layout().to_string(), "(_4,(_5)):(_1,(_4))");
/// assert_eq!(f.as_slice().len(), 20);
/// // A thread's part of a column-major C with a run-time leading dimension:
/// // the rest modes in column-major order.
/// let m = 100;
/// let g = make_fragment_like::<f32, _>(layout!((8,8,2):(16,{16 * m},{8 * m})));
/// assert_eq!(g.layout().to_string(), "(_8,_8,_2):(_1,_8,_64)");
/// ```
pub fn make_fragment_like<T: Default, L: FragmentLike>(l: L) -> Fragment<T, L::Out> {
    Fragment::new(l.fragment_like())
}
