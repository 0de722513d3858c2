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
//! - `flash_attn_bwd_dkdvq_d*` (atomic dQ): one block of 8 warps per
//!   [`BWD_KEYS`] keys of a K/V head, over every [`BWD_ROWS`]-row
//!   query tile of every query head of its group (so that a grouped K/V
//!   head's dK and dV are summed in registers), FlashAttention-2's
//!   schedule: S = Q·Kᵀ and dP = dO·Vᵀ with the warps 2 x 4 over the tile
//!   ([`BwdRowsMma`], 32 x 32 values a warp), P and dS = P ∘ (dP - Dot)
//!   into shared memory as f16, then dV += Pᵀ·dO and dK += dSᵀ·Q with the
//!   warps 4 x 2 over the block's keys and `d` ([`BwdKeysMma`]), and the
//!   tile's dQ terms dS·K (2 x 4 again) added into the f32 sums by
//!   `red.global.add`; then `flash_attn_bwd_dq_convert` makes dQ = f16(scale
//!   · sums). Five matrix products, FlashAttention-2's; the additions land
//!   in a varying order, so dQ's last bits may differ from run to run (dK's
//!   and dV's do not);
//! - deterministic: `flash_attn_bwd_dkdv_d*`, the same without dQ, then
//!   `flash_attn_bwd_dq_d*`: one block of 8 warps per [`BWD_ROWS`] query
//!   rows of a head, over its [`BWD_KEYS`]-key blocks: S, P, dP and dS
//!   as above (2 x 4 warps), dS through shared memory, dQ += dS·K in
//!   registers. Every gradient is summed by one block in a fixed order,
//!   so the results are the same bits from run to run; the price is S and
//!   dP computed twice, seven matrix products.
//!
//! The launch contract the host follows (`layout_gpu::attention`'s
//! backward):
//! - Q, O, dO, dQ: (batch, seq_q, heads, d) f16; K, V, dK, dV: (batch,
//!   seq_k, kv_heads, d) f16, kv_heads dividing heads; LSE and Dot:
//!   (batch, heads, seq_q) f32 (packed: (heads, total rows));
//! - `_dot`: grid ceil(rows · heads / [`BWD_DOT_THREADS`]), that many
//!   threads, no shared memory;
//! - `_dkdv`, `_dkdvq`: grid (ceil(seq_k / [`BWD_KEYS`]), kv_heads,
//!   batch), [`BWD_THREADS`] threads, [`bwd_kv_smem_bytes`]`(d)` bytes;
//! - `_dq`: grid (ceil(seq_q / [`BWD_ROWS`]), heads, batch),
//!   [`BWD_THREADS`] threads, [`bwd_smem_bytes`]`(d)` bytes;
//! - `_dq_convert`: grid ceil(n / 2 / [`BWD_CONVERT_THREADS`]) for n
//!   elements of Q, that many threads.

pub(crate) mod body;
#[doc(hidden)]
pub mod entry;

use crate::atoms::ldsm_a_src;
use crate::attention::{flash_swizzle, FlashAtom};
use crate::maps::index;
use layout_core::atom::mma::{make_tiled_mma, TiledMma};
use layout_core::tensor::make_identity_tensor;
use layout_core::{instantiate, layout, layout_type, Underscore as X, C};

/// Threads per block of the `Dot` kernel: one (row, head) each.
pub const BWD_DOT_THREADS: usize = 128;
/// Threads per block of the dQ conversion (`flash_attn_bwd_dq_convert`):
/// two floats each.
pub const BWD_CONVERT_THREADS: usize = 256;
/// The head dimensions built.
pub const BWD_HEAD_DIMS: [usize; 2] = [64, 128];

/// Keys per block of the dK/dV kernels (`_dkdv`, `_dkdvq`), and per block
/// the dQ kernels stream: FlashAttention-2's 128.
pub const BWD_KEYS: usize = 128;
/// Query rows per tile the dK/dV kernels stream, and per block of the dQ
/// kernels.
pub const BWD_ROWS: usize = 64;
/// Threads per block of the dK/dV and dQ kernels: 8 warps, each holding
/// 32 x 32 of a tile's S and dP ([`BwdRowsMma`]), and 32 keys by `d / 2` of
/// dK and dV ([`BwdKeysMma`]) or 32 rows by `d / 4` of dQ.
pub const BWD_THREADS: usize = 256;

