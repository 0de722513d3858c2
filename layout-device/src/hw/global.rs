//! Device buffers in global memory: a pointer and the number of elements
//! it covers, every access checked against it.

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

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
        }
    }
}

impl<T: Copy> GlobalMut<T> {
    /// The buffer of `len` elements at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to `len` elements of memory (device memory in a
    /// kernel), aligned for `T`, that only this handle and its copies use
    /// meanwhile, each element written by one thread (or only through
    /// atomics such as [`atomic_inc`](GlobalMut::atomic_inc), by any; or by
    /// threads in turn, each handing on to the next by
    /// [`store_release`](GlobalMut::store_release) and
    /// [`wait_eq`](GlobalMut::wait_eq)).
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
        super::emu_global(self.ptr.wrapping_add(i), core::mem::size_of::<T>(), true);
        // SAFETY: in bounds; no other thread writes element `i` (the
        // contract of `new`, or of the launch that passed the buffer).
        unsafe { self.ptr.add(i).write(v) }
    }
}

/// Predicated stores of 4-byte elements.
macro_rules! store_where {
    ($($t:ty),*) => {$(
        impl GlobalMut<$t> {
            /// Writes element `i` where `keep` holds and `i < len`, as one
            /// predicated `st.global` (skips it otherwise): threads that
            /// store and threads that do not stay on one path. After a
            /// branch that only some threads take, ptxas treats the code up
            /// to where they meet again as divergent, and in a loop of
            /// `wgmma`s that serializes them; an epilogue's clipped stores
            /// inside such a loop use this. Check the range the stores may
            /// reach once, before, where a skipped store would be an error.
            ///
            /// ```
            /// use layout_device::GlobalMut;
            #[doc = concat!("let (zero, seven) = (0 as ", stringify!($t), ", 7 as ", stringify!($t), ");")]
            /// let mut data = [zero; 4];
            /// // SAFETY: `data` holds 4 elements, written only through `g`.
            /// let g = unsafe { GlobalMut::new(data.as_mut_ptr(), 4) };
            /// // Kept, skipped, past the buffer (skipped).
            /// g.store_where(true, 1, seven);
            /// g.store_where(false, 2, seven);
            /// g.store_where(true, 4, seven);
            /// assert_eq!(data, [zero, seven, zero, zero]);
            /// ```
            #[inline(always)]
            pub fn store_where(self, keep: bool, i: usize, v: $t) {
                let keep = keep && i < self.len;
                let at = self.ptr.wrapping_add(i);
                gpu!("store_where", host: {
                    if keep {
                        super::emu_global(at, 4, true);
                        // SAFETY: i < len: in bounds; one thread writes
                        // element `i` (`new`'s contract).
                        unsafe { at.write(v) }
                    }
                }, {
                    // SAFETY: the store happens only where `keep` (with i
                    // < len: in bounds, `new`'s contract) holds.
                    unsafe {
                        asm!("{{ .reg .pred p; setp.ne.u32 p, {k}, 0; @p st.global.b32 [{a}], {v}; }}",
                             k = in(reg32) keep as u32, a = in(reg64) at, v = in(reg32) v,
                             options(nostack))
                    }
                })
            }
        }
    )*};
}

store_where!(u32, f32);

