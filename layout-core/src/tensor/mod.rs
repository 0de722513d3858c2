//! Tensors: storage plus a layout.
//!
//! Construction checks once that the storage covers the layout's cosize (at
//! compile time for arrays under static layouts); every access then checks
//! the coordinate against the shape, so no coordinate leaves the storage.

pub mod algorithm;
pub mod fragment;
pub mod memory;
pub mod partition;
pub mod raw;
pub mod tile_coord;

use crate::error::LayoutError;
use crate::layout::coord::Crd2Idx;
use crate::layout::slice::SliceCoord;
use crate::layout::{Congruent, Layout};
use crate::typelevel::form::Known;
use crate::typelevel::int::{ConstForm, TypenumForm, C, S};
use crate::typelevel::list::{CosizeList, CosizeT, PlusOne, ZipModes};
use crate::typelevel::tuple::IntTuple;
use core::ops::{Index, IndexMut};
use typenum::{IsLessOrEqual, LeEq, Unsigned, B0, B1, U0};

/// Read access to a tensor's elements.
pub trait Engine {
    /// The element type.
    type Elem;
    /// The elements.
    fn as_slice(&self) -> &[Self::Elem];
}
/// Write access to a tensor's elements.
pub trait EngineMut: Engine {
    /// The elements.
    fn as_mut_slice(&mut self) -> &mut [Self::Elem];
}
impl<T> Engine for &[T] {
    type Elem = T;
    fn as_slice(&self) -> &[T] {
        self
    }
}
impl<T> Engine for &mut [T] {
    type Elem = T;
    fn as_slice(&self) -> &[T] {
        self
    }
}
impl<T> EngineMut for &mut [T] {
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}
impl<T, const N: usize> Engine for [T; N] {
    type Elem = T;
    fn as_slice(&self) -> &[T] {
        self
    }
}
impl<T, const N: usize> EngineMut for [T; N] {
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}
#[cfg(feature = "alloc")]
impl<T> Engine for alloc::vec::Vec<T> {
    type Elem = T;
    fn as_slice(&self) -> &[T] {
        self
    }
}
#[cfg(feature = "alloc")]
impl<T> EngineMut for alloc::vec::Vec<T> {
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

/// A read-only tensor view.
pub type View<'a, T, L> = Tensor<&'a [T], L>;
/// A writable tensor view.
pub type ViewMut<'a, T, L> = Tensor<&'a mut [T], L>;

/// Storage plus a layout (CuTe's `Tensor`): `t[crd]` is `data[offset + layout(crd)]`.
///
/// ```
/// use layout_core::{crd, layout, Tensor};
/// let mut storage = [0i32; 16];
/// let mut a = Tensor::new(&mut storage[..], layout!((3,4):(6,1))).unwrap();
/// a[crd!(1, 2)] = 5;
/// assert_eq!(storage[8], 5);
/// ```
#[derive(Clone, Copy)]
pub struct Tensor<E, L> {
    data: E,
    offset: usize,
    layout: L,
}

/// The layout and the first element's offset (the elements are not printed).
///
/// ```
/// use layout_core::{layout, Tensor};
/// let t = Tensor::new(&[0u8; 6][..], layout!((2,3):(3,1))).unwrap();
/// assert_eq!(format!("{t:?}"), "Tensor { offset: 0, layout: (_2,_3):(_3,_1) }");
/// ```
impl<E, L: core::fmt::Debug> core::fmt::Debug for Tensor<E, L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Tensor")
            .field("offset", &self.offset)
            .field("layout", &self.layout)
            .finish()
    }
}

pub(crate) fn check_cover<S: Congruent<D>, D: IntTuple>(
    offset: usize,
    layout: &Layout<S, D>,
    len: usize,
) -> Result<(), LayoutError> {
    layout
        .shape()
        .checked_size()
        .ok_or(LayoutError::SizeOverflow)?;
    let cosize = layout.checked_cosize().ok_or(LayoutError::CosizeOverflow)?;
    let needed = offset
        .checked_add(cosize)
        .ok_or(LayoutError::CosizeOverflow)?;
    if needed > len {
        return Err(LayoutError::StorageTooShort { needed, len });
    }
    Ok(())
}

