//! Decoding over a paged KV cache (`decode_attn_d{64,128}`, `kv_append`):
//! the attention a server runs for every
//! generated token. Each sequence brings `q_len` new queries (1, or up to
//! 16 with speculative decoding) and attends over its whole cached context,
//! stored in blocks of `block_size` tokens that a per-sequence block table
//! lists (vLLM's PagedAttention layout).
//!
//! The launch contract the host follows (`layout_gpu::decode`):
//! - Q, O: (batch, q_len, q_heads, d) f16; the caches K, V: (blocks,
//!   block_size, kv_heads, d) f16 (token `t` of sequence `b` is row
//!   `table[b][t / block_size] * block_size + t % block_size`); the block
//!   table (batch, max_blocks) and the context lengths (batch) int32; LSE
//!   (batch, q_heads, q_len) f32, natural log (optional: empty for none);
//! - kv_heads divides q_heads: the `group = q_heads / kv_heads` query heads
//!   of a K/V head read its cache once, as the rows of one MMA: a block
//!   takes [`DECODE_ROWS`] of the `q_len * group` rows (row `r` is query
//!   `r / group` of head `h_kv * group + r % group`);
//! - causal: query `i` sits at position `ctx - q_len + i` and sees keys up
//!   to it (bottom-right); a row that sees no key gets O = 0 and LSE =
//!   -inf;
//! - grid (splits, ceil(q_len * group / 16), batch * kv_heads),
//!   [`DECODE_THREADS`] threads, [`decode_smem_bytes`]`(d)` bytes of
//!   dynamic shared memory. Split `s` takes keys `s * split_keys ..
//!   (s + 1) * split_keys` ([`split_plan`]); with one split the block writes
//!   O and LSE, with more it writes its partial O (f32) and LSE, counts
//!   itself in its row block's counter (zeros before the launch), and the
//!   split that counts last merges the partials into O and LSE and sets
//!   the counter back to 0 (`atom.inc` wraps it): a step is one launch (two
//!   with the append).
//!
//! Inside a block the four warps take a K/V tile's keys a quarter each,
//! every warp all 16 rows, each with its own online softmax; the warps'
//! results are merged through shared memory at the end by their
//! log-sum-exps, as the splits are.

pub(crate) mod body;
pub(crate) mod entry;

use crate::attention::flash_bn;

/// Threads per block: 4 warps.
pub const DECODE_THREADS: usize = 128;
/// Query rows per block: one m16n8k16 M-atom.
pub const DECODE_ROWS: usize = 16;
/// The head dimensions built.
pub const DECODE_HEAD_DIMS: [usize; 2] = [64, 128];
/// Threads per block of `kv_append`: one 16-byte chunk each.
pub const APPEND_THREADS: usize = 256;

/// Keys per K / V tile at head dimension `d` (the attention kernel's:
/// 128 at d = 64, 64 at d = 128), a quarter per warp.
pub const fn decode_tile(d: usize) -> usize {
    flash_bn(d)
}

/// K / V tiles in flight or in use per block at head dimension `d`: 2 at d
/// = 64 (three blocks an SM share its shared memory), 3 at d = 128 (two
/// blocks an SM; a block's first two tiles load together, and two are in
/// flight while it computes on a third).
pub const fn decode_stages(d: usize) -> usize {
    if d <= 64 {
        2
    } else {
        3
    }
}

/// Dynamic shared memory of a block (bytes): Q's 16 rows, then
/// [`decode_stages`] stages of K's tile and as many of V's.
pub const fn decode_smem_bytes(d: usize) -> usize {
    (DECODE_ROWS + 2 * decode_stages(d) * decode_tile(d)) * d * 2
}

/// Where the merge of a split decode keeps its weights in the block's
/// shared memory (words; word 0 is the last split's flag).
pub(crate) const MERGE_AT: usize = 32;

/// The most splits a launch at head dimension `d` merges: their weights
/// (16 words a split) and the rows' LSEs (16 more) fit the block's shared
/// memory after the 32 words the merge keeps before them (its flag first).
///
/// ```
/// use layout_kernels::maps::decode_max_splits;
/// // d = 128: 102400 bytes = 25600 words; (1597 + 1) x 16 = 25568 = 25600 - 32.
/// assert_eq!(decode_max_splits(128), 1597);
/// // d = 64: 67584 bytes = 16896 words; (1053 + 1) x 16 = 16864 = 16896 - 32.
/// assert_eq!(decode_max_splits(64), 1053);
/// ```
pub const fn decode_max_splits(d: usize) -> usize {
    (decode_smem_bytes(d) / 4 - MERGE_AT) / DECODE_ROWS - 1
}

/// The block sizes the kernel takes: powers of two from 16 to 256 tokens.
pub const fn block_size_ok(bs: usize) -> bool {
    bs.is_power_of_two() && bs >= 16 && bs <= 256
}