impl GlobalMut<u32> {
    /// `atom.inc.u32` on element `i` (relaxed, at the GPU's scope; CUDA's
    /// `atomicInc`): the element becomes 0 if it was at least `last`, else
    /// one more, and the value before is returned, as one indivisible step
    /// among every thread's. A counter of `last + 1` arrivals that the last
    /// arrival (the one that sees `last`) sets back to 0. Unlike
    /// [`st`](Self::st), any number of threads may count in one element;
    /// order the accesses around it with
    /// [`fence_acq_rel_gpu`](crate::fence_acq_rel_gpu). Traps when
    /// `i >= len`.
    ///
    /// ```
    /// use layout_device::emulator::{run, Buffer, Launch};
    /// use layout_device::{block_idx, thread_idx};
    ///
    /// // 2 blocks of 32 threads count in element 1: 64 arrivals wrap a
    /// // counter of last 9 to 0 six times, leaving 64 - 60 = 4.
    /// let n = Buffer::filled(0u32, 2);
    /// let gn = n.global_mut();
    /// run(&Launch::new("count", 2, 32), move || {
    ///     let _ = (block_idx(), thread_idx());
    ///     gn.atomic_inc(1, 9);
    /// })
    /// .unwrap();
    /// n.check(&[0, 4], |a, b| a == b).unwrap();
    /// ```
    #[inline(always)]
    pub fn atomic_inc(self, i: usize, last: u32) -> u32 {
        if i >= self.len {
            trap()
        }
        let at = self.ptr.wrapping_add(i);
        super::emu_global(at, 4, true);
        gpu!("atomic_inc", host: {
            // Outside a kernel, and under the emulator (one thread runs at
            // a time), a read and a write are one step.
            // SAFETY: in bounds (`new`'s contract).
            unsafe {
                let old = at.read();
                at.write(if old >= last { 0 } else { old + 1 });
                old
            }
        }, {
            let old: u32;
            // SAFETY: `at` is element i < len of the buffer (`new`'s
            // contract); an atomic read-modify-write of it.
            unsafe {
                asm!("atom.inc.u32 {o}, [{a}], {b};", o = out(reg32) old, a = in(reg64) at,
                     b = in(reg32) last, options(nostack))
            }
            old
        })
    }
}

impl GlobalMut<f32> {
    /// `red.global.add.f32` on element `i` (relaxed, at the GPU's scope;
    /// CUDA's `atomicAdd` without its result): the element becomes itself
    /// plus `v`, as one indivisible step among every thread's. Any number
    /// of threads may add into one element; the sum's rounding depends on
    /// the order the additions land in, so two launches may differ in the
    /// last bits. Traps when `i >= len`.
    ///
    /// ```
    /// use layout_device::emulator::{run, Buffer, Launch};
    /// use layout_device::{block_idx, thread_idx};
    ///
    /// // 2 blocks of 32 threads each add 0.5 to element 1: 32 in all.
    /// let n = Buffer::filled(0f32, 2);
    /// let gn = n.global_mut();
    /// run(&Launch::new("sum", 2, 32), move || {
    ///     let _ = (block_idx(), thread_idx());
    ///     gn.atomic_add(1, 0.5);
    /// })
    /// .unwrap();
    /// n.check(&[0.0, 32.0], |a, b| a == b).unwrap();
    /// ```
    #[inline(always)]
    pub fn atomic_add(self, i: usize, v: f32) {
        if i >= self.len {
            trap()
        }
        let at = self.ptr.wrapping_add(i);
        super::emu_global(at, 4, true);
        gpu!("atomic_add", host: {
            // Outside a kernel, and under the emulator (one thread runs at
            // a time), a read and a write are one step.
            // SAFETY: in bounds (`new`'s contract).
            unsafe { at.write(at.read() + v) }
        }, {
            // SAFETY: `at` is element i < len of the buffer (`new`'s
            // contract); an atomic read-modify-write of it.
            unsafe {
                asm!("red.global.add.f32 [{a}], {v};", a = in(reg64) at, v = in(reg32) v,
                     options(nostack))
            }
        })
    }
}

impl GlobalMut<u32> {
    /// Waits until element `i` holds `v` (`ld.acquire.gpu` polled): what
    /// the threads that wrote before a [`store_release`](Self::store_release)
    /// of `v` there wrote is then visible to this thread, and, after a
    /// barrier, to the threads that synchronize with it. A flag that
    /// orders blocks: one block's results handed to the next. The thread
    /// that stores `v` must not itself wait on this thread, or on a block
    /// that cannot run until this one ends (blocks wait only on blocks of
    /// lower index, or all are resident at once). Traps when `i >= len`.
    ///
    /// ```
    /// use layout_device::emulator::{run, Buffer, Launch};
    /// use layout_device::block_idx;
    ///
    /// // Block b adds its index to element 0 after block b - 1: each waits
    /// // for the flag to reach its index, then hands on.
    /// let (sum, flag) = (Buffer::filled(0u32, 1), Buffer::filled(0u32, 1));
    /// let (gs, gf) = (sum.global_mut(), flag.global_mut());
    /// run(&Launch::new("chain", 4, 1), move || {
    ///     let b = block_idx().0 as u32;
    ///     gf.wait_eq(0, b);
    ///     gs.st(0, gs.ld(0) * 10 + b + 1);
    ///     gf.store_release(0, b + 1);
    /// })
    /// .unwrap();
    /// sum.check(&[1234], |a, b| a == b).unwrap();
    /// ```
    #[inline(always)]
    pub fn wait_eq(self, i: usize, v: u32) {
        if i >= self.len {
            trap()
        }
        let at = self.ptr.wrapping_add(i);
        gpu!("wait_eq", {
            loop {
                let now: u32;
                // SAFETY: `at` is element i < len of the buffer (`new`'s
                // contract); a load.
                unsafe {
                    asm!("ld.acquire.gpu.global.u32 {o}, [{a}];", o = out(reg32) now,
                         a = in(reg64) at, options(nostack))
                }
                if now == v {
                    break;
                }
            }
        }, emu: { crate::emulator::ops::global_wait_eq("GlobalMut::wait_eq", at, v) })
    }

