//! The hardware layer: every `unsafe` block of the crate is in this
//! folder, each with the reason it holds.
//!
//! What the unsafe code relies on, and who guarantees it:
//! - a [`Global`] or [`GlobalMut`] covers `len` elements of device memory
//!   at its pointer: the host passes it (`layout-launch`'s `slice` /
//!   `slice_mut` arguments, built from a device buffer and its length), or
//!   a kernel vouches for a raw pointer it was given ([`Global::new`],
//!   an `unsafe fn`);
//! - the threads of a launch write disjoint elements of a [`GlobalMut`] or
//!   of shared memory: each writes through its own partition (the kernel's
//!   layouts; its tests enumerate every thread to check it);
//! - the warp-wide instructions (`mma.sync`, `ldmatrix`, shuffles) are
//!   executed by the whole warp, converged: kernels call them outside
//!   data-dependent branches;
//! - a shared buffer is declared by [`shared_memory!`](crate::shared_memory),
//!   which states its size once for the PTX declaration and the bounds
//!   checks.
//!
//! Every access checks its index against what the handle covers and traps
//! beyond it: a kernel written over these types is safe Rust, and a wrong
//! index stops the launch (an error on the host) instead of touching
//! memory it does not own.
//!
//! The instructions exist on the host too, so that kernel code compiles
//! and is documented there; called on the host, one panics, naming itself
//! (only the GPU can execute it). The arithmetic ones ([`fma`], [`exp2`],
//! [`log2`], [`rcp`], [`tanh`], [`f16x2`]) compute on the host what the instruction computes,
//! within the PTX ISA's stated precision, so that code built on them (the
//! online softmax) is tested there.
#![allow(unsafe_code)]
// On the host, the instructions' operands go unused.
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]

/// A GPU instruction's body on the GPU; on the host, a panic naming it,
/// or the host's computation of the same result (`host: ...`).
macro_rules! gpu {
    ($name:expr, $body:block) => {{
        #[cfg(target_arch = "nvptx64")]
        $body
        #[cfg(not(target_arch = "nvptx64"))]
        $crate::host::gpu_only($name)
    }};
    ($name:expr, $body:block, host: $host:block) => {{
        #[cfg(target_arch = "nvptx64")]
        $body
        #[cfg(not(target_arch = "nvptx64"))]
        $host
    }};
    ($name:expr, host: $host:block, $body:block) => {
        gpu!($name, $body, host: $host)
    };
    // On the host, the emulator's computation (feature `emulator`; it
    // panics as `host_only` outside an emulated run).
    ($name:expr, $body:block, emu: $emu:block) => {{
        #[cfg(target_arch = "nvptx64")]
        $body
        #[cfg(all(not(target_arch = "nvptx64"), feature = "emulator"))]
        $emu
        #[cfg(all(not(target_arch = "nvptx64"), not(feature = "emulator")))]
        $crate::host::gpu_only($name)
    }};
}

mod global;
mod gmma;
mod instr;
mod shared;
mod sm90;
mod thread;

pub use global::{Global, GlobalAddRun, GlobalColumn, GlobalMut, GlobalRows, GlobalRun, F4};
pub use gmma::{GmmaElem, GmmaInstr};
pub use instr::*;
#[cfg(not(target_arch = "nvptx64"))]
pub use shared::__shared_base;
pub use shared::{SharedBuffer, Smem, SmemHalves};
pub use sm90::*;
pub use thread::*;

/// The emulator's check of a global access of `bytes` at `ptr` (nothing
/// outside an emulated run, or without the feature).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub(crate) fn emu_global<T>(ptr: *const T, bytes: usize, write: bool) {
    #[cfg(feature = "emulator")]
    crate::emulator::ops::global_access(ptr as usize, bytes, write);
}

/// On the GPU nothing: the hardware checks nothing more.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) fn emu_global<T>(_: *const T, _: usize, _: bool) {}

#[cfg(test)]
mod tests {
    /// On the host, an instruction is a panic that names it; the
    /// functions built from instructions too.
    #[test]
    fn instructions_on_the_host_say_they_are_the_gpus() {
        let msg = |f: fn()| {
            let e = std::panic::catch_unwind(f).unwrap_err();
            e.downcast_ref::<std::string::String>()
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(
            msg(super::sync_threads),
            "sync_threads is a GPU instruction: it runs in a kernel (or the emulator), not on the host"
        );
        assert!(msg(|| {
            super::warp_sum(1.0);
        })
        .starts_with("shfl_xor is a GPU instruction"));
    }
}
