//! Tensors over memory that many threads hold at once: a GPU's global or
//! shared memory, where every thread of a launch has the same buffer and
//! writes its own elements. No Rust reference may cover such memory (a
//! `&mut [T]` would claim it for one thread), so a [`Memory`] is a handle
//! that reads and writes one element at a time, by value, each access
//! checked against the elements it was made with.
//!
//! A tensor over it ([`Tensor::from_memory`]) is partitioned as any other
//! (`local_tile`, `local_partition`, slices move its offset and change its
//! layout, nothing else); [`Tensor::load`] and [`Tensor::store`] check the
//! coordinate against the shape and the offset against the memory.
//! [`Tensor::window`] checks once that a thread's whole partition lies in
//! the memory and narrows the handle to it: under a static layout each
//! access's offset is then a constant below a constant length, and its
//! check folds away.
//!
//! `&[T]` (read-only) and [`Shared`] (host data written through shared
//! handles) are memories, so that the same code runs over host data in
//! tests.

use crate::error::LayoutError;
use crate::layout::coord::Crd2Idx;
use crate::layout::{Congruent, Layout};
use crate::tensor::{check_cover, Tensor};
use crate::typelevel::tuple::IntTuple;
use core::cell::Cell;

/// Elements read one at a time by value, through a handle that may be
/// copied to every thread (a device buffer and its length).
pub trait Memory: Copy {
    /// The element type.
    type Elem: Copy;
    /// The number of elements the handle covers.
    fn len(&self) -> usize;
    /// Whether it covers no element.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Element `i`; `None` when `i >= len`.
    fn load(&self, i: usize) -> Option<Self::Elem>;
    /// The handle narrowed to elements `start .. start + len` (element 0 of
    /// the result is element `start` of this one); `None` when they do not
    /// all lie in this handle's elements.
    fn window(self, start: usize, len: usize) -> Option<Self>;
}

/// A [`Memory`] that can be written. Threads sharing the memory write
/// disjoint elements (what a kernel's partition guarantees).
pub trait MemoryMut: Memory {
    /// Writes element `i`; `None` (and nothing written) when `i >= len`.
    fn store(&self, i: usize, v: Self::Elem) -> Option<()>;
}

/// Host data, read-only.
///
/// ```
/// use layout_core::tensor::memory::Memory;
/// let data = [1, 2, 3, 4];
/// let m = &data[..];
/// assert_eq!((m.load(3), m.load(4)), (Some(4), None));
/// assert_eq!(m.window(1, 2).map(|w| w.load(0)), Some(Some(2)));
/// assert!(m.window(3, 2).is_none());
/// ```
impl<T: Copy> Memory for &[T] {
    type Elem = T;
    #[inline(always)]
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    #[inline(always)]
    fn load(&self, i: usize) -> Option<T> {
        self.get(i).copied()
    }
    #[inline(always)]
    fn window(self, start: usize, len: usize) -> Option<Self> {
        self.get(start..start.checked_add(len)?)
    }
}

/// Host data that several handles share and write (through cells), as a
/// kernel's threads share its buffers: the host stand-in for device
/// memory, for tests.
///
/// ```
/// use layout_core::tensor::memory::{Memory, MemoryMut, Shared};
/// let mut data = [0u8; 3];
/// let m = Shared::new(&mut data);
/// let also = m; // a copy of the handle, as each thread has
/// assert_eq!(m.store(2, 7), Some(()));
/// assert_eq!(m.store(3, 7), None);
/// assert_eq!(also.load(2), Some(7));
/// ```
pub struct Shared<'a, T>(&'a [Cell<T>]);

// By hand: a handle is copied whatever `T` is.
impl<T> Clone for Shared<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<'_, T> {}
impl<T> core::fmt::Debug for Shared<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Shared {{ len: {} }}", self.0.len())
    }
}

impl<'a, T> Shared<'a, T> {
    /// The elements of `data`, shared for as long as the borrow lasts.
    pub fn new(data: &'a mut [T]) -> Self {
        Shared(Cell::from_mut(data).as_slice_of_cells())
    }
}

impl<T: Copy> Memory for Shared<'_, T> {
    type Elem = T;
    #[inline(always)]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline(always)]
    fn load(&self, i: usize) -> Option<T> {
        self.0.get(i).map(Cell::get)
    }
    #[inline(always)]
    fn window(self, start: usize, len: usize) -> Option<Self> {
        self.0.get(start..start.checked_add(len)?).map(Shared)
    }
}

