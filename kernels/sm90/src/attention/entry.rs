//! `flash_attn_fwd_sm90`'s entry points, one per head dimension and mask:
//! the tensor maps, O and LSE from the host (the dynamic shared memory the
//! plan lays out is `crate::smem::ATTN_SMEM`, `ATTN_SMEM_256` at d = 256).
#![allow(unsafe_code)]

use crate::smem::{ATTN_SMEM, ATTN_SMEM_256};
use layout_device::{Global, GlobalMut, Sequences};

/// The entry points of `flash_attn_fwd_sm90`: one per head dimension and
/// mask, each `attention_body::<BUFFER, D, CAUSAL, STAGES, _>`, on planes of equal
/// lengths, and (`_varlen`) on packed sequences of their own lengths.
macro_rules! attention_entries {
    ($($name:ident: $buf:ident, $d:literal, $causal:literal, $stages:literal;)*) => {$(
        /// O = softmax!(scale · Q·Kᵀ) · V and the rows' log-sum-exp
        /// (`crate::attention` has the plan) for `batch` planes of `heads`
        /// heads: Q and O f16 in (batch, seq, heads, d) order, K and V in
        /// (batch, seq, kv_heads, d) (grouped-query attention: query head h
        /// reads K/V head h / (heads / kv_heads); kv_heads divides heads),
        /// LSE f32 in (batch, heads, seq_q). The `_causal` form masks: query
        /// i sees keys i + `lower` ..= i + `offset` (`offset` 0: causal
        /// aligned top-left, torch's `is_causal`; seq_k - seq_q:
        /// bottom-right, FlashAttention's; `lower` `i32::MIN` for none, or a
        /// sliding window's), a row seeing no key O = 0 and LSE -inf; the
        /// others ignore both.
        /// Persistent: the units of work, ceil(seq_q / bm(d)) row blocks
        /// of each (batch, head), are shared out among the blocks in rounds
        /// (`crate::attention::body`'s `unit_of`). Launch: a grid of
        /// (blocks, 1, 1), any number of blocks (as many as units: one
        /// each), `threads(d)` threads, `crate::attention::smem_bytes(d)`
        /// of dynamic shared memory (`crate::attention`'s functions of d).
        ///
        /// # Safety
        /// `map_q`, `map_k`, `map_v` point to tensor maps (64-byte aligned,
        /// in global memory) of live f16 buffers, each seen as (heads · d
        /// (kv_heads · d for K and V), seq, batch) with boxes of 64 columns
        /// x `bm(d)` (Q) or 128 (K, V) rows x 1 plane and the 128-byte
        /// swizzle; `o` and `lse` are the problem's O and LSE (every store
        /// is checked against them).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            map_q: *const u64,
            map_k: *const u64,
            map_v: *const u64,
            o: GlobalMut<u16>,
            lse: GlobalMut<f32>,
            batch: u32,
            seq_q: u32,
            seq_k: u32,
            heads: u32,
            kv_heads: u32,
            offset: i32,
            lower: i32,
            scale: f32,
        ) {
            const { assert!($stages == crate::attention::stages($d)) };
            // No offsets (constant: what reads them folds away).
            // SAFETY: an empty buffer is never read.
            let none = unsafe { Global::new(core::ptr::null(), 0) };
            let seqs = Sequences {
                seq_q: seq_q as usize,
                seq_k: seq_k as usize,
                cu_q: none,
                cu_k: none,
            };
            let row_blocks = seq_q.div_ceil(crate::attention::bm($d) as u32);
            super::body::attention_body::<$buf, $d, $causal, $stages, { crate::attention::persistent($d) }>(
                (map_q as u64, map_k as u64, map_v as u64),
                (o, lse),
                (seqs, heads, kv_heads),
                (offset, lower, false, scale),
                (row_blocks, batch),
            )
        }
    )*};
    (varlen: $($name:ident: $buf:ident, $d:literal, $causal:literal, $stages:literal;)*) => {$(
        /// The planes form on packed sequences of their own lengths
        /// (FlashAttention's variable-length batch): one plane of `seq_q`
        /// rows (Q, O) and `seq_k` keys (K, V) in all, sequence b (grid z)
        /// its rows `cu_q[b] .. cu_q[b + 1]` and keys `cu_k[b] .. cu_k[b +
        /// 1]` (a sequence may be empty; one without keys gets O = 0 and
        /// LSE -inf), LSE f32 in (heads, rows). The mask's bounds count
        /// from each sequence's top-left diagonal, or with `bottom_right` 1
        /// its bottom-right one (i + its keys - its rows). The units of
        /// work: `row_blocks` (ceil(longest / bm(d))) of each (sequence,
        /// head), those past a sequence's rows skipped, one a block: a grid
        /// of exactly `row_blocks` x heads x `batch` blocks (not
        /// persistent; `crate::attention::persistent_blocks`).
        ///
        /// # Safety
        /// As the planes form's, with one plane; `cu_q` and `cu_k` point to
        /// `batch` + 1 `i32` each (every offset is checked against the
        /// plane), or are both null (the planes form's problem, aligned by
        /// `bottom_right`, with `row_blocks` ceil(seq_q / bm(d))).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            map_q: *const u64,
            map_k: *const u64,
            map_v: *const u64,
            o: GlobalMut<u16>,
            lse: GlobalMut<f32>,
            cu_q: *const i32,
            cu_k: *const i32,
            batch: u32,
            row_blocks: u32,
            seq_q: u32,
            seq_k: u32,
            heads: u32,
            kv_heads: u32,
            offset: i32,
            lower: i32,
            bottom_right: u32,
            scale: f32,
        ) {
            const { assert!($stages == crate::attention::stages($d)) };
            // (Null offsets: planes of `seq_q` rows and `seq_k` keys, as
            // the planes form's.)
            let n = if cu_q.is_null() || cu_k.is_null() { 0 } else { batch as usize + 1 };
            // SAFETY: the contract above.
            let seqs = unsafe {
                Sequences {
                    seq_q: seq_q as usize,
                    seq_k: seq_k as usize,
                    cu_q: Global::new(cu_q, n),
                    cu_k: Global::new(cu_k, n),
                }
            };
            super::body::attention_body::<$buf, $d, $causal, $stages, false>(
                (map_q as u64, map_k as u64, map_v as u64),
                (o, lse),
                (seqs, heads, kv_heads),
                (offset, lower, bottom_right != 0, scale),
                (row_blocks, batch),
            )
        }
    )*};
}

