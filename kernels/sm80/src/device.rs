//! What every entry point shares: the panic handler and the helpers that
//! make the host's raw pointers into checked buffers. Each kernel's entry
//! points are in its `entry.rs` (`crate::sgemm::entry`, ...), the crate's
//! only `unsafe` code.
//!
//! What the unsafe code relies on, and who guarantees it:
//! - each entry point gets, for each buffer, a device pointer to at least
//!   the number of elements it is told (the launch contract: the host API
//!   allocates and checks them so);
//! - threads of a launch write disjoint elements: the index maps of each
//!   kernel's plan guarantee it, and the CPU tests enumerate every thread
//!   of every block to check it.

use layout_device::{trap, F4};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    trap()
}

/// A buffer of `n` `f32` as `n / 4` [`F4`]; traps when `n` is not a
/// multiple of 4 or the pointer is not 16-byte aligned.
pub(crate) fn as_f4(ptr: *const f32, n: usize) -> (*const F4, usize) {
    if n % 4 != 0 || (ptr as usize) % 16 != 0 {
        trap()
    }
    (ptr.cast(), n / 4)
}

/// `n * m`, trapping on overflow.
pub(crate) fn elems(n: usize, m: usize) -> usize {
    match n.checked_mul(m) {
        Some(e) => e,
        None => trap(),
    }
}
