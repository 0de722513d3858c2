//! `flash_attn_fwd_sm90`'s plan: tiles, shared-memory offsets, the
//! operands' descriptors from the typed layouts, and the thread-value facts
//! the softmax and the epilogue use; everything but the instructions, so
//! that the host tests check it.
//!
//! O = softmax(scale · Q·Kᵀ) · V per (batch, head), Q, K, V, O f16 in
//! (batch, seq, heads, d) order, f32 softmax statistics. A block of three
//! warpgroups owns [`bm`] query rows of one (batch, head): warpgroup 0 is
//! the producer, one thread of it loading Q once and K's and V's tiles of
//! [`BN`] keys into two rings ([`stages`] each) by TMA; the others are the
//! consumers ([`consumers`]: 3 at d = 64, 2 at d = 128), each 64 rows:
//!
//! - S = Q·Kᵀ by `wgmma` m64n128k16 with both operands in shared memory
//!   (K-major: the head dimension is contiguous in Q and K);
//! - the masks and the online softmax on S's registers, rows reduced over
//!   the lanes the C layout says share them ([`S_ROWS`]);
//! - O += P·V by `wgmma` m64n{d}k16 with P in registers (the RS atom; S's
//!   accumulators are its A fragments in register order, [`P_OF_S`]) and V
//!   from shared memory, N-major (the head dimension is contiguous in V:
//!   the instruction's transpose).
//!
//! Shared memory holds each operand as TMA writes it with the 128-byte
//! swizzle, 64 halves (one swizzle row) of the head dimension per box: row r
//! of a box at 128 r bytes, its 16-byte chunks permuted by r % 8. For Q and
//! K that is CuTe's `GMMA::Layout_K_SW128_Atom<half_t>` tiled, `Sw<3,3,3> o
//! (rows,64):(64,1)` in halves; for V, read along the keys, it is
//! `GMMA::Layout_MN_SW128_Atom<half_t>` tiled, `Sw<3,3,3> o (64,keys):(1,64)`.

pub(crate) mod body;
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
mod entry;

use crate::hgemm::desc;
use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::accumulator::{acc_as_a, acc_rows, AccAsA, AccRows};
use layout_core::atom::gmma::{make_gmma_desc, GmmaDescriptor, GmmaOperand, MnMajor};
use layout_core::atom::{
    SM90_64x128x16_F32F16F16_RS, SM90_64x128x16_F32F16F16_SS, SM90_64x256x16_F32F16F16_RS,
    SM90_64x64x16_F32F16F16_RS,
};
use layout_core::layout_type;

/// Consumer warpgroups per block, 64 query rows each: three at d = 64
/// (FlashAttention-3's 192-row tile; 160 registers each), two at d = 128
/// (240 each).
pub const fn consumers(d: usize) -> usize {
    if d == 64 {
        3
    } else {
        2
    }
}

/// Query rows per block.
pub const fn bm(d: usize) -> usize {
    64 * consumers(d)
}

/// The longest query sequence at head dimension `d`: a block's rows, up
/// to the last row block's start plus `bm(d)`, are compared as 32-bit
/// signed numbers (and TMA's coordinates are `i32`).
///
/// ```
/// use layout_kernels_sm90::attention::{bm, max_seq_q};
/// assert_eq!(max_seq_q(64) + bm(64), i32::MAX as usize);
/// ```
pub const fn max_seq_q(d: usize) -> usize {
    i32::MAX as usize - bm(d)
}

/// Threads per block: the producer warpgroup and the consumers.
pub const fn threads(d: usize) -> usize {
    128 * (1 + consumers(d))
}
/// Keys per K/V tile (S's N).
pub const BN: usize = 128;
/// The head dimensions built.
pub const HEAD_DIMS: [usize; 3] = [64, 128, 256];
/// Halves of the head dimension per TMA box: one 128-byte swizzle row.
pub const CHUNK: usize = 64;

/// S's atom: m64n128k16, A (Q) and B (K) K-major in shared memory.
pub type SAtom = SM90_64x128x16_F32F16F16_SS;
/// P·V's atom at d = 64: A (P) in registers, B (V) in shared memory.
pub type PvAtom64 = SM90_64x64x16_F32F16F16_RS;
/// P·V's atom at d = 128.
pub type PvAtom128 = SM90_64x128x16_F32F16F16_RS;
/// P·V's atom at d = 256.
pub type PvAtom256 = SM90_64x256x16_F32F16F16_RS;

