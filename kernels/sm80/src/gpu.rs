//! The GPU kernels' bodies: safe code over the device layer, every offset
//! from the index maps of [`crate::maps`]. Their entry points (the PTX
//! `.entry` functions and what they require of the host) are in
//! [`crate::device`]; the hardware is `layout-device`'s.

use crate::maps::{
    hgemm_copy, hgemm_frag_c, hgemm_ldsm_a, hgemm_ldsm_a_atom_step, hgemm_ldsm_b,
    hgemm_ldsm_b_pair_step, ldsm_a_src, ldsm_b_src, mma_atom_offsets, sgemm_frag_a, sgemm_frag_b,
    sgemm_frag_c, sgemm_load_a, sgemm_load_a_nt, sgemm_load_b, transpose_divides, transpose_load,
    transpose_store, At, MmaOffsets, BK, BM, BN, HGEMM_BK, HGEMM_BM, HGEMM_BN, HGEMM_STAGE,
    HGEMM_STAGES, TT,
};
use crate::smem::{SMEM, SMEM_BIG};
use layout_core::atom::{
    SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x1_LDSM_N, SM75_U32x2_LDSM_N,
    SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN as MmaF16,
    SM80_16x8x16_F32F16F16F32_TN as MmaF32,
};
use layout_core::instantiate;
use layout_device::{
    block_idx, cp_async_commit, cp_async_wait, cp_async_wait_all, each, fma, sync_threads,
    thread_idx, trap, Global, GlobalMut, LdsmInstr, MmaInstr, Smem, F4,
};

/// `dst = src^T`, n x n: each block moves one 64 x 64 tile through a
/// swizzled shared tile, 16-byte loads and stores on both sides.
#[inline(always)]
pub fn transpose(n: usize, src: Global<F4>, dst: GlobalMut<F4>) {
    if !transpose_divides(n) {
        trap()
    }
    let (blk, tid) = (block_idx(), thread_idx());
    let tile = Smem::window::<SMEM>(0, TT * TT);
    let loads = transpose_load(n, blk, tid);
    let vals = loads.map(|(g, _)| src.ld(g));
    for ((_, s), v) in loads.into_iter().zip(vals) {
        tile.st4(s, v);
    }
    sync_threads();
    for (g, offs) in transpose_store(n, blk, tid) {
        dst.st(g, F4(offs.map(|o| tile.ld(o))));
    }
}

