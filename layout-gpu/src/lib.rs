//! The layout kernels as a library: GEMMs and attention on an
//! application's own device buffers.
//!
//! The PTX of both kernel crates ships inside this crate (built by
//! `kernels/scripts/build-ptx.sh` and `layout-ptx kernels/sm90`; CI checks that
//! it is the PTX the sources build), so an application needs the CUDA driver
//! only: no second Rust toolchain, no nvcc.
//!
//! - [`Gpu::sgemm`]: C = A · B in f32 (row-major), the SIMT SGEMM.
//! - [`Gpu::hgemm_sm80`]: C = A · Bᵀ in f16 on tensor cores (`mma.sync`),
//!   f32 or f16 accumulators by C's type.
//! - [`Gpu::hgemm_sm90`]: the same on Hopper (`wgmma`, TMA), f32
//!   accumulators, f16 C, any M and N; [`Gpu::gemm_bf16_sm90`] in bf16,
//!   [`Gpu::gemm_bias_gelu_bf16_sm90`] with a fused bias and GELU, and
//!   [`Gpu::gemm_e4m3_sm90`] for FP8 e4m3 with per-tensor scales (bf16 C).
//! - [`Gpu::attention`]: the FlashAttention forward pass, O and the
//!   log-sum-exp; the Hopper kernel on sm_90, the SM80 kernel elsewhere.
//! - [`Gpu::decode`]: attention of a few new queries per sequence over a
//!   paged KV cache (a serving step), split along the context when the
//!   batch cannot fill the GPU; [`Gpu::kv_append`] writes the new tokens'
//!   K and V into their cache slots.
//!
//! Every input a kernel's contract excludes is an [`Error::Refused`] that
//! names the size, before anything runs: never a trap, never a wrong
//! result. An empty problem is valid, as BLAS defines it: M or N of 0 does
//! nothing, K of 0 writes C = 0.
//!
//! ```no_run
//! use layout_gpu::{f16, Gpu};
//! # fn main() -> Result<(), layout_gpu::Error> {
//! let gpu = Gpu::new(0)?;
//! let s = gpu.stream();
//! let (m, n, k) = (256, 128, 64);
//! let a = s.upload(&vec![f16::ONE; m * k])?;
//! let b = s.upload(&vec![f16::ONE; n * k])?;
//! let mut c = s.zeros::<f32>(m * n)?;
//! gpu.hgemm_sm80(&a, &b, &mut c, (m, n, k))?;
//! assert!(s.download(&c)?.iter().all(|&x| x == 64.0));
//! # Ok(())
//! # }
//! ```

pub mod attention;
pub mod decode;
mod error;
mod gpu;
pub mod launch;

pub use attention::Problem;
pub use error::Error;
pub use gpu::{Gpu, PTX_SM80, PTX_SM90};
pub use half::{bf16, f16};
pub use launch::{HgemmOut, Sm90Epilogue, SM90_GEMMS};
pub use layout_launch::{Device, DeviceBuffer, Stream};
