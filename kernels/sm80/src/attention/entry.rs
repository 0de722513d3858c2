//! The FlashAttention forward entry points (`flash_attn_fwd_d{64,128,256}`
//! and their `_causal` forms): raw pointers from the host made into
//! checked buffers, the dynamic shared memory they declare, and what the
//! build tool reads of them. The buffers exist on the host too (the
//! emulated tests name them); the entry points on the GPU only. (The
//! buffers are declared here, not in `crate::smem`: their paths name the
//! kernels' instances, and the PTX keeps its order with them here.)
#![allow(unsafe_code)]

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
use crate::device::elems;
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
use layout_device::{trap, Global, GlobalMut, F4};

layout_device::shared_memory!(
    /// The FlashAttention kernels' shared memory for head dimension 64
    /// (dynamic: `flash_smem_bytes(64)` bytes at launch).
    pub extern static FLASH_SMEM_D64: [u8; 49152]
);

layout_device::shared_memory!(
    /// The FlashAttention kernels' shared memory for head dimension 128
    /// (dynamic: `flash_smem_bytes(128)` bytes at launch).
    pub extern static FLASH_SMEM_D128: [u8; 65536]
);

layout_device::shared_memory!(
    /// The FlashAttention kernels' shared memory for head dimension 256
    /// (dynamic: `flash_smem_bytes(256)` bytes at launch).
    pub extern static FLASH_SMEM_D256: [u8; 98304]
);

const _: () = assert!(
    crate::maps::flash_smem_bytes(64) == 49152
        && crate::maps::flash_smem_bytes(128) == 65536
        && crate::maps::flash_smem_bytes(256) == 98304,
    "the FlashAttention buffers are flash_smem_bytes(D)"
);

/// The FlashAttention entries' buffers (traps on a misaligned pointer or a
/// size past `usize`) and the body for head dimension `D`.
///
/// # Safety
/// The launch contract of `maps/attention.rs`: `q`, `o` point to batch *
/// seq_q * heads * D halves, `k`, `v` to batch * seq_k * kv_heads * D
/// (kv_heads dividing heads), `lse` to batch * heads * seq_q `f32`, 16-byte
/// aligned (`lse` 4), `o` and `lse` overlapping nothing; `p.cu_q` and
/// `p.cu_k` empty, or (packed sequences, batch 1) grid z + 1 offsets each.
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
#[inline(always)]
#[layout_core::instantiate(
    (64, false),
    (64, true),
    (128, false),
    (128, true),
    (256, false),
    (256, true)
)]
unsafe fn flash_entry<B: layout_device::SharedBuffer, const D: usize, const CAUSAL: bool>(
    (q, k, v, o, lse): (*const u16, *const u16, *const u16, *mut u16, *mut f32),
    p: super::body::FlashProblem,
) {
    if [q as usize, k as usize, v as usize, o as usize]
        .iter()
        .any(|a| a % 16 != 0)
    {
        trap()
    }
    let rows_q = elems(elems(p.batch, p.seq_q), p.heads);
    let (lq, lk) = (
        elems(rows_q, D),
        elems(elems(elems(p.batch, p.seq_k), p.kv_heads), D),
    );
    // SAFETY: the caller's contract (16-byte aligned: F4 views).
    let (q, k, v) = unsafe {
        (
            Global::new(q.cast::<F4>(), lq / 8),
            Global::new(k.cast::<F4>(), lk / 8),
            Global::new(v.cast::<F4>(), lk / 8),
        )
    };
    // O (as f16 pairs) and LSE, made when the kernel stores them: their
    // lengths are then recomputed from the parameters, not held across
    // the kernel's loop in registers it needs.
    let outputs = move |p: &super::body::FlashProblem| {
        // Not the entry's products (in_loop): those would be held.
        let batch = layout_device::in_loop(p.batch);
        let rows_q = elems(elems(batch, p.seq_q), p.heads);
        let ll = elems(elems(batch, p.heads), p.seq_q);
        // SAFETY: the caller's contract.
        unsafe {
            (
                GlobalMut::new(o.cast::<u32>(), elems(rows_q, D) / 2),
                GlobalMut::new(lse, ll),
            )
        }
    };
    super::body::flash_attn_fwd::<B, _, D, CAUSAL>(p, (q, k, v), outputs)
}