impl<E: Engine, S: Congruent<D>, D: IntTuple> Tensor<E, Layout<S, D>> {
    /// A tensor over `data`; `Err` when the storage is shorter than the
    /// layout's cosize or the cosize overflows.
    ///
    /// ```
    /// use layout_core::{layout, Tensor};
    /// let data = [0f32; 12];
    /// let t = Tensor::new(&data[..], layout!((3,4):(4,1))).unwrap();
    /// assert_eq!(t.layout().to_string(), "(_3,_4):(_4,_1)");
    /// // (3,4):(5,1) reaches offset 2*5 + 3 = 13: 14 elements needed.
    /// assert!(Tensor::new(&data[..], layout!((3,4):(5,1))).is_err());
    /// // (2^40, 2^40):(0, 0) reaches one element, but has 2^80 coordinates.
    /// let big = 1usize << 40;
    /// let e = Tensor::new(&data[..], layout!((big, big):(0, 0))).unwrap_err();
    /// assert_eq!(e.to_string(), "the layout's size (the product of its shape) overflows usize");
    /// ```
    pub fn new(data: E, layout: Layout<S, D>) -> Result<Self, LayoutError> {
        check_cover(0, &layout, data.as_slice().len())?;
        Ok(Tensor {
            data,
            offset: 0,
            layout,
        })
    }
    /// The storage.
    ///
    /// ```
    /// use layout_core::{layout, Tensor};
    /// let data = [1u8, 2, 3, 4];
    /// let t = Tensor::new(&data[..], layout!(2:2)).unwrap();
    /// assert_eq!(t.storage(), &[1, 2, 3, 4]);
    /// ```
    pub fn storage(&self) -> &[E::Elem] {
        self.data.as_slice()
    }
    /// The element at a coordinate, `None` when the coordinate is outside the shape.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let data = [0, 1, 2, 3, 4, 5];
    /// let t = Tensor::new(&data[..], layout!((2,3):(3,1))).unwrap();
    /// assert_eq!(t.get(crd!(1, 2)), Some(&5));
    /// assert_eq!(t.get((2usize, 0usize)), None); // row 2 is outside (2,3)
    /// ```
    pub fn get<Crd: Crd2Idx<S, D>>(&self, c: Crd) -> Option<&E::Elem>
    where
        Crd::Checked: Copy,
    {
        if !c.in_shape(self.layout.shape()) {
            return None;
        }
        self.data
            .as_slice()
            .get(self.offset.saturating_add(self.layout.crd2idx(c)))
    }
    /// A read-only view with the same layout.
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let mut data = [0, 1, 2, 3];
    /// let t = Tensor::new(&mut data[..], layout!((2,2):(2,1))).unwrap();
    /// assert_eq!(t.view()[crd!(1, 0)], 2);
    /// ```
    pub fn view(&self) -> Tensor<&[E::Elem], Layout<S, D>> {
        Tensor {
            data: self.data.as_slice(),
            offset: self.offset,
            layout: self.layout,
        }
    }
    /// A read-only view of the same elements through another layout (a
    /// transpose, say); `Err` when it reaches past the storage.
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let data = [0, 1, 2, 3, 4, 5];
    /// let t = Tensor::new(&data[..], layout!((2,3):(3,1))).unwrap();
    /// // The transpose: (3,2):(1,3).
    /// let tt = t.view_as(layout!((3,2):(1,3))).unwrap();
    /// assert_eq!(tt[crd!(2, 1)], 5);
    /// assert!(t.view_as(layout!(7:1)).is_err()); // past the storage
    /// ```
    pub fn view_as<S2: Congruent<D2>, D2: IntTuple>(
        &self,
        layout: Layout<S2, D2>,
    ) -> Result<View<'_, E::Elem, Layout<S2, D2>>, LayoutError> {
        check_cover(self.offset, &layout, self.data.as_slice().len())?;
        Ok(Tensor {
            data: self.data.as_slice(),
            offset: self.offset,
            layout,
        })
    }
    /// The slice at a coordinate with `_` (CuTe's `A(1,_)`): the data pointer
    /// moves by the fixed coordinates' offset, the kept modes stay.
    #[allow(clippy::type_complexity)]
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let data = [0, 1, 2, 3, 4, 5];
    /// let t = Tensor::new(&data[..], layout!((2,3):(3,1))).unwrap();
    /// let row = t.slice(crd!(1, _));
    /// assert_eq!(row.layout().to_string(), "(_3):(_1)");
    /// assert_eq!(row[crd!((2,))], 5);
    /// ```
    pub fn slice<Crd>(
        &self,
        c: Crd,
    ) -> Tensor<&[E::Elem], Layout<<Crd as SliceCoord<S>>::Sliced, <Crd as SliceCoord<D>>::Sliced>>
    where
        Crd: SliceCoord<S> + SliceCoord<D> + Crd2Idx<S, D>,
        <Crd as SliceCoord<S>>::Sliced: Congruent<<Crd as SliceCoord<D>>::Sliced>,
        <Crd as SliceCoord<D>>::Sliced: IntTuple,
    {
        let (layout, off) = self.sliced(c);
        Tensor {
            data: self.data.as_slice(),
            offset: self.offset.saturating_add(off),
            layout,
        }
    }
}

