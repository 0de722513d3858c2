//! The SGEMMs' body (`sgemm_f32`, `sgemm_nt_f32`): a 128 x 128 tile of C
//! per block over double-buffered k-blocks, every offset from the plan
//! ([`super`]).

use crate::maps::{
    sgemm_frag_a, sgemm_frag_b, sgemm_frag_c, sgemm_load_a, sgemm_load_a_nt, sgemm_load_b, At, BK,
    BM, BN,
};
use crate::smem::SMEM;
use layout_core::instantiate;
use layout_device::{
    block_idx, each, fma, sync_threads, thread_idx, trap, Global, GlobalMut, Smem, F4,
};

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