/// The FlashAttention forward entry points, one per head dimension and
/// mask, on `batch` planes of `seq_q` rows and `seq_k` keys: `(q, k, v, o,
/// lse, batch, seq_q, seq_k, heads, kv_heads, offset, lower, scale)`, the
/// masked forms' query i seeing keys i + lower ..= i + offset (offset 0:
/// causal top-left, seq_k - seq_q: bottom-right; lower `i32::MIN` for
/// none, or a sliding window's; ignored without the mask). The `_varlen`
/// forms take packed sequences of their own lengths: `(q, k, v, o, lse,
/// cu_q, cu_k, seq_q, seq_k, heads, kv_heads, offset, lower, bottom_right,
/// scale)`, one plane of `seq_q` rows and `seq_k` keys in all, sequence b
/// (grid z) its rows `cu_q[b] .. cu_q[b + 1]` and keys `cu_k[b] .. cu_k[b +
/// 1]` (FlashAttention's `cu_seqlens`), LSE (heads, rows); the bounds
/// count from each sequence's top-left diagonal, or with `bottom_right` 1
/// its bottom-right one (i + its keys - its rows).
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
macro_rules! flash_entries {
    ($($(#[$m:meta])* $name:ident = ($buf:ident, $d:literal, $causal:literal);)*) => {$(
        $(#[$m])*
        ///
        /// # Safety
        /// The launch contract of `maps/attention.rs` (see `flash_entry`).
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(
            q: *const u16,
            k: *const u16,
            v: *const u16,
            o: *mut u16,
            lse: *mut f32,
            batch: usize,
            seq_q: usize,
            seq_k: usize,
            heads: usize,
            kv_heads: usize,
            offset: i32,
            lower: i32,
            scale: f32,
        ) {
            // No offsets (constant: what reads them folds away).
            // SAFETY: an empty buffer is never read.
            let none = unsafe { Global::new(core::ptr::null(), 0) };
            let p = super::body::FlashProblem {
                batch, seq_q, seq_k, heads, kv_heads, cu_q: none, cu_k: none, offset, lower,
                bottom_right: false, scale,
            };
            // SAFETY: the launch contract above.
            unsafe { flash_entry::<$buf, $d, $causal>((q, k, v, o, lse), p) }
        }
    )*};
    (varlen: $($(#[$m:meta])* $name:ident = ($buf:ident, $d:literal, $causal:literal);)*) => {$(
        $(#[$m])*
        ///
        /// # Safety
        /// The launch contract of `maps/attention.rs` (see `flash_entry`),
        /// `cu_q` and `cu_k` pointing to grid z + 1 `i32` each.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(
            q: *const u16,
            k: *const u16,
            v: *const u16,
            o: *mut u16,
            lse: *mut f32,
            cu_q: *const i32,
            cu_k: *const i32,
            seq_q: usize,
            seq_k: usize,
            heads: usize,
            kv_heads: usize,
            offset: i32,
            lower: i32,
            bottom_right: u32,
            scale: f32,
        ) {
            let n = layout_device::grid_dim().2 + 1;
            // SAFETY: the launch contract (grid z + 1 offsets each).
            let (cu_q, cu_k) = unsafe { (Global::new(cu_q, n), Global::new(cu_k, n)) };
            let p = super::body::FlashProblem {
                batch: 1, seq_q, seq_k, heads, kv_heads, cu_q, cu_k, offset, lower,
                bottom_right: bottom_right != 0, scale,
            };
            // SAFETY: the launch contract above.
            unsafe { flash_entry::<$buf, $d, $causal>((q, k, v, o, lse), p) }
        }
    )*};
}

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
flash_entries! {
    /// O = softmax(scale · Q·Kᵀ)·V, head dimension 64 (the launch contract
    /// of `maps/attention.rs`: BSHD f16 Q, K, V, O; f32 LSE).
    flash_attn_fwd_d64 = (FLASH_SMEM_D64, 64, false);
    /// [`flash_attn_fwd_d64`] with the causal mask (query i sees keys 0..=i).
    flash_attn_fwd_d64_causal = (FLASH_SMEM_D64, 64, true);
    /// [`flash_attn_fwd_d64`] for head dimension 128.
    flash_attn_fwd_d128 = (FLASH_SMEM_D128, 128, false);
    /// [`flash_attn_fwd_d128`] with the causal mask.
    flash_attn_fwd_d128_causal = (FLASH_SMEM_D128, 128, true);
    /// [`flash_attn_fwd_d64`] for head dimension 256 (64-row blocks).
    flash_attn_fwd_d256 = (FLASH_SMEM_D256, 256, false);
    /// [`flash_attn_fwd_d256`] with the causal mask.
    flash_attn_fwd_d256_causal = (FLASH_SMEM_D256, 256, true);
}

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
flash_entries! {
    varlen:
    /// [`flash_attn_fwd_d64`] on packed sequences of their own lengths
    /// (THD f16 Q, K, V, O; LSE (heads, rows)).
    flash_attn_fwd_varlen_d64 = (FLASH_SMEM_D64, 64, false);
    /// [`flash_attn_fwd_varlen_d64`] with the mask.
    flash_attn_fwd_varlen_d64_causal = (FLASH_SMEM_D64, 64, true);
    /// [`flash_attn_fwd_varlen_d64`] for head dimension 128.
    flash_attn_fwd_varlen_d128 = (FLASH_SMEM_D128, 128, false);
    /// [`flash_attn_fwd_varlen_d128`] with the mask.
    flash_attn_fwd_varlen_d128_causal = (FLASH_SMEM_D128, 128, true);
    /// [`flash_attn_fwd_varlen_d64`] for head dimension 256 (64-row
    /// blocks).
    flash_attn_fwd_varlen_d256 = (FLASH_SMEM_D256, 256, false);
    /// [`flash_attn_fwd_varlen_d256`] with the mask.
    flash_attn_fwd_varlen_d256_causal = (FLASH_SMEM_D256, 256, true);
}