/// Dynamic shared memory of a dQ block (bytes): Q's and dO's tiles
/// ([`BWD_ROWS`] rows of `d` halves), two stages of K's and V's
/// ([`BWD_KEYS`] rows: the next block's copy overlaps this one's
/// products), then dS ([`BWD_ROWS`] rows of [`BWD_KEYS`] halves), swizzled
/// as [`bwd_kv_smem_bytes`]'s tiles.
pub const fn bwd_smem_bytes(d: usize) -> usize {
    (2 * BWD_ROWS + 4 * BWD_KEYS) * d * 2 + BWD_ROWS * BWD_KEYS * 2
}

/// Stages of the query tiles the dK/dV kernels stream: the next two
/// tiles' copies are in flight while one is computed, and a stage is
/// written again only after every warp has passed the sync that starts
/// the step after its tile's, so no sync ends a step.
pub const BWD_STAGES: usize = 3;

/// Dynamic shared memory of a dK/dV block (bytes): K's and V's tiles
/// ([`BWD_KEYS`] rows of `d` halves), [`BWD_STAGES`] stages of Q's and
/// dO's ([`BWD_ROWS`] rows), P and dS ([`BWD_ROWS`] rows of [`BWD_KEYS`]
/// halves), then [`BWD_STAGES`] stages of the tile's LSE and Dot (f32).
/// Every tile's rows are swizzled as the forward's ([`flash_swizzle`]: P's
/// and dS's as rows of 128 halves), so that the 8 rows an `ldmatrix`
/// reads, and the words a warp's accumulators store (8 rows by 4 words),
/// fall in distinct banks.
pub const fn bwd_kv_smem_bytes(d: usize) -> usize {
    (2 * BWD_KEYS + 2 * BWD_STAGES * BWD_ROWS) * d * 2
        + 2 * BWD_ROWS * BWD_KEYS * 2
        + BWD_STAGES * 2 * BWD_ROWS * 4
}

/// The TiledMMA of the dK/dV kernels' products over a tile's query rows:
/// S = Q·Kᵀ and dP = dO·Vᵀ (64 rows by 128 keys) and dQ's terms dS·K (64
/// rows by `d`), the m16n8k16 atom over 2 warps along M and 4 along N
/// (`(2,4,1):(1,2,0)`): 2 M-atoms and a quarter of the columns a warp.
pub type BwdRowsMma = TiledMma<FlashAtom, layout_type!((2, 4, 1):(1, 2, 0)), (X, X, X)>;

/// The value of [`BwdRowsMma`].
#[inline(always)]
pub fn bwd_rows_mma() -> BwdRowsMma {
    make_tiled_mma(FlashAtom::default(), layout!((2,4,1):(1,2,0)), (X, X, X))
}

/// The TiledMMA of the products over the block's keys: dV += Pᵀ·dO and
/// dK += dSᵀ·Q (128 keys by `d`, k over the tile's 64 query rows), the atom
/// over 4 warps along M and 2 along N (`(4,2,1):(1,4,0)`).
pub type BwdKeysMma = TiledMma<FlashAtom, layout_type!((4, 2, 1):(1, 4, 0)), (X, X, X)>;

/// The value of [`BwdKeysMma`].
#[inline(always)]
pub fn bwd_keys_mma() -> BwdKeysMma {
    make_tiled_mma(FlashAtom::default(), layout!((4,2,1):(1,4,0)), (X, X, X))
}

/// Where value `x` of atom `(i, j)` (M, N) lies in a thread's accumulators
/// of either TiledMMA: `((2,2), 2, N):((1,2), 4, 8)`, its fragment layout
/// (`partition_fragment_C`, 2 M-atoms a thread in both).
#[inline(always)]
pub const fn bwd_frag(x: usize, i: usize, j: usize) -> usize {
    (2 * j + i) * 4 + x
}

