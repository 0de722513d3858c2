//! `transpose_f32`'s entry point: raw pointers from the host made into
//! checked buffers.
#![allow(unsafe_code)]

use crate::device::{as_f4, elems};
use layout_device::{Global, GlobalMut};

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
    super::body::transpose(n, s, d)
}