/// What any tensor has, whatever its storage (a slice, an array, an
/// identity tensor's coordinates).
impl<E, S: Congruent<D>, D: IntTuple> Tensor<E, Layout<S, D>> {
    /// The storage offset of coordinate `c`: `None` outside the shape or
    /// past `usize` (what every checked access starts from).
    #[inline(always)]
    pub(crate) fn offset_of<Crd: Crd2Idx<S, D>>(&self, c: Crd) -> Option<usize> {
        if !c.in_shape(self.layout.shape()) {
            return None;
        }
        self.offset.checked_add(self.layout.crd2idx(c))
    }
    /// The layout.
    ///
    /// ```
    /// use layout_core::{layout, Tensor};
    /// let t = Tensor::new(&[0u8; 6][..], layout!((2,3):(3,1))).unwrap();
    /// assert_eq!(t.layout().to_string(), "(_2,_3):(_3,_1)");
    /// ```
    pub fn layout(&self) -> Layout<S, D> {
        self.layout
    }
    /// The offset of this view's first element in the storage.
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let data = [0u8; 6];
    /// let t = Tensor::new(&data[..], layout!((2,3):(3,1))).unwrap();
    /// // Row 1 starts at offset 3.
    /// assert_eq!(t.slice(crd!(1, _)).data_offset(), 3);
    /// ```
    pub fn data_offset(&self) -> usize {
        self.offset
    }
    /// Number of coordinates.
    ///
    /// ```
    /// use layout_core::{layout, Tensor};
    /// let t = Tensor::new(&[0u8; 16][..], layout!((3,4):(4,1))).unwrap();
    /// assert_eq!(t.size(), 12);
    /// ```
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    /// [`Tensor::slice`] that keeps the storage (and its lifetime) instead
    /// of borrowing this tensor: a helper can return the slice of a view it
    /// was given.
    ///
    /// ```
    /// use layout_core::{layout, Layout, Tensor, Underscore, View, C};
    /// // Row i of a 3 x 4 row-major matrix, returned from a helper.
    /// fn row(data: &[i32], i: usize) -> View<'_, i32, Layout<(C<4>,), (C<1>,)>> {
    ///     let t = Tensor::new(data, layout!((3,4):(4,1))).unwrap();
    ///     t.into_slice((i, Underscore))
    /// }
    /// let data: Vec<i32> = (0..12).collect();
    /// let r = row(&data, 2);
    /// assert_eq!(r.layout().to_string(), "(_4):(_1)");
    /// assert_eq!(r[1usize], 9);
    /// ```
    ///
    /// # Panics
    ///
    /// When the fixed coordinates lie outside the shape.
    #[allow(clippy::type_complexity)]
    #[track_caller]
    pub fn into_slice<Crd>(
        self,
        c: Crd,
    ) -> Tensor<E, Layout<<Crd as SliceCoord<S>>::Sliced, <Crd as SliceCoord<D>>::Sliced>>
    where
        Crd: SliceCoord<S> + SliceCoord<D> + Crd2Idx<S, D>,
        <Crd as SliceCoord<S>>::Sliced: Congruent<<Crd as SliceCoord<D>>::Sliced>,
        <Crd as SliceCoord<D>>::Sliced: IntTuple,
    {
        let (layout, off) = self.sliced(c);
        self.rebase(layout, off)
    }

    #[allow(clippy::type_complexity)]
    fn sliced<Crd>(
        &self,
        c: Crd,
    ) -> (
        Layout<<Crd as SliceCoord<S>>::Sliced, <Crd as SliceCoord<D>>::Sliced>,
        usize,
    )
    where
        Crd: SliceCoord<S> + SliceCoord<D> + Crd2Idx<S, D>,
        <Crd as SliceCoord<S>>::Sliced: Congruent<<Crd as SliceCoord<D>>::Sliced>,
        <Crd as SliceCoord<D>>::Sliced: IntTuple,
    {
        self.check(c);
        crate::layout::slice::slice_and_offset(c, self.layout)
    }

    #[inline(always)]
    #[track_caller]
    fn check<Crd: Crd2Idx<S, D>>(&self, c: Crd) {
        if !c.in_shape(self.layout.shape()) {
            out_of_shape(
                &(c, core::marker::PhantomData::<(S, D)>),
                &self.layout.shape(),
            );
        }
    }
}

impl<E, L> Tensor<E, L> {
    /// A tensor over storage known to cover the layout (a fragment's array
    /// of `cosize` elements). Accesses check the storage's bounds as always.
    #[inline(always)]
    pub(crate) fn covering(data: E, layout: L) -> Self {
        Tensor {
            data,
            offset: 0,
            layout,
        }
    }
    /// The same storage through `layout`, the first element moved by `by`
    /// (partitions keep the storage and its lifetime). Accesses check the
    /// storage's bounds as always.
    #[inline(always)]
    pub(crate) fn rebase<L2>(self, layout: L2, by: usize) -> Tensor<E, L2> {
        Tensor {
            data: self.data,
            offset: self.offset.saturating_add(by),
            layout,
        }
    }
    /// The layout, by value or reference as the caller needs.
    #[inline(always)]
    pub(crate) fn layout_ref(&self) -> &L {
        &self.layout
    }
    /// The layout, by value, whatever its type.
    #[inline(always)]
    pub(crate) fn layout_value(&self) -> L
    where
        L: Copy,
    {
        self.layout
    }
}

// On the GPU, inline with a constant message: see
// `layout::compact::extents_overflow`.
#[cold]
#[cfg_attr(not(target_arch = "nvptx64"), inline(never))]
#[cfg_attr(target_arch = "nvptx64", inline(always))]
#[track_caller]
fn out_of_shape(c: &dyn CrdText, s: &dyn IntTupleText) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (c, s);
        panic!("tensor coordinate outside the shape")
    }
    #[cfg(not(target_arch = "nvptx64"))]
    out_of_shape_text(c, s)
}

#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
fn out_of_shape_text(c: &dyn CrdText, s: &dyn IntTupleText) -> ! {
    let mut msg = Text::default();
    let _ = c.text(&mut msg);
    let _ = core::fmt::Write::write_str(&mut msg, " is outside shape ");
    let _ = s.text(&mut msg);
    panic!("tensor coordinate {}", msg.as_str())
}

