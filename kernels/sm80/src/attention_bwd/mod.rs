//! The FlashAttention backward kernels (`flash_attn_bwd_dot`,
//! `flash_attn_bwd_dkdvq_d{64,128}`, `flash_attn_bwd_dq_convert`,
//! `flash_attn_bwd_dkdv_d{64,128}`, `flash_attn_bwd_dq_d{64,128}` and the
//! `_causal` forms): dQ, dK and dV of O = softmax(scale · Q·Kᵀ)·V
//! from Q, K, V, O, dO and the forward's log-sum-exp, for the forward's
//! contract (`crate::attention`: BSHD planes or packed sequences, grouped
//! K/V heads, the causal bounds aligned top-left or bottom-right).
//!
//! With P = exp(scale · Q·Kᵀ - LSE) recomputed from the forward's LSE and
//! `Dot` = rowsum(dO ∘ O):
//! dV = Pᵀ·dO, dS = P ∘ (dO·Vᵀ - Dot), dK = scale · dSᵀ·Q, dQ = scale ·
//! dS·K. Three launches, dQ summed in one of two ways:
//! - `flash_attn_bwd_dot`: `Dot`, f32 (heads · rows of Q), laid out as
//!   LSE is (and, for the atomic dQ, its f32 sums zeroed);
//! - `flash_attn_bwd_dkdvq_d*` (atomic dQ): one block per [`BWD_TILE`]
//!   keys of a K/V head, over every query tile of every query head of its
//!   group (so that a grouped K/V head's dK and dV are summed in
//!   registers): Sᵀ = K·Qᵀ, Pᵀ, dV += Pᵀ·dO, dPᵀ = V·dOᵀ, dSᵀ, dK +=
//!   dSᵀ·Q; each query tile's dS goes to shared memory and its dQ terms,
//!   dS·K, are added into the f32 sums by `red.global.add`; then
//!   `flash_attn_bwd_dq_convert` makes dQ = f16(scale · sums). Five matrix
//!   products, FlashAttention-2's; the additions land in a varying order,
//!   so dQ's last bits may differ from run to run (dK's and dV's do not);
//! - deterministic: `flash_attn_bwd_dkdv_d*`, the same without dQ, then
//!   `flash_attn_bwd_dq_d*`: one block per [`BWD_TILE`] query rows of a
//!   head, over its key tiles: S = Q·Kᵀ, P, dP = dO·Vᵀ, dS, dQ += dS·K.
//!   Every gradient is summed by one block in a fixed order, so the
//!   results are the same bits from run to run; the price is S and dP
//!   computed twice, seven matrix products.
//!
//! The launch contract the host follows (`layout_gpu::attention`'s
//! backward):
//! - Q, O, dO, dQ: (batch, seq_q, heads, d) f16; K, V, dK, dV: (batch,
//!   seq_k, kv_heads, d) f16, kv_heads dividing heads; LSE and Dot:
//!   (batch, heads, seq_q) f32 (packed: (heads, total rows));
//! - `_dot`: grid ceil(rows · heads / [`BWD_DOT_THREADS`]), that many
//!   threads, no shared memory;
//! - `_dkdv`, `_dkdvq`: grid (ceil(seq_k / [`BWD_TILE`]), kv_heads,
//!   batch), [`BWD_THREADS`] threads, [`bwd_smem_bytes`]`(d)` bytes;
//! - `_dq`: grid (ceil(seq_q / [`BWD_TILE`]), heads, batch), the same;
//! - `_dq_convert`: grid ceil(n / 2 / [`BWD_CONVERT_THREADS`]) for n
//!   elements of Q, that many threads.

pub(crate) mod body;
#[doc(hidden)]
pub mod entry;

/// Rows (of keys for dK/dV, of queries for dQ) per block, and the tiles the
/// blocks stream: 64, one m16n8k16 M-atom per warp.
pub const BWD_TILE: usize = 64;
/// Threads per block of the dK/dV and dQ kernels: 4 warps along M.
pub const BWD_THREADS: usize = 128;
/// Threads per block of the `Dot` kernel: one (row, head) each.
pub const BWD_DOT_THREADS: usize = 128;
/// Threads per block of the dQ conversion (`flash_attn_bwd_dq_convert`):
/// two floats each.
pub const BWD_CONVERT_THREADS: usize = 256;
/// The head dimensions built.
pub const BWD_HEAD_DIMS: [usize; 2] = [64, 128];