/// Which of a thread's S values share a row and the lanes holding the rest
/// of it (derived from S's C layout at compile time).
pub const S_ROWS: AccRows = acc_rows::<SAtom>();
/// The same for O's accumulators at d = 64 ...
pub const O_ROWS_64: AccRows = acc_rows::<PvAtom64>();
/// ... at d = 128 ...
pub const O_ROWS_128: AccRows = acc_rows::<PvAtom128>();
/// ... and at d = 256.
pub const O_ROWS_256: AccRows = acc_rows::<PvAtom256>();
/// Where P·V's A fragments (16 keys each) lie among S's accumulators:
/// derived at compile time from the two atoms' layouts (a refusal is a
/// compile error). The P·V atom's N does not enter: its A layout is the
/// same for every N.
pub const P_OF_S: AccAsA = acc_as_a::<SAtom, PvAtom64>();
const _: () = {
    assert!(P_OF_S.blocks == BN / 16 && P_OF_S.values == 8 && P_OF_S.atoms == 1);
    // O's accumulator v lies in S's value v % 64's row slot (S's first D
    // / 2 values below d = 256): the softmax's per-slot statistics serve
    // both ([`o_row`]).
    let mut v = 0;
    while v < 128 {
        assert!(O_ROWS_256.row_of[v] == S_ROWS.row_of[v % 64]);
        assert!(v >= 64 || O_ROWS_128.row_of[v] == S_ROWS.row_of[v]);
        assert!(v >= 32 || O_ROWS_64.row_of[v] == S_ROWS.row_of[v]);
        v += 1;
    }
    assert!(O_ROWS_256.rows == S_ROWS.rows && O_ROWS_256.values == 128);
};

/// The row slot of O's accumulator `v` (S's value `v % 64`'s: checked
/// against every P·V atom at compile time).
pub const fn o_row(v: usize) -> usize {
    S_ROWS.row_of[v % 64]
}

/// K/V stages per ring: four at d = 64, two at d = 128, one at d = 256
/// (its Q, K and V tiles take 192 KiB).
pub const fn stages(d: usize) -> usize {
    match d {
        64 => 4,
        128 => 2,
        _ => 1,
    }
}

/// Bytes of Q's tile (`bm(d)` rows).
pub const fn q_bytes(d: usize) -> usize {
    bm(d) * d * 2
}

/// Bytes of one K or V tile (`BN` keys).
pub const fn kv_bytes(d: usize) -> usize {
    BN * d * 2
}

/// Where K's stage `s` starts (bytes from the 1024-aligned base): after Q.
pub const fn k_at(d: usize, s: usize) -> usize {
    q_bytes(d) + s * kv_bytes(d)
}

/// Where V's stage `s` starts: after K's ring.
pub const fn v_at(d: usize, s: usize) -> usize {
    k_at(d, stages(d)) + s * kv_bytes(d)
}

/// Where the barriers start: the hand-over's ([`HAND_WORDS`]: Q full and
/// Q free, 8 bytes each), then K's
/// ring's and V's ring's (16 bytes a stage each).
pub const fn barriers_at(d: usize) -> usize {
    v_at(d, stages(d))
}

/// The 32-bit words of the hand-over between the producer and the
/// consumers at [`barriers_at`]: Q's barriers, full and free.
pub const HAND_WORDS: usize = 4;

/// The bytes a head dimension's plan takes.
pub const fn plan_bytes(d: usize) -> usize {
    barriers_at(d) + 4 * HAND_WORDS + 2 * 16 * stages(d)
}

/// The dynamic shared memory the entry points of head dimension `d` ask
/// for: their buffer's (`crate::smem::ATTN_SMEM` for d = 64 and 128, the
/// larger plan's; `ATTN_SMEM_256` for d = 256), the plan and up to 1023
/// bytes to reach the swizzle's 1024-byte alignment.
pub const fn smem_bytes(d: usize) -> usize {
    if d == 256 {
        plan_bytes(256) + 1024
    } else {
        max(plan_bytes(64), plan_bytes(128)) + 1024
    }
}

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// Registers per consumer thread after `setmaxnreg` (the producer keeps
/// [`PRODUCER_REGISTERS`]): what the register file leaves, a multiple of 8.
pub const fn consumer_registers(d: usize) -> u32 {
    if consumers(d) == 3 {
        160
    } else {
        240
    }
}
/// Registers per producer thread after `setmaxnreg`.
pub const PRODUCER_REGISTERS: u32 = 24;

