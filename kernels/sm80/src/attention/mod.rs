//! The FlashAttention forward kernels' maps (`flash_attn_fwd_d64`,
//! `flash_attn_fwd_d128` and their `_causal` forms): O = softmax(scale ·
//! Q·Kᵀ)·V per (batch, head), one block per `flash_bm(d)` query rows, K and V
//! streamed through shared memory `flash_bn(D)` keys at a time.
//!
//! The launch contract the host follows (`gpu-runner attention`):
//! - Q, O: (batch, seq_q, heads, d) f16, K, V: (batch, seq_k, heads, d) f16,
//!   all C-order (CuTe's and FlashAttention's BSHD); LSE: (batch, heads,
//!   seq_q) f32, the natural log of each row's sum of exp(scale · s);
//! - grid (ceil(seq_q / flash_bm(d)), heads, batch), `FLASH_THREADS` threads,
//!   [`flash_smem_bytes`]`(d)` bytes of dynamic shared memory;
//! - causal: query i sees keys j <= i (top-left aligned, as torch's
//!   `is_causal`).

/// Query rows per block for head dimension `d`: 128, or 64 at `d` = 256
/// (FlashAttention-2's 64 x 64 tiles of 4 warps there: a thread's O is
/// `flash_bm(d) * d / FLASH_THREADS` accumulators, 128 at every `d` but
/// 64).
pub const fn flash_bm(d: usize) -> usize {
    if d > 128 {
        64
    } else {
        128
    }
}
/// Keys per K / V tile for head dimension `d`: FlashAttention-2's, 128,
/// or 64 at `d` = 128 (S's and O's accumulators then take 192 registers
/// a thread either way).
pub const fn flash_bn(d: usize) -> usize {
    if d >= 128 {
        64
    } else {
        128
    }
}
/// Threads per block: 4 warps, each `flash_bm(d) / 4` query rows.
pub const FLASH_THREADS: usize = 128;
/// The head dimensions built.
pub const FLASH_HEAD_DIMS: [usize; 3] = [64, 128, 256];

/// Dynamic shared memory of a block for head dimension `d` (bytes): Q's
/// tile, then K's and V's.
pub const fn flash_smem_bytes(d: usize) -> usize {
    (flash_bm(d) + 2 * flash_bn(d)) * d * 2
}

use crate::atoms::ldsm_a_src;
use crate::maps::index;

pub(crate) mod body;
pub(crate) mod entry;
use layout_core::algebra::{composition, ComposedLayout, Swizzle};
use layout_core::atom::mma::{make_tiled_mma, TiledMma};
use layout_core::tensor::make_identity_tensor;
use layout_core::tensor::partition::{local_partition, local_tile, ThreadLayout};
use layout_core::{instantiate, layout, layout_type, Underscore as X, C};

/// The MMA atom of both GEMMs (S = Q·Kᵀ and O = P·V): m16n8k16, f16
/// inputs, f32 accumulators.
pub type FlashAtom = layout_core::atom::SM80_16x8x16_F32F16F16F32_TN;

/// Both GEMMs' TiledMMA: the atom over 4 warps along M (`(4,1,1):(1,0,0)`),
/// so that a row of S lies in one warp and its softmax needs only shuffles.
/// Over the block's `flash_bm(d)` rows each warp holds `flash_mma_m(d)`
/// atoms along M (rows `16 w .. 16 w + 15`, and 64 below at 128 rows).
pub type FlashMma = TiledMma<FlashAtom, layout_type!((4, 1, 1):(1, 0, 0)), (X, X, X)>;

/// The value of [`FlashMma`].
pub fn flash_mma() -> FlashMma {
    make_tiled_mma(FlashAtom::default(), layout!((4,1,1):(1,0,0)), (X, X, X))
}

/// M-atoms of a warp over the block's rows for head dimension `d`.
pub const fn flash_mma_m(d: usize) -> usize {
    flash_bm(d) / 64
}

/// The swizzle of a shared tile of rows of `D` halves (Q's, K's, V's):
/// `Sw<3,3,log2(D)-3>` permutes the 8 16-byte chunks of each 128 bytes by
/// the row's low 3 bits, so that the 8 rows an `ldmatrix` reads at one
/// column, and the 8 chunks a quarter-warp's `cp.async` writes, fall in
/// distinct banks.
#[instantiate((64), (128), (256))]
pub fn flash_smem<const D: usize>() -> ComposedLayout<
    Swizzle<3, 3, { flash_swizzle_shift(D) }>,
    layout_type!((C<{ flash_bn(D) }>, C<D>):(C<D>, 1)),
> {
    composition(
        Swizzle::<3, 3, { flash_swizzle_shift(D) }>,
        layout!((C<{ flash_bn(D) }>, C<D>):(C<D>, 1)),
    )
}