    /// Writes `v` to element `i` with release semantics at the GPU's
    /// scope (`st.release.gpu`): a thread that sees it by
    /// [`wait_eq`](Self::wait_eq) sees every write this thread made
    /// before, and, through a barrier before this store, its block's.
    /// Traps when `i >= len`.
    #[inline(always)]
    pub fn store_release(self, i: usize, v: u32) {
        if i >= self.len {
            trap()
        }
        let at = self.ptr.wrapping_add(i);
        super::emu_global(at, 4, true);
        gpu!("store_release", host: {
            // SAFETY: in bounds (`new`'s contract).
            unsafe { at.write(v) }
        }, {
            // SAFETY: `at` is element i < len of the buffer (`new`'s
            // contract); a store.
            unsafe {
                asm!("st.release.gpu.global.u32 [{a}], {v};", a = in(reg64) at, v = in(reg32) v,
                     options(nostack))
            }
        })
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

impl<T: Copy> Global<T> {
    /// The matrix of `rows` rows of `width` elements, rows `ld` elements
    /// apart, from element `start`: checked once here to lie in the buffer
    /// (its last row ends by `len`; traps otherwise, or when a row's step in
    /// bytes does not fit 32 bits), so that its elements are then reached
    /// by (row, column) with no check but whether the row is one of its
    /// `rows` ([`GlobalRows::column`], [`GlobalColumn`]). A tile loop's
    /// copies check their matrix once, before the loop, not per tile.
    ///
    /// ```
    /// use layout_device::Global;
    /// let data: Vec<u16> = (0..20).collect();
    /// // SAFETY: `data` holds 20 u16, read-only, alive for the handle.
    /// let g = unsafe { Global::new(data.as_ptr(), 20) };
    /// // 3 rows of 2 elements, 5 apart, from element 4: 4 5 / 9 10 / 14 15.
    /// let col = g.rows(4, 3, 5, 2).column(1);
    /// assert_eq!([col.ld(0), col.ld(2), col.ld(3)], [Some(5), Some(15), None]);
    /// ```
    #[inline(always)]
    pub fn rows(self, start: usize, rows: u32, ld: usize, width: usize) -> GlobalRows<T> {
        let end = match rows.checked_sub(1) {
            // No rows: nothing is ever read (the column stays at the
            // buffer's start).
            None => Some(0),
            Some(last) => (last as usize)
                .checked_mul(ld)
                .and_then(|x| x.checked_add(start))
                .and_then(|x| x.checked_add(width)),
        };
        let step = ld.checked_mul(core::mem::size_of::<T>());
        match (end, step) {
            (Some(end), Some(step)) if end <= self.len && step <= u32::MAX as usize => {}
            _ => trap(),
        }
        GlobalRows {
            // SAFETY: with rows, start <= end <= len: in the buffer (or one
            // past it with width 0, never read: a column needs col < width).
            ptr: if rows == 0 {
                self.ptr
            } else {
                unsafe { self.ptr.add(start) }
            },
            rows,
            ld_bytes: (ld * core::mem::size_of::<T>()) as u32,
            width: if rows == 0 { 0 } else { width },
        }
    }
}

/// A matrix inside a [`Global`] buffer, checked when made
/// ([`Global::rows`]): `rows` rows of `width` elements, `ld_bytes` apart.
#[derive(Clone, Copy)]
pub struct GlobalRows<T> {
    ptr: *const T,
    rows: u32,
    ld_bytes: u32,
    width: usize,
}

impl<T: Copy> GlobalRows<T> {
    /// Column `col` of the matrix; traps when `col >= width` (or the matrix
    /// has no rows).
    #[inline(always)]
    pub fn column(self, col: usize) -> GlobalColumn<T> {
        if col >= self.width {
            trap()
        }
        GlobalColumn {
            // SAFETY: col < width: element (0, col) of the matrix, in the
            // buffer (checked by `rows`).
            ptr: unsafe { self.ptr.add(col) },
            rows: self.rows,
            ld_bytes: self.ld_bytes,
        }
    }
}

/// `a * b` as 64 bits, one `mul.wide.u32` on the GPU (kept opaque: LLVM,
/// knowing a step fits 32 bits, would otherwise widen it first and
/// multiply in 64 bits, three instructions).
#[inline(always)]
fn mul_wide_u32(a: u32, b: u32) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let d: u64;
        // SAFETY: registers only.
        unsafe {
            core::arch::asm!("mul.wide.u32 {d}, {a}, {b};", d = out(reg64) d, a = in(reg32) a,
                             b = in(reg32) b, options(pure, nomem, nostack))
        };
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        a as u64 * b as u64
    }
}

