//! The HGEMM's body (`hgemm_f32`, `hgemm_f16`): a 128 x 128 tile of C per
//! block of 4 warps over k-blocks of 32 in a `cp.async` pipeline, every
//! offset from the plan ([`super`]).

use crate::maps::{
    hgemm_copy, hgemm_frag_c, hgemm_ldsm_a, hgemm_ldsm_a_atom_step, hgemm_ldsm_b,
    hgemm_ldsm_b_pair_step, At, HGEMM_BK, HGEMM_BM, HGEMM_BN, HGEMM_STAGE, HGEMM_STAGES,
};
use crate::smem::SMEM_BIG;
use layout_core::atom::{
    SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN as MmaF16,
    SM80_16x8x16_F32F16F16F32_TN as MmaF32,
};
use layout_device::{
    block_idx, cp_async_commit, cp_async_wait, each, sync_threads, thread_idx, trap, Global,
    GlobalMut, LdsmInstr, MmaInstr, Smem, F4,
};

/// The accumulators of one m16n8k16 atom: 4 f32, or 4 f16 in 2 registers.
pub trait Acc: Copy {
    /// What C holds.
    type Out: Copy;
    /// Zeros.
    fn zero() -> Self;
    /// One `mma.sync` into these accumulators.
    fn mma(self, a: [u32; 4], b: [u32; 2]) -> Self;
    /// Accumulator `v` (the atom's C value order).
    fn get(&self, v: usize) -> Self::Out;
}

impl Acc for [f32; 4] {
    type Out = f32;
    #[inline(always)]
    fn zero() -> Self {
        [0.0; 4]
    }
    #[inline(always)]
    fn mma(self, a: [u32; 4], b: [u32; 2]) -> Self {
        MmaF32::mma(a, b, self)
    }
    #[inline(always)]
    fn get(&self, v: usize) -> f32 {
        self[v]
    }
}

/// Four f16 accumulators, two to a register (value 2r in the low half of
/// register r).
#[derive(Clone, Copy)]
pub struct Half4(pub [u32; 2]);

impl Acc for Half4 {
    type Out = u16;
    #[inline(always)]
    fn zero() -> Self {
        Half4([0; 2])
    }
    #[inline(always)]
    fn mma(self, a: [u32; 4], b: [u32; 2]) -> Self {
        Half4(MmaF16::mma(a, b, self.0))
    }
    #[inline(always)]
    fn get(&self, v: usize) -> u16 {
        (self.0[v / 2] >> (16 * (v % 2))) as u16
    }
}

/// One k-step (16) of a warp's 64 x 64 tile: 4 x 8 atoms, B's x4 fragments
/// holding two n-atoms each.
#[inline(always)]
fn mma_step<T: Acc>(acc: &mut [[T; 8]; 4], (fa, fb): ([[u32; 4]; 4], [[u32; 4]; 4])) {
    each::<4>(|i| {
        each::<8>(|j| {
            let bj = [fb[j / 2][2 * (j % 2)], fb[j / 2][2 * (j % 2) + 1]];
            acc[i][j] = acc[i][j].mma(fa[i], bj);
        })
    });
}

