//! The SGEMM's maps (`sgemm_f32`, `sgemm_nt_f32`): a 128 x 128 x 8 CTA
//! tile, a TiledMMA of `UniversalFMA` over 16 x 16 threads, the copies of
//! A and B into a shared stage, and each thread's fragments.

use crate::maps::GemmPlan;
use crate::maps::{index, Offsets, THREADS};

pub(crate) mod body;
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
mod entry;
use layout_core::atom::mma::{make_tiled_mma, PartA, PartB, PartC, TiledMma};
use layout_core::atom::UniversalFMA;
use layout_core::tensor::partition::{local_partition, local_tile, ThreadLayout};
use layout_core::{instantiate, layout, layout_type, Layout, Underscore as X, C};

/// SGEMM CTA tile: rows of C. The kernel and its maps are written once for
/// any (BM, BN, BK) as const parameters (CuTe's template parameters) and
/// instantiated (`#[instantiate]`) for these sizes, the ones its TiledMMA
/// (16 x 16 threads, 8 x 8 values each) and copy threads were tuned for.
pub const BM: usize = 128;
/// SGEMM CTA tile: columns of C.
pub const BN: usize = 128;
/// SGEMM k-block.
pub const BK: usize = 8;
/// `f32` of one stage of shared memory: A's tile then B's.
pub const STAGE: usize = (BM + BN) * BK;

/// The shared A tile's layout.
pub type SmemA = layout_type!((C<BM>, C<BK>):(1, C<BM>));
/// The shared B tile's layout.
pub type SmemB = layout_type!((C<BN>, C<BK>):(1, C<BN>));
/// A block's tile of C (m x n, row-major) as `local_tile` makes it.
pub type TileC = Layout<(C<BM>, C<BN>), (usize, layout_core::S<layout_core::typenum::U1>)>;

/// Shared A tile of one stage, M-major: `(m, k)` at `k * BM + m`.
pub fn sgemm_smem_a() -> SmemA {
    layout!((C<BM>, C<BK>):(1, C<BM>))
}

/// Shared B tile of one stage (after A's), N-major: `(n, k)` at
/// `BM * BK + k * BN + n`.
pub fn sgemm_smem_b() -> SmemB {
    layout!((C<BN>, C<BK>):(1, C<BN>))
}

/// The M and N permutation of the TiledMMA: thread t's i-th value lies at
/// `4t + (i % 4) + 64 (i / 4)`, so its values come in runs of 4 (one
/// 16-byte shared load) and a warp's loads hit every bank once.
pub type SgemmPerm = layout_type!((16, 4, 2):(4, 1, 64));

/// The SGEMM's threads over its 16 x 16 grid of `UniversalFMA` atoms, each
/// warp a 4 x 8 block: thread `t0 + 4 t1 + 32 t2 + 128 t3` computes atom
/// `(t0 + 4 t2, t1 + 8 t3)`. A warp's fragment loads then read 4 distinct
/// A and 8 distinct B chunks (16 and 2 for a 16 x 2 block).
pub type SgemmThreads = layout_type!(((4, 4), (8, 2), 1):((1, 32), (4, 128), 0));

/// The SGEMM's TiledMMA: `UniversalFMA` over [`SgemmThreads`], M and N
/// permuted by [`SgemmPerm`].
pub type SgemmMma = TiledMma<UniversalFMA, SgemmThreads, (SgemmPerm, SgemmPerm, X)>;

/// The value of [`SgemmMma`].
pub fn sgemm_mma() -> SgemmMma {
    make_tiled_mma(
        UniversalFMA,
        SgemmThreads::default(),
        (SgemmPerm::default(), SgemmPerm::default(), X),
    )
}

/// Threads copying A's k-block (BM rows x BK/4 chunks of 4 floats): BK/4
/// threads per row, so a warp reads 16 rows of 32 contiguous bytes. The
/// third mode (one thread) spans the k-blocks.
pub fn sgemm_a_threads() -> layout_type!((C<BM>, C<{ BK / 4 }>, 1):(C<{ BK / 4 }>, 1, 0)) {
    layout!((C<BM>, C<{ BK / 4 }>, 1):(C<{ BK / 4 }>, 1, 0))
}

/// Threads copying B's k-block (32 chunks x BK rows, B seen as (n/4, k)):
/// a warp reads one row of 512 contiguous bytes.
pub fn sgemm_b_threads() -> layout_type!((32, C<BK>, 1):(1, 32, 0)) {
    layout!((32, C<BK>, 1):(1, 32, 0))
}

/// Where one thread copies one k-block of A or B: the `F4` index in the
/// matrix of k-block 0 and the step to the next k-block (both from
/// `local_tile` with the k-block mode kept, `(b, _)`), and the `f32`
/// offsets in the shared stage of its 4 floats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Copy4 {
    /// `F4` index of k-block 0.
    pub global: usize,
    /// `F4` step from one k-block to the next.
    pub step: usize,
    /// Shared offsets of the 4 floats.
    pub shared: [usize; 4],
}