/// The swizzle's shift for rows of `d` halves (a power of two, 64 or
/// more): `log2(d) - 3`, so that the row's low 3 bits move the 16-byte chunk
/// bits.
pub const fn flash_swizzle_shift(d: usize) -> i32 {
    d.trailing_zeros() as i32 - 3
}

/// A half offset in a shared tile of rows of `D` halves, swizzled
/// ([`flash_smem`]).
#[inline(always)]
#[instantiate((64), (128), (256))]
pub fn flash_swizzle<const D: usize>(offset: usize) -> usize {
    Swizzle::<3, 3, { flash_swizzle_shift(D) }>.apply(offset)
}

/// One thread's 16-byte chunks of a `ROWS x D` tile copy (see
/// [`flash_copy`]): chunk `v` is `F4` `global + v * global_step` of the
/// matrix, half `shared + v * shared_step` of the swizzled shared tile,
/// and row `row + v * row_step` of the matrix, where the chunks past the
/// matrix's last row are the ones a partial tile leaves out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlashCopy {
    /// `F4` index of chunk 0 (relative to the matrix's origin).
    pub global: usize,
    /// `F4` step between chunks.
    pub global_step: usize,
    /// Half offset of chunk 0 in the shared tile.
    pub shared: usize,
    /// Half step between chunks: chunk `v` is at `shared ^ (v odd ?
    /// flash_copy_xor(D) : 0) + v * shared_step` (the swizzle moves only
    /// the low bits).
    pub shared_step: usize,
    /// Row of chunk 0 in the matrix (its identity-tensor coordinate).
    pub row: usize,
    /// Column of every chunk (`F4` units: its identity-tensor coordinate).
    pub col: usize,
    /// Row step between chunks.
    pub row_step: usize,
}

/// What the odd chunks of a copy at head dimension `d` XOR into the shared
/// offset (halves): the copy threads cover `FLASH_THREADS * 8 / d` rows at
/// a time, and the swizzle's row bits are a row's low 3, so a step of 8
/// or more rows keeps them (0), and the 4-row step of `d` = 256 flips
/// their bit 2 from one chunk to the next, which moves the chunk's
/// 16-byte column by 4 (32 halves) in every row alike.
pub const fn flash_copy_xor(d: usize) -> usize {
    let step = FLASH_THREADS * 8 / d;
    assert!(step % 8 == 0 || step % 8 == 4, "a copy step of 8 or 4 rows");
    (step % 8) * 8
}

/// Thread `tid` copying tile `blk` (`ROWS` rows) of a `seq x D` f16 matrix
/// whose rows are `ld` halves apart (Q, K or V of one (batch, head) in
/// BSHD: `ld` = heads x D), as 16-byte chunks: `D / 8` threads per row,
/// `FLASH_THREADS * 8 / D` rows at a time. The chunks come from
/// `local_partition` of the tile (of the matrix in `F4` units) over the
/// copy threads, their rows from the same partition of the identity
/// tensor.
#[inline(always)]
#[instantiate((128, 64), (128, 128), (64, 64), (32, 128), (64, 128), (64, 256))]
pub fn flash_copy<const ROWS: usize, const D: usize>(
    seq: usize,
    ld: usize,
    blk: usize,
    tid: usize,
) -> FlashCopy {
    let thr = layout!((C<{ FLASH_THREADS * 8 / D }>, C<{ D / 8 }>):(C<{ D / 8 }>, 1));
    let tiler = (C::<ROWS>, C::<{ D / 8 }>);
    let ldq = ld / 8;
    let mine = local_partition(
        local_tile(
            index(layout!((seq, C<{ D / 8 }>):(ldq, 1))),
            tiler,
            (blk, 0usize),
        ),
        thr,
        tid,
    );
    let rows = local_partition(
        local_tile(
            make_identity_tensor((seq, C::<{ D / 8 }>)),
            tiler,
            (blk, 0usize),
        ),
        thr,
        tid,
    );
    let (r, ch) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("flash_copy: thread {tid} of {FLASH_THREADS}"),
    };
    let l = mine.layout();
    let at = |v: usize| match rows.at((v, 0usize)) {
        Some(rc) => rc,
        None => panic!("flash_copy: chunk {v} of the thread's partition"),
    };
    debug_assert_eq!(at(1).0 - at(0).0, FLASH_THREADS * 8 / D);
    let sw = |row: usize| flash_swizzle::<D>(row * D + 8 * ch);
    // The copy threads' row extent: a constant, so that each chunk's row
    // is the first one plus a constant (the tests check it is the identity
    // tensor's step).
    let step = FLASH_THREADS * 8 / D;
    FlashCopy {
        global: mine.data_offset(),
        global_step: l.crd2idx((1usize, 0usize)),
        shared: sw(r),
        // The swizzle moves only the low bits (the tests check every
        // chunk): a constant step, and at d = 256 a constant XOR of the odd
        // chunks, which the kernel folds into its stores.
        shared_step: step * D,
        row: at(0).0,
        col: at(0).1,
        row_step: step,
    }
}

