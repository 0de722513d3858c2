//! The FlashAttention backward in this crate's PTX (`sm_90a`): the SM80
//! crate's kernels (`layout_kernels::attention_bwd`: dK and dV by key
//! tile, dQ by atomics in the same launch or by query tile, the same bits
//! every run) with the
//! same entry points and arguments, so that `gpu-runner attention-bwd` and
//! `launch::attention_bwd` run them from either PTX. Their products are
//! `mma.sync` (Hopper runs the SM80 instructions); a backward on `wgmma`
//! is not built.
//!
//! What the build tool checks of them is declared here, as the SM80
//! crate declares it for its own PTX (ptxas's registers and spills are its
//! figures for `sm_90a`).

/// The dK/dV kernels: 256 threads, one block an SM (as in the SM80 crate).
pub const FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D128_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// The dK/dV kernels with the atomic dQ: as the dK/dV kernels.
pub const FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// At d = 64 the dK/dV kernels fit 255 registers unspilled (accumulators,
/// S and dP 128 a thread, the rest pointers, sizes and addresses); a few
/// words of spill are allowed, more fails the build.
pub const FLASH_ATTN_BWD_DKDVQ_D64_SPILL_BYTES: (u32, u32) = (32, 32);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDVQ_D64_CAUSAL_SPILL_BYTES: (u32, u32) = (32, 32);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D64_SPILL_BYTES: (u32, u32) = (32, 32);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D64_CAUSAL_SPILL_BYTES: (u32, u32) = (32, 32);
/// At d = 128 dK's and dV's accumulators are 128 registers a thread, S
/// and dP 64: ptxas spills 20/24 to 84/100 bytes (stores/loads). More
/// than this fails the build.
pub const FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES: (u32, u32) = (256, 512);
/// See [`FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (256, 512);
/// See [`FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D128_SPILL_BYTES: (u32, u32) = (256, 512);
/// See [`FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (256, 512);
/// The dQ conversion: 256 threads.
pub const FLASH_ATTN_BWD_DQ_CONVERT_LAUNCH_BOUNDS: (u32, u32) = (256, 4);
/// The dQ conversion divides nothing.
pub const FLASH_ATTN_BWD_DQ_CONVERT_NO_DIVISION: bool = true;
/// The dQ kernels: 256 threads, one block an SM.
pub const FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D128_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// The `Dot` kernel: 128 threads.
pub const FLASH_ATTN_BWD_DOT_LAUNCH_BOUNDS: (u32, u32) = (128, 4);
/// The dK/dV kernels divide once per query tile (the tile's head of the
/// group and its place), outside the products.
pub const FLASH_ATTN_BWD_DKDV_D64_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DKDV_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DKDV_D64_CAUSAL_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DKDV_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DKDV_D128_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DKDV_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DKDV_D128_CAUSAL_NO_DIVISION: bool = false;
/// The atomic dQ's dK/dV kernels divide as the dK/dV kernels.
pub const FLASH_ATTN_BWD_DKDVQ_D64_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DKDVQ_D64_CAUSAL_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_CAUSAL_NO_DIVISION: bool = false;
/// The dQ kernels divide for the K/V head, once.
pub const FLASH_ATTN_BWD_DQ_D64_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DQ_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DQ_D64_CAUSAL_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DQ_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DQ_D128_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_BWD_DQ_D64_NO_DIVISION`].
pub const FLASH_ATTN_BWD_DQ_D128_CAUSAL_NO_DIVISION: bool = false;
/// The `Dot` kernel divides a thread's index into its row and head.
pub const FLASH_ATTN_BWD_DOT_NO_DIVISION: bool = false;

use layout_kernels::attention_bwd::{bwd_kv_smem_bytes, bwd_smem_bytes};

layout_device::shared_memory!(
    /// The dQ kernels' shared memory at head dimension 64 (dynamic:
    /// `bwd_smem_bytes(64)` bytes at launch).
    pub extern static BWD_SMEM_D64: [u8; bwd_smem_bytes(64)]
);

layout_device::shared_memory!(
    /// The dQ kernels' shared memory at head dimension 128 (dynamic:
    /// `bwd_smem_bytes(128)` bytes at launch).
    pub extern static BWD_SMEM_D128: [u8; bwd_smem_bytes(128)]
);

layout_device::shared_memory!(
    /// The dK/dV kernels' shared memory at head dimension 64 (dynamic:
    /// `bwd_kv_smem_bytes(64)` bytes at launch).
    pub extern static BWD_KV_SMEM_D64: [u8; bwd_kv_smem_bytes(64)]
);

layout_device::shared_memory!(
    /// The dK/dV kernels' shared memory at head dimension 128 (dynamic:
    /// `bwd_kv_smem_bytes(128)` bytes at launch).
    pub extern static BWD_KV_SMEM_D128: [u8; bwd_kv_smem_bytes(128)]
);

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
layout_kernels::flash_bwd_entries!(
    BWD_SMEM_D64,
    BWD_SMEM_D128,
    BWD_KV_SMEM_D64,
    BWD_KV_SMEM_D128
);