/// Dynamic shared memory of a dK/dV or dQ block (bytes): six tiles of
/// [`BWD_TILE`] rows of `d` halves (the block's two, two stages of the
/// streamed two: the next tile's copy overlaps this one's products), then
/// two stages of 2 x [`BWD_TILE`] f32 (the streamed rows' LSE and Dot),
/// then [`BWD_TILE`] rows of [`BWD_DS_ROW`] f16 (a query tile's dS, for
/// the atomic dQ).
pub const fn bwd_smem_bytes(d: usize) -> usize {
    6 * BWD_TILE * d * 2 + 2 * 2 * BWD_TILE * 4 + BWD_TILE * BWD_DS_ROW * 2
}

/// Halves per row of the shared dS tile: [`BWD_TILE`] queries and 8 of
/// padding, so that the 8 rows an `ldmatrix` reads, and the words a
/// warp's accumulators store, fall in distinct banks, and every address a
/// thread takes is its first plus a constant (no swizzle to compute).
pub const BWD_DS_ROW: usize = BWD_TILE + 8;

/// The row address `ldmatrix.x4.trans` takes from thread `tid` for the A
/// fragment of dS at k-step `kk` (keys `16 kk ..`), a half offset in the
/// shared dS tile of a query tile: rows of keys, each [`BWD_DS_ROW`]
/// halves (the dK/dV kernel writes it as its accumulators lie, dSᵀ, two
/// queries a word). The warp's A is its 16 query rows by 16 keys: matrix
/// i (lanes 8i .. 8i + 7) is queries `8 (i % 2) ..` and keys `8 (i / 2)
/// ..` of it, the lane naming key row `lane % 8`; `.trans` hands lane t
/// the keys `2 (t % 4)` and `+1` of query `t / 4`, as the MMA's A
/// registers hold them.
#[inline(always)]
pub fn bwd_ldsm_ds(tid: usize, kk: usize) -> usize {
    let (warp, lane) = (tid / 32, tid % 32);
    let key = 16 * kk + 8 * (lane / 16) + lane % 8;
    let query = 16 * warp + 8 * ((lane / 8) % 2);
    key * BWD_DS_ROW + query
}

// What the build tool reads of the entry points.

/// The dK/dV kernels: 128 threads, 2 blocks an SM (dK's and dV's
/// accumulators and a step's Sᵀ and dPᵀ: 2 · d / 2 + 32 registers).
pub const FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D128_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// At d = 128 the dK/dV kernels' accumulators (64 + 64 a thread) with a
/// step's Sᵀ and dPᵀ (16 + 16) and the fragments' addresses pass 255
/// registers by a few: ptxas spills 32/36 bytes (64/76 causal). More than
/// this fails the build.
pub const FLASH_ATTN_BWD_DKDV_D128_SPILL_BYTES: (u32, u32) = (96, 112);
/// See [`FLASH_ATTN_BWD_DKDV_D128_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (96, 112);
/// The dK/dV kernels with the atomic dQ: as the dK/dV kernels.
pub const FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// At d = 128 the atomic dQ's kernels spill as the dK/dV kernels do; more
/// than this fails the build.
pub const FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES: (u32, u32) = (352, 448);
/// See [`FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (352, 448);
/// The dQ conversion: 256 threads.
pub const FLASH_ATTN_BWD_DQ_CONVERT_LAUNCH_BOUNDS: (u32, u32) = (256, 4);
/// The dQ conversion divides nothing.
pub const FLASH_ATTN_BWD_DQ_CONVERT_NO_DIVISION: bool = true;
/// The dQ kernels: 128 threads, 2 blocks an SM.
pub const FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D128_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_memory() {
        // 6 x 64 x 128 halves, 256 f32 and 64 x 72 halves at d = 128; at d
        // = 64 half the six tiles.
        assert_eq!(bwd_smem_bytes(128), 98304 + 1024 + 9216);
        assert_eq!(bwd_smem_bytes(64), 49152 + 1024 + 9216);
        // Two blocks an SM fit its 227 KiB.
        assert!(2 * bwd_smem_bytes(128) <= 227 * 1024);
    }
}