/// Thread `tid` copying A (m x k, row-major) for block row `by`.
#[inline(always)]
#[instantiate((128, 8))]
pub fn sgemm_load_a<const BM: usize, const BK: usize>(
    m: usize,
    k: usize,
    by: usize,
    tid: usize,
) -> Copy4 {
    let kq = k / 4;
    // (BM, BK/4, k/BK): the block row's tiles, one per k-block.
    let tiles = local_tile(
        index(layout!((m, kq):(kq, 1))),
        (C::<BM>, C::<{ BK / 4 }>),
        (by, X),
    );
    let thr = layout!((C<BM>, C<{ BK / 4 }>, 1):(C<{ BK / 4 }>, 1, 0));
    let mine = local_partition(tiles, thr, tid);
    let (mt, kc, _) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("sgemm: thread {tid} of {THREADS}"),
    };
    // The chunk's 4 floats are k = 4 kc .. 4 kc + 3 of row mt.
    let s = layout!((C<BM>,(4, C<{ BK / 4 }>)):(1,(C<BM>, C<{ 4 * BM }>)));
    Copy4 {
        global: mine.data_offset(),
        step: mine.layout().crd2idx((0usize, 0usize, 1usize)),
        shared: core::array::from_fn(|j| s.crd2idx((mt, (j, kc)))),
    }
}

/// Thread `tid` copying B (k x n, row-major) for block column `bx`; its 4
/// floats are contiguous in the shared stage (one 16-byte store).
#[inline(always)]
#[instantiate((128, 128, 8))]
pub fn sgemm_load_b<const BM: usize, const BN: usize, const BK: usize>(
    k: usize,
    n: usize,
    bx: usize,
    tid: usize,
) -> Copy4 {
    load_k_rows::<BN, BK>(n, k, bx, tid, BM * BK)
}

/// Thread `tid` copying A stored M-major (column-major m x k, BLAS's "N"
/// as CuTe's NT SGEMM takes it) for block row `by`: the same copy as B's,
/// into A's half of the stage.
#[inline(always)]
#[instantiate((128, 8))]
pub fn sgemm_load_a_nt<const BM: usize, const BK: usize>(
    m: usize,
    k: usize,
    by: usize,
    tid: usize,
) -> Copy4 {
    load_k_rows::<BM, BK>(m, k, by, tid, 0)
}

/// A k-block of a matrix stored as k rows of `ext` floats (B, or A
/// M-major) for block `blk` of `B` rows, into the stage at `base`:
/// (ext/4, k) tiled by (B/4 chunks, BK rows), [`sgemm_b_threads`] over the
/// tile; shared `(i, k)` at `base + k * B + i`, so each thread's 4 floats
/// are one 16-byte store.
#[inline(always)]
#[instantiate((128, 8))]
fn load_k_rows<const B: usize, const BK: usize>(
    ext: usize,
    k: usize,
    blk: usize,
    tid: usize,
    base: usize,
) -> Copy4 {
    let q = ext / 4;
    // (B/4, BK, k/BK) over (ext/4, k): the block's tiles, one per k-block.
    let tiles = local_tile(
        index(layout!((q, k):(1, q))),
        (C::<{ B / 4 }>, C::<BK>),
        (blk, X),
    );
    let thr = layout!((C<{ B / 4 }>, C<BK>, 1):(1, C<{ B / 4 }>, 0));
    let mine = local_partition(tiles, thr, tid);
    let (c, r, _) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("sgemm: thread {tid} of {THREADS}"),
    };
    let o = base + 4 * layout!((C<{ B / 4 }>, C<BK>):(1, C<{ B / 4 }>)).crd2idx((c, r));
    Copy4 {
        global: mine.data_offset(),
        step: mine.layout().crd2idx((0usize, 0usize, 1usize)),
        shared: [o, o + 1, o + 2, o + 3],
    }
}

/// Thread `tid`'s A fragment in the shared stage: value `i + 8 k` is the A
/// value it multiplies at step k for its i-th row (`partition_A` of the
/// shared A tile by the TiledMMA).
#[inline(always)]
pub fn sgemm_frag_a(tid: usize) -> Offsets<PartA<SgemmMma, SmemA>> {
    Offsets::of(
        sgemm_mma()
            .get_slice(tid)
            .partition_a(index(sgemm_smem_a())),
    )
}

/// Thread `tid`'s B fragment: value `j + 8 k`, as [`sgemm_frag_a`]
/// (`partition_B`), offsets past the A tile.
#[inline(always)]
pub fn sgemm_frag_b(tid: usize) -> Offsets<PartB<SgemmMma, SmemB>> {
    let mut o = Offsets::of(
        sgemm_mma()
            .get_slice(tid)
            .partition_b(index(sgemm_smem_b())),
    );
    o.base += BM * BK;
    o
}

