//! The decode entry points (`decode_attn_d{64,128}`, `kv_append`): the
//! host's pointers made into checked buffers, and the dynamic shared
//! memory the attention declares. The buffers exist on the
//! host too (the emulated tests name them); the entry points on the GPU
//! only.
#![allow(unsafe_code)]

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
use crate::device::elems;
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
use layout_device::{trap, Global, GlobalMut, F4};

layout_device::shared_memory!(
    /// The decode kernel's shared memory for head dimension 64 (dynamic:
    /// `decode_smem_bytes(64)` bytes at launch).
    pub extern static DECODE_SMEM_D64: [u8; 67584]
);

layout_device::shared_memory!(
    /// The decode kernel's shared memory for head dimension 128 (dynamic:
    /// `decode_smem_bytes(128)` bytes at launch).
    pub extern static DECODE_SMEM_D128: [u8; 102400]
);

const _: () = assert!(
    super::decode_smem_bytes(64) == 67584 && super::decode_smem_bytes(128) == 102400,
    "the decode buffers are decode_smem_bytes(D)"
);

/// A read-only buffer of `len` elements at `p` (16-byte aligned when
/// `ALIGN`), or none when `len` is 0.
///
/// # Safety
/// `p` points to `len` elements, alive for the kernel.
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
#[inline(always)]
unsafe fn input<T: Copy>(p: *const T, len: usize, align: usize) -> Global<T> {
    if (p as usize) % align != 0 {
        trap()
    }
    // SAFETY: the caller's.
    unsafe { Global::new(p, len) }
}

/// A writable buffer, as [`input`]; a null pointer is an empty buffer.
///
/// # Safety
/// `p` points to `len` elements nothing else accesses, or is null.
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
#[inline(always)]
unsafe fn output<T: Copy>(p: *mut T, len: usize, align: usize) -> GlobalMut<T> {
    if p.is_null() {
        // SAFETY: an empty buffer is never written.
        return unsafe { GlobalMut::new(p, 0) };
    }
    if (p as usize) % align != 0 {
        trap()
    }
    // SAFETY: the caller's.
    unsafe { GlobalMut::new(p, len) }
}

/// The decode attention entry points, one per head dimension: `(q, k_cache,
/// v_cache, block_table, context_lens, o, lse, o_part, lse_part, count,
/// batch, q_len, q_heads, kv_heads, blocks, block_size, max_blocks,
/// split_keys, causal, scale)` (`maps::decode`'s contract). The block
/// writes `o` and `lse` (null for none); with more than one split (grid
/// x), each writes its partials into `o_part` and `lse_part` and counts
/// itself in `count` (grid y * grid z zeros, zeros again after the
/// launch), and the last of a row block's splits merges them into `o` and
/// `lse` (null buffers for one split).
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
macro_rules! decode_entries {
    ($($(#[$m:meta])* $name:ident = ($buf:ident, $d:literal);)*) => {$(
        $(#[$m])*
        ///
        /// # Safety
        /// The launch contract of `maps::decode`: every pointer to its
        /// tensor's elements, Q, O and the caches 16-byte aligned, the
        /// outputs overlapping nothing.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(
            q: *const u16,
            k_cache: *const u16,
            v_cache: *const u16,
            block_table: *const i32,
            context_lens: *const i32,
            o: *mut u16,
            lse: *mut f32,
            o_part: *mut f32,
            lse_part: *mut f32,
            count: *mut u32,
            batch: usize,
            q_len: usize,
            q_heads: usize,
            kv_heads: usize,
            blocks: usize,
            block_size: usize,
            max_blocks: usize,
            split_keys: usize,
            causal: u32,
            scale: f32,
        ) {
            let (splits, slabs, groups) = layout_device::grid_dim();
            let rows_q = elems(elems(batch, q_len), q_heads);
            let cache = elems(elems(elems(blocks, block_size), kv_heads), $d);
            let part = if splits > 1 { elems(splits, rows_q) } else { 0 };
            // SAFETY: the launch contract.
            let io = unsafe {
                super::body::DecodeIo {
                    q: input(q.cast::<F4>(), elems(rows_q, $d) / 8, 16),
                    k: input(k_cache.cast::<F4>(), cache / 8, 16),
                    v: input(v_cache.cast::<F4>(), cache / 8, 16),
                    table: input(block_table, elems(batch, max_blocks), 4),
                    lens: input(context_lens, batch, 4),
                    o: output(o.cast::<u32>(), elems(rows_q, $d) / 2, 16),
                    lse: output(lse, rows_q, 4),
                    o_part: output(o_part, elems(part, $d), 16),
                    lse_part: output(lse_part, part, 4),
                    count: output(count, if splits > 1 { elems(slabs, groups) } else { 0 }, 4),
                }
            };
            let p = super::body::DecodeProblem {
                batch, q_len, q_heads, kv_heads, blocks, block_size, max_blocks, split_keys,
                causal: causal != 0, scale,
            };
            super::body::decode_attn::<$buf, $d>(p, io)
        }
    )*};
}

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
decode_entries! {
    /// Decode attention over a paged KV cache, head dimension 64.
    decode_attn_d64 = (DECODE_SMEM_D64, 64);
    /// [`decode_attn_d64`] at head dimension 128.
    decode_attn_d128 = (DECODE_SMEM_D128, 128);
}

/// The new tokens' K and V into their cache slots: `(k_new, v_new, k_cache,
/// v_cache, slots, tokens, kv_heads, d, cache_rows)`, grid ceil(tokens *
/// kv_heads * d / 8 / 256), 256 threads.
///
/// # Safety
/// `k_new`, `v_new`: tokens * kv_heads * d f16, the caches cache_rows *
/// kv_heads * d f16 (16-byte aligned, d a multiple of 8), `slots` tokens
/// int32.
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn kv_append(
    k_new: *const u16,
    v_new: *const u16,
    k_cache: *mut u16,
    v_cache: *mut u16,
    slots: *const i32,
    tokens: usize,
    kv_heads: usize,
    d: usize,
    cache_rows: usize,
) {
    if d % 8 != 0 {
        trap()
    }
    let row_chunks = elems(kv_heads, d) / 8;
    let (new, cache) = (elems(tokens, row_chunks), elems(cache_rows, row_chunks));
    // SAFETY: the launch contract above.
    let (ins, outs) = unsafe {
        (
            (
                input(k_new.cast::<F4>(), new, 16),
                input(v_new.cast::<F4>(), new, 16),
                input(slots, tokens, 4),
            ),
            (
                output(k_cache.cast::<F4>(), cache, 16),
                output(v_cache.cast::<F4>(), cache, 16),
            ),
        )
    };
    super::body::kv_append(ins, outs, (tokens, row_chunks, cache_rows))
}
