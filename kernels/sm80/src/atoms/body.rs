//! The atoms' bodies (`mma_atom`, `mma_tile`, `ldsm_atoms`): one
//! m16n8k16 atom, one tile through shared memory, every `ldmatrix` form,
//! every operand placed by the plan ([`super`]).

use crate::maps::{ldsm_a_src, ldsm_b_src, mma_atom_offsets, MmaOffsets};
use crate::smem::SMEM;
use layout_core::atom::{
    SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x1_LDSM_N, SM75_U32x2_LDSM_N,
    SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN as MmaF16,
    SM80_16x8x16_F32F16F16F32_TN as MmaF32,
};
use layout_device::{
    cp_async_commit, cp_async_wait_all, sync_threads, thread_idx, Global, GlobalMut, LdsmInstr,
    MmaInstr, Smem, F4,
};

/// Two f16 (bits) in one register, `lo` in the low half.
#[inline(always)]
fn pack(lo: u16, hi: u16) -> u32 {
    lo as u32 | (hi as u32) << 16
}

/// The A and B fragments of this lane, loaded by the atom's layouts.
#[inline(always)]
fn mma_fragments(a: Global<u16>, b: Global<u16>, m: &MmaOffsets) -> ([u32; 4], [u32; 2]) {
    let ra = [0, 1, 2, 3].map(|r| pack(a.ld(m.a[2 * r]), a.ld(m.a[2 * r + 1])));
    let rb = [0, 1].map(|r| pack(b.ld(m.b[2 * r]), b.ld(m.b[2 * r + 1])));
    (ra, rb)
}

/// One m16n8k16 atom with f32 accumulators, every operand placed by the
/// atom's thread-value layouts ([`mma_atom_offsets`]).
#[inline(always)]
pub fn mma_atom_f32(a: Global<u16>, b: Global<u16>, c: GlobalMut<f32>) {
    let m = mma_atom_offsets(thread_idx() % 32);
    let (ra, rb) = mma_fragments(a, b, &m);
    let d = MmaF32::mma(ra, rb, [0.0; 4]);
    for (o, v) in m.c.into_iter().zip(d) {
        c.st(o, v);
    }
}

/// The same atom with f16 accumulators.
#[inline(always)]
pub fn mma_atom_f16(a: Global<u16>, b: Global<u16>, c: GlobalMut<u16>) {
    let m = mma_atom_offsets(thread_idx() % 32);
    let (ra, rb) = mma_fragments(a, b, &m);
    let d = MmaF16::mma(ra, rb, [0; 2]);
    for (v, o) in m.c.into_iter().enumerate() {
        c.st(o, (d[v / 2] >> (16 * (v % 2))) as u16);
    }
}

/// A 16 x 16 A and an 8 x 16 B through shared memory into one atom:
/// `cp.async` 16-byte chunks (lane l copies chunk l of A, lanes 0-15 chunk l
/// of B; the tiles stay row-major), `ldmatrix` rows named by
/// [`ldsm_a_src`] / [`ldsm_b_src`], `mma.sync`, C by the atom's layout.
#[inline(always)]
pub fn mma_tile(a: Global<F4>, b: Global<F4>, c: GlobalMut<f32>) {
    let lane = thread_idx() % 32;
    // f32 units: A's 256 halves, then B's 128.
    let tile = Smem::window::<SMEM>(0, 128 + 64);
    tile.cp_async16(4 * lane, a.run::<1>(lane, 0), 0);
    if lane < 16 {
        tile.cp_async16(128 + 4 * lane, b.run::<1>(lane, 0), 0);
    }
    cp_async_commit();
    cp_async_wait_all();
    sync_threads();
    let ra = SM75_U32x4_LDSM_N::ldsm(tile, ldsm_a_src(lane) / 2);
    let rb = SM75_U32x2_LDSM_N::ldsm(tile, 128 + ldsm_b_src(lane) / 2);
    let d = MmaF32::mma(ra, rb, [0.0; 4]);
    for (o, v) in mma_atom_offsets(lane).c.into_iter().zip(d) {
        c.st(o, v);
    }
}

/// Each `ldmatrix` form on 32 rows of 8 halves: lane `l` copies row `l`
/// to shared memory and names row `l` (x4), `l % 16` (x2) or `l % 8` (x1),
/// as the atoms' source layouts say; its registers go to
/// `out[14 l ..]`.
#[inline(always)]
pub fn ldsm_atoms(src: Global<F4>, out: GlobalMut<u32>) {
    let lane = thread_idx() % 32;
    // 32 rows of 16 bytes: 128 f32.
    let tile = Smem::window::<SMEM>(0, 128);
    tile.cp_async16(4 * lane, src.run::<1>(lane, 0), 0);
    cp_async_commit();
    cp_async_wait_all();
    sync_threads();
    let (r1, r2, r4) = (4 * (lane % 8), 4 * (lane % 16), 4 * lane);
    let mut regs = [0u32; 14];
    regs[0] = SM75_U32x1_LDSM_N::ldsm(tile, r1);
    regs[1..3].copy_from_slice(&SM75_U32x2_LDSM_N::ldsm(tile, r2));
    regs[3..7].copy_from_slice(&SM75_U32x4_LDSM_N::ldsm(tile, r4));
    regs[7] = SM75_U16x2_LDSM_T::ldsm(tile, r1);
    regs[8..10].copy_from_slice(&SM75_U16x4_LDSM_T::ldsm(tile, r2));
    regs[10..14].copy_from_slice(&SM75_U16x8_LDSM_T::ldsm(tile, r4));
    for (i, r) in regs.into_iter().enumerate() {
        out.st(14 * lane + i, r);
    }
}
