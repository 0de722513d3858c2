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
    unsafe {
        (
            nvptx::_block_idx_x() as usize,
            nvptx::_block_idx_y() as usize,
        )
    }
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

/// `N` elements of a [`Global`] buffer, `stride` apart: bounds checked
/// once when made, so that each access checks only its constant index
/// (which folds away). A thread's copies of a k-block are such a run.
#[derive(Clone, Copy)]
pub struct GlobalRun<T, const N: usize> {
    ptr: *const T,
    stride: usize,
}

impl<T: Copy> Global<T> {
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

/// Bytes of shared memory each block has ([`Smem::window`] addresses it in
/// `f32` units from 0).
pub const SMEM_BYTES: usize = 16384;
const SMEM_F32: usize = SMEM_BYTES / 4;

// Static shared buffers; each kernel gets its own copy of the ones it uses
// (the small one for the SIMT kernels, the large one for the tensor-core
// pipeline), so one kernel's need does not cost the others occupancy.
global_asm!(".shared .align 16 .b8 layout_smem[16384];");
global_asm!(".shared .align 128 .b8 layout_smem_big[49152];");

/// Bytes of the large shared buffer ([`Smem::window_big`]).
pub const SMEM_BIG_BYTES: usize = 49152;

/// A window of the block's shared buffer: `len` floats from `offset`.
/// Accesses check their index against `len`; the window's bounds are
/// checked once, when it is made. A thread makes one window per partition
/// (its base offset from the maps, its length the partition's cosize), so
/// the per-access index is a constant and the checks fold away.
#[derive(Clone, Copy)]
pub struct Smem {
    /// Shared-window address of element 0, hidden from the optimiser (see
    /// [`Smem::window`]).
    addr: u32,
    offset: usize,
    len: usize,
}

impl Smem {
    /// The window `offset .. offset + len` of the small buffer
    /// ([`SMEM_BYTES`]); traps when it leaves the buffer.
    #[inline(always)]
    pub fn window(offset: usize, len: usize) -> Smem {
        let raw: u32;
        // SAFETY: takes the buffer's shared-window address.
        unsafe {
            asm!("mov.u32 {b}, layout_smem;", b = out(reg32) raw, options(pure, nomem, nostack))
        };
        Smem::make(raw, SMEM_F32, offset, len)
    }

    /// The window `offset .. offset + len` of the large buffer
    /// ([`SMEM_BIG_BYTES`]); traps when it leaves the buffer.
    #[inline(always)]
    pub fn window_big(offset: usize, len: usize) -> Smem {
        let raw: u32;
        // SAFETY: takes the buffer's shared-window address.
        unsafe {
            asm!("mov.u32 {b}, layout_smem_big;", b = out(reg32) raw, options(pure, nomem, nostack))
        };
        Smem::make(raw, SMEM_BIG_BYTES / 4, offset, len)
    }

    #[inline(always)]
    fn make(raw: u32, cap: usize, offset: usize, len: usize) -> Smem {
        match offset.checked_add(len) {
            Some(end) if end <= cap => {}
            _ => trap(),
        }
        let at = raw + 4 * offset as u32;
        let addr: u32;
        // SAFETY: a register move. The address goes through it so that the
        // optimiser does not know its low bits and keeps `addr + 4 i` an
        // addition (which ptxas folds into the load's immediate offset)
        // instead of an `or`.
        unsafe {
            asm!("mov.u32 {o}, {i};", o = out(reg32) addr, i = in(reg32) at, options(pure, nomem, nostack))
        };
        Smem { addr, offset, len }
    }

    #[inline(always)]
    fn addr(self, i: usize, width: usize) -> u32 {
        // Refused: beyond the window, or a vector access not aligned to
        // its width.
        if i + width > self.len || (self.offset + i) % width != 0 {
            trap()
        }
        self.addr + 4 * i as u32
    }

    /// The `f32` at index `i` of the window.
    #[inline(always)]
    pub fn ld(self, i: usize) -> f32 {
        let a = self.addr(i, 1);
        let v: f32;
        // SAFETY: `a` lies in the buffer (the window and `addr` checks).
        unsafe {
            asm!("ld.shared.f32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) a,
                 options(pure, readonly, nostack))
        };
        v
    }