/// The most splits [`split_plan`] takes.
pub const MAX_SPLITS: usize = 16;
/// The fewest tiles of the context a split of [`split_plan`] takes.
pub const MIN_SPLIT_TILES: usize = 8;

/// How a launch splits the context: `splits` blocks per (sequence, K/V
/// head, row block), each taking `split_keys` keys (a multiple of the
/// tile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitPlan {
    /// Blocks along the context.
    pub splits: usize,
    /// Keys per split.
    pub split_keys: usize,
}

/// Blocks of the attention resident on one SM at head dimension `d`: the
/// launch bounds' minimum ([`DECODE_ATTN_D64_LAUNCH_BOUNDS`], ...), which
/// registers and shared memory allow.
pub const fn decode_blocks_per_sm(d: usize) -> usize {
    if d <= 64 {
        DECODE_ATTN_D64_LAUNCH_BOUNDS.1 as usize
    } else {
        DECODE_ATTN_D128_LAUNCH_BOUNDS.1 as usize
    }
}

/// The share of the GPU's block slots that `n` equal blocks keep busy over
/// their waves, `slots` blocks at a time: n / (waves x slots), in
/// thousandths.
fn wave_fill(n: usize, slots: usize) -> usize {
    let waves = n.div_ceil(slots);
    n.saturating_mul(1000) / waves.saturating_mul(slots).max(1)
}

/// The split rule, on the host. A launch of `blocks` = batch x kv_heads x
/// row blocks runs in waves of `slots` = `sms` x
/// [`decode_blocks_per_sm`]`(d)` blocks; as the blocks of one launch take
/// equally long, a last wave that is partly empty idles the rest of the
/// GPU. The rule takes the fewest splits (1 to [`MAX_SPLITS`], each at
/// least [`MIN_SPLIT_TILES`] tiles of the context) whose launch keeps at
/// least 90% of the slots busy over its waves, and when none does, the
/// splits that keep the most busy (the fewest of those). `max_ctx` is the
/// longest context of the batch.
///
/// The bounds are the merge's price: the last split of a row block reads
/// every split's partials back after a fence and a count, so on an H100
/// (`gpu-runner decode-time --split-keys`, one run) batch 1 at 512 tokens
/// took 16.0 µs unsplit against 20.3 in 2 splits of 4 tiles, and at 32k
/// tokens 69.1 µs in 16 splits against 77.2 in 32 and 96.0 in 64.
///
/// ```
/// use layout_kernels::maps::{split_plan, SplitPlan};
/// // Batch 1, 8 K/V heads, one row block, 32k tokens at d = 128 (64-key
/// // tiles, 2 blocks an SM) on 132 SMs: no count up to 16 fills 90% of
/// // the 264 slots, so the most: 16 splits of 32 tiles, 128 blocks.
/// assert_eq!(split_plan(128, 8, 32768, 132), SplitPlan { splits: 16, split_keys: 2048 });
/// // 512 tokens are 8 tiles: one split.
/// assert_eq!(split_plan(128, 8, 512, 132).splits, 1);
/// // Batch 8: 4 splits make one full wave of 256 blocks (5 would make
/// // 320: a second wave of 56).
/// assert_eq!(split_plan(128, 64, 32768, 132).splits, 4);
/// // Batch 64: 512 blocks fill two waves of 264 to 97% unsplit.
/// assert_eq!(split_plan(128, 512, 32768, 132).splits, 1);
/// ```
pub fn split_plan(d: usize, blocks: usize, max_ctx: usize, sms: usize) -> SplitPlan {
    let t = decode_tile(d);
    let tiles = max_ctx.div_ceil(t).max(1);
    // (Saturating: a context near usize::MAX gives a plan the launch
    // refuses, not an overflow.)
    let plan = |want: usize| {
        let per = tiles.div_ceil(want);
        SplitPlan {
            splits: tiles.div_ceil(per),
            split_keys: per.saturating_mul(t),
        }
    };
    let slots = sms.saturating_mul(decode_blocks_per_sm(d));
    if blocks == 0 || slots == 0 {
        return plan(1);
    }
    let mut best = (plan(1), 0);
    for want in 1..=(tiles / MIN_SPLIT_TILES).clamp(1, MAX_SPLITS) {
        let p = plan(want);
        let fill = wave_fill(blocks.saturating_mul(p.splits), slots);
        if fill >= 900 {
            return p;
        }
        if fill > best.1 {
            best = (p, fill);
        }
    }
    best.0
}

// What the build tool reads of the entry points (see `attention`).

