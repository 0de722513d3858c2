//! The backward entry points (`flash_attn_bwd_dot`,
//! `flash_attn_bwd_dkdv_d{64,128}[_causal]`,
//! `flash_attn_bwd_dq_d{64,128}[_causal]`): the host's pointers made into
//! checked buffers, and the shared memory they declare. The entries are
//! [`flash_bwd_entries!`](crate::flash_bwd_entries), which this crate
//! expands for its PTX and the Hopper crate for its own (`sm_90a`).
#![allow(unsafe_code)]

layout_device::shared_memory!(
    /// The dQ kernels' shared memory for head dimension 64 (dynamic:
    /// `bwd_smem_bytes(64)` bytes at launch).
    pub extern static BWD_SMEM_D64: [u8; 98304]
);

layout_device::shared_memory!(
    /// The dQ kernels' shared memory for head dimension 128 (dynamic:
    /// `bwd_smem_bytes(128)` bytes at launch).
    pub extern static BWD_SMEM_D128: [u8; 180224]
);

layout_device::shared_memory!(
    /// The dK/dV kernels' shared memory for head dimension 64 (dynamic:
    /// `bwd_kv_smem_bytes(64)` bytes at launch).
    pub extern static BWD_KV_SMEM_D64: [u8; 116224]
);

layout_device::shared_memory!(
    /// The dK/dV kernels' shared memory for head dimension 128 (dynamic:
    /// `bwd_kv_smem_bytes(128)` bytes at launch).
    pub extern static BWD_KV_SMEM_D128: [u8; 198144]
);

const _: () = assert!(
    super::bwd_smem_bytes(64) == 98304
        && super::bwd_smem_bytes(128) == 180224
        && super::bwd_kv_smem_bytes(64) == 116224
        && super::bwd_kv_smem_bytes(128) == 198144,
    "the backward buffers are bwd_smem_bytes(D) and bwd_kv_smem_bytes(D)"
);

#[cfg(target_arch = "nvptx64")]
use layout_device::{trap, Global, GlobalMut, F4};

/// `n * m`, trapping on overflow.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub fn elems(n: usize, m: usize) -> usize {
    match n.checked_mul(m) {
        Some(e) => e,
        None => trap(),
    }
}

/// A read-only f16 tensor of `halves` halves at `p` as 16-byte chunks
/// (traps unless 16-byte aligned).
///
/// # Safety
/// `p` points to `halves` halves, alive for the kernel.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub unsafe fn chunks(p: *const u16, halves: usize) -> Global<F4> {
    if (p as usize) % 16 != 0 {
        trap()
    }
    // SAFETY: the caller's.
    unsafe { Global::new(p.cast::<F4>(), halves / 8) }
}

/// A writable f16 tensor of `halves` halves as pairs (traps unless 4-byte
/// aligned).
///
/// # Safety
/// `p` points to `halves` halves nothing else accesses.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub unsafe fn pairs(p: *mut u16, halves: usize) -> GlobalMut<u32> {
    if (p as usize) % 4 != 0 {
        trap()
    }
    // SAFETY: the caller's.
    unsafe { GlobalMut::new(p.cast::<u32>(), halves / 2) }
}

/// A writable f32 tensor of `n` elements at `p` (Dot, laid out as LSE).
///
/// # Safety
/// `p` points to `n` f32 nothing else accesses.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub unsafe fn stats_out(p: *mut f32, n: usize) -> GlobalMut<f32> {
    // SAFETY: the caller's.
    unsafe { GlobalMut::new(p, n) }
}

/// The f32 sums of the atomic dQ: `n` elements at `p`, or none where `p`
/// is null (a launch without them, which never touches them).
///
/// # Safety
/// `p` null, or pointing to `n` f32 that only atomics and this launch's
/// zeroing access.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub unsafe fn sums_out(p: *mut f32, n: usize) -> GlobalMut<f32> {
    // SAFETY: the caller's (no element where null).
    unsafe { stats_out(p, if p.is_null() { 0 } else { n }) }
}

/// The outputs of a dK/dV launch: dK and dV (`lk` elements, K's, as f16
/// pairs) and the atomic dQ's sums (`lq`, Q's, f32; [`sums_out`]).
///
/// # Safety
/// `dk`, `dv` to `lk` halves, `dq_acc` null or to `lq` f32, overlapping
/// nothing.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub unsafe fn dkdv_outputs(
    (dk, dv, dq_acc): (*mut u16, *mut u16, *mut f32),
    (lq, lk): (usize, usize),
) -> ((GlobalMut<u32>, GlobalMut<u32>), GlobalMut<f32>) {
    // SAFETY: the caller's.
    unsafe { ((pairs(dk, lk), pairs(dv, lk)), sums_out(dq_acc, lq)) }
}

