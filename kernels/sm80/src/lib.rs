//! Kernels written with the layout library.
//!
//! On the CPU (every target but `nvptx64`), each kernel sits next to
//! hand-written code of the same blocking (the example `cpu_kernels` times
//! them):
//!
//! - [`transpose_layout`]: a tiled transpose, `local_tile` into 32 x 32
//!   tiles, `local_partition` over an 8 x 32 "thread" layout, `copy`;
//! - [`sgemm_layout`]: an SGEMM, block tiles by `local_tile`, a static
//!   register micro-tile accumulated by one `gemm` over panels of A and B;
//! - [`sgemm_tiled`]: CuTe's `sgemm_1` for any sizes and any block tile,
//!   predicated copies into "shared" tiles, 256 "threads" with register
//!   fragments of C.
//!
//! On the GPU (`nvptx64-nvidia-cuda`, built by
//! `kernels/scripts/build-ptx.sh`), each kernel is a folder of three files:
//! its plan (`mod.rs`: tiles, index maps, launch rules; ordinary functions
//! that the tests here enumerate for every block and thread on the CPU),
//! its body (`body.rs`: safe code taking every offset from the plan) and
//! its entry points (`entry.rs`: the `extern "ptx-kernel"` functions and
//! the consts the build tool reads): [`transpose`], [`sgemm`], [`hgemm`],
//! [`atoms`], [`attention`], [`attention_bwd`], [`decode`]. [`maps`] re-exports every plan.
#![no_std]
#![cfg_attr(all(target_arch = "nvptx64", feature = "entries"), feature(abi_ptx))]

#[cfg(test)]
extern crate std;

// The hand-written CPU kernels' scratch tiles.
#[cfg(not(target_arch = "nvptx64"))]
extern crate alloc;

#[cfg(not(target_arch = "nvptx64"))]
mod cpu;
#[cfg(not(target_arch = "nvptx64"))]
pub use cpu::*;

pub mod atoms;
pub mod attention;
pub mod attention_bwd;
pub mod decode;
pub mod hgemm;
pub mod maps;
pub mod sgemm;
pub mod transpose;

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
mod device;
pub mod smem;

/// The kernels' bodies: what each entry point calls once it has made the
/// host's pointers into checked buffers. On the host they run under
/// `layout_device::emulator` (the crate's `emulated` tests).
pub mod bodies {
    pub use crate::atoms::body::{ldsm_atoms, mma_atom_f16, mma_atom_f32, mma_tile};
    pub use crate::attention::body::{flash_attn_fwd, FlashProblem};
    pub use crate::attention_bwd::body::{
        flash_bwd_dkdv, flash_bwd_dot, flash_bwd_dq, flash_bwd_dq_convert,
    };
    pub use crate::decode::body::{decode_attn, kv_append, DecodeIo, DecodeProblem};
    pub use crate::hgemm::body::{hgemm, Acc, Half4};
    pub use crate::sgemm::body::{sgemm, sgemm_nt};
    pub use crate::transpose::body::transpose;
}

/// The tutorial `docs/gemm-tutorial.md`: a GEMM from matrix to registers;
/// its examples run as tests.
#[cfg(not(target_arch = "nvptx64"))]
#[doc = include_str!("../../../docs/gemm-tutorial.md")]
pub mod tutorial {}
