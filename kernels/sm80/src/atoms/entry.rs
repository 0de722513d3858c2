//! The atoms' entry points (`mma_atom`, `mma_tile`, `ldsm_atoms`): raw
//! pointers from the host made into checked buffers, and what the build
//! tool reads of them.
#![allow(unsafe_code)]

use layout_device::{Global, GlobalMut, F4};

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
        super::body::mma_atom_f32(a, b, unsafe { GlobalMut::new(c.cast::<f32>(), 128) })
    } else {
        // SAFETY: c holds 128 u16.
        super::body::mma_atom_f16(a, b, unsafe { GlobalMut::new(c.cast::<u16>(), 128) })
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
    super::body::mma_tile(a, b, c)
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
    super::body::ldsm_atoms(src, out)
}