/// The problem and the inputs of a dK/dV or dQ launch at head dimension
/// `d`: `(q, k, v, d_o)`, `(lse, dot)`, `(cu_q, cu_k)` (null: planes),
/// `(batch, seq_q, seq_k, heads, kv_heads)`, `(offset, lower,
/// bottom_right, scale)` (see `bwd_entries`); and the elements of Q and
/// of K, the lengths of the outputs.
///
/// # Safety
/// The pointers to their tensors' elements: Q, dO (batch · seq_q · heads ·
/// d halves), K, V (batch · seq_k · kv_heads · d), LSE and Dot (batch ·
/// heads · seq_q f32), 16-byte aligned (LSE, Dot: 4); `cu_q`, `cu_k` null,
/// or grid z + 1 `i32` each.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[allow(clippy::type_complexity)]
#[inline(always)]
pub unsafe fn bwd_inputs(
    d: usize,
    (q, k, v, d_o): (*const u16, *const u16, *const u16, *const u16),
    (lse, dot): (*const f32, *const f32),
    (cu_q, cu_k): (*const i32, *const i32),
    (batch, seq_q, seq_k, heads, kv_heads): (usize, usize, usize, usize, usize),
    (offset, lower, bottom_right, scale): (i32, i32, u32, f32),
) -> (
    crate::attention::body::FlashProblem,
    (Global<F4>, Global<F4>, Global<F4>, Global<F4>),
    (Global<f32>, Global<f32>),
    (usize, usize),
) {
    let n = if cu_q.is_null() || cu_k.is_null() {
        0
    } else {
        layout_device::grid_dim().2 + 1
    };
    let lq = elems(elems(elems(batch, seq_q), heads), d);
    let lk = elems(elems(elems(batch, seq_k), kv_heads), d);
    let ls = elems(elems(batch, heads), seq_q);
    if (lse as usize) % 4 != 0 || (dot as usize) % 4 != 0 {
        trap()
    }
    // SAFETY: the caller's.
    unsafe {
        (
            crate::attention::body::FlashProblem {
                batch,
                seq_q,
                seq_k,
                heads,
                kv_heads,
                cu_q: Global::new(cu_q, n),
                cu_k: Global::new(cu_k, n),
                offset,
                lower,
                bottom_right: bottom_right != 0,
                scale,
            },
            (chunks(q, lq), chunks(k, lk), chunks(v, lk), chunks(d_o, lq)),
            (Global::new(lse, ls), Global::new(dot, ls)),
            (lq, lk),
        )
    }
}