// Every region is 1024-byte aligned (the swizzle's period, which TMA and
// the descriptors assume), the plan fits the H200's 227 KiB, and the
// registers the SM's file.
const _: () = {
    let mut i = 0;
    while i < HEAD_DIMS.len() {
        let d = HEAD_DIMS[i];
        assert!(d % CHUNK == 0 && q_bytes(d) % 1024 == 0 && kv_bytes(d) % 1024 == 0);
        assert!(plan_bytes(d) + 1024 <= smem_bytes(d));
        i += 1;
    }
    assert!(smem_bytes(256) <= 227 * 1024 && smem_bytes(128) <= 227 * 1024);
    let mut i = 0;
    while i < HEAD_DIMS.len() {
        let d = HEAD_DIMS[i];
        let regs = PRODUCER_REGISTERS + consumers(d) as u32 * consumer_registers(d);
        assert!(128 * regs <= 65536 && consumer_registers(d) % 8 == 0 && bm(d) <= 256);
        i += 1;
    }
};

/// One consumer's K-step of Q: 64 rows of 16 halves, rows 128 bytes apart
/// under the 128-byte swizzle (a slice of `tile_to_shape(
/// GMMA::Layout_K_SW128_Atom<half_t>, (64,64))`).
pub type QTile = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((64,16):(64,1))>;
/// K's K-step: 128 keys, the same form.
pub type KTile = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((128,16):(64,1))>;
/// V's K-step (16 keys) at d = 64, as P·V's B (N = the head dimension,
/// contiguous): element (n, k) at 64 k + n halves under the swizzle
/// (`tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (64,16))`).
pub type VTile64 = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((64,16):(1,64))>;
/// V's K-step at d = 128: two 64-wide boxes of the head dimension, one
/// tile of `BN` keys (16 KiB) apart.
pub type VTile128 = ComposedLayout<Swizzle<3, 3, 3>, layout_type!(((64,2),16):((1,8192),64))>;
/// V's K-step at d = 256: four such boxes.
pub type VTile256 = ComposedLayout<Swizzle<3, 3, 3>, layout_type!(((64,4),16):((1,8192),64))>;

/// The matrix descriptor of an N-major (`MnMajor`) tile at `address`, by
/// the typed algebra as [`desc`] (K-major) is.
#[inline(always)]
pub fn desc_mn<Tile: GmmaOperand<MnMajor> + Default>(address: u32) -> GmmaDescriptor {
    match make_gmma_desc(MnMajor, &Tile::default(), address) {
        Ok(d) => d,
        // Not reached: a static tile that is not canonical does not compile.
        Err(_) => layout_device::trap(),
    }
}

/// Q's descriptor for consumer `w` and K-step `ks` (16 of the head
/// dimension) from Q's tile of `rows` rows at `base`: box `ks / 4` (64
/// halves of the head dimension each, `rows` rows of 128 bytes), the
/// consumer's 64 rows 8 KiB on, the K-step 32 bytes on within the swizzle
/// row.
#[inline(always)]
pub fn q_desc(base: u32, rows: u32, w: u32, ks: u32) -> GmmaDescriptor {
    desc::<QTile>(base + (ks / 4) * rows * 128 + w * 64 * 128 + 32 * (ks % 4))
}

/// K's descriptor for K-step `ks` of the tile at `at`.
#[inline(always)]
pub fn k_desc(at: u32, ks: u32) -> GmmaDescriptor {
    desc::<KTile>(at + (ks / 4) * (BN * 128) as u32 + 32 * (ks % 4))
}

/// V's descriptor for the 16 keys `kk` of the tile at `at` (keys are the
/// box rows, 128 bytes apart).
#[inline(always)]
pub fn v_desc<const D: usize>(at: u32, kk: u32) -> GmmaDescriptor {
    let a = at + kk * 16 * 128;
    match D {
        64 => desc_mn::<VTile64>(a),
        128 => desc_mn::<VTile128>(a),
        _ => desc_mn::<VTile256>(a),
    }
}