/// One column of a [`GlobalRows`] matrix: element `r` is (row `r`, the
/// column), in the buffer for every `r < rows`. A thread's chunks of a
/// tile copy lie in one column, one row each.
#[derive(Clone, Copy)]
pub struct GlobalColumn<T> {
    ptr: *const T,
    rows: u32,
    ld_bytes: u32,
}

impl<T: Copy> GlobalColumn<T> {
    /// Whether row `r` is one of the matrix's.
    #[inline(always)]
    pub fn has_row(self, r: u32) -> bool {
        r < self.rows
    }
    /// The element in row `r`, or `None` past the matrix's last row.
    #[inline(always)]
    pub fn ld(self, r: u32) -> Option<T> {
        if !self.has_row(r) {
            return None;
        }
        super::emu_global(
            self.ptr
                .wrapping_byte_add(mul_wide_u32(r, self.ld_bytes) as usize),
            core::mem::size_of::<T>(),
            false,
        );
        // SAFETY: r < rows: in the matrix, in the buffer.
        Some(unsafe { self.at(r).read() })
    }
    /// Row `r`'s element: 32-bit row times 32-bit step, one wide
    /// multiply-add on the GPU.
    ///
    /// # Safety
    /// `r < rows`.
    #[inline(always)]
    unsafe fn at(self, r: u32) -> *const T {
        // SAFETY: the caller's r < rows keeps the offset inside the matrix.
        unsafe { self.ptr.byte_add(mul_wide_u32(r, self.ld_bytes) as usize) }
    }
    /// The pointer to row `r`'s element and 16 when `r` is a row of the
    /// matrix, else the column's start and 0: a `cp.async`'s source and
    /// source size, without a branch.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub(crate) fn ptr_or_start(self, r: u32) -> (*const T, u32) {
        // The row chosen, then one address: no select between pointers.
        let (r, bytes) = if self.has_row(r) { (r, 16) } else { (0, 0) };
        // SAFETY: r < rows, or row 0 with nothing read.
        (unsafe { self.at(r) }, bytes)
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
}

impl<T: Copy, const N: usize> GlobalRun<T, N> {
    /// Element `v` of the run; traps when `v >= N`.
    #[inline(always)]
    pub fn ld(self, v: usize) -> T {
        super::emu_global(
            self.ptr.wrapping_add(self.offset(v)),
            core::mem::size_of::<T>(),
            false,
        );
        // SAFETY: element v < N lies in the buffer (checked by `run`).
        unsafe { self.ptr.add(self.offset(v)).read() }
    }
    /// The element offset of `v` from the run's start; traps when
    /// `v >= N`.
    #[inline(always)]
    fn offset(self, v: usize) -> usize {
        if v >= N {
            trap()
        }
        v * self.stride
    }
    /// The pointer to element `v` (for `cp.async`); traps when `v >= N`.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub(crate) fn ptr(self, v: usize) -> *const T {
        // SAFETY: as `ld`: in the buffer.
        unsafe { self.ptr.add(self.offset(v)) }
    }
}

