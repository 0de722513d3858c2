//! A Hopper GEMM with a fused epilogue of its own, built from the parts of
//! `layout-kernels-sm90`: C = alpha · A · Bᵀ + R in bf16 (a residual
//! connection: a linear layer's output added to its input stream).
//! `cargo run --release -p layout-ptx -- CRATE_DIR OUT_DIR --arch sm_90a
//! --ptx 8.3` builds it to `OUT_DIR/my_hopper_kernels.ptx`; `host/`
//! launches it; `tests/emulated.rs` runs it on the CPU.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use layout_device::epilogue::{bf16_to_f32, Fusion};
use layout_device::Global;

/// A failed check or a panic stops the kernel; the host's launch reports
/// it.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    layout_device::trap()
}

// The plan's shared memory: the dynamic buffer the launch gives, as large
// as `hgemm_sm90`'s plan asks (4 stages of A's 128 x 64 and B's 256 x 64
// bf16 tiles, their barriers, and slack to reach a 1024-byte boundary).
layout_device::shared_memory!(
    /// The GEMM's stages and barriers.
    pub extern static GEMM_SMEM: [u8; layout_kernels_sm90::hgemm::SMEM_BYTES]
);

/// The epilogue: `alpha * acc + r[row][col]`, R an m x n bf16 matrix,
/// row-major. Called for every accumulator with its place in C; an
/// element past R reads 0 (it lies past C and is not stored).
#[derive(Clone, Copy)]
pub struct Residual {
    /// R, m x n bf16 bits.
    pub r: Global<u16>,
    /// C's columns.
    pub n: usize,
    /// The product's scale.
    pub alpha: f32,
}

impl Fusion for Residual {
    #[inline(always)]
    fn apply(self, acc: f32, row: usize, col: usize) -> f32 {
        let r = if col < self.n {
            match layout_core::tensor::memory::Memory::load(&self.r, row * self.n + col) {
                Some(bits) => bf16_to_f32(bits),
                None => 0.0,
            }
        } else {
            0.0
        };
        self.alpha * acc + r
    }
}

/// `gemm_residual_bf16`: a producer and two consumer warpgroups, in
/// clusters of two blocks (the plan's full form).
pub const GEMM_RESIDUAL_BF16_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_residual_bf16`'s clusters.
pub const GEMM_RESIDUAL_BF16_CLUSTER_SIZE: u32 = 2;
/// Its four bf16 `wgmma` per K-block and two TMA loads.
pub const GEMM_RESIDUAL_BF16_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor", 2),
];

/// The body: [`layout_kernels_sm90::bodies::gemm_body`] of the full form
/// (index 0 of `layout_kernels_sm90::hgemm::FORMS`), bf16 in and out, the
/// [`Residual`] epilogue, C stored by each thread.
#[inline(always)]
pub fn gemm_residual_body(
    (map_a, map_b): (*const u64, *const u64),
    c: layout_device::GlobalMut<u16>,
    r: Global<u16>,
    alpha: f32,
    (m, n, k): (u32, u32, u32),
) {
    use layout_device::epilogue::Bf16;
    use layout_kernels_sm90::bodies::{gemm_body, COut};
    use layout_kernels_sm90::hgemm::Bf16In;
    let fusion = Residual {
        r,
        n: n as usize,
        alpha,
    };
    gemm_body::<0, Bf16In, Bf16, Residual, GEMM_SMEM>(
        map_a,
        map_b,
        COut::Global(c),
        (m, n, k),
        fusion,
    )
}

/// C (m x n, bf16) = alpha · A · Bᵀ + R: A m x k and B n x k bf16,
/// row-major, as TMA tensor maps in global memory (boxes of 128 x 64 and
/// 128 x 64 elements, the 128-byte swizzle); R m x n bf16.
///
/// # Safety
/// The maps describe live bf16 buffers of those shapes; `c` and `r` hold
/// m x n elements; the launch gives 384 threads per block, clusters of two
/// and `layout_kernels_sm90::hgemm::SMEM_BYTES` of dynamic shared memory.
#[cfg(target_arch = "nvptx64")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_residual_bf16(
    map_a: *const u64,
    map_b: *const u64,
    c: layout_device::GlobalMut<u16>,
    r: Global<u16>,
    alpha: f32,
    m: u32,
    n: u32,
    k: u32,
) {
    gemm_residual_body((map_a, map_b), c, r, alpha, (m, n, k))
}