/// The first query row of the block launched as `bx`, blocks of `rows`
/// rows. A causal block reads the keys up to its last row, so the blocks
/// are launched longest first: block 0 ends at `seq_q`, each next one
/// `rows` before. Where `rows` does not divide `seq_q`, the partial block
/// is then the one of the first rows, the one reading the fewest keys; it
/// starts before row 0, and its rows there are never stored. (This order
/// holds within each (batch, head): `layout_device::longest_first`, the
/// order over the whole grid, measured up to 6 % slower on the causal rows
/// here, see docs/gpu.md.)
pub const fn first_row(bx: usize, rows: usize, seq_q: usize, causal: bool) -> isize {
    if causal {
        seq_q as isize - ((bx + 1) * rows) as isize
    } else {
        (bx * rows) as isize
    }
}

/// Whether the planes entries of head dimension `d` are persistent (their
/// blocks take units in rounds): not at d = 256, whose consumers' registers
/// hold O's 128 accumulators and S's 64, and would spill the loop's state
/// (a unit of d = 256 is long beside its start and end).
pub const fn persistent(d: usize) -> bool {
    d != 256
}

/// The blocks a launch of `units` units of work (`row_blocks` row blocks
/// of each (batch, head)) runs on a GPU of `sms` SMs (one block an SM):
/// the kernel is persistent, its blocks taking the units in rounds, a
/// block's next unit's loads running under its last one's end.
///
/// - Without a mask every unit costs the same: `sms` blocks (or one a
///   unit, if fewer).
/// - Masked (causal, or a window), a row block's cost varies along its
///   index (causal: it falls), and the rounds
///   hand the units out to the blocks in turn and in reverse in turn. With
///   a whole number of heads' row blocks a round, a block's units in two
///   rounds are row blocks i and `row_blocks` - 1 - i: the most blocks of
///   `row_blocks` each that the SMs hold. Where a head has more row blocks
///   than there are SMs, one block a unit (the hardware starts each on the
///   first SM free: a long unit's start and end cost little beside it).
/// - Packed sequences (their lengths are on the GPU), and head dimensions
///   that are not [`persistent`]: one block a unit.
///
/// ```
/// use layout_kernels_sm90::attention::persistent_blocks;
/// // d = 64, 4 x 32 heads at 4096: 22 row blocks each, 2816 units.
/// assert_eq!(persistent_blocks(64, 2816, 22, (true, false), 132), 132);
/// // 43 row blocks (8192): 3 heads a round.
/// assert_eq!(persistent_blocks(64, 2752, 43, (true, false), 132), 129);
/// assert_eq!(persistent_blocks(64, 2752, 43, (false, false), 132), 132);
/// // Few units, a long sequence, packed sequences: one block each.
/// assert_eq!(persistent_blocks(128, 12, 6, (false, false), 132), 12);
/// assert_eq!(persistent_blocks(128, 2048, 256, (true, false), 132), 2048);
/// assert_eq!(persistent_blocks(128, 700, 7, (true, true), 132), 700);
/// assert_eq!(persistent_blocks(256, 2048, 32, (true, false), 132), 2048);
/// ```
pub const fn persistent_blocks(
    d: usize,
    units: usize,
    row_blocks: usize,
    (masked, packed): (bool, bool),
    sms: usize,
) -> usize {
    let blocks = if packed || !persistent(d) || row_blocks == 0 || (masked && row_blocks > sms) {
        units
    } else if masked {
        row_blocks * (sms / row_blocks)
    } else {
        sms
    };
    if blocks < units {
        blocks
    } else {
        units
    }
}

/// The K/V tiles a block of `rows` query rows from row `m0` reads: all of
/// the keys, or (causal: query i sees keys 0..=i + `offset`: 0 aligns the
/// mask top-left, seq_k - seq_q bottom-right) those up to what its last
/// row sees (none when no row of the block sees a key).
pub const fn kv_tiles(
    m0: isize,
    rows: usize,
    (seq_q, seq_k): (usize, usize),
    causal: bool,
    offset: isize,
) -> usize {
    let all = seq_k.div_ceil(BN);
    if !causal {
        return all;
    }
    let end = m0 + rows as isize;
    let last = if end < seq_q as isize {
        end
    } else {
        seq_q as isize
    } + offset;
    if last <= 0 {
        return 0;
    }
    let t = (last as usize).div_ceil(BN);
    if t < all {
        t
    } else {
        all
    }
}

// What the build tool (`layout-ptx kernels/sm90 OUT --arch sm_90a`) reads
// for this kernel's entry points, each const named after its entry point:
// launch bounds and cluster sizes it writes into the PTX, and checks on the
// PTX. They generate no code.