// Only the host formats the message (see `out_of_shape`).
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
trait CrdText {
    fn text(&self, f: &mut dyn core::fmt::Write) -> core::fmt::Result;
}
impl<S: Congruent<D>, D: IntTuple, Crd: Crd2Idx<S, D>> CrdText
    for (Crd, core::marker::PhantomData<(S, D)>)
{
    fn text(&self, f: &mut dyn core::fmt::Write) -> core::fmt::Result {
        self.0.write_crd(f)
    }
}
// Only the host formats the message (see `out_of_shape`).
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
trait IntTupleText {
    fn text(&self, f: &mut dyn core::fmt::Write) -> core::fmt::Result;
}
impl<T: IntTuple> IntTupleText for T {
    fn text(&self, f: &mut dyn core::fmt::Write) -> core::fmt::Result {
        self.write_cute(f)
    }
}

// Only the host formats the message (see `out_of_shape`).
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
/// A small fixed buffer for panic messages (no allocation in `no_std`).
struct Text {
    buf: [u8; 192],
    len: usize,
}
impl Default for Text {
    fn default() -> Self {
        Text {
            buf: [0; 192],
            len: 0,
        }
    }
}
// Only the host formats the message (see `out_of_shape`).
#[cfg_attr(target_arch = "nvptx64", allow(dead_code))]
impl Text {
    fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("?")
    }
}
impl core::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

impl<E: EngineMut, S: Congruent<D>, D: IntTuple> Tensor<E, Layout<S, D>> {
    /// The storage, writable.
    ///
    /// ```
    /// use layout_core::{layout, Tensor};
    /// let mut data = [0u8; 4];
    /// let mut t = Tensor::new(&mut data[..], layout!(2:2)).unwrap();
    /// t.storage_mut()[1] = 9; // not reached by the layout, but in the storage
    /// assert_eq!(data, [0, 9, 0, 0]);
    /// ```
    pub fn storage_mut(&mut self) -> &mut [E::Elem] {
        self.data.as_mut_slice()
    }
    /// The element at a coordinate, `None` when the coordinate is outside the shape.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let mut data = [0; 6];
    /// let mut t = Tensor::new(&mut data[..], layout!((2,3):(3,1))).unwrap();
    /// *t.get_mut(crd!(1, 2)).unwrap() = 5;
    /// assert!(t.get_mut((0usize, 3usize)).is_none()); // column 3 is outside (2,3)
    /// assert_eq!(data[5], 5);
    /// ```
    pub fn get_mut<Crd: Crd2Idx<S, D>>(&mut self, c: Crd) -> Option<&mut E::Elem>
    where
        Crd::Checked: Copy,
    {
        if !c.in_shape(self.layout.shape()) {
            return None;
        }
        let i = self.offset.saturating_add(self.layout.crd2idx(c));
        self.data.as_mut_slice().get_mut(i)
    }
    /// A writable view with the same layout.
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let mut data = [0; 4];
    /// let mut t = Tensor::new(&mut data[..], layout!((2,2):(2,1))).unwrap();
    /// t.view_mut()[crd!(1, 0)] = 3;
    /// assert_eq!(data[2], 3);
    /// ```
    pub fn view_mut(&mut self) -> Tensor<&mut [E::Elem], Layout<S, D>> {
        Tensor {
            data: self.data.as_mut_slice(),
            offset: self.offset,
            layout: self.layout,
        }
    }
    /// A writable view of the same elements through another layout; `Err`
    /// when it reaches past the storage.
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let mut data = [0; 6];
    /// let mut t = Tensor::new(&mut data[..], layout!((2,3):(3,1))).unwrap();
    /// // Write through the transpose (3,2):(1,3): (2,1) is offset 2 + 3.
    /// t.view_mut_as(layout!((3,2):(1,3))).unwrap()[crd!(2, 1)] = 8;
    /// assert_eq!(data[5], 8);
    /// ```
    pub fn view_mut_as<S2: Congruent<D2>, D2: IntTuple>(
        &mut self,
        layout: Layout<S2, D2>,
    ) -> Result<ViewMut<'_, E::Elem, Layout<S2, D2>>, LayoutError> {
        check_cover(self.offset, &layout, self.data.as_slice().len())?;
        Ok(Tensor {
            data: self.data.as_mut_slice(),
            offset: self.offset,
            layout,
        })
    }
    /// A writable slice at a coordinate with `_`; writes go to the same storage.
    #[allow(clippy::type_complexity)]
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let mut data = [0; 6];
    /// let mut t = Tensor::new(&mut data[..], layout!((2,3):(3,1))).unwrap();
    /// let mut row = t.slice_mut(crd!(1, _));
    /// row[crd!((0,))] = 4; // row 1 starts at offset 3
    /// assert_eq!(data[3], 4);
    /// ```
    pub fn slice_mut<Crd>(
        &mut self,
        c: Crd,
    ) -> Tensor<
        &mut [E::Elem],
        Layout<<Crd as SliceCoord<S>>::Sliced, <Crd as SliceCoord<D>>::Sliced>,
    >
    where
        Crd: SliceCoord<S> + SliceCoord<D> + Crd2Idx<S, D>,
        <Crd as SliceCoord<S>>::Sliced: Congruent<<Crd as SliceCoord<D>>::Sliced>,
        <Crd as SliceCoord<D>>::Sliced: IntTuple,
    {
        let (layout, off) = self.sliced(c);
        Tensor {
            data: self.data.as_mut_slice(),
            offset: self.offset.saturating_add(off),
            layout,
        }
    }
}