/// Thread `tid` of block `(bx, by)`: value `i + 8 j` is its accumulator
/// (i, j), at this offset of C (m x n, row-major; `partition_C` of the
/// block's (BM, BN) tile).
#[inline(always)]
#[instantiate((128, 128))]
pub fn sgemm_frag_c<const BM: usize, const BN: usize>(
    m: usize,
    n: usize,
    (bx, by): (usize, usize),
    tid: usize,
) -> Offsets<
    PartC<SgemmMma, Layout<(C<BM>, C<BN>), (usize, layout_core::S<layout_core::typenum::U1>)>>,
> {
    let tile = local_tile(index(layout!((m, n):(n, 1))), (C::<BM>, C::<BN>), (by, bx));
    Offsets::of(sgemm_mma().get_slice(tid).partition_c(tile))
}

/// `sgemm_f32`: C = A · B, f32, A (M x K) and B (K x N) row-major.
pub const SGEMM: GemmPlan = GemmPlan {
    entry: "sgemm_f32",
    tile: (BM, BN, BK),
    threads: THREADS,
};

/// `sgemm_nt_f32`: as [`SGEMM`] with A M-major (column-major).
pub const SGEMM_NT: GemmPlan = GemmPlan {
    entry: "sgemm_nt_f32",
    ..SGEMM
};

// What the build tool (`layout-ptx`, run by `kernels/scripts/build-ptx.sh`)
// reads for this kernel's entry points, each const named after its entry
// point: launch bounds it writes into the PTX, and checks on the PTX. They
// generate no code.

/// `sgemm_f32`'s launch bounds (CUDA's `__launch_bounds__(256, 2)`, which
/// Rust cannot state): 256 threads (its 16 x 16 TiledMMA) and two blocks
/// per SM, so ptxas keeps it within 128 registers.
pub const SGEMM_F32_LAUNCH_BOUNDS: (u32, u32) = (256, 2);
/// `sgemm_nt_f32`'s launch bounds, as [`SGEMM_F32_LAUNCH_BOUNDS`].
pub const SGEMM_NT_F32_LAUNCH_BOUNDS: (u32, u32) = (256, 2);
/// No division: its shapes are static, and the run-time sizes are only
/// divided by static powers of two.
pub const SGEMM_F32_NO_DIVISION: bool = true;
/// No division: its shapes are static, and the run-time sizes are only
/// divided by static powers of two.
pub const SGEMM_NT_F32_NO_DIVISION: bool = true;