/// `flash_attn_fwd_sm90_d64*`: a producer and three consumer warpgroups
/// (`attention::threads(64)`), one block per SM.
pub const FLASH_ATTN_FWD_SM90_D64_LAUNCH_BOUNDS: (u32, u32) = (512, 1);
/// As at d = 64.
pub const FLASH_ATTN_FWD_SM90_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (512, 1);
/// `flash_attn_fwd_sm90_d128*`: a producer and two consumer warpgroups.
pub const FLASH_ATTN_FWD_SM90_D128_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// As at d = 128.
pub const FLASH_ATTN_FWD_SM90_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// d = 64: S by 4 SS `wgmma`s (16 of the head dimension each), P·V by 8
/// RS `wgmma`s (16 keys each), each written twice (the first tile's S
/// and the last tile's P·V are peeled off the overlapped loop); Q, K and
/// V each one TMA box of 64 columns.
pub const FLASH_ATTN_FWD_SM90_D64_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 24), ("cp.async.bulk.tensor", 3)];
/// As at d = 64.
pub const FLASH_ATTN_FWD_SM90_D64_CAUSAL_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 24), ("cp.async.bulk.tensor", 3)];
/// d = 128: S by 8 SS `wgmma`s, P·V by 8 RS, each written twice (as at
/// d = 64); two boxes each of Q, K, V.
pub const FLASH_ATTN_FWD_SM90_D128_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 32), ("cp.async.bulk.tensor", 6)];
/// As at d = 128.
pub const FLASH_ATTN_FWD_SM90_D128_CAUSAL_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 32), ("cp.async.bulk.tensor", 6)];
/// `flash_attn_fwd_sm90_d256*`: a producer and two consumer warpgroups.
pub const FLASH_ATTN_FWD_SM90_D256_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// As at d = 256.
pub const FLASH_ATTN_FWD_SM90_D256_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// d = 256: one K/V stage and no overlap of a tile's S with the last
/// one's P·V (O's 128 accumulators leave no room for both): S by 16 SS
/// `wgmma`s, P·V by 8 RS, each written once; four boxes each of Q, K, V.
pub const FLASH_ATTN_FWD_SM90_D256_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 24), ("cp.async.bulk.tensor", 12)];
/// As at d = 256.
pub const FLASH_ATTN_FWD_SM90_D256_CAUSAL_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 24), ("cp.async.bulk.tensor", 12)];
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D256_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D256_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D256_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 24), ("cp.async.bulk.tensor", 12)];
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D256_CAUSAL_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 24), ("cp.async.bulk.tensor", 12)];
/// The `_varlen` entries (packed sequences): as the planes forms.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D64_LAUNCH_BOUNDS: (u32, u32) = (512, 1);
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D64_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (512, 1);
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D128_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D128_CAUSAL_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D64_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 24), ("cp.async.bulk.tensor", 3)];
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D64_CAUSAL_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 24), ("cp.async.bulk.tensor", 3)];
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D128_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 32), ("cp.async.bulk.tensor", 6)];
/// As the planes form.
pub const FLASH_ATTN_FWD_SM90_VARLEN_D128_CAUSAL_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 32), ("cp.async.bulk.tensor", 6)];
const _: () = assert!(
    FLASH_ATTN_FWD_SM90_D64_LAUNCH_BOUNDS.0 as usize == threads(64)
        && FLASH_ATTN_FWD_SM90_D64_CAUSAL_LAUNCH_BOUNDS.0 as usize == threads(64)
        && FLASH_ATTN_FWD_SM90_D128_LAUNCH_BOUNDS.0 as usize == threads(128)
        && FLASH_ATTN_FWD_SM90_D128_CAUSAL_LAUNCH_BOUNDS.0 as usize == threads(128)
);

#[cfg(test)]
mod tests {
    use super::*;
    use layout_core::atom::gmma::LayoutType;
    use layout_core::atom::MmaAtom;

    /// The 128-byte swizzle TMA applies to a byte offset from a 1024-byte
    /// aligned base (PTX manual: bits [4,7) XORed with bits [7,10)).
    fn xor(a: u32) -> u32 {
        a ^ ((a >> 7) & 7) << 4
    }

