//! Device buffers in global memory: a pointer and the number of elements
//! it covers, every access checked against it.

use super::thread::trap;
use layout_core::tensor::memory::{Memory, MemoryMut};

/// Four floats, 16-byte aligned: one vector load or store.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct F4(pub [f32; 4]);

/// A read-only device buffer of `len` elements: a kernel parameter (the
/// host passes a device buffer with `layout-launch`'s `Launch::slice`), a
/// [`Memory`] for tensors. Every access checks its index and traps beyond
/// `len`.
///
/// ```
/// use layout_core::{layout, Tensor};
/// use layout_device::Global;
/// let data: Vec<f32> = (0..12).map(|i| i as f32).collect();
/// // SAFETY: `data` holds 12 floats and outlives the handle; nothing writes it.
/// let x = unsafe { Global::new(data.as_ptr(), data.len()) };
/// let t = Tensor::from_memory(x, layout!((3,4):(4,1))).unwrap();
/// assert_eq!(t.layout().to_string(), "(_3,_4):(_4,_1)");
/// assert_eq!(t.load((2usize, 1usize)), 9.0);
/// ```
#[repr(C)]
pub struct Global<T> {
    ptr: *const T,
    len: usize,
}

/// A device buffer of `len` elements that the threads of a launch write,
/// each its own elements: a kernel parameter (`layout-launch`'s
/// `Launch::slice_mut`), a [`MemoryMut`] for tensors.
///
/// ```
/// use layout_core::{layout, Tensor};
/// use layout_device::GlobalMut;
/// let mut data = vec![0u32; 6];
/// // SAFETY: `data` holds 6 u32 and outlives the handle, the only access meanwhile.
/// let y = unsafe { GlobalMut::new(data.as_mut_ptr(), data.len()) };
/// let t = Tensor::from_memory(y, layout!((2,3):(1,2))).unwrap();
/// t.store((1usize, 2usize), 7); // offset 1 + 2*2
/// assert_eq!(t.load(5usize), 7);
/// assert_eq!(data[5], 7);
/// ```
#[repr(C)]
pub struct GlobalMut<T> {
    ptr: *mut T,
    len: usize,
}

// By hand: a handle is copied whatever `T` is.
impl<T> Clone for Global<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Global<T> {}
impl<T> Clone for GlobalMut<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for GlobalMut<T> {}

impl<T: Copy> Global<T> {
    /// The buffer of `len` elements at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to `len` elements of memory (device memory in a
    /// kernel), aligned for `T`, that nothing writes while the handle or a
    /// copy of it is in use.
    #[inline(always)]
    pub unsafe fn new(ptr: *const T, len: usize) -> Self {
        Global { ptr, len }
    }
    /// Elements `start + v * stride` for `v < N`; traps when the last one
    /// is not below `len` (or its index overflows).
    #[inline(always)]
    pub fn run<const N: usize>(self, start: usize, stride: usize) -> GlobalRun<T, N> {
        const { assert!(N > 0, "a run has at least one element") };
        match stride.checked_mul(N - 1).and_then(|x| x.checked_add(start)) {
            Some(last) if last < self.len => {}
            _ => trap(),
        }
        // SAFETY: start <= last < len: in bounds (`new`'s contract).
        GlobalRun {
            ptr: unsafe { self.ptr.add(start) },
            stride,
            valid: N,
        }
    }
    /// A run of `N` whose elements from `valid` on lie past a matrix's
    /// edge (a partial tile): elements `start + v * stride` for `v <
    /// valid` (at most `N`), checked once as [`Global::run`] checks; a copy
    /// of a later element writes zeros instead
    /// ([`Smem::cp_async16_or_zero`](crate::Smem::cp_async16_or_zero)), a
    /// load of one traps.
    #[inline(always)]
    pub fn run_valid<const N: usize>(
        self,
        start: usize,
        stride: usize,
        valid: usize,
    ) -> GlobalRun<T, N> {
        const { assert!(N > 0, "a run has at least one element") };
        let valid = if valid < N { valid } else { N };
        if valid == 0 {
            // Nothing to read: the run keeps the buffer's start.
            return GlobalRun {
                ptr: self.ptr,
                stride,
                valid,
            };
        }
        match stride
            .checked_mul(valid - 1)
            .and_then(|x| x.checked_add(start))
        {
            Some(last) if last < self.len => {}
            _ => trap(),
        }
        // SAFETY: start <= last < len: in bounds (`new`'s contract).
        GlobalRun {
            ptr: unsafe { self.ptr.add(start) },
            stride,
            valid,
        }
    }
}

