//! Register fragments: owned tensors over an array whose length is the
//! static cosize of their layout, known at compile time (no heap, no
//! run-time offset). CuTe's `make_fragment_like` / `make_layout_like` give
//! the compact layout of a fragment shaped like a partition.

use crate::algebra::typelevel::{CosizeList, Known, ZipModes};
use crate::coord::Crd2Idx;
use crate::layout::{Congruent, Layout};
use crate::tensor::Tensor;
use crate::tuple::IntTuple;
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
/// use layout_core::{crd, fragment::Fragment, layout};
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
    pub fn layout(&self) -> L {
        self.layout
    }
    /// The elements, in storage order.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
    /// The elements, in storage order.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
    /// Set every element to `v` (one pass over the array, no per-element check).
    #[inline(always)]
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
    pub fn view(&self) -> Tensor<&[T], Layout<S, D>> {
        Tensor::covering(&self.data[..], self.layout)
    }
    /// A writable tensor view (to partition or copy into).
    #[inline(always)]
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