    /// Where TMA put element (row, col) of an operand loaded as boxes of
    /// 64 columns and `rows` rows, box `col / 64` at `box_bytes` apart.
    fn tma_at(base: u32, rows: u32, row: u32, col: u32) -> u32 {
        base + (col / 64) * rows * 128 + xor(128 * row + 2 * (col % 64))
    }

    /// Q's and K's descriptors read what TMA wrote: for each K-step, the
    /// descriptor's start is the typed tile's offset 0, and the typed tile
    /// (`Sw<3,3,3> o (rows,16):(64,1)` from that start) puts every element
    /// (row, k) where TMA put (row, 16 ks + k). The start addresses of the
    /// K-steps are those `q_desc` and `k_desc` encode.
    #[test]
    fn q_and_k_descriptors_read_what_tma_wrote() {
        let sw = Swizzle::<3, 3, 3>;
        let base = 0x4_0000u32;
        for d in HEAD_DIMS {
            let rows = bm(d) as u32;
            for ks in 0..(d / 16) as u32 {
                for w in 0..consumers(d) as u32 {
                    let start = base + (ks / 4) * (rows * 128) + w * 8192 + 32 * (ks % 4);
                    assert_eq!(q_desc(base, rows, w, ks), desc::<QTile>(start));
                    // The start is in a 1024-byte period at a multiple of
                    // 32 bytes below 128: the swizzle of (start + offset)
                    // is the tile's offset's swizzle plus the start.
                    for r in 0..64u32 {
                        for k in 0..16u32 {
                            let tma = tma_at(base, rows, 64 * w + r, 16 * ks + k);
                            let rel = start - base;
                            let read =
                                base + 2 * sw.apply(((rel / 2) + 64 * r + k) as usize) as u32;
                            assert_eq!(tma, read, "Q d {d} ks {ks} w {w} ({r},{k})");
                        }
                    }
                }
                let start = base + (ks / 4) * (BN as u32 * 128) + 32 * (ks % 4);
                assert_eq!(k_desc(base, ks), desc::<KTile>(start));
                for r in 0..BN as u32 {
                    for k in 0..16u32 {
                        let tma = tma_at(base, BN as u32, r, 16 * ks + k);
                        let read = base
                            + 2 * sw.apply((((start - base) / 2) + 64 * r + k) as usize) as u32;
                        assert_eq!(tma, read, "K d {d} ks {ks} ({r},{k})");
                    }
                }
            }
        }
    }

    /// V's descriptors: N-major 128-byte-swizzle tiles whose element (n, k)
    /// (head dimension n, key 16 kk + k) is where TMA put V's row 16 kk +
    /// k, column n; the descriptor fields are CuTe's for that canonical
    /// form (type B128; SBO, 8 keys on, 1024 bytes = 64 units; LBO, the
    /// next 64-wide box, 16 KiB = 1024 units).
    #[test]
    fn v_descriptors_read_what_tma_wrote() {
        let base = 0x1_0000u32;
        let (v64, v128) = (VTile64::default(), VTile128::default());
        for kk in 0..(BN / 16) as u32 {
            let at = base + kk * 2048;
            for (d, dsc) in [
                (64usize, v_desc::<64>(base, kk)),
                (128, v_desc::<128>(base, kk)),
            ] {
                assert_eq!(dsc.layout_type(), LayoutType::B128);
                assert_eq!(dsc.bits() & 0x3fff, (at >> 4) as u64);
                assert_eq!(dsc.sbo(), 64, "d {d}");
                if d == 128 {
                    assert_eq!(dsc.lbo(), 1024);
                }
                for n in 0..d as u32 {
                    for k in 0..16u32 {
                        let tma = tma_at(base, BN as u32, 16 * kk + k, n);
                        let off = if d == 64 {
                            v64.layout.crd2idx((n as usize, k as usize))
                        } else {
                            v128.layout.crd2idx((n as usize, k as usize))
                        };
                        // The tile's offsets are from the K-step's start,
                        // 2048 kk bytes into the 1024-byte periods.
                        let read =
                            base + 2 * Swizzle::<3, 3, 3>.apply(1024 * kk as usize + off) as u32;
                        assert_eq!(tma, read, "V d {d} kk {kk} ({n},{k})");
                    }
                }
            }
        }
    }