impl<T: Copy> GlobalMut<T> {
    /// The buffer of `len` elements at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to `len` elements of memory (device memory in a
    /// kernel), aligned for `T`, that only this handle and its copies use
    /// meanwhile, each element written by one thread.
    #[inline(always)]
    pub unsafe fn new(ptr: *mut T, len: usize) -> Self {
        GlobalMut { ptr, len }
    }
    /// Writes element `i`; traps when `i >= len`.
    #[inline(always)]
    pub fn st(self, i: usize, v: T) {
        if i >= self.len {
            trap()
        }
        // SAFETY: in bounds; no other thread writes element `i` (the
        // contract of `new`, or of the launch that passed the buffer).
        unsafe { self.ptr.add(i).write(v) }
    }
}

/// `len` elements of `T` at `addr` as elements of `U`: the new length,
/// trapping when the bytes do not split into whole `U`s or the address is
/// not aligned for `U`.
#[inline(always)]
fn recast<T, U>(addr: usize, len: usize) -> (usize, usize) {
    let (t, u) = (core::mem::size_of::<T>(), core::mem::size_of::<U>());
    const { assert!(core::mem::size_of::<U>() > 0, "no zero-sized elements") };
    match len.checked_mul(t) {
        Some(bytes) if bytes % u == 0 && addr % core::mem::align_of::<U>() == 0 => {
            (addr, bytes / u)
        }
        _ => trap(),
    }
}

impl GlobalMut<F4> {
    /// The same buffer as `4 len` floats.
    #[inline(always)]
    pub fn floats(self) -> GlobalMut<f32> {
        GlobalMut {
            ptr: self.ptr.cast(),
            len: 4 * self.len,
        }
    }
}

/// `N` elements of a [`Global`] buffer, `stride` apart: bounds checked
/// once when made ([`Global::run`]), so that each access checks only its
/// constant index (which folds away). A thread's copies of a k-block are
/// such a run.
#[derive(Clone, Copy)]
pub struct GlobalRun<T, const N: usize> {
    ptr: *const T,
    stride: usize,
    /// Elements `0..valid` lie in the buffer (`N` unless made by
    /// [`Global::run_valid`]).
    valid: usize,
}

impl<T: Copy, const N: usize> GlobalRun<T, N> {
    /// Element `v` of the run; traps when `v` is not one of its valid
    /// elements (`v >= N`).
    #[inline(always)]
    pub fn ld(self, v: usize) -> T {
        // SAFETY: element v < N lies in the buffer (checked by `run`).
        unsafe { self.ptr.add(self.offset(v)).read() }
    }
    /// The element offset of `v` from the run's start; traps when
    /// `v >= N`.
    #[inline(always)]
    fn offset(self, v: usize) -> usize {
        if v >= N || v >= self.valid {
            trap()
        }
        v * self.stride
    }
    /// Whether element `v` is in the buffer (`v` below `valid`).
    #[inline(always)]
    pub fn is_valid(self, v: usize) -> bool {
        v < N && v < self.valid
    }
    /// The pointer to element `v` and 16 when `v` is valid, else the run's
    /// start (element 0, or the buffer's start for a run with none valid)
    /// and 0: a `cp.async`'s source and source size, without a branch.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub(crate) fn ptr_or_start(self, v: usize) -> (*const T, u32) {
        if self.is_valid(v) {
            // SAFETY: v < valid <= N: in the buffer (checked by the run).
            (unsafe { self.ptr.add(v * self.stride) }, 16)
        } else {
            (self.ptr, 0)
        }
    }
    /// The pointer to element `v` (for `cp.async`); traps when `v` is not
    /// valid.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub(crate) fn ptr(self, v: usize) -> *const T {
        // SAFETY: as `ld`: in the buffer.
        unsafe { self.ptr.add(self.offset(v)) }
    }
}

