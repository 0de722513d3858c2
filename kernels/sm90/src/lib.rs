//! Hopper kernels (`sm_90a`, PTX 8.3: `layout-ptx kernels/sm90 OUT --arch
//! sm_90a --ptx 8.3`).
//!
//! - `hgemm_sm90`: C = A · Bᵀ in f16 with f32 accumulators, warp-specialized
//!   (a TMA producer warpgroup, two `wgmma` consumer warpgroups), persistent,
//!   in clusters of two sharing B by multicast; its plan (tiles, shared
//!   offsets, descriptors from the typed layouts, tile orders) and its forms
//!   are [`hgemm`]'s.
//! - `wgmma_atom`: one warpgroup MMA, `SM90_64x64x16_F32F16F16_SS`, with
//!   both operands in shared memory in the canonical K-major layout without
//!   swizzle, named by matrix descriptors; C stored by the atom's C layout.
//! - `flash_attn_fwd_sm90_d{64,128}[_causal]`: the FlashAttention forward
//!   pass, warp-specialized (a TMA producer warpgroup, two `wgmma`
//!   consumer warpgroups), S = Q·Kᵀ by SS `wgmma`, O += P·V by RS `wgmma`
//!   with P from S's registers; its plan is [`attention`]'s.
//! - `flash_attn_bwd_dot`, `flash_attn_bwd_dkdv_d{64,128}[_causal]`,
//!   `flash_attn_bwd_dq_d{64,128}[_causal]`: the FlashAttention backward
//!   of the SM80 crate (`mma.sync`, `cp.async`; the same bodies and entry
//!   points, by `layout_kernels::flash_bwd_entries!`) built for `sm_90a`;
//!   see [`attention_bwd`].
//! - `check_trap`: one checked store, for `kernels/scripts/trap-check.py` (a failed
//!   device check fails the launch).
//! - `tma_tile`: one TMA load of a 64 x 64 f16 box with the 128-byte
//!   swizzle, completing on an `mbarrier`, read back through the swizzle.
//!
//! `gpu-runner sm90 PTX` runs them on the GPU, checks them exactly and
//! times `hgemm_sm90`'s forms; `gpu-runner gemm PTX hgemm_sm90 A.npy B.npy
//! C.npy` runs it on your arrays. (The entry points exist in the PTX only.)
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

#[cfg(test)]
extern crate std;

pub use layout_device::{k_interleave_desc, k_interleave_offset};

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
mod atoms;
pub mod attention;
pub mod attention_bwd;
pub mod hgemm;
pub mod smem;

/// The kernels' bodies: what each entry point calls with its arguments.
/// On the host they run under `layout_device::emulator` (the crate's
/// `emulated` tests).
pub mod bodies {
    pub use crate::attention::body::attention_body;
    pub use crate::hgemm::body::{
        gemm_body, gemm_grouped_body, gemm_split_body, gemm_wide_body, hgemm_body, COut, Groups,
    };
}

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    layout_device::trap()
}

/// `wgmma_atom`: one warpgroup of 128 threads.
pub const WGMMA_ATOM_LAUNCH_BOUNDS: (u32, u32) = (128, 1);
/// `wgmma_shapes`: one warpgroup.
pub const WGMMA_SHAPES_LAUNCH_BOUNDS: (u32, u32) = (128, 1);
/// `wgmma_shapes`' one instruction (N = 128).
pub const WGMMA_SHAPES_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("wgmma.mma_async", 1)];
/// `check_trap`: one warp.
pub const CHECK_TRAP_LAUNCH_BOUNDS: (u32, u32) = (32, 1);
/// `tma_tile`: one warpgroup.
pub const TMA_TILE_LAUNCH_BOUNDS: (u32, u32) = (128, 1);
/// `tma_tile`'s one TMA load.
pub const TMA_TILE_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("cp.async.bulk.tensor", 1)];
/// `wgmma_atom`'s one `wgmma` instruction, not split or lost.
pub const WGMMA_ATOM_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("wgmma.mma_async", 1)];
/// `wgmma_shapes_bf16`: one warpgroup.
pub const WGMMA_SHAPES_BF16_LAUNCH_BOUNDS: (u32, u32) = (128, 1);
/// `wgmma_shapes_bf16`'s two instructions (SS and RS).
pub const WGMMA_SHAPES_BF16_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("wgmma.mma_async", 2)];
/// `wgmma_shapes_tn`: one warpgroup.
pub const WGMMA_SHAPES_TN_LAUNCH_BOUNDS: (u32, u32) = (128, 1);
/// `wgmma_shapes_tn`'s four instructions (e4m3, s8, tf32, e5m2).
pub const WGMMA_SHAPES_TN_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("wgmma.mma_async", 4)];
/// `tma_reduce_tile`: one warp.
pub const TMA_REDUCE_TILE_LAUNCH_BOUNDS: (u32, u32) = (32, 1);
/// `tma_reduce_tile`'s load, prefetch and reduce-add.
pub const TMA_REDUCE_TILE_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("cp.async.bulk.tensor", 1),
    ("cp.reduce.async.bulk.tensor", 1),
    ("cp.async.bulk.prefetch.tensor", 1),
];
/// `warp_masked`: one warp.
pub const WARP_MASKED_LAUNCH_BOUNDS: (u32, u32) = (32, 1);
/// `tma_round_trip`: one warp.
pub const TMA_ROUND_TRIP_LAUNCH_BOUNDS: (u32, u32) = (32, 1);
/// `tma_round_trip`'s load and store.
pub const TMA_ROUND_TRIP_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("cp.async.bulk.tensor", 2)];

#[cfg(test)]
mod tests {
    use super::*;
    use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
    use layout_core::atom::gmma::{make_gmma_desc, KMajor};
    use layout_core::layout;

    /// The kernel's hand-written offsets and descriptor are the typed
    /// algebra's: the layout CuTe's `tile_to_shape(Layout_K_INTER_Atom<half_t>,
    /// (64,16))` prints, and `make_gmma_desc` of it, at every element and at
    /// several addresses.
    #[test]
    fn the_kernels_tile_is_the_canonical_layout() {
        let l = layout!(((8,8),(8,2)):((8,64),(1,512)));
        for r in 0..64 {
            for k in 0..16 {
                assert_eq!(
                    k_interleave_offset(r, k, 64),
                    l.crd2idx((r, k)),
                    "({r},{k})"
                );
            }
        }
        let tile = ComposedLayout {
            swizzle: Swizzle::<0, 3, 3>,
            layout: l,
        };
        for addr in [0u32, 0x400, 0x800, 0xbff0] {
            let d = make_gmma_desc(KMajor, &tile, addr).unwrap();
            assert_eq!(k_interleave_desc(addr, 64), d.bits());
        }
    }
}
