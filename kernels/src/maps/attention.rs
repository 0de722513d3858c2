//! The FlashAttention forward kernels' maps (`flash_attn_fwd_d64`,
//! `flash_attn_fwd_d128` and their `_causal` forms): O = softmax(scale ·
//! Q·Kᵀ)·V per (batch, head), one block per `FLASH_BM` query rows, K and V
//! streamed through shared memory `FLASH_BN` keys at a time.
//!
//! The launch contract the host follows (`gpu-runner attention`):
//! - Q, O: (batch, seq_q, heads, d) f16, K, V: (batch, seq_k, heads, d) f16,
//!   all C-order (CuTe's and FlashAttention's BSHD); LSE: (batch, heads,
//!   seq_q) f32, the natural log of each row's sum of exp(scale · s);
//! - grid (ceil(seq_q / FLASH_BM), heads, batch), `FLASH_THREADS` threads,
//!   [`flash_smem_bytes`]`(d)` bytes of dynamic shared memory;
//! - causal: query i sees keys j <= i (top-left aligned, as torch's
//!   `is_causal`).

/// Query rows per block.
pub const FLASH_BM: usize = 128;
/// Keys per K / V tile.
pub const FLASH_BN: usize = 64;
/// Threads per block: 4 warps, each 32 query rows.
pub const FLASH_THREADS: usize = 128;
/// The head dimensions built.
pub const FLASH_HEAD_DIMS: [usize; 2] = [64, 128];

/// Dynamic shared memory of a block for head dimension `d` (bytes): Q's
/// tile, then K's and V's.
pub const fn flash_smem_bytes(d: usize) -> usize {
    (FLASH_BM + 2 * FLASH_BN) * d * 2
}
