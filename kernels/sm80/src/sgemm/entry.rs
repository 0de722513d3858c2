//! The SGEMMs' entry points (`sgemm_f32`, `sgemm_nt_f32`): raw pointers
//! from the host made into checked buffers, and what the build tool reads
//! of them.
#![allow(unsafe_code)]

use crate::device::{as_f4, elems};
use layout_device::{Global, GlobalMut, F4};

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
    super::body::sgemm(m, n, k, a, b, c)
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
    super::body::sgemm_nt(m, n, k, a, b, c)
}