impl GlobalMut<f32> {
    /// Elements `start .. start + N` for atomic additions
    /// ([`GlobalAddRun::atomic_add`]): checked once here to lie in the
    /// buffer (traps otherwise), so that each addition checks only its
    /// index against `N` (which folds away where the index is known
    /// below `N`, for example masked by `N - 1` for a power of two). A
    /// thread's additions into one row of a matrix are such a run.
    ///
    /// ```
    /// use layout_device::emulator::{run, Buffer, Launch};
    /// use layout_device::thread_idx;
    ///
    /// // 4 threads add their index into elements 2 and 3 (a run of 2 from 2).
    /// let n = Buffer::filled(0f32, 4);
    /// let gn = n.global_mut();
    /// run(&Launch::new("sum", 1, 4), move || {
    ///     let r = gn.add_run::<2>(2);
    ///     r.atomic_add(0, thread_idx() as f32);
    ///     r.atomic_add(1, 1.0);
    /// })
    /// .unwrap();
    /// n.check(&[0.0, 0.0, 6.0, 4.0], |a, b| a == b).unwrap();
    /// ```
    #[inline(always)]
    pub fn add_run<const N: usize>(self, start: usize) -> GlobalAddRun<N> {
        match start.checked_add(N) {
            Some(end) if end <= self.len => {}
            _ => trap(),
        }
        GlobalAddRun {
            // SAFETY: start + N <= len: the run lies in the buffer.
            at: GlobalMut {
                ptr: self.ptr.wrapping_add(start),
                len: N,
            },
        }
    }
}

/// `N` consecutive elements of a [`GlobalMut<f32>`] for atomic additions,
/// checked once when made ([`GlobalMut::add_run`]).
#[derive(Clone, Copy)]
pub struct GlobalAddRun<const N: usize> {
    /// The run as a buffer of its own `N` elements.
    at: GlobalMut<f32>,
}

impl<const N: usize> GlobalAddRun<N> {
    /// [`GlobalMut::atomic_add`] on element `i` of the run; traps when
    /// `i >= N`.
    #[inline(always)]
    pub fn atomic_add(self, i: usize, v: f32) {
        self.at.atomic_add(i, v)
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
                super::emu_global(self.ptr.wrapping_add(i), core::mem::size_of::<T>(), false);
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
        super::emu_global(self.ptr.wrapping_add(i), core::mem::size_of::<T>(), true);
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
    fn matrices_are_checked_once_and_columns_by_row() {
        let data: [u32; 20] = core::array::from_fn(|i| i as u32);
        // SAFETY: as above.
        let g = unsafe { Global::new(data.as_ptr(), 20) };
        // 4 rows of 3, 5 apart, from 2: the last row is 17 18 19.
        let m = g.rows(2, 4, 5, 3);
        for (col, expect) in [(0, [2, 7, 12, 17]), (2, [4, 9, 14, 19])] {
            let c = m.column(col);
            for (r, e) in expect.iter().enumerate() {
                assert_eq!(c.ld(r as u32), Some(*e));
            }
            assert_eq!((c.ld(4), c.ld(u32::MAX)), (None, None));
        }
        let past = |f: fn(Global<u32>)| std::panic::catch_unwind(move || f(g)).is_err();
        // One element too many (the last row ends at 21), a column past the
        // width, a step whose product overflows, a step of 2^32 bytes.
        assert!(past(|g| {
            let _ = g.rows(3, 4, 5, 3);
        }));
        assert!(past(|g| {
            let _ = g.rows(2, 4, 5, 3).column(3);
        }));
        assert!(past(|g| {
            let _ = g.rows(0, 3, usize::MAX / 2, 1);
        }));
        assert!(past(|g| {
            let _ = g.rows(0, 1, 1 << 30, 1);
        }));
        // No rows: nothing to read, no column.
        assert!(past(|g| {
            let _ = g.rows(25, 0, 5, 3).column(0);
        }));
        // The whole buffer as the matrix: its last element is the last row's.
        assert_eq!(g.rows(0, 4, 5, 5).column(4).ld(3), Some(19));
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