    /// Four `f32` at index `i` (16-byte aligned in the buffer).
    #[inline(always)]
    pub fn ld4(self, i: usize) -> F4 {
        let a = self.addr(i, 4);
        let (x, y, z, w): (f32, f32, f32, f32);
        // SAFETY: `a` lies in the buffer and is 16-byte aligned (checked).
        unsafe {
            asm!("ld.shared.v4.f32 {{{x}, {y}, {z}, {w}}}, [{a}];",
                 x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
                 a = in(reg32) a, options(pure, readonly, nostack))
        };
        F4([x, y, z, w])
    }

    /// Writes the `f32` at index `i`.
    #[inline(always)]
    pub fn st(self, i: usize, v: f32) {
        let a = self.addr(i, 1);
        // SAFETY: `a` lies in the buffer (checked).
        unsafe {
            asm!("st.shared.f32 [{a}], {v};", a = in(reg32) a, v = in(reg32) v, options(nostack))
        }
    }

    /// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: this lane gives the
    /// address of index `i` (16-byte aligned; the row of 8 halves it names
    /// lies in the window) and receives four registers, as the copy atom
    /// `SM75_U32x4_LDSM_N` lays them out. The whole warp executes it
    /// together.
    #[inline(always)]
    pub fn ldmatrix_x4(self, i: usize) -> [u32; 4] {
        let a = self.addr(i, 4);
        let (r0, r1, r2, r3): (u32, u32, u32, u32);
        // SAFETY: `a` lies in the buffer, 16-byte aligned (checked); the
        // warp executes it converged (the kernels call it with whole warps).
        unsafe {
            asm!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];",
                 r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3,
                 a = in(reg32) a, options(readonly, nostack))
        };
        [r0, r1, r2, r3]
    }

    /// `ldmatrix.sync.aligned.m8n8.x2.shared.b16`: as [`Smem::ldmatrix_x4`]
    /// with two matrices (lanes 0-15 give the rows; the others' addresses are
    /// checked but not used).
    #[inline(always)]
    pub fn ldmatrix_x2(self, i: usize) -> [u32; 2] {
        let a = self.addr(i, 4);
        let (r0, r1): (u32, u32);
        // SAFETY: as ldmatrix_x4.
        unsafe {
            asm!("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{{r0}, {r1}}}, [{a}];",
                 r0 = out(reg32) r0, r1 = out(reg32) r1,
                 a = in(reg32) a, options(readonly, nostack))
        };
        [r0, r1]
    }

    /// `ldmatrix.sync.aligned.m8n8.x1.shared.b16`: one matrix, lanes 0-7
    /// give the rows (`SM75_U32x1_LDSM_N`).
    #[inline(always)]
    pub fn ldmatrix_x1(self, i: usize) -> u32 {
        let a = self.addr(i, 4);
        let r0: u32;
        // SAFETY: as ldmatrix_x4.
        unsafe {
            asm!("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{{r0}}}, [{a}];",
                 r0 = out(reg32) r0, a = in(reg32) a, options(readonly, nostack))
        };
        r0
    }

    /// `ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16`: one matrix,
    /// transposed (`SM75_U16x2_LDSM_T`).
    #[inline(always)]
    pub fn ldmatrix_x1_trans(self, i: usize) -> u32 {
        let a = self.addr(i, 4);
        let r0: u32;
        // SAFETY: as ldmatrix_x4.
        unsafe {
            asm!("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {{{r0}}}, [{a}];",
                 r0 = out(reg32) r0, a = in(reg32) a, options(readonly, nostack))
        };
        r0
    }

    /// `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`: two matrices,
    /// transposed (`SM75_U16x4_LDSM_T`).
    #[inline(always)]
    pub fn ldmatrix_x2_trans(self, i: usize) -> [u32; 2] {
        let a = self.addr(i, 4);
        let (r0, r1): (u32, u32);
        // SAFETY: as ldmatrix_x4.
        unsafe {
            asm!("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{{r0}, {r1}}}, [{a}];",
                 r0 = out(reg32) r0, r1 = out(reg32) r1,
                 a = in(reg32) a, options(readonly, nostack))
        };
        [r0, r1]
    }

    /// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: four matrices,
    /// transposed (`SM75_U16x8_LDSM_T`).
    #[inline(always)]
    pub fn ldmatrix_x4_trans(self, i: usize) -> [u32; 4] {
        let a = self.addr(i, 4);
        let (r0, r1, r2, r3): (u32, u32, u32, u32);
        // SAFETY: as ldmatrix_x4.
        unsafe {
            asm!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];",
                 r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3,
                 a = in(reg32) a, options(readonly, nostack))
        };
        [r0, r1, r2, r3]
    }

    /// `cp.async.cg.shared.global` of 16 bytes: element `v` of the run
    /// `src` to index `i` (16-byte aligned) of the window, without
    /// registers. The data is there after a [`cp_async_wait`] that covers
    /// it (and a barrier for other threads' copies).
    #[inline(always)]
    pub fn cp_async16<const N: usize>(self, i: usize, src: GlobalRun<F4, N>, v: usize) {
        let a = self.addr(i, 4);
        if v >= N {
            trap()
        }
        // SAFETY: element v < N of the run is in bounds (checked when the
        // run was made), `a` in the buffer and aligned (checked).
        unsafe {
            let g = src.ptr.add(v * src.stride);
            asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {g}; cp.async.cg.shared.global [{a}], [g], 16; }}",
                 a = in(reg32) a, g = in(reg64) g, options(nostack))
        }
    }

    /// Writes four `f32` at index `i` (16-byte aligned in the buffer).
    #[inline(always)]
    pub fn st4(self, i: usize, v: F4) {
        let a = self.addr(i, 4);
        let [x, y, z, w] = v.0;
        // SAFETY: `a` lies in the buffer and is 16-byte aligned (checked).
        unsafe {
            asm!("st.shared.v4.f32 [{a}], {{{x}, {y}, {z}, {w}}};", a = in(reg32) a,
                 x = in(reg32) x, y = in(reg32) y, z = in(reg32) z, w = in(reg32) w,
                 options(nostack))
        }
    }
}