impl<T: Copy> MemoryMut for Shared<'_, T> {
    #[inline(always)]
    fn store(&self, i: usize, v: T) -> Option<()> {
        self.0.get(i).map(|c| c.set(v))
    }
}

impl<M: Memory, S: Congruent<D>, D: IntTuple> Tensor<M, Layout<S, D>> {
    /// A tensor over a [`Memory`]; `Err` when the memory is shorter than the
    /// layout's cosize (or the size or cosize overflows), as
    /// [`Tensor::new`].
    ///
    /// ```
    /// use layout_core::{layout, Tensor};
    /// let data = [0f32; 12];
    /// let t = Tensor::from_memory(&data[..], layout!((3,4):(4,1))).unwrap();
    /// assert_eq!(t.layout().to_string(), "(_3,_4):(_4,_1)");
    /// assert!(Tensor::from_memory(&data[..], layout!((3,4):(5,1))).is_err());
    /// ```
    #[inline(always)]
    pub fn from_memory(memory: M, layout: Layout<S, D>) -> Result<Self, LayoutError> {
        check_cover(0, &layout, memory.len())?;
        Ok(Tensor::covering(memory, layout))
    }

    /// The memory handle (all of it, whatever this view's offset).
    #[inline(always)]
    pub fn memory(&self) -> M {
        self.data
    }

    /// The element at a coordinate: `None` when the coordinate is outside
    /// the shape or its offset past the memory (a partial tile).
    ///
    /// ```
    /// use layout_core::{layout, tensor::partition::local_tile, Tensor, C};
    /// let data: Vec<u32> = (0..30).collect();
    /// let t = Tensor::from_memory(&data[..], layout!((5,6):(6,1))).unwrap();
    /// let last = local_tile(t, (C::<4>, C::<4>), (1usize, 0usize)); // rows 4..8
    /// assert_eq!(last.try_load((0usize, 1usize)), Some(25));
    /// assert_eq!(last.try_load((1usize, 0usize)), None); // row 5: past the data
    /// ```
    #[inline(always)]
    pub fn try_load<Crd: Crd2Idx<S, D>>(&self, c: Crd) -> Option<M::Elem>
    where
        Crd::Checked: Copy,
    {
        self.data.load(self.offset_of(c)?)
    }

    /// The element at a coordinate (a 1-D index or a coordinate of the
    /// shape).
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor};
    /// let data = [0, 1, 2, 3, 4, 5];
    /// let t = Tensor::from_memory(&data[..], layout!((2,3):(3,1))).unwrap();
    /// assert_eq!(t.load(crd!(1, 2)), 5);
    /// assert_eq!(t.load(3usize), 4); // 1-D index 3 is (1,1)
    /// ```
    ///
    /// # Panics
    ///
    /// Where [`Tensor::try_load`] gives `None` (in a GPU kernel, whose
    /// panics trap: the launch fails).
    #[inline(always)]
    #[track_caller]
    pub fn load<Crd: Crd2Idx<S, D>>(&self, c: Crd) -> M::Elem
    where
        Crd::Checked: Copy,
    {
        match self.try_load(c) {
            Some(v) => v,
            None => outside(false),
        }
    }

    /// The tensor with its memory narrowed to the elements its layout
    /// reaches (`offset .. offset + cosize`), its offset 0: checked once
    /// here, so that each access after checks only an offset below the
    /// cosize (constants under a static layout: the check folds away).
    /// `None` when those elements are not all in the memory.
    ///
    /// ```
    /// use layout_core::{layout, tensor::partition::local_partition, Tensor};
    /// let data: Vec<u32> = (0..64).collect();
    /// let t = Tensor::from_memory(&data[..], layout!((8,8):(8,1))).unwrap();
    /// // Thread 9 of 4 x 4 threads: rows 2 and 6, columns 1 and 5.
    /// let mine = local_partition(t, layout!((4,4):(4,1)), 9).window().unwrap();
    /// assert_eq!(mine.layout().to_string(), "(_2,_2):(_32,_4)");
    /// assert_eq!(mine.memory().len(), 37); // cosize: 32 + 4 + 1
    /// assert_eq!(mine.load((1usize, 1usize)), 6 * 8 + 5);
    /// ```
    #[inline(always)]
    pub fn window(self) -> Option<Self> {
        let cosize = self.layout.checked_cosize()?;
        let memory = self.data.window(self.offset, cosize)?;
        Some(Tensor::covering(memory, self.layout))
    }
}