/// Lane `lane`'s matrix (`lane / 8`) and row in it (`lane % 8`) of an
/// `ldmatrix.x4`.
#[inline(always)]
const fn ldsm_lane(lane: usize) -> (usize, usize) {
    ((lane % 32) / 8, lane % 8)
}

/// The row address `ldmatrix.x4` takes from thread `tid` for Q's (or dO's)
/// A fragment of [`BwdRowsMma`]'s M-atom `i` at k-step `s`, a half offset
/// in the swizzled [`BWD_ROWS`] x `D` tile (rows of `D` halves, as the
/// forward's: [`flash_swizzle`]).
#[instantiate((64), (128))]
pub fn bwd_ldsm_rows_a<const D: usize>(tid: usize, i: usize, s: usize) -> usize {
    let p = bwd_rows_mma()
        .get_slice(tid - tid % 32)
        .partition_a(index(layout!((C<BWD_ROWS>, C<D>):(C<D>, 1))));
    let origin = p.data_offset() + p.layout().crd2idx((0usize, i, s));
    let o = ldsm_a_src(tid % 32);
    flash_swizzle::<D>(origin + (o / 16) * D + o % 16)
}

/// The row address `ldmatrix.x4` takes from thread `tid` for K's (or V's)
/// B fragments of [`BwdRowsMma`]'s N-atoms `2 j2` and `2 j2 + 1` (keys) at
/// k-step `s`, in the swizzled [`BWD_KEYS`] x `D` tile (the N x K
/// operand as it lies): matrices 0-1 are atom `2 j2`'s k 0-7 and 8-15,
/// 2-3 atom `2 j2 + 1`'s.
#[instantiate((64), (128))]
pub fn bwd_ldsm_keys_b<const D: usize>(tid: usize, j2: usize, s: usize) -> usize {
    let p = bwd_rows_mma()
        .get_slice(tid - tid % 32)
        .partition_b(index(layout!((C<BWD_KEYS>, C<D>):(C<D>, 1))));
    let (q, row) = ldsm_lane(tid);
    let origin = p.data_offset() + p.layout().crd2idx((0usize, 2 * j2 + q / 2, s));
    flash_swizzle::<D>(origin + row * D + 8 * (q % 2))
}

/// The row address `ldmatrix.x4.trans` takes from thread `tid` for Pᵀ's
/// (or dSᵀ's) A fragment of [`BwdKeysMma`]'s M-atom `i` (keys) at k-block
/// `kk` (16 query rows), a half offset in the swizzled shared P tile (rows
/// of query, [`BWD_KEYS`] halves: Aᵀ as it lies). Matrix r is A
/// register r's block, keys `8 (r % 2)` and rows `8 (r / 2)` on; `.trans`
/// hands each lane its two rows of one key.
#[inline(always)]
pub fn bwd_ldsm_ps_t(tid: usize, i: usize, kk: usize) -> usize {
    let p = bwd_keys_mma()
        .get_slice(tid - tid % 32)
        .partition_a(index(layout!((C<BWD_KEYS>, C<BWD_ROWS>):(1, C<BWD_KEYS>))));
    let (q, row) = ldsm_lane(tid);
    let origin = p.data_offset() + p.layout().crd2idx((0usize, i, kk));
    flash_swizzle::<BWD_KEYS>(origin + 8 * (q % 2) + (8 * (q / 2) + row) * BWD_KEYS)
}

/// The row address `ldmatrix.x4.trans` takes from thread `tid` for dO's
/// (or Q's) B fragments of [`BwdKeysMma`]'s N-atoms `2 j2` and `2 j2 + 1`
/// (columns of `D`) at k-block `kk` (16 query rows), in the swizzled
/// [`BWD_ROWS`] x `D` tile (rows are the k index, as V's in the
/// forward).
#[instantiate((64), (128))]
pub fn bwd_ldsm_rows_b<const D: usize>(tid: usize, j2: usize, kk: usize) -> usize {
    let p = bwd_keys_mma()
        .get_slice(tid - tid % 32)
        .partition_b(index(layout!((C<D>, C<BWD_ROWS>):(1, C<D>))));
    let (q, row) = ldsm_lane(tid);
    let origin = p.data_offset() + p.layout().crd2idx((0usize, 2 * j2 + q / 2, kk));
    flash_swizzle::<D>(origin + (8 * (q % 2) + row) * D)
}

