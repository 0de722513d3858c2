//! The device side of a GPU kernel written with the layout library: what
//! a kernel needs from the hardware, as safe functions and types.
//!
//! - Where a thread is: [`thread_idx`], [`block_idx`], [`block_dim`],
//!   [`grid_dim`], [`warp_lane`]; the barriers [`sync_threads`] and
//!   [`sync_warp`]; the warp shuffles [`shfl_idx`], [`shfl_xor`],
//!   [`shfl_down`] and [`warp_sum`]; [`trap`] for a failed check.
//! - Memory: [`Global`] and [`GlobalMut`], device buffers with their
//!   length, passed by the host as kernel parameters; shared buffers
//!   declared by [`shared_memory!`] and [`Smem`] windows over them; a
//!   matrix inside a buffer checked once ([`Global::rows`]), whose tile
//!   copies then check only their rows. Each
//!   is a [`Memory`](layout_core::tensor::memory::Memory), so a
//!   `Tensor::from_memory` over it is tiled and partitioned as any tensor
//!   (`local_tile`, `local_partition`), and `Tensor::window` checks a
//!   thread's partition once so that its accesses fold to constants under
//!   static layouts. Every access is checked: a wrong index traps (the
//!   launch fails, and the host reports it with the kernel's name) instead
//!   of reading or writing memory the kernel does not own.
//! - The instructions behind the atoms of `layout_core::atom`
//!   ([`MmaInstr`], [`LdsmInstr`]): `mma.sync` m16n8k16 with f32 or f16
//!   accumulators, every `ldmatrix` form, `cp.async` with
//!   [`cp_async_commit`] / [`cp_async_wait`].
//! - Hopper (`sm_90a`, `layout-ptx --arch sm_90a --ptx 8.3`): the
//!   warpgroup MMAs `wgmma` with f16 or bf16 operands and f32 accumulators
//!   (`wgmma_m64n{64,128,256}k16_f32_{f16,bf16}` with both operands in
//!   shared memory, named by `layout_core::atom::gmma` descriptors, and the
//!   `_rs` forms with A in registers) with [`wgmma_fence`],
//!   [`wgmma_commit_group`], [`wgmma_wait_group`]; [`Mbarrier`]s and the
//!   TMA pipeline built on them ([`PipelineTmaAsync`]: a producer, its
//!   consumers, phases); TMA loads ([`tma_load_2d`], [`tma_load_3d`],
//!   [`tma_load_2d_multicast`]) and stores ([`tma_store_2d`],
//!   [`tma_store_3d`], [`tma_store_commit`], [`tma_store_wait`]) through
//!   tensor maps the host made (`layout-launch`'s `Stream::tensor_map_2d`);
//!   clusters ([`cluster_ctarank`], [`cluster_idx`], [`cluster_sync`]),
//!   [`setmaxnreg_inc`] / [`setmaxnreg_dec`], [`elect_one`], and the
//!   fences. `kernels/sm90` (`hgemm_sm90`, `flash_attn_fwd_sm90`) shows
//!   them together. Every `wgmma` of layout-core's SM90 atoms is one
//!   [`GmmaInstr`], both expanded from one table: f16, bf16, tf32, FP8 (any
//!   e4m3/e5m2 pairing) and 8-bit integer (any s8/u8 pairing, wrapping or
//!   saturating) inputs, N every multiple of 8 the ISA allows, A in shared
//!   memory or registers; `kernels/sm90-gmma` runs each one on the GPU
//!   against its atom's layouts (`gpu-runner gmma-atoms`).
//! - [`epilogue`]: what a GEMM computes from each accumulator on its way
//!   to C (scale, bias, ReLU, GELU, SiLU) and C's element type (f16, bf16),
//!   the same code on the GPU, under the emulator and on the host.
//! - `emulator` (the module, with the feature `emulator`, host only): a
//!   kernel's body run for a grid of blocks on the CPU, every instruction
//!   above computed as the GPU computes it, and races, deadlocks and traps
//!   reported.
//!
//! The crate is `no_std` and builds for `nvptx64-nvidia-cuda` (with
//! `layout-ptx`) and for the host, where its checks and layouts are
//! tested; the functions that are GPU instructions exist on the GPU only.
//! Everything is `#[inline(always)]` or generic: `layout-ptx` emits the
//! kernel crate's code, and these functions become part of it.
//!
//! A kernel (in its own crate, built by `layout-ptx`; docs/first-kernel.md
//! has the whole crate and its launch):
//!
//! ```
//! use layout_core::{layout, make_layout, tensor::partition::{local_partition, local_tile}, Tensor, C};
//! use layout_device::{Global, GlobalMut};
//!
//! /// y = alpha x on an m x n row-major matrix, one 32 x 32 tile per block
//! /// of 256 threads, each thread 4 elements.
//! pub fn scale(x: Global<f32>, y: GlobalMut<f32>, alpha: f32, m: usize, n: usize, (bx, by): (usize, usize), tid: usize) {
//!     let l = make_layout((m, n), (n, C::<1>));
//!     let (x, y) = (Tensor::from_memory(x, l).unwrap(), Tensor::from_memory(y, l).unwrap());
//!     let tile = (C::<32>, C::<32>);
//!     let threads = layout!((8,32):(32,1));
//!     let tx = local_partition(local_tile(x, tile, (by, bx)), threads, tid);
//!     let ty = local_partition(local_tile(y, tile, (by, bx)), threads, tid);
//!     for i in 0..tx.size() {
//!         if let Some(v) = tx.try_load(i) {
//!             ty.store(i, alpha * v);
//!         }
//!     }
//! }
//!
//! // On the host, a "launch" is a loop over blocks and threads.
//! let (m, n) = (64, 32);
//! let x: Vec<f32> = (0..m * n).map(|i| i as f32).collect();
//! let mut y = vec![0f32; m * n];
//! // SAFETY: x and y hold m * n floats, alive for the calls; each thread
//! // writes its own elements of y.
//! let (gx, gy) = unsafe { (Global::new(x.as_ptr(), m * n), GlobalMut::new(y.as_mut_ptr(), m * n)) };
//! for by in 0..2 {
//!     for tid in 0..256 {
//!         scale(gx, gy, 2.0, m, n, (0, by), tid);
//!     }
//! }
//! assert!(y.iter().zip(&x).all(|(y, x)| *y == 2.0 * x));
//! ```
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        stdarch_nvptx,
        asm_experimental_arch,
        core_intrinsics,
        allow_internal_unstable,
        allow_internal_unsafe
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

#[cfg(any(test, all(feature = "emulator", not(target_arch = "nvptx64"))))]
extern crate std;

mod atom;
#[cfg(all(feature = "emulator", not(target_arch = "nvptx64")))]
#[allow(unsafe_code)]
pub mod emulator;
pub mod epilogue;
#[cfg(not(target_arch = "nvptx64"))]
mod host;
mod hw;
mod pipeline;
mod schedule;
mod sequences;
mod softmax;
mod unroll;

pub use atom::{pack_halves, unpack_halves, LdsmInstr, MmaInstr};
pub use hw::*;
pub use pipeline::{
    Consumer, ConsumerSlot, PipelineState, PipelineTmaAsync, Producer, ProducerSlot,
};
pub use schedule::longest_first;
pub use sequences::{Sequence, Sequences};
pub use softmax::{OnlineSoftmax, RESCALE_SLACK};
pub use unroll::each;