impl<M: MemoryMut, S: Congruent<D>, D: IntTuple> Tensor<M, Layout<S, D>> {
    /// Writes the element at a coordinate; `None` (nothing written) where
    /// [`Tensor::try_load`] would give `None`.
    ///
    /// ```
    /// use layout_core::{layout, tensor::memory::Shared, Tensor};
    /// let mut data = [0u8; 6];
    /// let m = Shared::new(&mut data);
    /// let t = Tensor::from_memory(m, layout!((2,3):(3,1))).unwrap();
    /// assert_eq!(t.try_store((1usize, 2usize), 9), Some(()));
    /// assert_eq!(t.try_store((2usize, 0usize), 9), None);
    /// assert_eq!(data, [0, 0, 0, 0, 0, 9]);
    /// ```
    #[inline(always)]
    pub fn try_store<Crd: Crd2Idx<S, D>>(&self, c: Crd, v: M::Elem) -> Option<()>
    where
        Crd::Checked: Copy,
    {
        self.data.store(self.offset_of(c)?, v)
    }

    /// Writes the element at a coordinate.
    ///
    /// ```
    /// use layout_core::{layout, tensor::memory::Shared, Tensor};
    /// let mut data = [0u8; 4];
    /// let m = Shared::new(&mut data);
    /// let t = Tensor::from_memory(m, layout!((2,2):(1,2))).unwrap();
    /// t.store(1usize, 5); // 1-D index 1 is (1,0), offset 1
    /// assert_eq!(data, [0, 5, 0, 0]);
    /// ```
    ///
    /// # Panics
    ///
    /// Where [`Tensor::try_store`] gives `None` (in a GPU kernel: a trap).
    #[inline(always)]
    #[track_caller]
    pub fn store<Crd: Crd2Idx<S, D>>(&self, c: Crd, v: M::Elem)
    where
        Crd::Checked: Copy,
    {
        if self.try_store(c, v).is_none() {
            outside(true)
        }
    }
}

/// The panic of a refused access: a short constant message (a GPU kernel
/// traps at it; no formatting code is pulled in). Inline on the GPU: see
/// `layout::compact::extents_overflow`.
#[cold]
#[cfg_attr(not(target_arch = "nvptx64"), inline(never))]
#[cfg_attr(target_arch = "nvptx64", inline(always))]
#[track_caller]
fn outside(store: bool) -> ! {
    if store {
        panic!("tensor store outside the shape or past the memory")
    }
    panic!("tensor load outside the shape or past the memory")
}

#[cfg(test)]
mod tests {
    use super::Shared;
    use crate::tensor::partition::{local_partition, local_tile};
    use crate::{layout, Tensor, C};
    use core::cell::Cell;

    /// Every thread's window of a tiled 8 x 8 matrix writes its own
    /// elements; together they write each element once (the partition's
    /// defining property), and the values are their row-major indices.
    #[test]
    fn threads_write_disjoint_elements_through_windows() {
        let mut data = [u32::MAX; 64];
        let m = Shared::new(&mut data);
        let t = Tensor::from_memory(m, layout!((8,8):(8,1))).unwrap();
        let written = [0u8; 64].map(Cell::new);
        for blk in 0..4usize {
            let tile = local_tile(t, (C::<4>, C::<4>), (blk % 2, blk / 2));
            for tid in 0..8 {
                let mine = local_partition(tile, layout!((4,2):(1,4)), tid)
                    .window()
                    .unwrap();
                assert_eq!(mine.size(), 2);
                for i in 0..2usize {
                    let (r, c) = (4 * (blk % 2) + tid % 4, 4 * (blk / 2) + tid / 4 + 2 * i);
                    mine.store(i, (8 * r + c) as u32);
                    written[8 * r + c].set(written[8 * r + c].get() + 1);
                }
            }
        }
        assert!(written.iter().all(|w| w.get() == 1));
        assert_eq!(data, core::array::from_fn(|i| i as u32));
    }

    /// A window past the memory is refused; a tile that ends past it still
    /// loads its elements inside.
    #[test]
    fn windows_past_the_memory_are_refused() {
        let data: [u16; 20] = core::array::from_fn(|i| i as u16);
        let t = Tensor::from_memory(&data[..], layout!((4,5):(5,1))).unwrap();
        let edge = local_tile(t, (C::<4>, C::<4>), (0usize, 1usize)); // columns 4..8
        assert!(edge.window().is_none()); // reaches offset 4 + 3*5 + 3 = 22
        assert_eq!(edge.try_load((3usize, 0usize)), Some(19));
        assert_eq!(edge.try_load((3usize, 1usize)), None);
    }
}