/// The row address `ldmatrix.x4` takes from thread `tid` for Q's A
/// fragment of its warp's atom `i` (MMA_M) at k-step `s` (16 of `D`), a
/// half offset in the swizzled `flash_bm(D) x D` Q tile: where `partition_A`
/// of the tile puts the atom's block, and the row of it the lane names
/// ([`ldsm_a_src`]).
#[instantiate((64), (128), (256))]
pub fn flash_ldsm_q<const D: usize>(tid: usize, i: usize, s: usize) -> usize {
    let p = flash_mma()
        .get_slice(tid - tid % 32)
        .partition_a(index(layout!((C<{ flash_bm(D) }>, C<D>):(C<D>, 1))));
    let origin = p.data_offset() + p.layout().crd2idx((0usize, i, s));
    let o = ldsm_a_src(tid % 32);
    flash_swizzle::<D>(origin + (o / 16) * D + o % 16)
}

/// The row address `ldmatrix.x4` takes from thread `tid` for K's B
/// fragments of N-atoms `2 j2` and `2 j2 + 1` at k-step `s`, a half offset
/// in the swizzled `flash_bn(D) x D` K tile (K is the N x K operand of S =
/// Q·Kᵀ as it lies: `(key, d)` at `key * D + d`). Matrices 0-1 are atom `2
/// j2`'s k 0-7 and 8-15, matrices 2-3 atom `2 j2 + 1`'s.
#[instantiate((64), (128), (256))]
pub fn flash_ldsm_k<const D: usize>(tid: usize, j2: usize, s: usize) -> usize {
    let p = flash_mma()
        .get_slice(tid - tid % 32)
        .partition_b(index(layout!((C<{ flash_bn(D) }>, C<D>):(C<D>, 1))));
    let (q, row) = ((tid % 32) / 8, tid % 8);
    let origin = p.data_offset() + p.layout().crd2idx((0usize, 2 * j2 + q / 2, s));
    flash_swizzle::<D>(origin + row * D + 8 * (q % 2))
}

/// The row address `ldmatrix.x4.trans` takes from thread `tid` for V's B
/// fragments of N-atoms `2 j2` and `2 j2 + 1` (columns of `D`) at k-block
/// `kk` (16 keys), a half offset in the swizzled `flash_bn(D) x D` V tile. V
/// is the B operand of O = P·V seen as N x K (`(d, key)` at `key * D +
/// d`, `partition_B` of `(D, flash_bn(D)):(1, D)`); `.trans` reads rows of
/// keys and delivers columns. Matrices 0-1 are atom `2 j2`'s keys 0-7 and
/// 8-15, matrices 2-3 atom `2 j2 + 1`'s.
#[instantiate((64), (128), (256))]
pub fn flash_ldsm_v<const D: usize>(tid: usize, j2: usize, kk: usize) -> usize {
    let p = flash_mma()
        .get_slice(tid - tid % 32)
        .partition_b(index(layout!((C<D>, C<{ flash_bn(D) }>):(1, C<D>))));
    let (q, row) = ((tid % 32) / 8, tid % 8);
    let origin = p.data_offset() + p.layout().crd2idx((0usize, 2 * j2 + q / 2, kk));
    flash_swizzle::<D>(origin + (8 * (q % 2) + row) * D)
}

/// Thread `tid`'s S fragment (`flash_bm(D) x flash_bn(D)`, the TiledMMA's
/// `partition_fragment_C`): `((2,2), MMA_M, MMA_N)` (MMA_M = `flash_mma_m(D)`), the layout of the
/// kernel's S registers (checked against `partition_fragment_C` by the
/// tests).
#[instantiate((64), (128), (256))]
pub fn flash_frag_s<const D: usize>(
) -> layout_type!(((2, 2), C<{ flash_mma_m(D) }>, C<{ flash_bn(D) / 8 }>):((1, 2), C<{ flash_bn(D) / 2 }>, 4))
{
    Default::default()
}

/// Thread `tid`'s O fragment (`flash_bm(D) x D`, `partition_fragment_C`):
/// `((2,2), MMA_M, D / 8)`, the layout of the kernel's accumulator array.
#[instantiate((64), (128), (256))]
pub fn flash_frag_o<const D: usize>(
) -> layout_type!(((2, 2), C<{ flash_mma_m(D) }>, C<{ D / 8 }>):((1, 2), C<{ D / 2 }>, 4)) {
    Default::default()
}

/// Where thread `tid`'s S value `(v, i, j)` lies in the block's
/// `flash_bm(D) x flash_bn(D)` tile of S: `(row, key)`, from `partition_C` of the
/// identity tensor (the causal and key-edge masks).
#[inline(always)]
#[instantiate((64), (128), (256))]
pub fn flash_s_coord<const D: usize>(
    tid: usize,
    (v, i, j): (usize, usize, usize),
) -> (usize, usize) {
    let id = make_identity_tensor((C::<{ flash_bm(D) }>, C::<{ flash_bn(D) }>));
    match flash_mma().get_slice(tid).partition_c(id).at((v, i, j)) {
        Some(c) => c,
        None => panic!("flash_s_coord: value ({v}, {i}, {j})"),
    }
}