/// What both buffer types have, written once: the same fields, the same
/// checks (an element read, a cast, the `Memory` a tensor is made over).
macro_rules! global_buffer {
    ($($ty:ident: $ptr:ty),*) => {$(
        impl<T: Copy> $ty<T> {
            /// The number of elements.
            #[inline(always)]
            pub fn len(self) -> usize {
                self.len
            }
            /// Whether the buffer is empty.
            #[inline(always)]
            pub fn is_empty(self) -> bool {
                self.len == 0
            }
            /// Element `i`; traps when `i >= len`.
            #[inline(always)]
            pub fn ld(self, i: usize) -> T {
                match self.load(i) {
                    Some(v) => v,
                    None => trap(),
                }
            }
            /// The same memory as elements of `U`: the byte length must be
            /// a multiple of `U`'s size and the pointer aligned for `U`
            /// (traps otherwise). For 16-byte accesses to f32 or f16 data,
            /// say.
            #[inline(always)]
            pub fn cast<U: Copy>(self) -> $ty<U> {
                let (ptr, len) = recast::<T, U>(self.ptr as usize, self.len);
                $ty {
                    ptr: ptr as $ptr,
                    len,
                }
            }
        }

        impl<T: Copy> Memory for $ty<T> {
            type Elem = T;
            #[inline(always)]
            fn len(&self) -> usize {
                self.len
            }
            #[inline(always)]
            fn load(&self, i: usize) -> Option<T> {
                if i >= self.len {
                    return None;
                }
                // SAFETY: in bounds (the contract of `new`, or of the
                // launch, for the rest).
                Some(unsafe { self.ptr.add(i).read() })
            }
            #[inline(always)]
            fn window(self, start: usize, len: usize) -> Option<Self> {
                match start.checked_add(len) {
                    // SAFETY: start <= start + len <= self.len: in the buffer.
                    Some(end) if end <= self.len => Some($ty {
                        ptr: unsafe { self.ptr.add(start) },
                        len,
                    }),
                    _ => None,
                }
            }
        }
    )*};
}

global_buffer!(Global: *const U, GlobalMut: *mut U);

impl<T: Copy> MemoryMut for GlobalMut<T> {
    #[inline(always)]
    fn store(&self, i: usize, v: T) -> Option<()> {
        if i >= self.len {
            return None;
        }
        // SAFETY: in bounds; each element is written by one thread (the
        // contract of `new` or of the launch).
        unsafe { self.ptr.add(i).write(v) };
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "device check failed")]
    fn a_load_past_the_buffer_traps() {
        let data = [1u8, 2, 3];
        // SAFETY: `data` holds 3 bytes, read-only, alive for the test.
        let g = unsafe { Global::new(data.as_ptr(), 3) };
        g.ld(3);
    }

    #[test]
    fn windows_and_runs_stay_inside() {
        let data: [u16; 10] = core::array::from_fn(|i| i as u16);
        // SAFETY: as above.
        let g = unsafe { Global::new(data.as_ptr(), 10) };
        let w = g.window(4, 6).unwrap();
        assert_eq!((w.len(), w.load(5), w.load(6)), (6, Some(9), None));
        assert!(g.window(5, 6).is_none());
        assert!(g.window(usize::MAX, 2).is_none());
        let r = g.run::<3>(1, 4); // elements 1, 5, 9
        assert_eq!([r.ld(0), r.ld(1), r.ld(2)], [1, 5, 9]);
        assert!(std::panic::catch_unwind(|| g.run::<3>(2, 4)).is_err()); // 10: past
        assert!(std::panic::catch_unwind(|| g.run::<2>(1, usize::MAX)).is_err());
    }

    #[test]
    fn casts_keep_the_bytes() {
        let data = [F4([1.0, 2.0, 3.0, 4.0]), F4([5.0, 6.0, 7.0, 8.0])];
        // SAFETY: as above.
        let g = unsafe { Global::new(data.as_ptr(), 2) };
        let f = g.cast::<f32>();
        assert_eq!((f.len(), f.ld(5)), (8, 6.0));
        let back = f.cast::<F4>();
        assert_eq!(back.ld(1), data[1]);
        // 7 floats do not make whole F4s.
        // SAFETY: 7 of the 8 floats, read-only.
        let seven = unsafe { Global::new(data.as_ptr().cast::<f32>(), 7) };
        assert!(std::panic::catch_unwind(|| seven.cast::<F4>()).is_err());
    }
}
