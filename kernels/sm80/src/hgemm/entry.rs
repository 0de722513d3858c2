//! The HGEMM's entry points (`hgemm_f32`, `hgemm_f16`): raw pointers from
//! the host made into checked buffers, and what the build tool reads of
//! them.
#![allow(unsafe_code)]

use crate::device::elems;
use layout_device::{trap, Global, GlobalMut, F4};

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
    unsafe { hgemm_entry::<super::body::Half4>(a, b, c, (m, n, k)) }
}

/// The two HGEMM entries: A and B as 16-byte chunks of 8 halves (traps
/// when k is not a multiple of 8 or a pointer is not 16-byte aligned), C
/// as `T::Out`.
///
/// # Safety
/// [`hgemm_f32`]'s contract, with `c` holding m * n `T::Out`.
#[inline(always)]
unsafe fn hgemm_entry<T: super::body::Acc>(
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
    super::body::hgemm::<T>(m, n, k, a, b, c)
}
