//! The plans of the GPU kernels, in one place: which element each thread
//! of each block loads, where it puts it in shared memory, which registers
//! it multiplies and where it writes the result, and each entry point's
//! launch rules. Each kernel's plan is its module (`crate::sgemm`, ...,
//! beside its body and entry point); this module re-exports them all and
//! holds what they share.
//!
//! Every map is computed by the typed algebra (`local_tile`,
//! `local_partition`, a `TiledMMA`, swizzled shared layouts) over *index
//! tensors*: tensors whose storage is zero-sized (`&[()]`), so partitioning
//! one yields a layout and the offset of its first element and nothing else.
//! The kernels' bodies call these functions; the tests of each plan call
//! the same functions for every thread of every block on the CPU.
//!
//! Every kernel is three files in its folder, reachable here as
//! `maps::NAME`: `mod.rs` its plan (host-tested), `body.rs` its body (safe
//! code over `layout-device`), `entry.rs` its entry points (the `unsafe`
//! `extern "ptx-kernel"` functions and the consts the build tool reads):
//!
//! - `transpose/`: the transpose (`transpose_f32`): its swizzled shared
//!   tile and the threads of its load and store phases;
//! - `sgemm/`: the SGEMM (`sgemm_f32`, `sgemm_nt_f32`): its CTA tile, its
//!   TiledMMA of `UniversalFMA`, the copies of A and B into a stage, the
//!   fragments;
//! - `atoms/`: the tensor-core atoms on their own (the `mma_atom`,
//!   `mma_tile` and `ldsm_atoms` kernels): the m16n8k16 atom's operands,
//!   the `ldmatrix` rows that feed it, what each `ldmatrix` form delivers;
//! - `hgemm/`: the HGEMM (`hgemm_f32`, `hgemm_f16`): its CTA tile, its
//!   TiledMMA of m16n8k16 atoms, the swizzled stage, the `cp.async` copies
//!   and the `ldmatrix` addresses;
//! - `attention/`: FlashAttention forward (`flash_attn_fwd_*`): its tiles,
//!   copies, `ldmatrix` rows, fragments and launch contract;
//! - `decode/`: decoding over a paged KV cache (`decode_attn_*`,
//!   `kv_append`): its split rule and launch contract;
//! - this module: what they share: index tensors, [`THREADS`], a thread's
//!   [`Offsets`] and [`At`], and [`GemmPlan`].
//!
//! ```
//! use layout_kernels::maps;
//! // The transpose's shared tile: 64 x 64 f32, row-major, swizzled so that
//! // both the row-wise writes and the column-wise reads of a warp are free
//! // of bank conflicts.
//! assert_eq!(maps::transpose_smem().to_string(), "Sw<3,2,6> o _0 o (_64,_64):(_64,_1)");
//! // The SGEMM's TiledMMA: 16 x 16 threads, 8 x 8 values each. Thread 17's
//! // A fragment in the shared (128,8):(1,128) tile: one value per atom,
//! // rows in runs of 4 (the permutation), 8 steps of k; it starts at row 4.
//! let fa = maps::sgemm_frag_a(17);
//! assert_eq!(fa.layout.to_string(), "(_1,(_4,_2),_8):(_0,(_1,_64),_128)");
//! assert_eq!(fa.base, 4);
//! ```

use layout_core::{Layout, Tensor};

mod launch;

pub use crate::atoms::*;
pub use crate::attention::*;
pub use crate::attention_bwd::*;
pub use crate::decode::*;
pub use crate::hgemm::*;
pub use crate::sgemm::*;
pub use crate::transpose::*;
pub use launch::*;

/// Zero-sized storage as long as any layout needs.
static UNITS: [(); usize::MAX] = [(); usize::MAX];

/// A tensor over zero-sized storage: partitions of it compute offsets only.
pub(crate) type Index<L> = Tensor<&'static [()], L>;

#[inline(always)]
pub(crate) fn index<S, D>(l: Layout<S, D>) -> Index<Layout<S, D>>
where
    S: layout_core::Congruent<D>,
    D: layout_core::IntTuple,
{
    match Tensor::new(&UNITS[..], l) {
        Ok(t) => t,
        // Only a cosize beyond usize::MAX gets here.
        Err(_) => panic!("index tensor: cosize overflows"),
    }
}

/// Threads per block of the transpose and the SGEMM (the HGEMM's are
/// [`HGEMM_THREADS`]).
pub const THREADS: usize = 256;

/// One thread's values of a partition: the offset of value `i` is
/// `base + layout(i)`, the layout static where the partitioned tile is.
#[derive(Clone, Copy)]
pub struct Offsets<L> {
    /// The offset of the first value.
    pub base: usize,
    /// The values' layout.
    pub layout: L,
}

/// The offset of value `i` of a thread's partition.
pub trait At {
    /// The offset of value `i`.
    fn at(&self, i: usize) -> usize {
        self.base() + self.rel(i)
    }
    /// The offset of the first value.
    fn base(&self) -> usize;
    /// Value `i`'s offset from the first (a constant for a static layout
    /// and a constant `i`).
    fn rel(&self, i: usize) -> usize;
    /// One past the largest `rel(i)`: the layout's cosize.
    fn span(&self) -> usize;
}

impl<S: layout_core::Congruent<D>, D: layout_core::IntTuple> Offsets<Layout<S, D>> {
    #[inline(always)]
    pub(crate) fn of(t: Index<Layout<S, D>>) -> Self {
        Offsets {
            base: t.data_offset(),
            layout: t.layout(),
        }
    }
}

impl<S: layout_core::Congruent<D>, D: layout_core::IntTuple> At for Offsets<Layout<S, D>> {
    #[inline(always)]
    fn base(&self) -> usize {
        self.base
    }
    #[inline(always)]
    fn rel(&self, i: usize) -> usize {
        self.layout.call(i)
    }
    #[inline(always)]
    fn span(&self) -> usize {
        self.layout.cosize()
    }
}

/// For the tests of the transpose's and the SGEMM's maps: the banks a
/// warp's accesses touch, phase by phase: a 16-byte access is served 8
/// threads at a time, a 4-byte one 32 at a time. Conflict free: within a
/// phase, no two different addresses share a bank.
#[cfg(test)]
pub(crate) fn conflict_free(addrs: &[usize], width: usize) -> bool {
    use std::vec::Vec;
    let per_phase = 32 / width;
    addrs.chunks(per_phase).all(|phase| {
        let mut seen: Vec<(usize, usize)> = Vec::new();
        for &a in phase {
            for w in 0..width {
                let bank = (a + w) % 32;
                if seen.iter().any(|&(b, x)| b == bank && x != a + w) {
                    return false;
                }
                seen.push((bank, a + w));
            }
        }
        true
    })
}
