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
#![allow(unsafe_code)]

mod global;
#[cfg(target_arch = "nvptx64")]
mod instr;
mod shared;
mod thread;

pub use global::{Global, GlobalMut, GlobalRun, F4};
#[cfg(target_arch = "nvptx64")]
pub use instr::*;
pub use shared::{SharedBuffer, Smem};
pub use thread::*;