/// Eight values of a fragment, values `8 kk .. 8 kk + 7`, from the
/// thread's window over its partition: two 16-byte shared loads (the maps
/// put them in runs of 4; `ld4` traps on a misaligned offset).
#[inline(always)]
fn frag8(w: Smem, f: &impl At, kk: usize) -> [f32; 8] {
    let (lo, hi) = (w.ld4(f.rel(8 * kk)).0, w.ld4(f.rel(8 * kk + 4)).0);
    [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
}

/// C = A · B: each block computes a 128 x 128 tile of C, k-blocks of 8
/// double-buffered in shared memory (the next one is fetched into
/// registers while this one is multiplied), each thread an 8 x 8
/// accumulator by FMA.
#[inline(always)]
pub fn sgemm(m: usize, n: usize, k: usize, a: Global<F4>, b: Global<F4>, c: GlobalMut<F4>) {
    sgemm_kernel::<BM, BN, BK, false, false>(m, n, k, a, b, c)
}

/// [`sgemm`] with A stored M-major (column-major), as CuTe's NT SGEMM:
/// both tiles are copied by 16-byte loads and 16-byte shared stores.
#[inline(always)]
pub fn sgemm_nt(m: usize, n: usize, k: usize, a: Global<F4>, b: Global<F4>, c: GlobalMut<F4>) {
    sgemm_kernel::<BM, BN, BK, true, true>(m, n, k, a, b, c)
}

/// The SGEMM for a (BM, BN, BK) block tile, written once for any tile as
/// the tutorial's kernels (`#[instantiate]`): the maps take the tile sizes
/// as const parameters; the 16 x 16-thread TiledMMA with 8 x 8 values per
/// thread and the copy threads are tuned for the sizes instantiated here.
/// `A_M_MAJOR`: A stored M-major; `BACK_AND_FORTH`: the FMA order of
/// [`outer_product`].
#[inline(always)]
#[instantiate((128, 128, 8, false, false), (128, 128, 8, true, true))]
fn sgemm_kernel<
    const BM: usize,
    const BN: usize,
    const BK: usize,
    const A_M_MAJOR: bool,
    const BACK_AND_FORTH: bool,
>(
    m: usize,
    n: usize,
    k: usize,
    a: Global<F4>,
    b: Global<F4>,
    c: GlobalMut<F4>,
) {
    // `maps::tile_divides((BM, BN, BK), ..)` on the host (written out: the
    // call spills 4 bytes in sgemm_f32).
    if m % BM != 0 || n % BN != 0 || k % BK != 0 || k == 0 {
        trap()
    }
    let ((bx, by), tid) = (block_idx(), thread_idx());
    const {
        assert!(
            BM == 128 && BN == 128,
            "the TiledMMA covers 128 x 128: 16 x 16 threads of 8 x 8 values"
        )
    };
    // `f32` of one stage of shared memory: A's tile then B's.
    const STAGE: usize = (BM + BN) * BK;
    let ca = if A_M_MAJOR {
        sgemm_load_a_nt::<BM, BK>(m, k, by, tid)
    } else {
        sgemm_load_a::<BM, BK>(m, k, by, tid)
    };
    let cb = sgemm_load_b::<BM, BN, BK>(k, n, bx, tid);
    let (fa, fb) = (sgemm_frag_a(tid), sgemm_frag_b(tid));
    let fetch = |kt: usize| {
        (
            a.ld(ca.global + kt * ca.step),
            b.ld(cb.global + kt * cb.step),
        )
    };
    let stage = |(va, vb): (F4, F4), base: usize| {
        let w = Smem::window::<SMEM>(base, STAGE);
        if A_M_MAJOR {
            // The maps: A's 4 floats are contiguous, as B's.
            w.st4(ca.shared[0], va);
        } else {
            for (o, v) in ca.shared.into_iter().zip(va.0) {
                w.st(o, v);
            }
        }
        w.st4(cb.shared[0], vb);
    };
    let mut acc = [[0f32; 8]; 8];
    let kts = k / BK;
    stage(fetch(0), 0);
    sync_threads();
    for kt in 0..kts {
        let cur = (kt % 2) * STAGE;
        let next = (kt + 1 < kts).then(|| fetch(kt + 1));
        let (wa, wb) = (
            Smem::window::<SMEM>(cur + fa.base(), fa.span()),
            Smem::window::<SMEM>(cur + fb.base(), fb.span()),
        );
        // The k-block as straight code, k-steps by pairs (both steps'
        // fragments loaded first): ptxas schedules each pair's shared loads
        // among the previous pair's FMAs, within the 128 registers that the
        // launch bounds (device.rs's SGEMM_*_LAUNCH_BOUNDS, which layout-ptx
        // writes into the PTX) leave for two blocks per SM.
        // H200 (docs/gpu.md): NT 49.2 TFLOP/s, against 44.3 for the pairs in
        // a loop with 16-byte stores of C.
        const { assert!(BK == 8, "four pairs of k-steps") };
        each::<4>(|h| {
            let (av, bv) = (frag8(wa, &fa, 2 * h), frag8(wb, &fb, 2 * h));
            let (av2, bv2) = (frag8(wa, &fa, 2 * h + 1), frag8(wb, &fb, 2 * h + 1));
            outer_product::<BACK_AND_FORTH>(&mut acc, av, bv);
            outer_product::<BACK_AND_FORTH>(&mut acc, av2, bv2);
        });
        if let Some(v) = next {
            stage(v, STAGE - cur);
        }
        sync_threads();
    }
    // Scalar stores: 16-byte ones would tie each four accumulators to four
    // aligned registers, and ptxas then pairs accumulators and fragment
    // values in the same register bank (a conflict on most FMAs of the
    // main loop; docs/gpu.md).
    let fc = sgemm_frag_c::<BM, BN>(m, n, (bx, by), tid);
    let c = c.floats();
    for (i, row) in acc.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            c.st(fc.at(i + 8 * j), *v);
        }
    }
}

/// `acc += a bᵀ`, by pairs of columns (j, j + 1) for each row i, the rows
/// in order or (`BACK_AND_FORTH`) back and forth from one pair to the
/// next. ptxas keeps the pair of B values and the A value in its operand
/// reuse caches, so most FMAs read only their accumulator afresh, as in
/// CuTe's compiled SGEMM. Which order lets ptxas allocate the accumulators
/// clear of the fragments' register banks varies from kernel to kernel;
/// each SGEMM takes the one it ran fastest with (docs/gpu.md).
#[inline(always)]
fn outer_product<const BACK_AND_FORTH: bool>(acc: &mut [[f32; 8]; 8], a: [f32; 8], b: [f32; 8]) {
    for j in (0..8).step_by(2) {
        for r in 0..8 {
            let i = if BACK_AND_FORTH && j % 4 == 2 {
                7 - r
            } else {
                r
            };
            acc[i][j] = fma(a[i], b[j], acc[i][j]);
            acc[i][j + 1] = fma(a[i], b[j + 1], acc[i][j + 1]);
        }
    }
}

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