/// C = A · Bᵀ on tensor cores, accumulators `T` (f32 or f16): each block
/// of 4 warps computes a 128 x 128 tile of C over k-blocks of 32, staged
/// through a 3-deep `cp.async` pipeline in swizzled shared memory,
/// fragments loaded by `ldmatrix`, multiplied by `mma.sync` (the TiledMMA
/// of [`crate::maps::hgemm_mma`]).
#[inline(always)]
pub fn hgemm<T: Acc>(
    m: usize,
    n: usize,
    k: usize,
    a: Global<F4>,
    b: Global<F4>,
    c: GlobalMut<T::Out>,
) {
    // HGEMM_F32's (and HGEMM_F16's) tile: `maps::HGEMM_F32.divides` on
    // the host. (Written out: through the const fn, LLVM lays out the
    // pipeline's loop differently, 100 PTX lines shorter and unmeasured.)
    if m % HGEMM_BM != 0 || n % HGEMM_BN != 0 || k % HGEMM_BK != 0 || k == 0 {
        trap()
    }
    let ((bx, by), tid) = (block_idx(), thread_idx());
    let (ca, cb) = (hgemm_copy(m, k, by, tid), hgemm_copy(n, k, bx, tid));
    // f32 units: a stage is HGEMM_STAGE halves, B's tile after A's.
    let (stage_f32, b_f32) = (HGEMM_STAGE / 2, HGEMM_BM * HGEMM_BK / 2);
    // A thread's four chunks of a matrix are a strided run in global
    // memory and constant steps apart in the stage: one bounds check each
    // per k-block, none per copy.
    let (sa, sb) = (ca.shared_chunk / 2, cb.shared_chunk / 2);
    let load = |kt: usize, stage: usize| {
        let base = stage * stage_f32;
        let ga = a.run::<4>(ca.global[0] + kt * ca.step, ca.global_chunk);
        let gb = b.run::<4>(cb.global[0] + kt * cb.step, cb.global_chunk);
        let wa = Smem::window::<SMEM_BIG>(base + ca.shared[0] / 2, 3 * sa + 4);
        let wb = Smem::window::<SMEM_BIG>(base + b_f32 + cb.shared[0] / 2, 3 * sb + 4);
        each::<4>(|v| {
            wa.cp_async16(v * sa, ga, v);
            wb.cp_async16(v * sb, gb, v);
        });
    };
    let kts = k / HGEMM_BK;
    for s in 0..HGEMM_STAGES - 1 {
        if s < kts {
            load(s, s);
        }
        cp_async_commit();
    }
    // This thread's ldmatrix rows (f32 offsets in a stage) for atom 0 per
    // k-step; the other atoms are constant steps away (registers saved).
    let la = [hgemm_ldsm_a(tid, 0, 0) / 2, hgemm_ldsm_a(tid, 0, 1) / 2];
    let lb = [
        b_f32 + hgemm_ldsm_b(tid, 0, 0) / 2,
        b_f32 + hgemm_ldsm_b(tid, 0, 1) / 2,
    ];
    let (da, db) = (hgemm_ldsm_a_atom_step() / 2, hgemm_ldsm_b_pair_step() / 2);
    // The A and B fragments of one k-step (16) of a stage, by ldmatrix.
    // One window per matrix and k-step: the atoms are constant offsets in it.
    let frags = |stage: usize, st: usize| {
        let wa = Smem::window::<SMEM_BIG>(stage * stage_f32 + la[st], 3 * da + 4);
        let wb = Smem::window::<SMEM_BIG>(stage * stage_f32 + lb[st], 3 * db + 4);
        let (mut fa, mut fb) = ([[0u32; 4]; 4], [[0u32; 4]; 4]);
        each::<4>(|i| {
            fa[i] = SM75_U32x4_LDSM_N::ldsm(wa, i * da);
            fb[i] = SM75_U32x4_LDSM_N::ldsm(wb, i * db);
        });
        (fa, fb)
    };
    let mut acc = [[T::zero(); 8]; 4];
    // Fragments are double-buffered: the next k-step's ldmatrix is issued
    // before this k-step's mma, across the barrier between k-blocks too.
    cp_async_wait::<{ HGEMM_STAGES as u32 - 2 }>();
    sync_threads();
    let mut cur = frags(0, 0);
    let (mut read, mut write) = (0, HGEMM_STAGES - 1);
    for kt in 0..kts {
        // Step 0: prefetch step 1 of this k-block; refill the stage read in
        // the last k-block (every thread passed the barrier since).
        let next = frags(read, 1);
        if kt + HGEMM_STAGES - 1 < kts {
            load(kt + HGEMM_STAGES - 1, write);
        }
        cp_async_commit();
        mma_step(&mut acc, cur);
        cur = next;
        // Step 1: k-block kt + 1 has landed (this thread's copies, then
        // everyone's); prefetch its step 0.
        cp_async_wait::<{ HGEMM_STAGES as u32 - 2 }>();
        sync_threads();
        write = read;
        read = if read + 1 == HGEMM_STAGES {
            0
        } else {
            read + 1
        };
        let next = frags(read, 0);
        mma_step(&mut acc, cur);
        cur = next;
    }
    let fc = hgemm_frag_c(m, n, (bx, by), tid);
    each::<4>(|i| {
        each::<8>(|j| {
            each::<4>(|v| c.st(fc.at(v + 4 * (i + 4 * j)), acc[i][j].get(v)));
        })
    });
}