/// Commits this thread's outstanding `cp.async` copies as one group.
#[inline(always)]
pub fn cp_async_commit() {
    // SAFETY: no operands.
    unsafe { asm!("cp.async.commit_group;", options(nostack)) }
}

/// Waits until at most `N` of this thread's committed `cp.async` groups
/// are still in flight (the older ones are done).
#[inline(always)]
pub fn cp_async_wait<const N: u32>() {
    // SAFETY: no operands; a memory clobber keeps shared reads after it.
    unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) }
}

/// Waits until every committed `cp.async` group of this thread is done.
#[inline(always)]
pub fn cp_async_wait_all() {
    // SAFETY: no operands; a memory clobber keeps shared reads after it.
    unsafe { asm!("cp.async.wait_all;", options(nostack)) }
}

/// One warp's `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`:
/// D = A·Bᵀ + C on a 16 x 16 A, an 8 x 16 B (N x K) and a 16 x 8 C, each
/// lane holding the fragments that [`crate::maps::mma_atom_offsets`] gives
/// (the atom's thread-value layouts): A as 4 registers of two f16 (value
/// 2r in the low half of register r), B as 2, C and D as 4 f32.
///
/// All 32 lanes of the warp execute it together (`.aligned`): kernels call
/// it outside data-dependent branches, with whole warps.
#[inline(always)]
pub fn mma_m16n8k16_f32(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    let (d0, d1, d2, d3): (f32, f32, f32, f32);
    // SAFETY: registers only; the warp executes it converged (above).
    unsafe {
        asm!(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};",
            d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
            a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
            b0 = in(reg32) b[0], b1 = in(reg32) b[1],
            c0 = in(reg32) c[0], c1 = in(reg32) c[1], c2 = in(reg32) c[2], c3 = in(reg32) c[3],
            options(pure, nomem, nostack)
        )
    };
    [d0, d1, d2, d3]
}

/// The same atom with f16 accumulators
/// (`mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16`): C and D as 2
/// registers of two f16.
#[inline(always)]
pub fn mma_m16n8k16_f16(a: [u32; 4], b: [u32; 2], c: [u32; 2]) -> [u32; 2] {
    let (d0, d1): (u32, u32);
    // SAFETY: registers only; the warp executes it converged (as above).
    unsafe {
        asm!(
            "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {{{d0}, {d1}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}}};",
            d0 = out(reg32) d0, d1 = out(reg32) d1,
            a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
            b0 = in(reg32) b[0], b1 = in(reg32) b[1],
            c0 = in(reg32) c[0], c1 = in(reg32) c[1],
            options(pure, nomem, nostack)
        )
    };
    [d0, d1]
}

// What the build tool (`layout-ptx`, run by `kernels/build-ptx.sh`) reads
// from this source for the kernels below, each const named after its
// kernel: launch bounds it writes into the PTX, and checks on each
// kernel's PTX. They generate no code.