    /// S's and O's accumulators of a thread lie in the same two rows, slot
    /// for slot, and their rows are reduced over the same lanes: the
    /// softmax's statistics, kept per slot, serve both.
    #[test]
    fn s_and_o_rows_agree() {
        let s = <SAtom as MmaAtom>::CLayout::default();
        let o = <PvAtom128 as MmaAtom>::CLayout::default();
        assert_eq!((S_ROWS.rows, S_ROWS.xor()), (2, &[1, 2][..]));
        for rows in [O_ROWS_64, O_ROWS_128] {
            assert_eq!((rows.rows, rows.xor()), (S_ROWS.rows, S_ROWS.xor()));
        }
        for t in 0..128 {
            for v in 0..64 {
                for w in 0..64 {
                    if S_ROWS.row_of[v] == O_ROWS_128.row_of[w] {
                        assert_eq!(s.crd2idx((t, v)) % 64, o.crd2idx((t, w)) % 64);
                    }
                }
            }
        }
    }

    /// O's C layouts (m64n64, m64n128) are S's (m64n128) on their values:
    /// the epilogue takes O's coordinates from S's layout.
    #[test]
    fn o_coordinates_are_s_coordinates() {
        let s = <SAtom as MmaAtom>::CLayout::default();
        let o64 = <PvAtom64 as MmaAtom>::CLayout::default();
        let o128 = <PvAtom128 as MmaAtom>::CLayout::default();
        for t in 0..128 {
            for v in 0..64 {
                assert_eq!(o128.crd2idx((t, v)), s.crd2idx((t, v)));
                if v < 32 {
                    assert_eq!(o64.crd2idx((t, v)), s.crd2idx((t, v)));
                }
            }
        }
    }

    /// The tiles a causal block reads cover its last row's keys and no
    /// tile past the keys; every tile of a non-causal block.
    #[test]
    fn kv_tiles_cover_the_visible_keys() {
        for rows in HEAD_DIMS.map(bm) {
            for (seq_q, seq_k) in [
                (1usize, 1usize),
                (77, 77),
                (300, 129),
                (129, 1000),
                (4096, 4096),
            ] {
                for causal in [false, true] {
                    // The launched blocks' rows inside 0..seq_q are each
                    // row once.
                    let blocks = seq_q.div_ceil(rows);
                    let mut seen = [0u8; 4096];
                    for bx in 0..blocks {
                        let m0 = first_row(bx, rows, seq_q, causal);
                        assert!(m0 > -(rows as isize) && m0 < seq_q as isize);
                        let (lo, hi) = (
                            m0.max(0) as usize,
                            (m0 + rows as isize).min(seq_q as isize) as usize,
                        );
                        seen[lo..hi].iter_mut().for_each(|n| *n += 1);
                        let last_row = hi - 1;
                        let t = kv_tiles(m0, rows, (seq_q, seq_k), causal, 0);
                        if causal {
                            // Every key the last row sees, and no tile past it.
                            assert!(t * BN > last_row.min(seq_k - 1) && t <= seq_k.div_ceil(BN));
                            assert!(t == 0 || (t - 1) * BN <= last_row);
                            // Launched longest first.
                            assert!(
                                bx == 0
                                    || t <= kv_tiles(
                                        first_row(bx - 1, rows, seq_q, causal),
                                        rows,
                                        (seq_q, seq_k),
                                        causal,
                                        0
                                    )
                            );
                        } else {
                            assert_eq!(t, seq_k.div_ceil(BN));
                        }
                    }
                    assert!(seen[..seq_q].iter().all(|&n| n == 1));
                }
            }
        }
        // 300 rows in blocks of 128: 172..300, 44..172, -84..44.
        assert_eq!(
            [0, 1, 2].map(|bx| first_row(bx, 128, 300, true)),
            [172, 44, -84]
        );
        assert_eq!(kv_tiles(-84, 128, (300, 300), true, 0), 1);
        assert_eq!(kv_tiles(-200, 128, (300, 300), true, 0), 0);
        // Bottom-right, 300 queries on 100 keys (offset -200): rows 0..200
        // see no key, so the block of rows -84..44 reads none, and the
        // block 172..300 sees keys up to 99: one tile.
        assert_eq!(kv_tiles(-84, 128, (300, 100), true, -200), 0);
        assert_eq!(kv_tiles(172, 128, (300, 100), true, -200), 1);
        // 100 queries on 300 keys (offset 200): the last row sees all 300.
        assert_eq!(kv_tiles(-28, 128, (100, 300), true, 200), 3);
    }
}