#[cfg(test)]
mod tests {
    //! Every thread of every block, on the CPU: the maps, run as the kernel
    //! runs them, give the exact product; vector accesses are contiguous
    //! and aligned, and a warp's shared-memory accesses are free of bank
    //! conflicts.
    use super::*;
    use crate::maps::conflict_free;
    use crate::maps::At;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    /// Runs the SGEMM's maps as the kernel does, block by block, k-block by
    /// k-block, on the CPU.
    fn sgemm_by_maps(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], nt: bool) -> Vec<f32> {
        let mut c = vec![f32::NAN; m * n];
        for by in 0..m / BM {
            for bx in 0..n / BN {
                let mut acc = vec![[[0f32; 8]; 8]; THREADS];
                for kt in 0..k / BK {
                    let mut smem = vec![None; STAGE];
                    for tid in 0..THREADS {
                        let ca = if nt {
                            sgemm_load_a_nt::<BM, BK>(m, k, by, tid)
                        } else {
                            sgemm_load_a::<BM, BK>(m, k, by, tid)
                        };
                        let cb = sgemm_load_b::<BM, BN, BK>(k, n, bx, tid);
                        let (ga, gb) = (ca.global + kt * ca.step, cb.global + kt * cb.step);
                        for j in 0..4 {
                            for (s, v) in
                                [(ca.shared[j], a[4 * ga + j]), (cb.shared[j], b[4 * gb + j])]
                            {
                                assert!(smem[s].is_none(), "shared slot {s} written twice");
                                smem[s] = Some(v);
                            }
                        }
                    }
                    for (tid, acc) in acc.iter_mut().enumerate() {
                        let (fa, fb) = (sgemm_frag_a(tid), sgemm_frag_b(tid));
                        for kk in 0..BK {
                            for (i, row) in acc.iter_mut().enumerate() {
                                for (j, x) in row.iter_mut().enumerate() {
                                    let av =
                                        smem[fa.at(i + 8 * kk)].expect("A read before written");
                                    let bv =
                                        smem[fb.at(j + 8 * kk)].expect("B read before written");
                                    *x += av * bv;
                                }
                            }
                        }
                    }
                }
                for (tid, acc) in acc.iter().enumerate() {
                    let fc = sgemm_frag_c::<BM, BN>(m, n, (bx, by), tid);
                    for (i, row) in acc.iter().enumerate() {
                        for (j, x) in row.iter().enumerate() {
                            let o = fc.at(i + 8 * j);
                            assert!(c[o].is_nan(), "C[{o}] written twice");
                            c[o] = *x;
                        }
                    }
                }
            }
        }
        c
    }

    #[test]
    fn sgemm_maps_compute_the_product() {
        let (m, n, k) = (256, 384, 24);
        // Small integers: every sum is exact in f32, in any order.
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        // A row-major (a[i k + p]), then the same values M-major (a[p m + i]).
        let a_nt: Vec<f32> = (0..m * k).map(|x| a[(x % m) * k + x / m]).collect();
        for (nt, a_in) in [(false, &a), (true, &a_nt)] {
            let c = sgemm_by_maps(m, n, k, a_in, &b, nt);
            for i in 0..m {
                for j in 0..n {
                    let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                    assert_eq!(c[i * n + j], want, "C[{i}][{j}], A M-major: {nt}");
                }
            }
        }
    }

    #[test]
    fn sgemm_fragments_are_vectors_without_bank_conflicts() {
        let (m, n) = (4096, 4096);
        for tid in 0..THREADS {
            let (fa, fb) = (sgemm_frag_a(tid), sgemm_frag_b(tid));
            let fc = sgemm_frag_c::<BM, BN>(m, n, (7, 9), tid);
            for h in 0..2 {
                for kk in 0..BK {
                    for f in [fa.at(8 * kk + 4 * h), fb.at(8 * kk + 4 * h)] {
                        assert_eq!(f % 4, 0);
                    }
                    for j in 0..4 {
                        assert_eq!(fa.at(8 * kk + 4 * h + j), fa.at(8 * kk + 4 * h) + j);
                        assert_eq!(fb.at(8 * kk + 4 * h + j), fb.at(8 * kk + 4 * h) + j);
                    }
                }
                for i in 0..8 {
                    let o = fc.at(i + 8 * 4 * h);
                    assert_eq!(o % 4, 0);
                    for j in 0..4 {
                        assert_eq!(fc.at(i + 8 * (4 * h + j)), o + j);
                    }
                }
            }
            let ca = sgemm_load_a::<BM, BK>(m, 4096, 9, tid);
            assert_eq!(sgemm_load_b::<BM, BN, BK>(4096, n, 7, tid).shared[0] % 4, 0);
            // A's chunk: 4 consecutive k of one row, k-major in shared.
            assert_eq!(ca.shared.map(|s| s - ca.shared[0]), [0, 128, 256, 384]);
        }
        for warp in 0..THREADS / 32 {
            for kk in 0..BK {
                for h in 0..2 {
                    let sa: Vec<usize> = (warp * 32..warp * 32 + 32)
                        .map(|t| sgemm_frag_a(t).at(8 * kk + 4 * h))
                        .collect();
                    let sb: Vec<usize> = (warp * 32..warp * 32 + 32)
                        .map(|t| sgemm_frag_b(t).at(8 * kk + 4 * h))
                        .collect();
                    assert!(
                        conflict_free(&sa, 4) && conflict_free(&sb, 4),
                        "warp {warp}: {sa:?} {sb:?}"
                    );
                }
            }
            let sb: Vec<usize> = (warp * 32..warp * 32 + 32)
                .map(|t| sgemm_load_b::<BM, BN, BK>(4096, n, 0, t).shared[0])
                .collect();
            assert!(conflict_free(&sb, 4), "B stores, warp {warp}");
        }
    }

    #[test]
    fn sgemm_layouts_print_as_cute() {
        // Hand-derived: the thread at grid row tm holds rows 4 tm + (0..4)
        // and 64 + 4 tm + (0..4): the A partition of (128,8):(1,128) is
        // (MMA, MMA_M, MMA_K) = (one value, (4,2), 8) with strides
        // (_, (1,64), 128). Thread 17 = 1 + 4 * 4 is at grid (1, 4), so it
        // starts at row 4 of A and column 16 of B; thread 37 = 1 + 4 + 32 at
        // (5, 1): row 20, column 4.
        for (t, a0, b0) in [(17, 4, 16), (37, 20, 4)] {
            let mma = sgemm_mma().get_slice(t);
            let part = mma.partition_a(index(sgemm_smem_a()));
            assert_eq!(
                part.layout().to_string(),
                "(_1,(_4,_2),_8):(_0,(_1,_64),_128)"
            );
            assert_eq!(part.data_offset(), a0);
            assert_eq!(mma.partition_b(index(sgemm_smem_b())).data_offset(), b0);
        }
    }
}