/// `sgemm_f32`'s launch bounds (CUDA's `__launch_bounds__(256, 2)`, which
/// Rust cannot state): 256 threads (its 16 x 16 TiledMMA) and two blocks
/// per SM, so ptxas keeps it within 128 registers.
pub const SGEMM_F32_LAUNCH_BOUNDS: (u32, u32) = (256, 2);
/// `sgemm_nt_f32`'s launch bounds, as [`SGEMM_F32_LAUNCH_BOUNDS`].
pub const SGEMM_NT_F32_LAUNCH_BOUNDS: (u32, u32) = (256, 2);
/// No kernel divides: the transpose's and the atoms' shapes are static; the
/// GEMMs' run-time M, N, K are only divided by static powers of two.
pub const MMA_ATOM_NO_DIVISION: bool = true;
/// See [`MMA_ATOM_NO_DIVISION`].
pub const MMA_TILE_NO_DIVISION: bool = true;
/// See [`MMA_ATOM_NO_DIVISION`].
pub const LDSM_ATOMS_NO_DIVISION: bool = true;
/// See [`MMA_ATOM_NO_DIVISION`].
pub const HGEMM_F32_NO_DIVISION: bool = true;
/// See [`MMA_ATOM_NO_DIVISION`].
pub const HGEMM_F16_NO_DIVISION: bool = true;
/// See [`MMA_ATOM_NO_DIVISION`].
pub const TRANSPOSE_F32_NO_DIVISION: bool = true;
/// See [`MMA_ATOM_NO_DIVISION`].
pub const SGEMM_F32_NO_DIVISION: bool = true;
/// See [`MMA_ATOM_NO_DIVISION`].
pub const SGEMM_NT_F32_NO_DIVISION: bool = true;
/// `mma_atom` is its two `mma.sync` instructions (f32 and f16
/// accumulators), nothing split or lost.
pub const MMA_ATOM_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("mma.sync.aligned.m16n8k16", 2)];

/// One tensor-core atom, one warp: `c = a · bᵀ` with f16 inputs (bits, a
/// 16 x 16 and b 8 x 16 row-major), f32 c (16 x 8 row-major) when `f16acc`
/// is 0, f16 c (bits) otherwise. Launch: one block of 32 threads.
///
/// # Safety
/// `a`, `b` point to 256 and 128 `u16`, `c` to 128 `f32` (or 128 `u16`
/// with f16 accumulation), 4-byte aligned, `c` distinct from both.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mma_atom(a: *const u16, b: *const u16, c: *mut u32, f16acc: u32) {
    // SAFETY: the launch contract above.
    let (a, b) = unsafe { (Global::new(a, 256), Global::new(b, 128)) };
    if f16acc == 0 {
        // SAFETY: c holds 128 f32.
        crate::gpu::mma_atom_f32(a, b, unsafe { GlobalMut::new(c.cast::<f32>(), 128) })
    } else {
        // SAFETY: c holds 128 u16.
        crate::gpu::mma_atom_f16(a, b, unsafe { GlobalMut::new(c.cast::<u16>(), 128) })
    }
}

/// One warp, one tensor-core tile through the memory path of a GEMM: A
/// (16 x 16) and B (8 x 16) f16 copied to shared memory by `cp.async`, read
/// into the atom's registers by `ldmatrix.x4` / `.x2`, multiplied by
/// `mma.sync` (f32 accumulators), C (16 x 8 f32) stored. Launch: one block
/// of 32 threads.
///
/// # Safety
/// `a`, `b`, `c` point to 256 and 128 `u16` and 128 `f32`, 16-byte
/// aligned, `c` distinct from both.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mma_tile(a: *const u16, b: *const u16, c: *mut f32) {
    // SAFETY: the launch contract above (16-byte aligned: F4 views).
    let (a, b, c) = unsafe {
        (
            Global::new(a.cast::<F4>(), 32),
            Global::new(b.cast::<F4>(), 16),
            GlobalMut::new(c, 128),
        )
    };
    crate::gpu::mma_tile(a, b, c)
}

/// Every `ldmatrix` form once, for the runner to check against the copy
/// atoms' layouts: `src` is 32 rows of 8 halves (four 8 x 8 matrices),
/// `out` receives each lane's registers, 14 per lane (x1, x2, x4, then
/// x1, x2, x4 transposed). One warp.
///
/// # Safety
/// `src` points to 256 `u16` and `out` to 448 `u32` of device memory,
/// 16-byte aligned, distinct.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ldsm_atoms(src: *const u16, out: *mut u32) {
    // SAFETY: the launch contract above (16-byte aligned: F4 view).
    let (src, out) = unsafe { (Global::new(src.cast::<F4>(), 32), GlobalMut::new(out, 448)) };
    crate::gpu::ldsm_atoms(src, out)
}