/// The decode kernels: 128 threads, 3 blocks per SM at d = 64 (168
/// registers; memory-bound, so loads in flight matter more than
/// registers), 2 at d = 128 (Q's fragments, O's 64 accumulators and the
/// copies' addresses need more than 168 registers: ptxas spilled 192
/// bytes at 3).
pub const DECODE_ATTN_D64_LAUNCH_BOUNDS: (u32, u32) = (128, 3);
/// See [`DECODE_ATTN_D64_LAUNCH_BOUNDS`].
pub const DECODE_ATTN_D128_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// The append: 256 threads a block.
pub const KV_APPEND_LAUNCH_BOUNDS: (u32, u32) = (256, 4);

#[cfg(test)]
mod tests {
    use super::*;

    /// The split rule against its statement, over a grid of shapes: the
    /// splits cover the context with the last one non-empty, each at
    /// least 8 tiles (unless unsplit), at most 16; the fewest whose waves
    /// keep 90% of the slots busy, or else none of fewer splits keeping
    /// as many busy.
    #[test]
    fn split_plan_follows_its_rule() {
        let sms = 132;
        for d in DECODE_HEAD_DIMS {
            let t = decode_tile(d);
            let slots = sms * decode_blocks_per_sm(d);
            // Busy slots in thousandths, over whole waves, by hand.
            let fill = |n: usize| {
                let waves = n.div_ceil(slots);
                1000 * n / (waves * slots)
            };
            for blocks in [1, 7, 8, 64, 131, 132, 264, 300, 500, 2000] {
                for ctx in [
                    0,
                    1,
                    t,
                    8 * t,
                    8 * t + 1,
                    16 * t,
                    1000,
                    4096,
                    32768,
                    100_000,
                ] {
                    let p = split_plan(d, blocks, ctx, sms);
                    let tiles = ctx.div_ceil(t).max(1);
                    assert_eq!(p.split_keys % t, 0);
                    assert!(
                        p.splits * p.split_keys >= tiles * t,
                        "{d} {blocks} {ctx}: {p:?}"
                    );
                    assert!((p.splits - 1) * p.split_keys < tiles * t, "{p:?}");
                    assert!(p.splits <= 16);
                    assert!(
                        p.split_keys >= 8 * t || p.splits == 1,
                        "{d} {blocks} {ctx}: {p:?}"
                    );
                    let got = fill(blocks * p.splits);
                    // Every split count below it: the fill each reaches
                    // (as split_keys rounds, several counts share a plan).
                    for fewer in 1..p.splits {
                        let per = tiles.div_ceil(fewer);
                        let n = tiles.div_ceil(per);
                        if n < p.splits {
                            let f = fill(blocks * n);
                            assert!(
                                f < 900 && f < got,
                                "{d} {blocks} {ctx}: {p:?} but {n} splits fill {f}"
                            );
                        }
                    }
                    // Where more splits were allowed and this one is short
                    // of 90%, none of the allowed ones does better.
                    if got < 900 {
                        for more in p.splits + 1..=(tiles / 8).min(16) {
                            let per = tiles.div_ceil(more);
                            let f = fill(blocks * tiles.div_ceil(per));
                            assert!(
                                f <= got,
                                "{d} {blocks} {ctx}: {p:?} fills {got}, {more} would {f}"
                            );
                        }
                    }
                }
            }
        }
        // The shapes named: 8 K/V heads at batch 8 (64 blocks) and d = 128
        // on 132 SMs make 264 slots; 4 splits are 256 blocks (970), 3 are
        // 192 (727).
        assert_eq!(split_plan(128, 64, 4096, 132).splits, 4);
        assert_eq!(split_plan(128, 64, 4096, 132).split_keys, 1024);
    }

    /// Hostile sizes: no overflow, no division by zero.
    #[test]
    fn split_plan_of_extreme_sizes() {
        for d in DECODE_HEAD_DIMS {
            for ctx in [usize::MAX, usize::MAX - 1, usize::MAX / 2] {
                for blocks in [0, 1, usize::MAX] {
                    let p = split_plan(d, blocks, ctx, 132);
                    assert!(p.splits >= 1 && p.split_keys >= 1);
                }
            }
            assert_eq!(split_plan(d, 1, 100, 0).splits, 1);
        }
    }

    #[test]
    fn shared_memory_and_block_sizes() {
        // 16 rows of Q and 2 + 2 tiles at d = 64: 16 x 64 + 4 x 128 x 64
        // halves; 3 + 3 at d = 128: 16 x 128 + 6 x 64 x 128.
        assert_eq!(decode_smem_bytes(64), (1024 + 32768) * 2);
        assert_eq!(decode_smem_bytes(128), (2048 + 49152) * 2);
        // The launch bounds' blocks fit an SM's 227 KiB.
        for d in DECODE_HEAD_DIMS {
            assert!(decode_blocks_per_sm(d) * decode_smem_bytes(d) <= 227 * 1024);
        }
        let ok: std::vec::Vec<usize> = (0..=512).filter(|&b| block_size_ok(b)).collect();
        assert_eq!(ok, [16, 32, 64, 128, 256]);
    }
}
