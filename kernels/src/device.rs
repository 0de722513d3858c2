//! The device layer: everything in the GPU kernels that touches hardware,
//! and the crate's only `unsafe` code.
//!
//! - Thread and block indices, the block barrier, a trap for failed checks.
//! - [`Global`] and [`GlobalMut`]: device buffers passed by the host, with
//!   their length. Every access checks its index against the length and
//!   traps beyond it, so the kernels above this layer are safe code.
//! - Shared memory: one buffer of [`SMEM_BYTES`] per block, declared in PTX
//!   (Rust has no address-space-3 statics), read and written by `ld.shared`
//!   / `st.shared`; every access checks its offset against the buffer.
//! - [`F4`]: four `f32` aligned to 16 bytes, moved by one vector
//!   instruction (`ld.global.v4.f32`, `st.shared.v4.f32`, ...).
//!
//! What the unsafe code relies on, and who guarantees it:
//! - a kernel's entry point (in this module) gets, for each buffer, a device
//!   pointer to at least the number of elements it is told (the launch
//!   contract: the host runner allocates them so);
//! - threads of a launch write disjoint elements: the index maps of
//!   [`crate::maps`] guarantee it, and the CPU tests enumerate every thread
//!   of every block to check it.
#![allow(unsafe_code)]

use core::arch::{asm, global_asm, nvptx};

/// Four floats, 16-byte aligned: one vector load or store.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default)]
pub struct F4(pub [f32; 4]);

/// Stops the kernel (a failed check, a panic): the launch reports an error.
#[inline(always)]
pub fn trap() -> ! {
    // SAFETY: `trap` aborts the kernel; it has no precondition.
    unsafe { nvptx::trap() }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    trap()
}

/// The thread's index in its block (x).
#[inline(always)]
pub fn thread_idx() -> usize {
    // SAFETY: reads a special register.
    unsafe { nvptx::_thread_idx_x() as usize }
}

/// The block's index in the grid (x, y).
#[inline(always)]
pub fn block_idx() -> (usize, usize) {
    // SAFETY: reads special registers.
    unsafe { (nvptx::_block_idx_x() as usize, nvptx::_block_idx_y() as usize) }
}

/// `__syncthreads()`: every thread of the block waits here; shared-memory
/// writes before it are seen by every thread after it.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: a barrier; every thread of the block reaches it (the kernels
    // call it outside data-dependent branches). No `nomem`: the compiler
    // keeps shared-memory accesses on their side of it.
    unsafe { asm!("bar.sync 0;", options(nostack)) }
}

/// Fused multiply-add `a * b + c`, one `fma.rn.f32`.
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::intrinsics::fmaf32(a, b, c)
}

/// A read-only device buffer of `len` elements.
#[derive(Clone, Copy)]
pub struct Global<T> {
    ptr: *const T,
    len: usize,
}

/// A device buffer of `len` elements that threads write (each its own
/// elements).
#[derive(Clone, Copy)]
pub struct GlobalMut<T> {
    ptr: *mut T,
    len: usize,
}

impl<T: Copy> Global<T> {
    /// # Safety
    /// `ptr` points to `len` elements of device memory, aligned for `T`,
    /// that nothing writes during the kernel.
    #[inline(always)]
    unsafe fn new(ptr: *const T, len: usize) -> Self {
        Global { ptr, len }
    }
    /// Element `i`; traps when `i >= len`.
    #[inline(always)]
    pub fn ld(self, i: usize) -> T {
        if i >= self.len {
            trap()
        }
        // SAFETY: in bounds (checked above, `new`'s contract for the rest).
        unsafe { self.ptr.add(i).read() }
    }
}

impl<T: Copy> GlobalMut<T> {
    /// # Safety
    /// `ptr` points to `len` elements of device memory, aligned for `T`,
    /// that only this kernel uses, each element written by one thread.
    #[inline(always)]
    unsafe fn new(ptr: *mut T, len: usize) -> Self {
        GlobalMut { ptr, len }
    }
    /// Element `i`; traps when `i >= len`.
    #[inline(always)]
    pub fn ld(self, i: usize) -> T {
        if i >= self.len {
            trap()
        }
        // SAFETY: in bounds.
        unsafe { self.ptr.add(i).read() }
    }
    /// Writes element `i`; traps when `i >= len`.
    #[inline(always)]
    pub fn st(self, i: usize, v: T) {
        if i >= self.len {
            trap()
        }
        // SAFETY: in bounds; no other thread writes element `i` (the maps).
        unsafe { self.ptr.add(i).write(v) }
    }
}

/// Bytes of shared memory each block has ([`smem_ld`] and friends address
/// it in `f32` units from 0).
pub const SMEM_BYTES: usize = 16384;
const SMEM_F32: usize = SMEM_BYTES / 4;