/// C = A · Bᵀ with f16 inputs and f32 accumulators on tensor cores: A is
/// m x k and B n x k, row-major f16 (bits); C m x n row-major f32 (m, n
/// multiples of 128, k of 32): grid (n/128, m/128), 128 threads.
///
/// # Safety
/// `a`, `b`, `c` point to m * k and n * k `u16` and m * n `f32` of device
/// memory, 16-byte aligned; `c` overlaps neither input.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn hgemm_f32(
    a: *const u16,
    b: *const u16,
    c: *mut f32,
    m: usize,
    n: usize,
    k: usize,
) {
    // SAFETY: the launch contract above.
    unsafe { hgemm_entry::<[f32; 4]>(a, b, c, (m, n, k)) }
}

/// [`hgemm_f32`] with f16 accumulators and an f16 C (bits): the same
/// launch, `c` pointing to m * n `u16`.
///
/// # Safety
/// As [`hgemm_f32`], with `c` holding m * n `u16`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn hgemm_f16(
    a: *const u16,
    b: *const u16,
    c: *mut u16,
    m: usize,
    n: usize,
    k: usize,
) {
    // SAFETY: the launch contract above.
    unsafe { hgemm_entry::<crate::gpu::Half4>(a, b, c, (m, n, k)) }
}

/// The two HGEMM entries: A and B as 16-byte chunks of 8 halves (traps
/// when k is not a multiple of 8 or a pointer is not 16-byte aligned), C
/// as `T::Out`.
///
/// # Safety
/// [`hgemm_f32`]'s contract, with `c` holding m * n `T::Out`.
#[inline(always)]
unsafe fn hgemm_entry<T: crate::gpu::Acc>(
    a: *const u16,
    b: *const u16,
    c: *mut T::Out,
    (m, n, k): (usize, usize, usize),
) {
    if k % 8 != 0 || (a as usize) % 16 != 0 || (b as usize) % 16 != 0 {
        trap()
    }
    let (la, lb, lc) = (elems(m, k) / 8, elems(n, k) / 8, elems(m, n));
    // SAFETY: the caller's contract.
    let (a, b, c) = unsafe {
        (
            Global::new(a.cast::<F4>(), la),
            Global::new(b.cast::<F4>(), lb),
            GlobalMut::new(c, lc),
        )
    };
    crate::gpu::hgemm::<T>(m, n, k, a, b, c)
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

/// An SGEMM's three matrices (m x k, k x n and m x n floats, whichever
/// order each is stored in) as `F4` buffers; traps on a misaligned pointer
/// or a size past `usize`.
///
/// # Safety
/// `a`, `b`, `c` point to that many floats of device memory; `c` overlaps
/// neither input.
unsafe fn sgemm_buffers(
    (a, b, c): (*const f32, *const f32, *mut f32),
    (m, n, k): (usize, usize, usize),
) -> (Global<F4>, Global<F4>, GlobalMut<F4>) {
    let (a, la) = as_f4(a, elems(m, k));
    let (b, lb) = as_f4(b, elems(k, n));
    let (c, lc) = as_f4(c, elems(m, n));
    // SAFETY: the caller's contract.
    unsafe {
        (
            Global::new(a, la),
            Global::new(b, lb),
            GlobalMut::new(c.cast_mut(), lc),
        )
    }
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
    // SAFETY: the launch contract above.
    let (a, b, c) = unsafe { sgemm_buffers((a, b, c), (m, n, k)) };
    crate::gpu::sgemm(m, n, k, a, b, c)
}

/// C = A · B with A stored M-major (column-major m x k, CuTe's NT), B
/// k x n and C m x n row-major (m, n multiples of 128, k of 8): grid (n/128, m/128), 256 threads.
///
/// # Safety
/// `a`, `b`, `c` point to m * k, k * n and m * n floats of device memory,
/// 16-byte aligned; `c` overlaps neither input.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn sgemm_nt_f32(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: usize,
    n: usize,
    k: usize,
) {
    // SAFETY: the launch contract above.
    let (a, b, c) = unsafe { sgemm_buffers((a, b, c), (m, n, k)) };
    crate::gpu::sgemm_nt(m, n, k, a, b, c)
}