/// [`flash_s_coord`] split into thread `tid`'s value `(0, 0, 0)` and a
/// static delta per value: `flash_s_coord(tid, x) == base + delta(x)` for
/// every thread (the tests check it), so that a kernel keeps two numbers
/// per thread and compares against constants.
#[inline(always)]
#[instantiate((64), (128), (256))]
pub fn flash_s_coord_base<const D: usize>(tid: usize) -> (usize, usize) {
    flash_s_coord::<D>(tid, (0, 0, 0))
}

/// The static part of [`flash_s_coord`]: value `(v, i, j)`'s (row, key)
/// less value `(0, 0, 0)`'s, the same for every thread (thread 0's).
#[inline(always)]
#[instantiate((64), (128), (256))]
pub fn flash_s_coord_delta<const D: usize>(x: (usize, usize, usize)) -> (usize, usize) {
    flash_s_coord::<D>(0, x)
}

/// Where thread `tid`'s O value `(v, i, j)` lies in the block's
/// `flash_bm(D) x D` tile of O: `(row, column)`, from `partition_C` of the
/// identity tensor.
#[inline(always)]
#[instantiate((64), (128), (256))]
pub fn flash_o_coord<const D: usize>(
    tid: usize,
    (v, i, j): (usize, usize, usize),
) -> (usize, usize) {
    let id = make_identity_tensor((C::<{ flash_bm(D) }>, C::<D>));
    match flash_mma().get_slice(tid).partition_c(id).at((v, i, j)) {
        Some(c) => c,
        None => panic!("flash_o_coord: value ({v}, {i}, {j})"),
    }
}

// What the build tool (`layout-ptx`, run by `kernels/scripts/build-ptx.sh`)
// reads for this kernel's entry points, each const named after its entry
// point: launch bounds it writes into the PTX, and checks on the PTX. They
// generate no code.

/// The FlashAttention kernels' launch bounds: 128 threads (4 warps), two
/// blocks per SM (at most 255 registers a thread).
pub const FLASH_ATTN_FWD_D64_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_D128_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// The most the FlashAttention kernels may spill (ptxas's bytes of
/// stores, loads). At FlashAttention-2's tiles (128 x `flash_bn(D)`) S's
/// and O's accumulators take 192 of the 255 registers; the few scalars
/// that do not fit are spilled and reloaded about a dozen times per K/V
/// tile (against 256 MMAs per warp), which the bigger tiles more than pay
/// for (docs/gpu.md). More than this fails the build.
pub const FLASH_ATTN_FWD_D64_SPILL_BYTES: (u32, u32) = (64, 112);
/// See [`FLASH_ATTN_FWD_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_D64_CAUSAL_SPILL_BYTES: (u32, u32) = (64, 112);
/// See [`FLASH_ATTN_FWD_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_D128_SPILL_BYTES: (u32, u32) = (64, 112);
/// See [`FLASH_ATTN_FWD_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (64, 112);
/// The entries divide, outside the key loop only (the tiles are static
/// powers of two): a query head's K/V head (`h / (heads / kv_heads)`, and
/// the check that kv_heads divides heads) once when the block starts.
pub const FLASH_ATTN_FWD_D64_NO_DIVISION: bool = false;
/// The causal entries also divide for a block's place in the longest-first
/// order (`layout_device::longest_first`, a 32-bit division and remainder
/// by the grid's extents), once when the block starts and once again in
/// the epilogue (recomputed there rather than held across the loop).
pub const FLASH_ATTN_FWD_D64_CAUSAL_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_D64_NO_DIVISION`].
pub const FLASH_ATTN_FWD_D128_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_D64_CAUSAL_NO_DIVISION`].
pub const FLASH_ATTN_FWD_D128_CAUSAL_NO_DIVISION: bool = false;
/// The `_varlen` entries (packed sequences): the same launch bounds.
pub const FLASH_ATTN_FWD_VARLEN_D64_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_VARLEN_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_VARLEN_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_VARLEN_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_VARLEN_D128_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_VARLEN_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_VARLEN_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// The `_varlen` entries hold a sequence's keys, first row and mask bounds
/// in registers (the planes forms read them as parameters) and spill more:
/// ptxas reports 52/148 bytes (40/164 at d = 128 unmasked, none at d = 64
/// unmasked).
pub const FLASH_ATTN_FWD_VARLEN_D64_SPILL_BYTES: (u32, u32) = (64, 176);
/// See [`FLASH_ATTN_FWD_VARLEN_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_VARLEN_D64_CAUSAL_SPILL_BYTES: (u32, u32) = (64, 176);
/// See [`FLASH_ATTN_FWD_VARLEN_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_VARLEN_D128_SPILL_BYTES: (u32, u32) = (64, 176);
/// See [`FLASH_ATTN_FWD_VARLEN_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_VARLEN_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (64, 176);
/// The `_varlen` entries divide as the others.
pub const FLASH_ATTN_FWD_VARLEN_D64_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_VARLEN_D64_NO_DIVISION`].
pub const FLASH_ATTN_FWD_VARLEN_D64_CAUSAL_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_VARLEN_D64_NO_DIVISION`].
pub const FLASH_ATTN_FWD_VARLEN_D128_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_VARLEN_D64_NO_DIVISION`].
pub const FLASH_ATTN_FWD_VARLEN_D128_CAUSAL_NO_DIVISION: bool = false;
/// Head dimension 256 (64 x 64 tiles): the same launch bounds, two blocks
/// of 98 304 bytes of shared memory per SM.
pub const FLASH_ATTN_FWD_D256_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D256_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_D256_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D256_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_VARLEN_D256_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// See [`FLASH_ATTN_FWD_D256_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_FWD_VARLEN_D256_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (128, 2);
/// Head dimension 256: S's and O's accumulators take 160 registers a
/// thread (32 and 128).
pub const FLASH_ATTN_FWD_D256_SPILL_BYTES: (u32, u32) = (64, 112);
/// See [`FLASH_ATTN_FWD_D256_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_D256_CAUSAL_SPILL_BYTES: (u32, u32) = (64, 112);
/// See [`FLASH_ATTN_FWD_VARLEN_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_VARLEN_D256_SPILL_BYTES: (u32, u32) = (64, 176);
/// See [`FLASH_ATTN_FWD_VARLEN_D64_SPILL_BYTES`].
pub const FLASH_ATTN_FWD_VARLEN_D256_CAUSAL_SPILL_BYTES: (u32, u32) = (64, 176);
/// See [`FLASH_ATTN_FWD_D64_NO_DIVISION`].
pub const FLASH_ATTN_FWD_D256_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_D64_CAUSAL_NO_DIVISION`].
pub const FLASH_ATTN_FWD_D256_CAUSAL_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_D64_NO_DIVISION`].
pub const FLASH_ATTN_FWD_VARLEN_D256_NO_DIVISION: bool = false;
/// See [`FLASH_ATTN_FWD_D64_CAUSAL_NO_DIVISION`].
pub const FLASH_ATTN_FWD_VARLEN_D256_CAUSAL_NO_DIVISION: bool = false;

