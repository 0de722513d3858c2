//! The kernels' entry points (the PTX `.entry` functions) and what they
//! require of the host, with the declarations the build tool reads, the
//! shared buffers, and the panic handler: the crate's only `unsafe` code.
//! The hardware itself (indices, barriers, checked global and shared
//! memory, the instructions) is the `layout-device` crate's.
//!
//! What the unsafe code here relies on, and who guarantees it:
//! - each entry point gets, for each buffer, a device pointer to at least
//!   the number of elements it is told (the launch contract: the host
//!   runner allocates them so);
//! - threads of a launch write disjoint elements: the index maps of
//!   [`crate::maps`] guarantee it, and the CPU tests enumerate every thread
//!   of every block to check it.
#![allow(unsafe_code)]

use layout_device::{trap, Global, GlobalMut, F4};

layout_device::shared_memory!(
    /// The FlashAttention kernels' shared memory for head dimension 64
    /// (dynamic: `flash_smem_bytes(64)` bytes at launch).
    pub extern static FLASH_SMEM_D64: [u8; 49152]
);

layout_device::shared_memory!(
    /// The FlashAttention kernels' shared memory for head dimension 128
    /// (dynamic: `flash_smem_bytes(128)` bytes at launch).
    pub extern static FLASH_SMEM_D128: [u8; 65536]
);

const _: () = assert!(
    crate::maps::flash_smem_bytes(64) == 49152 && crate::maps::flash_smem_bytes(128) == 65536,
    "the FlashAttention buffers are flash_smem_bytes(D)"
);

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    trap()
}

// What the build tool (`layout-ptx`, run by `kernels/scripts/build-ptx.sh`) reads
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

/// The FlashAttention entries' buffers (traps on a misaligned pointer or a
/// size past `usize`) and the body for head dimension `D`.
///
/// # Safety
/// The launch contract of `maps/attention.rs`: `q`, `o` point to batch *
/// seq_q * heads * D halves, `k`, `v` to batch * seq_k * heads * D, `lse`
/// to batch * heads * seq_q `f32`, 16-byte aligned (`lse` 4), `o` and
/// `lse` overlapping nothing.
#[inline(always)]
#[layout_core::instantiate((64, false), (64, true), (128, false), (128, true))]
unsafe fn flash_entry<B: layout_device::SharedBuffer, const D: usize, const CAUSAL: bool>(
    (q, k, v, o, lse): (*const u16, *const u16, *const u16, *mut u16, *mut f32),
    p: crate::attention::FlashProblem,
) {
    if [q as usize, k as usize, v as usize, o as usize]
        .iter()
        .any(|a| a % 16 != 0)
    {
        trap()
    }
    let rows_q = elems(elems(p.batch, p.seq_q), p.heads);
    let (lq, lk) = (
        elems(rows_q, D),
        elems(elems(elems(p.batch, p.seq_k), p.heads), D),
    );
    // SAFETY: the caller's contract (16-byte aligned: F4 views).
    let (q, k, v) = unsafe {
        (
            Global::new(q.cast::<F4>(), lq / 8),
            Global::new(k.cast::<F4>(), lk / 8),
            Global::new(v.cast::<F4>(), lk / 8),
        )
    };
    // O (as f16 pairs) and LSE, made when the kernel stores them: their
    // lengths are then recomputed from the parameters, not held across
    // the kernel's loop in registers it needs.
    let outputs = move |p: &crate::attention::FlashProblem| {
        // Not the entry's products (in_loop): those would be held.
        let batch = layout_device::in_loop(p.batch);
        let rows_q = elems(elems(batch, p.seq_q), p.heads);
        let ll = elems(elems(batch, p.heads), p.seq_q);
        // SAFETY: the caller's contract.
        unsafe {
            (
                GlobalMut::new(o.cast::<u32>(), elems(rows_q, D) / 2),
                GlobalMut::new(lse, ll),
            )
        }
    };
    crate::attention::flash_attn_fwd::<B, _, D, CAUSAL>(p, (q, k, v), outputs)
}

/// The FlashAttention forward entry points, one per head dimension and
/// mask: `(q, k, v, o, lse, batch, seq_q, seq_k, heads, scale)`.
macro_rules! flash_entries {
    ($($(#[$m:meta])* $name:ident = ($buf:ident, $d:literal, $causal:literal);)*) => {$(
        $(#[$m])*
        ///
        /// # Safety
        /// The launch contract of `maps/attention.rs` (see `flash_entry`).
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(
            q: *const u16,
            k: *const u16,
            v: *const u16,
            o: *mut u16,
            lse: *mut f32,
            batch: usize,
            seq_q: usize,
            seq_k: usize,
            heads: usize,
            scale: f32,
        ) {
            let p = crate::attention::FlashProblem { batch, seq_q, seq_k, heads, scale };
            // SAFETY: the launch contract above.
            unsafe { flash_entry::<$buf, $d, $causal>((q, k, v, o, lse), p) }
        }
    )*};
}

flash_entries! {
    /// O = softmax(scale · Q·Kᵀ)·V, head dimension 64 (the launch contract
    /// of `maps/attention.rs`: BSHD f16 Q, K, V, O; f32 LSE).
    flash_attn_fwd_d64 = (FLASH_SMEM_D64, 64, false);
    /// [`flash_attn_fwd_d64`] with the causal mask (query i sees keys 0..=i).
    flash_attn_fwd_d64_causal = (FLASH_SMEM_D64, 64, true);
    /// [`flash_attn_fwd_d64`] for head dimension 128.
    flash_attn_fwd_d128 = (FLASH_SMEM_D128, 128, false);
    /// [`flash_attn_fwd_d128`] with the causal mask.
    flash_attn_fwd_d128_causal = (FLASH_SMEM_D128, 128, true);
}

/// The FlashAttention kernels' launch bounds: 128 threads (4 warps), two
/// blocks per SM (at most 255 registers a thread).
pub const FLASH_ATTN_FWD_D64_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_D128_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// The most the FlashAttention kernels may spill (ptxas's bytes of
/// stores, loads). At FlashAttention-2's tiles (128 x `flash_bn(D)`) S's
/// and O's accumulators take 192 of the 255 registers; the few scalars
/// that do not fit are spilled and reloaded about a dozen times per K/V
/// tile (against 256 MMAs per warp), which the bigger tiles more than pay
/// for (docs/gpu.md). More than this fails the build.
pub const FLASH_ATTN_FWD_D64_SPILL_BYTES: (u32, u32) = (64, 112);
/// See [`FLASH_ATTN_FWD_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_D64_CAUSAL_SPILL_BYTES: (u32, u32) = (64, 112);
/// See [`FLASH_ATTN_FWD_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_D128_SPILL_BYTES: (u32, u32) = (64, 112);
/// See [`FLASH_ATTN_FWD_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (64, 112);
/// No integer division: the tiles are static powers of two.
pub const FLASH_ATTN_FWD_D64_NO_DIVISION: bool = true;
/// The causal entries divide, outside the key loop only: a block's place
/// in the longest-first order (`layout_device::longest_first`, a 32-bit
/// division and remainder by the grid's extents), once when the block
/// starts and once again in the epilogue (recomputed there rather than held
/// across the loop).
pub const FLASH_ATTN_FWD_D64_CAUSAL_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_D64_NO_DIVISION`].
pub const FLASH_ATTN_FWD_D128_NO_DIVISION: bool = true;
/// See [`FLASH_ATTN_FWD_D64_CAUSAL_NO_DIVISION`].
pub const FLASH_ATTN_FWD_D128_CAUSAL_NO_DIVISION: bool = false;