attention_entries! {
    flash_attn_fwd_sm90_d64: ATTN_SMEM, 64, false, 4;
    flash_attn_fwd_sm90_d64_causal: ATTN_SMEM, 64, true, 4;
    flash_attn_fwd_sm90_d128: ATTN_SMEM, 128, false, 2;
    flash_attn_fwd_sm90_d128_causal: ATTN_SMEM, 128, true, 2;
    flash_attn_fwd_sm90_d256: ATTN_SMEM_256, 256, false, 1;
    flash_attn_fwd_sm90_d256_causal: ATTN_SMEM_256, 256, true, 1;
}

attention_entries! {
    varlen:
    flash_attn_fwd_sm90_varlen_d64: ATTN_SMEM, 64, false, 4;
    flash_attn_fwd_sm90_varlen_d64_causal: ATTN_SMEM, 64, true, 4;
    flash_attn_fwd_sm90_varlen_d128: ATTN_SMEM, 128, false, 2;
    flash_attn_fwd_sm90_varlen_d128_causal: ATTN_SMEM, 128, true, 2;
    flash_attn_fwd_sm90_varlen_d256: ATTN_SMEM_256, 256, false, 1;
    flash_attn_fwd_sm90_varlen_d256_causal: ATTN_SMEM_256, 256, true, 1;
}