#[cfg(test)]
mod tests {
    //! Every thread of a block, on the CPU: the copies fill the swizzled
    //! tiles once and predicate exactly the rows past the matrix, the
    //! `ldmatrix` addresses (emulated from the copy atoms' layouts) deliver
    //! the TiledMMA's operands, the kernel's address arithmetic (XOR for a
    //! k-step, add for an atom) is the maps', and P taken from S's registers
    //! by `convert_layout_acc_aregs` is `partition_A` of P.
    use super::*;
    use crate::maps::ldsm_expected;
    use layout_core::atom::accumulator::convert_layout_acc_aregs;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn flash_layouts_print_as_cute() {
        assert_eq!(
            flash_smem::<64>().to_string(),
            "Sw<3,3,3> o _0 o (_128,_64):(_64,_1)"
        );
        assert_eq!(
            flash_smem::<128>().to_string(),
            "Sw<3,3,4> o _0 o (_64,_128):(_128,_1)"
        );
        // The S fragment the kernel keeps is the TiledMMA's: 2 x 16 (d 64)
        // or 2 x 8 (d 128) atoms of 4 accumulators, compact.
        let f = flash_mma()
            .get_slice(5)
            .partition_fragment_c::<f32, _, _>(index(layout!((C<128>, C<128>):(C<128>, 1))));
        assert_eq!(f.layout().to_string(), flash_frag_s::<64>().to_string());
        assert_eq!(
            flash_frag_s::<64>().to_string(),
            "((_2,_2),_2,_16):((_1,_2),_64,_4)"
        );
        let f = flash_mma()
            .get_slice(5)
            .partition_fragment_c::<f32, _, _>(index(layout!((C<128>, C<64>):(C<64>, 1))));
        assert_eq!(f.layout().to_string(), flash_frag_s::<128>().to_string());
        assert_eq!(
            flash_frag_s::<128>().to_string(),
            "((_2,_2),_2,_8):((_1,_2),_32,_4)"
        );
        // d 256: 64 rows, one M-atom a warp, 8 N-atoms of 4.
        let f = flash_mma()
            .get_slice(5)
            .partition_fragment_c::<f32, _, _>(index(layout!((C<64>, C<64>):(C<64>, 1))));
        let ours = flash_frag_s::<256>();
        for v in 0..4 {
            for j in 0..8 {
                assert_eq!(
                    f.layout().crd2idx((v, 0usize, j)),
                    ours.crd2idx((v, 0usize, j))
                );
            }
        }
        assert_eq!(ours.to_string(), "((_2,_2),_1,_8):((_1,_2),_32,_4)");
    }