impl<T, const N: usize, S: Congruent<D>, D: IntTuple> Tensor<[T; N], Layout<S, D>> {
    /// A tensor owning an array, for a static layout: an array shorter than
    /// the layout's cosize, and a layout with a run-time leaf, are type
    /// errors (`cargo check` reports them at the call).
    ///
    /// The array's length needs a type-level form (`C<N>`'s: every length
    /// up to 1024, multiples of 8 up to 8192, multiples of 64 up to 65536,
    /// powers of 2 and of 10); for another length, [`Tensor::new`] over a
    /// slice of the array checks the same at run time.
    ///
    /// ```
    /// use layout_core::{layout, Tensor};
    /// let t = Tensor::from_array([0u8; 20], layout!((3,4):(8,1)));
    /// assert_eq!(t.size(), 12);
    /// assert_eq!(t.layout().to_string(), "(_3,_4):(_8,_1)");
    /// ```
    ///
    /// ```compile_fail,E0277
    /// use layout_core::{layout, Tensor};
    /// // error: Tensor::from_array: the array holds 19 elements, fewer than
    /// // the layout's cosize _20
    /// let t = Tensor::from_array([0u8; 19], layout!((3,4):(8,1)));
    /// ```
    pub fn from_array(data: [T; N], layout: Layout<S, D>) -> Self
    where
        <S as ArrayHolds<D, N>>::Checked: Copy,
        S: ArrayHolds<D, N>,
    {
        Tensor {
            data,
            offset: 0,
            layout,
        }
    }
}

/// The layout of shape `Self` and stride `D` against an array of `N`
/// elements: a static cosize at most `N`, decided by the type checker.
#[doc(hidden)]
pub trait ArrayHolds<D, const N: usize> {
    /// `()`, read by [`Tensor::from_array`]'s where-clause: rustc then
    /// reports a refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
}
impl<S: Congruent<D>, D: IntTuple, const N: usize> ArrayHolds<D, N> for S
where
    S::Leaves: ZipModes<D::Leaves>,
    <S::Leaves as ZipModes<D::Leaves>>::Out: CosizeList<Known<U0>>,
    <<S::Leaves as ZipModes<D::Leaves>>::Out as CosizeList<Known<U0>>>::Out: PlusOne,
    CosizeT<S, D>: CosizeFits<N>,
    <CosizeT<S, D> as CosizeFits<N>>::Out: ArrayOr<S, D, N>,
{
    type Checked = ();
}
/// The cosize leaf `Self` ([`CosizeT`]) against an array of `N` elements:
/// `B1` or `B0` for a static cosize, [`RunTimeCosize`] for a run-time one.
#[doc(hidden)]
pub trait CosizeFits<const N: usize> {
    /// The verdict.
    type Out;
}
impl<U: Unsigned, const N: usize> CosizeFits<N> for S<U>
where
    (): ArrayLength<N>,
    U: IsLessOrEqual<<() as ArrayLength<N>>::U>,
{
    type Out = LeEq<U, <() as ArrayLength<N>>::U>;
}
impl<const N: usize> CosizeFits<N> for usize {
    type Out = RunTimeCosize;
}
/// An array length `N` as a typenum: [`C<N>`]'s form, for the lengths its
/// table covers.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "Tensor::from_array: the array's length {N} has no type-level form (`C<N>` covers lengths up to 1024, multiples of 8 up to 8192, of 64 up to 65536, and powers of 2 and of 10)",
    label = "`Tensor::new` over a slice of the array checks the layout against its length at run time"
)]
pub trait ArrayLength<const N: usize> {
    /// The typenum.
    type U;
}
#[diagnostic::do_not_recommend]
impl<const N: usize> ArrayLength<N> for ()
where
    C<N>: TypenumForm,
{
    type U = <C<N> as TypenumForm>::U;
}
/// [`CosizeFits`]' verdict for a layout with a run-time leaf.
#[doc(hidden)]
pub struct RunTimeCosize;
/// The verdict `Self` on the layout of shape `S` and stride `D` against an
/// array of `N` elements: `B1` holds; otherwise the refusal, with the
/// values.
#[doc(hidden)]
pub trait ArrayOr<S, D, const N: usize> {}
impl<S, D, const N: usize> ArrayOr<S, D, N> for B1 {}
impl<S: IntTuple, D: IntTuple, const X: usize, const N: usize> ArrayOr<S, D, N> for B0
where
    S::Leaves: ZipModes<D::Leaves>,
    <S::Leaves as ZipModes<D::Leaves>>::Out: CosizeList<Known<U0>>,
    <<S::Leaves as ZipModes<D::Leaves>>::Out as CosizeList<Known<U0>>>::Out: PlusOne,
    CosizeT<S, D>: ConstForm<C = C<X>>,
    (): ArrayShorter<N, X>,
{
}
impl<S, D, const N: usize> ArrayOr<S, D, N> for RunTimeCosize where (): FromArrayRuntime<N> {}
/// [`ArrayHolds`]' message for a short array.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "Tensor::from_array: the array holds {N} elements, fewer than the layout's cosize _{K}",
    label = "an array of at least {K} elements holds this layout"
)]
pub trait ArrayShorter<const N: usize, const K: usize> {}
/// [`ArrayHolds`]' message for a layout with a run-time leaf.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "Tensor::from_array needs a static layout, and this one has a run-time leaf",
    label = "its cosize is known only at run time: `Tensor::new` over a slice of the array checks it then"
)]
pub trait FromArrayRuntime<const N: usize> {}

