//! Tensors over memory that is not a Rust slice: GPU global or shared
//! memory, a buffer from another language. This is the one module of the
//! library with `unsafe` code, and its one `unsafe` function is
//! [`RawEngine::new`]: the caller vouches for the memory there, once; every
//! access afterwards goes through the tensor's usual checks (the coordinate
//! inside the shape, the offset inside the `len` elements vouched for).
#![allow(unsafe_code)]

use crate::tensor::{Engine, EngineMut};
use core::marker::PhantomData;

/// `len` elements at a raw pointer, for the lifetime `'a`.
///
/// ```
/// use layout_core::{layout, tensor::raw::RawEngine, Tensor};
/// let mut buf = [0u32; 12];
/// // SAFETY: `buf` holds 12 u32 and outlives the tensor, which is the only
/// // access to it meanwhile.
/// let engine = unsafe { RawEngine::new(buf.as_mut_ptr(), buf.len()) };
/// let mut t = Tensor::new(engine, layout!((3,4):(4,1))).unwrap();
/// t[(1usize, 2usize)] = 7;
/// assert_eq!(t[(1usize, 2usize)], 7);
/// drop(t);
/// assert_eq!(buf[6], 7);
/// ```
pub struct RawEngine<'a, T> {
    ptr: *mut T,
    len: usize,
    _life: PhantomData<&'a mut [T]>,
}

impl<'a, T> RawEngine<'a, T> {
    /// Storage of `len` elements at `ptr`.
    ///
    /// # Safety
    ///
    /// For the lifetime `'a`: `ptr` is non-null, aligned for `T`, and valid
    /// for reads and writes of `len` initialized elements (`len * size_of::<T>()`
    /// bytes within one allocation, at most `isize::MAX`), and no other
    /// reference reads or writes those elements while the engine (or a tensor
    /// over it) is in use, as for a `&'a mut [T]`.
    pub unsafe fn new(ptr: *mut T, len: usize) -> Self {
        RawEngine {
            ptr,
            len,
            _life: PhantomData,
        }
    }
    /// The number of elements vouched for.
    ///
    /// ```
    /// use layout_core::tensor::raw::RawEngine;
    /// let mut buf = [0u8; 12];
    /// // SAFETY: `buf` holds 12 bytes and outlives the engine, the only access to it.
    /// let e = unsafe { RawEngine::new(buf.as_mut_ptr(), buf.len()) };
    /// assert_eq!(e.len(), 12);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether no element was vouched for.
    ///
    /// ```
    /// use layout_core::tensor::raw::RawEngine;
    /// let mut buf = [0u8; 0];
    /// // SAFETY: zero elements are vouched for.
    /// let e = unsafe { RawEngine::new(buf.as_mut_ptr(), 0) };
    /// assert!(e.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> Engine for RawEngine<'_, T> {
    type Elem = T;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        // SAFETY: `new`'s contract: `ptr` is valid for `len` elements for the
        // engine's lifetime, and only the engine accesses them.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> EngineMut for RawEngine<'_, T> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; `&mut self` makes this the only borrow.
        unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}