    /// A tile copy for every thread: each shared slot written once, each
    /// chunk from its row and column of the matrix, exactly the chunks of
    /// rows past `seq` predicated off.
    #[instantiate((128, 64), (128, 128), (64, 64), (32, 128), (64, 128), (64, 256))]
    fn check_copy<const ROWS: usize, const D: usize>(
        copy: impl Fn(usize, usize, usize, usize) -> FlashCopy,
    ) {
        let heads = 3;
        let ld = heads * D;
        let chunks = ROWS * D / 8 / FLASH_THREADS;
        for seq in [ROWS, 2 * ROWS + 5, 77] {
            for blk in 0..seq.div_ceil(ROWS) {
                let mut slot = vec![false; ROWS * D];
                for tid in 0..FLASH_THREADS {
                    let c = copy(seq, ld, blk, tid);
                    // The kernel's tile blk: tile 0's map, its rows moved
                    // down blk tiles.
                    let c0 = copy(seq, ld, 0, tid);
                    assert_eq!(
                        (c.row, c.col, c.shared),
                        (c0.row + blk * ROWS, c0.col, c0.shared)
                    );
                    // The chunks' rows as the identity tensor partitioned
                    // like the data gives them.
                    let id = local_partition(
                        local_tile(
                            make_identity_tensor((seq, C::<{ D / 8 }>)),
                            (C::<ROWS>, C::<{ D / 8 }>),
                            (blk, 0usize),
                        ),
                        layout!((C<{ FLASH_THREADS * 8 / D }>, C<{ D / 8 }>):(C<{ D / 8 }>, 1)),
                        tid,
                    );
                    for v in 0..chunks {
                        let row = c.row + v * c.row_step;
                        assert_eq!(id.at((v, 0usize)), Some((row, c.col)));
                        let g = c.global + v * c.global_step;
                        // The row the kernel's copy of tile blk names
                        // (tile 0's first row, down blk tiles and v
                        // steps), predicated off past seq: the identity
                        // tensor's row.
                        assert_eq!(
                            c0.row + blk * ROWS + v * c0.row_step,
                            row,
                            "seq {seq} blk {blk} tid {tid} chunk {v}"
                        );
                        assert_eq!(g * 8 / ld, row, "global row");
                        let col = g * 8 % ld;
                        assert!(col < D && col % 8 == 0);
                        // Where the kernel takes it from: (row, col) of
                        // the matrix of rows ld / 8 F4s apart.
                        assert_eq!((g, col), (row * (ld / 8) + c.col, 8 * c.col));
                        let s = (c.shared ^ (v % 2 * flash_copy_xor(D))) + v * c.shared_step;
                        // The slot of (row in tile, col), swizzled.
                        assert_eq!(s, flash_swizzle::<D>((row - blk * ROWS) * D + col));
                        for (e, x) in slot[s..s + 8].iter_mut().enumerate() {
                            assert!(!*x, "slot {} twice", s + e);
                            *x = true;
                        }
                    }
                }
                let missing: Vec<usize> = (0..ROWS * D).filter(|&x| !slot[x]).collect();
                assert!(
                    missing.is_empty(),
                    "ROWS {ROWS} D {D} seq {seq} blk {blk}: {} slots unwritten, first {:?}",
                    missing.len(),
                    &missing[..missing.len().min(10)]
                );
            }
        }
    }

    #[test]
    fn flash_copies_fill_the_tiles_and_predicate_the_edge() {
        check_copy::<128, 64>(flash_copy::<128, 64>);
        check_copy::<128, 128>(flash_copy::<128, 128>);
        check_copy::<64, 64>(flash_copy::<64, 64>);
        check_copy::<32, 128>(flash_copy::<32, 128>);
        check_copy::<64, 256>(flash_copy::<64, 256>);
    }

    /// What `ldmatrix` form `form` (x4: 2, x4.trans: 5) delivers to lane
    /// `lane`, register `r`, half `h`: the logical offset (in the unswizzled
    /// tile) of the element, lane `l` giving the address `addr(l)` of row
    /// `l % 8` of matrix `l / 8`.
    #[instantiate((64), (128), (256))]
    fn ldsm<const D: usize>(
        form: usize,
        addr: &dyn Fn(usize) -> usize,
        lane: usize,
        r: usize,
        h: usize,
    ) -> usize {
        let e = ldsm_expected(form, lane, r)[h];
        flash_swizzle::<D>(addr(e / 8) + e % 8)
    }