// One static shared buffer; each kernel that uses it gets its own copy.
global_asm!(".shared .align 16 .b8 layout_smem[16384];");

#[inline(always)]
fn smem_addr(f32_offset: usize, width: usize) -> u32 {
    // Refused: beyond the buffer, or a vector access that is not aligned
    // to its width.
    if f32_offset + width > SMEM_F32 || f32_offset % width != 0 {
        trap()
    }
    let base: u32;
    // SAFETY: takes the buffer's shared-window address.
    unsafe {
        asm!("mov.u32 {b}, layout_smem;", b = out(reg32) base, options(pure, nomem, nostack))
    };
    base + 4 * f32_offset as u32
}

/// The `f32` at `offset` of the block's shared buffer.
#[inline(always)]
pub fn smem_ld(offset: usize) -> f32 {
    let a = smem_addr(offset, 1);
    let v: f32;
    // SAFETY: `a` lies in the buffer (checked by `smem_addr`).
    unsafe {
        asm!("ld.shared.f32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) a,
             options(pure, readonly, nostack))
    };
    v
}

/// Four `f32` at `offset` (a multiple of 4) of the shared buffer.
#[inline(always)]
pub fn smem_ld4(offset: usize) -> F4 {
    let a = smem_addr(offset, 4);
    let (x, y, z, w): (f32, f32, f32, f32);
    // SAFETY: `a` lies in the buffer and is 16-byte aligned (checked).
    unsafe {
        asm!("ld.shared.v4.f32 {{{x}, {y}, {z}, {w}}}, [{a}];",
             x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
             a = in(reg32) a, options(pure, readonly, nostack))
    };
    F4([x, y, z, w])
}

/// Writes the `f32` at `offset` of the shared buffer.
#[inline(always)]
pub fn smem_st(offset: usize, v: f32) {
    let a = smem_addr(offset, 1);
    // SAFETY: `a` lies in the buffer (checked).
    unsafe { asm!("st.shared.f32 [{a}], {v};", a = in(reg32) a, v = in(reg32) v, options(nostack)) }
}

/// Writes four `f32` at `offset` (a multiple of 4) of the shared buffer.
#[inline(always)]
pub fn smem_st4(offset: usize, v: F4) {
    let a = smem_addr(offset, 4);
    let [x, y, z, w] = v.0;
    // SAFETY: `a` lies in the buffer and is 16-byte aligned (checked).
    unsafe {
        asm!("st.shared.v4.f32 [{a}], {{{x}, {y}, {z}, {w}}};", a = in(reg32) a,
             x = in(reg32) x, y = in(reg32) y, z = in(reg32) z, w = in(reg32) w,
             options(nostack))
    }
}

/// A buffer of `n` `f32` as `n / 4` [`F4`]; traps when `n` is not a
/// multiple of 4 or the pointer is not 16-byte aligned.
fn as_f4(ptr: *const f32, n: usize) -> (*const F4, usize) {
    if n % 4 != 0 || (ptr as usize) % 16 != 0 {
        trap()
    }
    (ptr.cast(), n / 4)
}

/// `n * m`, trapping on overflow.
fn elems(n: usize, m: usize) -> usize {
    match n.checked_mul(m) {
        Some(e) => e,
        None => trap(),
    }
}

/// Transpose of an n x n row-major `f32` matrix (`n` a multiple of 64):
/// grid (n/64, n/64), 256 threads.
///
/// # Safety
/// `src` and `dst` point to n * n floats of device memory, 16-byte aligned,
/// and do not overlap.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn transpose_f32(src: *const f32, dst: *mut f32, n: usize) {
    let (s, len) = as_f4(src, elems(n, n));
    let (d, _) = as_f4(dst, len * 4);
    // SAFETY: the launch contract above.
    let (s, d) = unsafe { (Global::new(s, len), GlobalMut::new(d.cast_mut(), len)) };
    crate::gpu::transpose(n, s, d)
}

/// C = A · B for row-major f32 matrices: A is m x k, B is k x n, C is
/// m x n (m, n multiples of 128, k of 8): grid (n/128, m/128), 256 threads.
///
/// # Safety
/// `a`, `b`, `c` point to m * k, k * n and m * n floats of device memory,
/// 16-byte aligned; `c` overlaps neither input.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn sgemm_f32(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: usize,
    n: usize,
    k: usize,
) {
    let (a, la) = as_f4(a, elems(m, k));
    let (b, lb) = as_f4(b, elems(k, n));
    let (c, lc) = as_f4(c, elems(m, n));
    // SAFETY: the launch contract above.
    let (a, b, c) = unsafe {
        (
            Global::new(a, la),
            Global::new(b, lb),
            GlobalMut::new(c.cast_mut(), lc),
        )
    };
    crate::gpu::sgemm(m, n, k, a, b, c)
}