/// The row address `ldmatrix.x4` takes from thread `tid` for dS's A
/// fragment of [`BwdRowsMma`]'s M-atom `i` (query rows) at k-block `kk`
/// (16 keys), in the swizzled shared dS tile (rows of query,
/// [`BWD_KEYS`] halves).
#[inline(always)]
pub fn bwd_ldsm_ds_a(tid: usize, i: usize, kk: usize) -> usize {
    let p = bwd_rows_mma()
        .get_slice(tid - tid % 32)
        .partition_a(index(layout!((C<BWD_ROWS>, C<BWD_KEYS>):(C<BWD_KEYS>, 1))));
    let origin = p.data_offset() + p.layout().crd2idx((0usize, i, kk));
    let o = ldsm_a_src(tid % 32);
    flash_swizzle::<BWD_KEYS>(origin + (o / 16) * BWD_KEYS + o % 16)
}

/// Where thread `tid`'s S-shaped value `(v, i, j)` (P or dS) lies in its
/// swizzled shared tile: a half offset (value `v + 1` is the next half).
#[inline(always)]
pub fn bwd_ps_at(tid: usize, x: (usize, usize, usize)) -> usize {
    let (r, c) = bwd_s_coord(tid, x);
    flash_swizzle::<BWD_KEYS>(r * BWD_KEYS + c)
}

/// The row address `ldmatrix.x4.trans` takes from thread `tid` for K's B
/// fragments of [`BwdRowsMma`]'s N-atoms `2 j2` and `2 j2 + 1` (columns of
/// `D`) at k-block `kk` (16 keys), in the swizzled [`BWD_KEYS`] x `D`
/// tile (dQ's terms dS·K).
#[instantiate((64), (128))]
pub fn bwd_ldsm_keys_v<const D: usize>(tid: usize, j2: usize, kk: usize) -> usize {
    let p = bwd_rows_mma()
        .get_slice(tid - tid % 32)
        .partition_b(index(layout!((C<D>, C<BWD_KEYS>):(1, C<D>))));
    let (q, row) = ldsm_lane(tid);
    let origin = p.data_offset() + p.layout().crd2idx((0usize, 2 * j2 + q / 2, kk));
    flash_swizzle::<D>(origin + (8 * (q % 2) + row) * D)
}

/// Where thread `tid`'s value `(v, i, j)` of S (and dP, P, dS) lies in a
/// [`BWD_ROWS`] x [`BWD_KEYS`] tile: `(row, key)`, from
/// [`BwdRowsMma`]'s `partition_C` of the identity tensor.
#[inline(always)]
pub fn bwd_s_coord(tid: usize, (v, i, j): (usize, usize, usize)) -> (usize, usize) {
    let id = make_identity_tensor((C::<BWD_ROWS>, C::<BWD_KEYS>));
    match bwd_rows_mma().get_slice(tid).partition_c(id).at((v, i, j)) {
        Some(c) => c,
        None => panic!("bwd_s_coord: value ({v}, {i}, {j})"),
    }
}

/// Where thread `tid`'s value `(v, i, j)` of dQ's terms lies in a
/// [`BWD_ROWS`] x `D` tile: `(row, column)` ([`BwdRowsMma`]).
#[inline(always)]
#[instantiate((64), (128))]
pub fn bwd_dq_coord<const D: usize>(
    tid: usize,
    (v, i, j): (usize, usize, usize),
) -> (usize, usize) {
    let id = make_identity_tensor((C::<BWD_ROWS>, C::<D>));
    match bwd_rows_mma().get_slice(tid).partition_c(id).at((v, i, j)) {
        Some(c) => c,
        None => panic!("bwd_dq_coord: value ({v}, {i}, {j})"),
    }
}