impl<E: Engine, S: Congruent<D>, D: IntTuple, Crd: Crd2Idx<S, D>> Index<Crd>
    for Tensor<E, Layout<S, D>>
{
    type Output = E::Elem;
    #[inline(always)]
    #[track_caller]
    fn index(&self, c: Crd) -> &E::Elem {
        if !c.in_shape(self.layout.shape()) {
            out_of_shape(
                &(c, core::marker::PhantomData::<(S, D)>),
                &self.layout.shape(),
            );
        }
        &self.data.as_slice()[self.offset.saturating_add(self.layout.crd2idx(c))]
    }
}
impl<E: EngineMut, S: Congruent<D>, D: IntTuple, Crd: Crd2Idx<S, D>> IndexMut<Crd>
    for Tensor<E, Layout<S, D>>
{
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, c: Crd) -> &mut E::Elem {
        if !c.in_shape(self.layout.shape()) {
            out_of_shape(
                &(c, core::marker::PhantomData::<(S, D)>),
                &self.layout.shape(),
            );
        }
        let i = self.offset.saturating_add(self.layout.crd2idx(c));
        &mut self.data.as_mut_slice()[i]
    }
}

/// CuTe's `make_tensor(data, layout)`.
///
/// ```
/// use layout_core::{crd, layout, make_tensor};
/// let data = [0, 1, 2, 3, 4, 5];
/// let t = make_tensor(&data[..], layout!((2,3):(3,1))).unwrap();
/// assert_eq!(t.layout().to_string(), "(_2,_3):(_3,_1)");
/// assert_eq!(t[crd!(1, 2)], 5); // offset 1*3 + 2
/// // Storage shorter than the cosize is refused.
/// assert!(make_tensor(&data[..4], layout!((2,3):(3,1))).is_err());
/// ```
pub fn make_tensor<E: Engine, S: Congruent<D>, D: IntTuple>(
    data: E,
    layout: Layout<S, D>,
) -> Result<Tensor<E, Layout<S, D>>, LayoutError> {
    Tensor::new(data, layout)
}

/// A view of an identity tensor and a bound: the predicate "the coordinate
/// held at index `i` lies inside the bound", made by [`Tensor::within`].
#[derive(Clone, Copy, Debug)]
pub struct Within<S: IdentityShape, L> {
    pub(crate) tile: Tensor<Counting<S>, L>,
    pub(crate) bound: S::Coord,
    /// Every coordinate of the view lies inside the bound: decided once,
    /// where the predicate is made, and inherited by its partitions.
    pub(crate) all: bool,
}

/// The storage of an identity tensor: element `k` is the coordinate
/// encoded in `k` (computed, not stored).
#[derive(Clone, Copy, Debug)]
pub struct Counting<S>(S);