    #[instantiate((64), (128), (256))]
    fn check_fragments<const D: usize>(
        q: fn(usize, usize, usize) -> usize,
        k: fn(usize, usize, usize) -> usize,
        v: fn(usize, usize, usize) -> usize,
    ) {
        let mma = flash_mma();
        for tid in 0..FLASH_THREADS {
            let (w, lane) = (tid / 32, tid % 32);
            let pa = mma
                .get_slice(tid)
                .partition_a(index(layout!((C<{ flash_bm(D) }>, C<D>):(C<D>, 1))));
            let pk = mma
                .get_slice(tid)
                .partition_b(index(layout!((C<{ flash_bn(D) }>, C<D>):(C<D>, 1))));
            let pv = mma
                .get_slice(tid)
                .partition_b(index(layout!((C<D>, C<{ flash_bn(D) }>):(1, C<D>))));
            for s in 0..D / 16 {
                for i in 0..flash_mma_m(D) {
                    // The kernel: one address per k-step (XOR), atoms added.
                    assert_eq!(q(tid, i, s), (q(tid, 0, 0) ^ (16 * s)) + i * 64 * D);
                    for x in 0..8 {
                        let got = ldsm::<D>(2, &|l| q(32 * w + l, i, s), lane, x / 2, x % 2);
                        let want = pa.data_offset() + pa.layout().crd2idx((x, i, s));
                        assert_eq!(got, want, "Q: thread {tid} atom {i} step {s} value {x}");
                    }
                }
                for j2 in 0..flash_bn(D) / 16 {
                    assert_eq!(k(tid, j2, s), (k(tid, 0, 0) ^ (16 * s)) + j2 * 16 * D);
                    for r in 0..4 {
                        for h in 0..2 {
                            let got = ldsm::<D>(2, &|l| k(32 * w + l, j2, s), lane, r, h);
                            let (j, x) = (2 * j2 + r / 2, 2 * (r % 2) + h);
                            let want = pk.data_offset() + pk.layout().crd2idx((x, j, s));
                            assert_eq!(got, want, "K: thread {tid} atom {j} step {s} value {x}");
                        }
                    }
                }
            }
            for kk in 0..flash_bn(D) / 16 {
                for j2 in 0..D / 16 {
                    assert_eq!(v(tid, j2, kk), (v(tid, 0, 0) ^ (16 * j2)) + kk * 16 * D);
                    for r in 0..4 {
                        for h in 0..2 {
                            let got = ldsm::<D>(5, &|l| v(32 * w + l, j2, kk), lane, r, h);
                            let (j, x) = (2 * j2 + r / 2, 2 * (r % 2) + h);
                            let want = pv.data_offset() + pv.layout().crd2idx((x, j, kk));
                            assert_eq!(got, want, "V: thread {tid} atom {j} block {kk} value {x}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn flash_ldmatrix_feeds_both_gemms() {
        check_fragments::<64>(flash_ldsm_q::<64>, flash_ldsm_k::<64>, flash_ldsm_v::<64>);
        check_fragments::<128>(
            flash_ldsm_q::<128>,
            flash_ldsm_k::<128>,
            flash_ldsm_v::<128>,
        );
        check_fragments::<256>(
            flash_ldsm_q::<256>,
            flash_ldsm_k::<256>,
            flash_ldsm_v::<256>,
        );
    }

    /// Bank conflicts: each matrix of an `ldmatrix` is 8 rows of 16 bytes,
    /// served at once when the rows fall in 8 distinct 16-byte bank groups;
    /// a quarter-warp's 16-byte `cp.async` stores likewise.
    #[test]
    fn flash_shared_accesses_are_conflict_free() {
        fn distinct(a: &[usize]) -> bool {
            let mut g: Vec<usize> = a.iter().map(|x| (x / 8) % 8).collect();
            g.sort();
            g.dedup();
            g.len() == a.len()
        }
        #[instantiate((64), (128), (256))]
        fn check<const D: usize>(f: &[fn(usize, usize, usize) -> usize]) {
            for addr in f {
                for w in 0..4 {
                    for a in 0..D / 16 {
                        for b in 0..2 {
                            for m in 0..4 {
                                let rows: Vec<usize> =
                                    (0..8).map(|r| addr(32 * w + 8 * m + r, b, a)).collect();
                                assert!(distinct(&rows), "D {D}: {rows:?}");
                            }
                        }
                    }
                }
            }
            for t0 in (0..FLASH_THREADS).step_by(8) {
                let s: Vec<usize> = (t0..t0 + 8)
                    .map(|t| flash_copy::<{ flash_bm(D) }, D>(128, D, 0, t).shared)
                    .collect();
                assert!(distinct(&s), "copy D {D}: {s:?}");
            }
        }
        // (tid, atom or pair, step): the V map takes (pair, block) with the
        // pair in the role of the step; Q and K the other way round.
        check::<64>(&[
            |t, b, a| flash_ldsm_q::<64>(t, b % flash_mma_m(64), a),
            |t, b, a| flash_ldsm_k::<64>(t, b, a),
            |t, b, a| flash_ldsm_v::<64>(t, a, b),
        ]);
        check::<128>(&[
            |t, b, a| flash_ldsm_q::<128>(t, b % flash_mma_m(128), a),
            |t, b, a| flash_ldsm_k::<128>(t, b, a),
            |t, b, a| flash_ldsm_v::<128>(t, a, b),
        ]);
        check::<256>(&[
            |t, b, a| flash_ldsm_q::<256>(t, b % flash_mma_m(256), a),
            |t, b, a| flash_ldsm_k::<256>(t, b, a),
            |t, b, a| flash_ldsm_v::<256>(t, a, b),
        ]);
    }

    /// P, the A operand of O = P·V, read from S's registers through
    /// `convert_layout_acc_aregs`: A value `(x, i, kk)` of each thread is
    /// the S register holding the same (row, key) that `partition_A` of a
    /// `flash_bm(D) x flash_bn(D)` P tile assigns it; S and O fragments cover
    /// their tiles once.
    #[test]
    fn p_from_s_registers_is_partition_a_of_p() {
        // The N mode 16:4 (d 64) split into 2:4 (the two N-atoms of an A
        // atom) and 8:8 (the k-blocks); 8:4 (d 128) into 2:4 and 4:8.
        let p = convert_layout_acc_aregs(FlashAtom::default(), flash_frag_s::<64>());
        assert_eq!(p.to_string(), "(((_2,_2),_2),_2,_8):(((_1,_2),_4),_64,_8)");
        let p = convert_layout_acc_aregs(FlashAtom::default(), flash_frag_s::<128>());
        assert_eq!(p.to_string(), "(((_2,_2),_2),_2,_4):(((_1,_2),_4),_32,_8)");
        // 8:4 (d 256, one M-atom) likewise.
        let p = convert_layout_acc_aregs(FlashAtom::default(), flash_frag_s::<256>());
        assert_eq!(p.to_string(), "(((_2,_2),_2),_1,_4):(((_1,_2),_4),_32,_8)");
        check_p::<64>();
        check_p::<128>();
        check_p::<256>();
    }

    #[instantiate((64), (128), (256))]
    fn check_p<const D: usize>() {
        let p = convert_layout_acc_aregs(FlashAtom::default(), flash_frag_s::<D>());
        // Register r of the S fragment holds value (v, i, j).
        let s_frag = flash_frag_s::<D>();
        let value_of = |r: usize| {
            let mut hit = None;
            for j in 0..flash_bn(D) / 8 {
                for i in 0..flash_mma_m(D) {
                    for v in 0..4 {
                        if s_frag.crd2idx((v, i, j)) == r {
                            assert!(hit.replace((v, i, j)).is_none());
                        }
                    }
                }
            }
            hit.expect("register of the fragment")
        };
        let id = make_identity_tensor((C::<{ flash_bm(D) }>, C::<{ flash_bn(D) }>));
        let mut seen = vec![false; flash_bm(D) * flash_bn(D)];
        for tid in 0..FLASH_THREADS {
            let pa = flash_mma().get_slice(tid).partition_a(id);
            for kk in 0..flash_bn(D) / 16 {
                for i in 0..flash_mma_m(D) {
                    for x in 0..8 {
                        let r = p.crd2idx((x, i, kk));
                        let s = flash_s_coord::<D>(tid, value_of(r));
                        assert_eq!(Some(s), pa.at((x, i, kk)), "thread {tid} ({x}, {i}, {kk})");
                    }
                }
            }
            for r in 0..flash_bm(D) * flash_bn(D) / FLASH_THREADS {
                let (row, key) = flash_s_coord::<D>(tid, value_of(r));
                let ((r0, k0), (dr, dk)) = (
                    flash_s_coord_base::<D>(tid),
                    flash_s_coord_delta::<D>(value_of(r)),
                );
                assert_eq!((row, key), (r0 + dr, k0 + dk), "thread {tid}: base + delta");
                assert!(!seen[row * flash_bn(D) + key]);
                seen[row * flash_bn(D) + key] = true;
            }
        }
        assert!(seen.iter().all(|&x| x));
    }

    /// O's fragment covers its tile once, pairs of adjacent columns.
    #[test]
    fn o_fragment_covers_its_tile() {
        check_o::<128>();
        check_o::<256>();
    }

    #[instantiate((128), (256))]
    fn check_o<const D: usize>() {
        let (bm, m) = (flash_bm(D), flash_mma_m(D));
        let mut seen = vec![false; bm * D];
        for tid in 0..FLASH_THREADS {
            for r in 0..bm * D / FLASH_THREADS {
                let at = |v: usize| (v, r / 4 % m, r / 4 / m);
                let (row, col) = flash_o_coord::<D>(tid, at(r % 4));
                // Values 0-1 and 2-3 are adjacent columns of one row: the
                // epilogue stores them as one f16 pair.
                if r % 2 == 0 {
                    assert_eq!(col % 2, 0);
                    assert_eq!(flash_o_coord::<D>(tid, at(r % 4 + 1)), (row, col + 1));
                }
                assert!(!seen[row * D + col]);
                seen[row * D + col] = true;
            }
        }
        assert!(seen.iter().all(|&x| x));
    }
}