/// Where thread `tid`'s value `(v, i, j)` of dK and dV lies in the block's
/// [`BWD_KEYS`] x `D` tile: `(key, column)` ([`BwdKeysMma`]).
#[inline(always)]
#[instantiate((64), (128))]
pub fn bwd_kv_coord<const D: usize>(
    tid: usize,
    (v, i, j): (usize, usize, usize),
) -> (usize, usize) {
    let id = make_identity_tensor((C::<BWD_KEYS>, C::<D>));
    match bwd_keys_mma().get_slice(tid).partition_c(id).at((v, i, j)) {
        Some(c) => c,
        None => panic!("bwd_kv_coord: value ({v}, {i}, {j})"),
    }
}

// What the build tool reads of the entry points.

/// The dK/dV kernels: 256 threads, one block an SM (dK's and dV's
/// accumulators, `d / 2` each a thread, beside a tile's S and dP, 32 each).
pub const FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D128_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDV_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDV_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// The dK/dV kernels with the atomic dQ: as the dK/dV kernels.
pub const FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// At d = 64 the dK/dV kernels fit 255 registers unspilled (accumulators,
/// S and dP 128 a thread, the rest pointers, sizes and addresses); a few
/// words of spill are allowed, more fails the build.
pub const FLASH_ATTN_BWD_DKDVQ_D64_SPILL_BYTES: (u32, u32) = (32, 32);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDVQ_D64_CAUSAL_SPILL_BYTES: (u32, u32) = (32, 32);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D64_SPILL_BYTES: (u32, u32) = (32, 32);
/// See [`FLASH_ATTN_BWD_DKDVQ_D64_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D64_CAUSAL_SPILL_BYTES: (u32, u32) = (32, 32);
/// At d = 128 dK's and dV's accumulators are 128 registers a thread, S
/// and dP 64: ptxas spills 20/24 to 84/100 bytes (stores/loads). More
/// than this fails the build.
pub const FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES: (u32, u32) = (256, 512);
/// See [`FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDVQ_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (256, 512);
/// See [`FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D128_SPILL_BYTES: (u32, u32) = (256, 512);
/// See [`FLASH_ATTN_BWD_DKDVQ_D128_SPILL_BYTES`].
pub const FLASH_ATTN_BWD_DKDV_D128_CAUSAL_SPILL_BYTES: (u32, u32) = (256, 512);
/// The dQ conversion: 256 threads.
pub const FLASH_ATTN_BWD_DQ_CONVERT_LAUNCH_BOUNDS: (u32, u32) = (256, 4);
/// The dQ conversion divides nothing.
pub const FLASH_ATTN_BWD_DQ_CONVERT_NO_DIVISION: bool = true;
/// The dQ kernels: 256 threads, one block an SM.
pub const FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D128_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// See [`FLASH_ATTN_BWD_DQ_D64_LAUNCH_BOUNDS`].
pub const FLASH_ATTN_BWD_DQ_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
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
    //! The dK/dV kernels' maps: each `ldmatrix` address delivers the
    //! TiledMMA's operand (emulated from the copy atoms' layouts), the
    //! coordinates are a thread's first plus a constant and cover their
    //! tiles once, and the shared accesses are free of bank conflicts.
    use super::*;
    use crate::maps::ldsm_expected;
    use std::vec::Vec;

    #[test]
    fn shared_memory() {
        // dQ: Q, dO (2 x 64 x 128 halves), K, V in two stages (4 x 128 x
        // 128), dS (64 x 128 halves) at d = 128.
        assert_eq!(bwd_smem_bytes(128), 32768 + 131072 + 16384);
        assert_eq!(bwd_smem_bytes(64), 16384 + 65536 + 16384);
        assert!(bwd_smem_bytes(128) <= 227 * 1024);
        // dK/dV: K, V (2 x 128 x 128 halves), Q, dO in three stages (6 x
        // 64 x 128), P and dS (2 x 64 x 128 halves), 6 x 64 f32 at d = 128.
        assert_eq!(bwd_kv_smem_bytes(128), 65536 + 98304 + 32768 + 1536);
        assert_eq!(bwd_kv_smem_bytes(64), 32768 + 49152 + 32768 + 1536);
        assert!(bwd_kv_smem_bytes(128) <= 227 * 1024);
    }

    /// The logical offset of the element `ldmatrix` form `form` (x4: 2,
    /// x4.trans: 5) hands lane `lane` in register `r`, half `h`, when lane
    /// l gives the address `addr(l)` (an offset of the tile that `swizzle`
    /// maps).
    fn delivered(
        form: usize,
        addr: &dyn Fn(usize) -> usize,
        swizzle: fn(usize) -> usize,
        (lane, r, h): (usize, usize, usize),
    ) -> usize {
        let e = ldsm_expected(form, lane, r)[h];
        // The swizzle moves 16-byte chunks only: undo it (an involution)
        // after adding the half within the row's chunk.
        swizzle(addr(e / 8) + e % 8)
    }

    #[instantiate((64), (128))]
    fn check_fragments<const D: usize>() {
        let (rows, keys) = (bwd_rows_mma(), bwd_keys_mma());
        for tid in 0..BWD_THREADS {
            let (w, lane) = (tid / 32, tid % 32);
            let pq = rows
                .get_slice(tid)
                .partition_a(index(layout!((C<BWD_ROWS>, C<D>):(C<D>, 1))));
            let pk = rows
                .get_slice(tid)
                .partition_b(index(layout!((C<BWD_KEYS>, C<D>):(C<D>, 1))));
            let pp = keys
                .get_slice(tid)
                .partition_a(index(layout!((C<BWD_KEYS>, C<BWD_ROWS>):(1, C<BWD_KEYS>))));
            let po = keys
                .get_slice(tid)
                .partition_b(index(layout!((C<D>, C<BWD_ROWS>):(1, C<D>))));
            let pds = rows
                .get_slice(tid)
                .partition_a(index(layout!((C<BWD_ROWS>, C<BWD_KEYS>):(C<BWD_KEYS>, 1))));
            let pkv = rows
                .get_slice(tid)
                .partition_b(index(layout!((C<D>, C<BWD_KEYS>):(1, C<D>))));
            // Each partition's offset of value c; what form `form` (x4: 2,
            // x4.trans: 5) delivers from the rows `addr` names.
            macro_rules! at {
                ($t:expr, $c:expr) => {
                    $t.data_offset() + $t.layout().crd2idx($c)
                };
            }
            let (sw_d, sw_k) = (
                flash_swizzle::<D> as fn(usize) -> usize,
                flash_swizzle::<BWD_KEYS>,
            );
            for r in 0..4 {
                for h in 0..2 {
                    let (xa, xb, jb) = (2 * r + h, 2 * (r % 2) + h, r / 2);
                    let v = (lane, r, h);
                    let got =
                        |form, addr: &dyn Fn(usize) -> usize, sw| delivered(form, addr, sw, v);
                    for s in 0..D / 16 {
                        for i in 0..2 {
                            let g = got(2, &|l| bwd_ldsm_rows_a::<D>(32 * w + l, i, s), sw_d);
                            assert_eq!(g, at!(pq, (xa, i, s)), "Q: {tid} {i} {s}");
                        }
                        for j2 in 0..2 {
                            let g = got(2, &|l| bwd_ldsm_keys_b::<D>(32 * w + l, j2, s), sw_d);
                            assert_eq!(g, at!(pk, (xb, 2 * j2 + jb, s)), "K: {tid} {j2} {s}");
                        }
                    }
                    for kk in 0..BWD_ROWS / 16 {
                        for i in 0..2 {
                            let g = got(5, &|l| bwd_ldsm_ps_t(32 * w + l, i, kk), sw_k);
                            assert_eq!(g, at!(pp, (xa, i, kk)), "P: {tid} {i} {kk}");
                        }
                        for j2 in 0..D / 32 {
                            let g = got(5, &|l| bwd_ldsm_rows_b::<D>(32 * w + l, j2, kk), sw_d);
                            assert_eq!(g, at!(po, (xb, 2 * j2 + jb, kk)), "dO: {tid} {j2} {kk}");
                        }
                    }
                    for kk in 0..BWD_KEYS / 16 {
                        for i in 0..2 {
                            let g = got(2, &|l| bwd_ldsm_ds_a(32 * w + l, i, kk), sw_k);
                            assert_eq!(g, at!(pds, (xa, i, kk)), "dS: {tid} {i} {kk}");
                        }
                        for j2 in 0..D / 64 {
                            let g = got(5, &|l| bwd_ldsm_keys_v::<D>(32 * w + l, j2, kk), sw_d);
                            let c = (xb, 2 * j2 + jb, kk);
                            assert_eq!(g, at!(pkv, c), "K for dQ: {tid} {j2} {kk}");
                        }
                    }
                }
            }
        }
    }

    /// The kernel's address arithmetic: from a thread's first row, a
    /// k-step or an atom by XOR, a block by a constant added to the row
    /// masked into its first block (`row16` of words: the row lies in it,
    /// 16-byte aligned, so the mask changes nothing).
    #[instantiate((64), (128))]
    fn check_steps<const D: usize>() {
        let masked = |halves: usize, words: usize| halves % 8 == 0 && halves / 2 < words;
        let keys = BWD_KEYS;
        for t in 0..BWD_THREADS {
            let (qa, kb) = (bwd_ldsm_rows_a::<D>(t, 0, 0), bwd_ldsm_keys_b::<D>(t, 0, 0));
            let (pa, ob) = (bwd_ldsm_ps_t(t, 0, 0), bwd_ldsm_rows_b::<D>(t, 0, 0));
            let (da, kv) = (bwd_ldsm_ds_a(t, 0, 0), bwd_ldsm_keys_v::<D>(t, 0, 0));
            for s in 0..D / 16 {
                assert!(masked(qa ^ (16 * s), 16 * D) && masked(kb ^ (16 * s), 32 * D));
                for n in 0..2 {
                    assert_eq!(bwd_ldsm_rows_a::<D>(t, n, s), (qa ^ (16 * s)) + 32 * n * D);
                    assert_eq!(bwd_ldsm_keys_b::<D>(t, n, s), (kb ^ (16 * s)) + 64 * n * D);
                }
            }
            for kk in 0..BWD_ROWS / 16 {
                for i in 0..2 {
                    assert!(masked(pa ^ (64 * i), 8 * keys));
                    assert_eq!(bwd_ldsm_ps_t(t, i, kk), (pa ^ (64 * i)) + 16 * kk * keys);
                }
                for j2 in 0..D / 32 {
                    assert!(masked(ob ^ (32 * j2), 8 * D));
                    assert_eq!(
                        bwd_ldsm_rows_b::<D>(t, j2, kk),
                        (ob ^ (32 * j2)) + 16 * kk * D
                    );
                }
            }
            for kk in 0..keys / 16 {
                assert!(masked(da ^ (16 * kk), 16 * keys));
                for i in 0..2 {
                    assert_eq!(bwd_ldsm_ds_a(t, i, kk), (da ^ (16 * kk)) + 32 * i * keys);
                }
                for j2 in 0..D / 64 {
                    assert!(masked(kv ^ (64 * j2), 8 * D));
                    assert_eq!(
                        bwd_ldsm_keys_v::<D>(t, j2, kk),
                        (kv ^ (64 * j2)) + 16 * kk * D
                    );
                }
            }
            let p0 = bwd_ps_at(t, (0, 0, 0));
            for a in 0..32 {
                let (x, i, j) = (a % 4, (a / 4) % 2, a / 8);
                let want = (p0 ^ (32 * j)) + keys * (8 * (x / 2) + 32 * i) + x % 2;
                assert_eq!(bwd_ps_at(t, (x, i, j)), want, "P: thread {t} value {a}");
            }
        }
    }

    #[test]
    fn kernel_address_arithmetic_is_the_maps() {
        check_steps::<64>();
        check_steps::<128>();
    }

    #[test]
    fn ldmatrix_feeds_every_product() {
        check_fragments::<64>();
        check_fragments::<128>();
    }

    /// Each thread's `n` values at `coord(tid, x)`: the first plus thread
    /// 0's `x` (what the kernel computes), and over the block every cell of
    /// a `rows x cols` tile once.
    fn check_cover(
        coord: &dyn Fn(usize, (usize, usize, usize)) -> (usize, usize),
        n: usize,
        (rows, cols): (usize, usize),
    ) {
        let mut seen = std::vec![0u32; rows * cols];
        for tid in 0..BWD_THREADS {
            let base = coord(tid, (0, 0, 0));
            for a in 0..n {
                let x = (a % 4, (a / 4) % 2, a / 8);
                assert_eq!(bwd_frag(x.0, x.1, x.2), a);
                let (r, c) = coord(tid, x);
                let d = coord(0, x);
                assert_eq!(
                    (r, c),
                    (base.0 + d.0, base.1 + d.1),
                    "thread {tid} value {a}"
                );
                seen[r * cols + c] += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }

    #[test]
    fn fragments_cover_their_tiles_once() {
        check_cover(&bwd_s_coord, 32, (BWD_ROWS, BWD_KEYS));
        check_cover(&bwd_dq_coord::<64>, 16, (BWD_ROWS, 64));
        check_cover(&bwd_dq_coord::<128>, 32, (BWD_ROWS, 128));
        check_cover(&bwd_kv_coord::<64>, 32, (BWD_KEYS, 64));
        check_cover(&bwd_kv_coord::<128>, 64, (BWD_KEYS, 128));
    }

    /// Bank conflicts: each 8-lane matrix of an `ldmatrix` reads 8 rows of
    /// 16 bytes, served at once when they fall in 8 distinct 16-byte bank
    /// groups; a warp's P and dS stores (one word a lane) in 32 distinct
    /// banks.
    #[test]
    fn shared_accesses_are_conflict_free() {
        fn distinct(a: &[usize]) -> bool {
            let mut g: Vec<usize> = a.iter().map(|x| (x / 8) % 8).collect();
            g.sort();
            g.dedup();
            g.len() == a.len()
        }
        #[instantiate((64), (128))]
        fn check<const D: usize>() {
            type Map = dyn Fn(usize, usize, usize) -> usize;
            let maps: [(&Map, usize, usize); 6] = [
                (&|t, i, s| bwd_ldsm_rows_a::<D>(t, i, s), 2, D / 16),
                (&|t, j, s| bwd_ldsm_keys_b::<D>(t, j, s), 2, D / 16),
                (&bwd_ldsm_ps_t, 2, BWD_ROWS / 16),
                (
                    &|t, j, k| bwd_ldsm_rows_b::<D>(t, j, k),
                    D / 32,
                    BWD_ROWS / 16,
                ),
                (&bwd_ldsm_ds_a, 2, BWD_KEYS / 16),
                (
                    &|t, j, k| bwd_ldsm_keys_v::<D>(t, j, k),
                    D / 64,
                    BWD_KEYS / 16,
                ),
            ];
            for (m, (addr, atoms, steps)) in maps.iter().enumerate() {
                for w in 0..BWD_THREADS / 32 {
                    for a in 0..*atoms {
                        for s in 0..*steps {
                            for q in 0..4 {
                                let rows: Vec<usize> =
                                    (0..8).map(|r| addr(32 * w + 8 * q + r, a, s)).collect();
                                assert!(distinct(&rows), "D {D} map {m}: {rows:?}");
                            }
                        }
                    }
                }
            }
        }
        check::<64>();
        check::<128>();
        for w in 0..BWD_THREADS / 32 {
            for t in 0..16 {
                let x = (2 * t % 4, (2 * t / 4) % 2, 2 * t / 8);
                let mut banks: Vec<usize> = (0..32)
                    .map(|l| (bwd_ps_at(32 * w + l, x) / 2) % 32)
                    .collect();
                banks.sort();
                banks.dedup();
                assert_eq!(banks.len(), 32, "warp {w} pair {t}");
            }
        }
    }
}