/// The dK/dV and dQ entry points, one pair per head dimension and mask:
/// `(q, k, v, d_o, lse, dot, <outputs>, cu_q, cu_k, batch, seq_q, seq_k,
/// heads, kv_heads, offset, lower, bottom_right, scale)`, the outputs `dk,
/// dv` or `dq` (f16, as K and as Q). Planes (`cu_q` and `cu_k` null):
/// `batch` planes of `seq_q` rows and `seq_k` keys; packed (`batch` 1):
/// sequence b (grid z) is rows `cu_q[b] .. cu_q[b + 1]` and keys `cu_k[b]
/// .. cu_k[b + 1]` of one plane of `seq_q` rows and `seq_k` keys. The
/// masked forms' query i sees keys i + lower ..= i + offset, counted from
/// each sequence's bottom-right diagonal with `bottom_right` 1 (the
/// forward's bounds).
#[doc(hidden)]
#[macro_export]
macro_rules! flash_bwd_entries_of {
    ($($(#[$m:meta])* $dkdv:ident, $dkdvq:ident, $dq:ident = ($kvbuf:ident, $buf:ident, $d:literal, $causal:literal);)*) => {$(
        $(#[$m])*
        ///
        /// # Safety
        /// `bwd_inputs`' contract; `dk`, `dv` as K, overlapping nothing.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $dkdv(
            q: *const u16,
            k: *const u16,
            v: *const u16,
            d_o: *const u16,
            lse: *const f32,
            dot: *const f32,
            dk: *mut u16,
            dv: *mut u16,
            cu_q: *const i32,
            cu_k: *const i32,
            batch: usize,
            seq_q: usize,
            seq_k: usize,
            heads: usize,
            kv_heads: usize,
            offset: i32,
            lower: i32,
            bottom_right: u32,
            scale: f32,
        ) {
            // SAFETY: the launch contract above.
            let (p, ins, stats, lens) = unsafe {
                $crate::attention_bwd::entry::bwd_inputs($d, (q, k, v, d_o), (lse, dot), (cu_q, cu_k),
                    (batch, seq_q, seq_k, heads, kv_heads), (offset, lower, bottom_right, scale))
            };
            // SAFETY: the launch contract above (no dQ sums).
            let (outs, none) = unsafe { $crate::attention_bwd::entry::dkdv_outputs((dk, dv, core::ptr::null_mut()), lens) };
            $crate::bodies::flash_bwd_dkdv::<$kvbuf, $d, $causal, false>(p, ins, stats, outs, none)
        }

        /// dK and dV as its twin, and dQ's terms (dS·K, unscaled) added
        /// into `dq_acc` by atomics (f32, Q's layout, zeroed before:
        /// `flash_attn_bwd_dot` zeroes it; `flash_attn_bwd_dq_convert`
        /// then makes dQ).
        ///
        /// # Safety
        /// `bwd_inputs`' contract; `dk`, `dv` as K, `dq_acc` Q's elements
        /// as f32, overlapping nothing and accessed by nothing else.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $dkdvq(
            q: *const u16,
            k: *const u16,
            v: *const u16,
            d_o: *const u16,
            lse: *const f32,
            dot: *const f32,
            dk: *mut u16,
            dv: *mut u16,
            dq_acc: *mut f32,
            cu_q: *const i32,
            cu_k: *const i32,
            batch: usize,
            seq_q: usize,
            seq_k: usize,
            heads: usize,
            kv_heads: usize,
            offset: i32,
            lower: i32,
            bottom_right: u32,
            scale: f32,
        ) {
            // SAFETY: the launch contract above.
            let (p, ins, stats, lens) = unsafe {
                $crate::attention_bwd::entry::bwd_inputs($d, (q, k, v, d_o), (lse, dot), (cu_q, cu_k),
                    (batch, seq_q, seq_k, heads, kv_heads), (offset, lower, bottom_right, scale))
            };
            // SAFETY: the launch contract above.
            let (outs, acc) = unsafe { $crate::attention_bwd::entry::dkdv_outputs((dk, dv, dq_acc), lens) };
            $crate::bodies::flash_bwd_dkdv::<$kvbuf, $d, $causal, true>(p, ins, stats, outs, acc)
        }

        /// dQ (`flash_bwd_dq`), as its dK/dV twin.
        ///
        /// # Safety
        /// `bwd_inputs`' contract; `dq` as Q, overlapping nothing.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $dq(
            q: *const u16,
            k: *const u16,
            v: *const u16,
            d_o: *const u16,
            lse: *const f32,
            dot: *const f32,
            dq: *mut u16,
            cu_q: *const i32,
            cu_k: *const i32,
            batch: usize,
            seq_q: usize,
            seq_k: usize,
            heads: usize,
            kv_heads: usize,
            offset: i32,
            lower: i32,
            bottom_right: u32,
            scale: f32,
        ) {
            // SAFETY: the launch contract above.
            let (p, ins, stats, lens) = unsafe {
                $crate::attention_bwd::entry::bwd_inputs($d, (q, k, v, d_o), (lse, dot), (cu_q, cu_k),
                    (batch, seq_q, seq_k, heads, kv_heads), (offset, lower, bottom_right, scale))
            };
            // SAFETY: the launch contract above.
            let out = unsafe { $crate::attention_bwd::entry::pairs(dq, lens.0) };
            $crate::bodies::flash_bwd_dq::<$buf, $d, $causal>(p, ins, stats, out)
        }
    )*};
}