/// A shape an identity tensor can have (an integer, or a tuple of 2 or 3
/// integers), with the strides that encode a coordinate in an offset: mode
/// `i` in its own bit field, so that coordinates past the shape (a partial
/// tile) decode to themselves instead of wrapping into the next mode.
pub trait IdentityShape: IntTuple + Congruent<Self::Strides> {
    /// Static strides: `_1`, `_2^32` (rank 2) or `_1`, `_2^21`, `_2^42`.
    type Strides: IntTuple + Default;
    /// The coordinate type: one `usize` per mode.
    type Coord: Copy + PartialEq + core::fmt::Debug;
    /// The largest extent per mode: a tile past the tensor's end (partial
    /// tiles reach less than one tile further) keeps every coordinate in its
    /// bit field, below twice this.
    const MAX_EXTENT: usize;
    /// The coordinate encoded in an offset.
    fn decode(k: usize) -> Self::Coord;
    /// Whether every entry of `c` is below the same entry of `bound` (CuTe's
    /// `elem_less`).
    fn less(c: Self::Coord, bound: Self::Coord) -> bool;
}
macro_rules! leaf_identity {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> IdentityShape for $t {
            type Strides = crate::C<1>;
            type Coord = usize;
            const MAX_EXTENT: usize = usize::MAX;
            #[inline(always)]
            fn decode(k: usize) -> usize {
                k
            }
            #[inline(always)]
            fn less(c: usize, bound: usize) -> bool {
                c < bound
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(leaf_identity);
impl<A: IntTuple + crate::typelevel::int::Int, B: IntTuple + crate::typelevel::int::Int>
    IdentityShape for (A, B)
where
    (A, B): Congruent<(crate::C<1>, crate::S<typenum::U4294967296>)>,
{
    type Strides = (crate::C<1>, crate::S<typenum::U4294967296>);
    type Coord = (usize, usize);
    const MAX_EXTENT: usize = 1 << 31;
    #[inline(always)]
    fn decode(k: usize) -> (usize, usize) {
        (k & 0xffff_ffff, k >> 32)
    }
    #[inline(always)]
    fn less(c: (usize, usize), b: (usize, usize)) -> bool {
        c.0 < b.0 && c.1 < b.1
    }
}
impl<
        A: IntTuple + crate::typelevel::int::Int,
        B: IntTuple + crate::typelevel::int::Int,
        C: IntTuple + crate::typelevel::int::Int,
    > IdentityShape for (A, B, C)
where
    (A, B, C): Congruent<(
        crate::C<1>,
        crate::S<typenum::U2097152>,
        crate::S<typenum::U4398046511104>,
    )>,
{
    type Strides = (
        crate::C<1>,
        crate::S<typenum::U2097152>,
        crate::S<typenum::U4398046511104>,
    );
    type Coord = (usize, usize, usize);
    const MAX_EXTENT: usize = 1 << 20;
    #[inline(always)]
    fn decode(k: usize) -> (usize, usize, usize) {
        (k & 0x1f_ffff, (k >> 21) & 0x1f_ffff, k >> 42)
    }
    #[inline(always)]
    fn less(c: (usize, usize, usize), b: (usize, usize, usize)) -> bool {
        c.0 < b.0 && c.1 < b.1 && c.2 < b.2
    }
}

/// The tensor [`make_identity_tensor`] makes.
///
/// ```
/// use layout_core::{tensor::{make_identity_tensor, IdentityTensor}, C};
/// let id: IdentityTensor<(C<4>, usize)> = make_identity_tensor((C::<4>, 6usize));
/// assert_eq!(id.at((3usize, 5usize)), Some((3, 5)));
/// ```
pub type IdentityTensor<S> = Tensor<Counting<S>, Layout<S, <S as IdentityShape>::Strides>>;

/// CuTe's `make_identity_tensor(shape)`: each element is its own
/// coordinate, so that partitioning it like a data tensor tells each thread
/// which coordinates it holds (to predicate a partial tile). CuTe's strides
/// are coordinate bases (`(_4,_8):(_1@0,_1@1)`); here each mode's
/// coordinate has its own bit field of the offset (`(_4,_8):(_1,_4294967296)`),
/// so a coordinate past the shape stays itself. The tensor is a value
/// (`Copy`, nothing stored): tile and partition it as often as needed.
///
/// ```
/// use layout_core::{layout, tensor::partition::{local_partition, local_tile}, tensor::make_identity_tensor, C};
/// let m = 10; // run-time rows: the last tile of 4 rows is partial
/// let id = make_identity_tensor((m, C::<8>));
/// let tile = local_tile(id, (C::<4>, C::<8>), (2usize, 0usize));
/// assert_eq!(tile.at((1usize, 3usize)), Some((9, 3)));
/// // Rows 10 and 11 of the last tile lie outside the matrix: predicate them.
/// assert_eq!(tile.at((2usize, 0usize)), Some((10, 0)));
/// assert!(!tile.is_within((2usize, 0usize), (m, 8)));
/// // `id` is still there: another tile of the same tensor.
/// let mine = local_partition(local_tile(id, (C::<4>, C::<8>), (0usize, 0usize)), layout!((2,4):(4,1)), 5);
/// assert_eq!(mine.at((0usize, 0usize)), Some((1, 1)));
/// ```
///
/// # Panics
///
/// When an extent exceeds what its bit field holds with room for a partial
/// tile: 2^31 per mode at rank 2, 2^20 at rank 3 ([`try_make_identity_tensor`]
/// returns the error instead). The tiles of such a tensor keep every
/// coordinate exact when they are no larger than those extents.
#[track_caller]
pub fn make_identity_tensor<S: IdentityShape>(shape: S) -> IdentityTensor<S> {
    crate::algebra::values::or_panic(try_make_identity_tensor(shape))
}

/// [`make_identity_tensor`], or the error when an extent exceeds its bit
/// field (2^31 per mode at rank 2, 2^20 at rank 3).
///
/// ```
/// use layout_core::{tensor::try_make_identity_tensor, C};
/// assert!(try_make_identity_tensor((1usize << 31, C::<8>)).is_ok());
/// // Rows past 2^32 would carry into the column's bit field: refused.
/// let e = try_make_identity_tensor((1usize << 32, C::<8>)).unwrap_err();
/// assert_eq!(e.to_string(), "make_identity_tensor: extent 4294967296 is outside what a mode of an identity tensor of this rank holds, at most 2147483648");
/// ```
pub fn try_make_identity_tensor<S: IdentityShape>(
    shape: S,
) -> Result<IdentityTensor<S>, LayoutError> {
    // Mode by mode with constant indices (no closure through a `dyn`,
    // which a GPU kernel would keep in local memory).
    let bad = (0..S::RANK)
        .map(|i| shape.mode_size(i))
        .find(|&n| n > S::MAX_EXTENT);
    if let Some(n) = bad {
        return Err(LayoutError::Refused {
            op: "make_identity_tensor",
            why: crate::error::Refusal::Outside {
                kind: crate::error::Outside::Extent,
                coord: crate::error::Note::num(n),
                shape: crate::error::Note::num(S::MAX_EXTENT),
            },
        });
    }
    Ok(Tensor {
        data: Counting(shape),
        offset: 0,
        layout: Layout::new(shape, S::Strides::default()),
    })
}

impl<S: IdentityShape, LS: Congruent<LD>, LD: IntTuple> Tensor<Counting<S>, Layout<LS, LD>> {
    /// The coordinate (in the identity tensor's shape) held at `c`, which may
    /// lie past that shape in a partial tile; `None` outside this view's shape.
    ///
    /// ```
    /// use layout_core::{tensor::make_identity_tensor, C};
    /// let id = make_identity_tensor((C::<4>, C::<8>));
    /// assert_eq!(id.at((1usize, 3usize)), Some((1, 3)));
    /// assert_eq!(id.at((4usize, 0usize)), None);
    /// ```
    #[inline(always)]
    pub fn at<Crd: Crd2Idx<LS, LD>>(&self, c: Crd) -> Option<S::Coord>
    where
        Crd::Checked: Copy,
    {
        self.offset_of(c).map(S::decode)
    }
    /// Whether the coordinate held at `c` lies inside `bound` (CuTe's
    /// `elem_less(tensor(c), bound)`): the predicate of a partial tile;
    /// `false` outside this view's shape.
    ///
    /// ```
    /// use layout_core::{tensor::partition::local_tile, tensor::make_identity_tensor, C};
    /// let id = make_identity_tensor((10usize, C::<8>));
    /// let last = local_tile(id, (C::<4>, C::<8>), (2usize, 0usize)); // rows 8..12
    /// assert!(last.is_within((1usize, 7usize), (10, 8)));
    /// assert!(!last.is_within((2usize, 0usize), (10, 8))); // row 10
    /// ```
    #[inline(always)]
    pub fn is_within<Crd: Crd2Idx<LS, LD>>(&self, c: Crd, bound: S::Coord) -> bool
    where
        Crd::Checked: Copy,
    {
        match self.at(c) {
            Some(x) => S::less(x, bound),
            None => false,
        }
    }
    /// The predicate of a partial tile for [`copy_if`](algorithm::copy_if):
    /// element `i` is kept when the coordinate it holds lies inside `bound`
    /// ([`Tensor::is_within`]). `copy_if` asks it first whether the whole
    /// view lies inside, from its last coordinate (the largest in every
    /// mode): a tile wholly inside is copied with no predicate per element.
    ///
    /// ```
    /// use layout_core::{layout, tensor::algorithm::copy_if, tensor::partition::local_tile, tensor::make_identity_tensor, Tensor, C};
    /// let src: Vec<i32> = (0..100).collect();
    /// let a = Tensor::new(&src[..], layout!((10,10):(10,1))).unwrap();
    /// let id = make_identity_tensor((C::<10>, C::<10>));
    /// let mut out = [-1i32; 16];
    /// // Rows 8..12 of a 10-row matrix: rows 10 and 11 are not copied.
    /// let tile = local_tile(a, (C::<4>, C::<4>), (2usize, 0usize));
    /// let inside = local_tile(id, (C::<4>, C::<4>), (2usize, 0usize)).within((10, 10));
    /// copy_if(inside, &tile, &mut Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap()).unwrap();
    /// assert_eq!(out[..8], [80, 81, 82, 83, 90, 91, 92, 93]);
    /// assert_eq!(out[8..], [-1; 8]);
    /// ```
    #[inline(always)]
    pub fn within(self, bound: S::Coord) -> Within<S, Layout<LS, LD>> {
        Within {
            all: self.all_within(bound),
            tile: self,
            bound,
        }
    }
    /// Whether every coordinate of the view lies inside `bound`: its last
    /// coordinate is its largest in every mode (strides are not negative),
    /// so it alone decides.
    #[inline(always)]
    pub(crate) fn all_within(&self, bound: S::Coord) -> bool {
        match self.size() {
            0 => true,
            n => self.is_within(n - 1, bound),
        }
    }
    /// The view itself: an identity tensor is a value (`Copy`), so a view is
    /// a copy, as cheap as the layout.
    ///
    /// ```
    /// use layout_core::{tensor::partition::local_tile, tensor::make_identity_tensor, C};
    /// let id = make_identity_tensor((C::<8>, C::<8>));
    /// let a = local_tile(id.view(), (C::<4>, C::<4>), (1usize, 0usize));
    /// let b = local_tile(id.view(), (C::<4>, C::<4>), (0usize, 1usize));
    /// assert_eq!((a.at((0usize, 0usize)), b.at((0usize, 0usize))), (Some((4, 0)), Some((0, 4))));
    /// ```
    #[inline(always)]
    pub fn view(&self) -> Self
    where
        S: Copy,
        LS: Copy,
        LD: Copy,
    {
        *self
    }
    /// The slice at a coordinate with `_` (CuTe's `A(1,_)`), as for a data
    /// tensor: a k-block of a tiled identity tensor, say.
    ///
    /// ```
    /// use layout_core::{tensor::partition::local_tile, tensor::make_identity_tensor, C, Underscore as X};
    /// let id = make_identity_tensor((C::<8>, 20usize));
    /// // Row block 1 of 4 rows, every block of 8 columns: (4, 8, 3).
    /// let blocks = local_tile(id, (C::<4>, C::<8>), (1usize, X));
    /// let k2 = blocks.slice((X, X, 2usize));
    /// assert_eq!(k2.at((0usize, 0usize)), Some((4, 16)));
    /// ```
    #[allow(clippy::type_complexity)]
    #[track_caller]
    pub fn slice<Crd>(
        &self,
        c: Crd,
    ) -> Tensor<Counting<S>, Layout<<Crd as SliceCoord<LS>>::Sliced, <Crd as SliceCoord<LD>>::Sliced>>
    where
        S: Copy,
        Crd: SliceCoord<LS> + SliceCoord<LD> + Crd2Idx<LS, LD>,
        <Crd as SliceCoord<LS>>::Sliced: Congruent<<Crd as SliceCoord<LD>>::Sliced>,
        <Crd as SliceCoord<LD>>::Sliced: IntTuple,
    {
        (*self).into_slice(c)
    }
}