/// Every backward entry point (`flash_attn_bwd_dot`,
/// `flash_attn_bwd_dq_convert`, and the dK/dV, atomic dK/dV/dQ and dQ
/// entries of both head dimensions, masked and not), for a kernel crate's
/// PTX: this crate's, and the Hopper crate's (`sm_90a`). Expand it once
/// per crate, on `nvptx64`, naming the crate's dynamic shared buffers of
/// `bwd_smem_bytes(64)`, `bwd_smem_bytes(128)`, `bwd_kv_smem_bytes(64)`
/// and `bwd_kv_smem_bytes(128)` bytes (a buffer's PTX
/// declaration is the crate's own: a dependency's is not in the PTX).
#[doc(hidden)]
#[macro_export]
macro_rules! flash_bwd_entries {
    ($d64:ident, $d128:ident, $kv64:ident, $kv128:ident) => {
        /// `Dot` = rowsum(dO ∘ O): `(o, d_o, dot, dq_acc, rows, heads, d, seq_q)`, O and dO
        /// (rows, heads, d) f16 (16-byte aligned), `dot` rows x heads f32 laid out
        /// as LSE: (batch, heads, seq_q) for planes of `seq_q` rows, (heads, rows)
        /// for packed sequences (`seq_q` 0); `dq_acc` null, or rows · heads · d
        /// f32 that it zeroes (the atomic dQ's sums). Grid ceil(rows · heads /
        /// 128), 128 threads.
        ///
        /// # Safety
        /// The pointers to that many elements, `dot` and `dq_acc` overlapping
        /// nothing.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn flash_attn_bwd_dot(
            o: *const u16,
            d_o: *const u16,
            dot: *mut f32,
            dq_acc: *mut f32,
            rows: usize,
            heads: usize,
            d: usize,
            seq_q: usize,
        ) {
            let n = $crate::attention_bwd::entry::elems(
                $crate::attention_bwd::entry::elems(rows, heads),
                d,
            );
            // SAFETY: the launch contract above.
            let (o, d_o, dot, acc) = unsafe {
                (
                    $crate::attention_bwd::entry::chunks(o, n),
                    $crate::attention_bwd::entry::chunks(d_o, n),
                    $crate::attention_bwd::entry::stats_out(
                        dot,
                        $crate::attention_bwd::entry::elems(rows, heads),
                    ),
                    $crate::attention_bwd::entry::sums_out(dq_acc, n),
                )
            };
            $crate::bodies::flash_bwd_dot((o, d_o), (dot, acc), (rows, heads, d, seq_q))
        }

        /// dQ = f16(scale · `dq_acc`) of `n` elements (`n` even): `(dq_acc,
        /// dq, n, scale)`, `dq_acc` f32 and `dq` f16 (4-byte aligned). Grid
        /// ceil(n / 2 / 256), 256 threads.
        ///
        /// # Safety
        /// The pointers to `n` elements each, `dq` overlapping nothing.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn flash_attn_bwd_dq_convert(
            dq_acc: *const f32,
            dq: *mut u16,
            n: usize,
            scale: f32,
        ) {
            if n % 2 != 0 || (dq_acc as usize) % 4 != 0 {
                layout_device::trap()
            }
            // SAFETY: the launch contract above.
            let (acc, out) = unsafe {
                (
                    layout_device::Global::new(dq_acc, n),
                    $crate::attention_bwd::entry::pairs(dq, n),
                )
            };
            $crate::bodies::flash_bwd_dq_convert(acc, out, scale)
        }

        $crate::flash_bwd_entries_of! {
            /// The FlashAttention backward's dK and dV at head dimension 64.
            flash_attn_bwd_dkdv_d64, flash_attn_bwd_dkdvq_d64, flash_attn_bwd_dq_d64 = ($kv64, $d64, 64, false);
            /// [`flash_attn_bwd_dkdv_d64`] with the mask.
            flash_attn_bwd_dkdv_d64_causal, flash_attn_bwd_dkdvq_d64_causal, flash_attn_bwd_dq_d64_causal = ($kv64, $d64, 64, true);
            /// [`flash_attn_bwd_dkdv_d64`] at head dimension 128.
            flash_attn_bwd_dkdv_d128, flash_attn_bwd_dkdvq_d128, flash_attn_bwd_dq_d128 = ($kv128, $d128, 128, false);
            /// [`flash_attn_bwd_dkdv_d128`] with the mask.
            flash_attn_bwd_dkdv_d128_causal, flash_attn_bwd_dkdvq_d128_causal, flash_attn_bwd_dq_d128_causal = ($kv128, $d128, 128, true);
        }
    };
}

#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
crate::flash_bwd_entries!(
    BWD_SMEM_D64,
    BWD_SMEM_D128,
    BWD_KV_SMEM_D64,
    BWD_KV_SMEM_D128
);
