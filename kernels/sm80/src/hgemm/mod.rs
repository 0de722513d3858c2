//! The HGEMM's maps (`hgemm_f32`, `hgemm_f16`): C = A · Bᵀ on tensor cores,
//! a 128 x 128 CTA tile over k-blocks of 32, a TiledMMA of m16n8k16 atoms
//! over 2 x 2 warps, swizzled shared stages filled by `cp.async`, fragments
//! loaded by `ldmatrix`.

use crate::atoms::ldsm_a_src;
use crate::maps::GemmPlan;
use crate::maps::{index, Offsets};

pub(crate) mod body;
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
mod entry;
use layout_core::algebra::{composition, ComposedLayout, Swizzle};
use layout_core::atom::mma::{make_tiled_mma, PartC, TiledMma};
use layout_core::tensor::partition::{local_partition, local_tile, ThreadLayout};
use layout_core::{layout, layout_type, Layout, Underscore as X, C};

/// HGEMM CTA tile: rows of C, and of A's tile in a stage.
pub const HGEMM_BM: usize = 128;
/// HGEMM CTA tile: columns of C, and rows of B's tile in a stage (B seen
/// as N x K).
pub const HGEMM_BN: usize = 128;
/// HGEMM k-block (halves).
pub const HGEMM_BK: usize = 32;
/// Threads per HGEMM block: 4 warps, 2 x 2.
pub const HGEMM_THREADS: usize = 128;
/// Shared stages of the `cp.async` pipeline.
pub const HGEMM_STAGES: usize = 3;
/// Halves of one stage: A's `HGEMM_BM x HGEMM_BK` tile, then B's
/// `HGEMM_BN x HGEMM_BK`.
pub const HGEMM_STAGE: usize = (HGEMM_BM + HGEMM_BN) * HGEMM_BK;

// A's and B's tiles in a stage have one shape: one copy map
// (`hgemm_copy`) and one swizzled layout (`hgemm_smem`) serve both.
const _: () = assert!(
    HGEMM_BM == HGEMM_BN,
    "the HGEMM's stage copies and swizzle take A's and B's tiles as one shape"
);

/// A's tile in a stage before the swizzle: `HGEMM_BM x HGEMM_BK` halves,
/// row-major (`(m, k)` at `m * HGEMM_BK + k`). The TiledMMA's
/// `partition_A` of it places a warp's A atoms ([`hgemm_ldsm_a`]).
pub type HgemmTileA = layout_type!((C<HGEMM_BM>, C<HGEMM_BK>):(C<HGEMM_BK>, 1));

/// The value of [`HgemmTileA`].
pub fn hgemm_tile_a() -> HgemmTileA {
    HgemmTileA::default()
}

/// B's tile in a stage before the swizzle: `HGEMM_BN x HGEMM_BK` halves
/// (B seen as N x K), row-major (`(n, k)` at `n * HGEMM_BK + k`). The
/// TiledMMA's `partition_B` of it places a warp's B atoms
/// ([`hgemm_ldsm_b`]).
pub type HgemmTileB = layout_type!((C<HGEMM_BN>, C<HGEMM_BK>):(C<HGEMM_BK>, 1));

/// The value of [`HgemmTileB`].
pub fn hgemm_tile_b() -> HgemmTileB {
    HgemmTileB::default()
}

/// A block's `HGEMM_BM x HGEMM_BN` tile of C (m x n, row-major) as
/// `local_tile` makes it: the tile [`hgemm_frag_c`] partitions.
pub type HgemmTileC =
    Layout<(C<HGEMM_BM>, C<HGEMM_BN>), (usize, layout_core::S<layout_core::typenum::U1>)>;

/// The HGEMM's TiledMMA: the m16n8k16 atom (f32 accumulators) over 2 x 2
/// warps (`(2,2,1):(1,2,0)`): a 32 x 16 x 16 tile, repeated over the CTA's
/// 128 x 128 (each thread 4 x 8 atoms of 4 accumulators).
pub type HgemmMma = TiledMma<
    layout_core::atom::SM80_16x8x16_F32F16F16F32_TN,
    layout_type!((2, 2, 1):(1, 2, 0)),
    (X, X, X),
>;

/// The value of [`HgemmMma`].
pub fn hgemm_mma() -> HgemmMma {
    make_tiled_mma(
        layout_core::atom::SM80_16x8x16_F32F16F16F32_TN,
        layout!((2,2,1):(1,2,0)),
        (X, X, X),
    )
}

/// The type of [`hgemm_smem`].
pub type HgemmSmem = ComposedLayout<Swizzle<2, 3, 3>, HgemmTileA>;

/// A stage's 128 x 32 f16 tile, A's ([`HgemmTileA`]) or B's (the same
/// shape, [`HgemmTileB`]), swizzled `Sw<2,3,3>`: the four 16-byte chunks
/// of a row are permuted by row bits 1-2, so the 8 rows an `ldmatrix`
/// reads at one column and the chunks a warp's `cp.async` writes hit
/// distinct banks.
pub fn hgemm_smem() -> HgemmSmem {
    composition(Swizzle::<2, 3, 3>, hgemm_tile_a())
}

/// Threads copying a 128 x 32 f16 tile as 128 x 4 chunks of 16 bytes: 4
/// threads per row, 32 rows at a time. The third mode spans the k-blocks.
pub fn hgemm_copy_threads() -> layout_type!((32, 4, 1):(4, 1, 0)) {
    layout!((32,4,1):(4,1,0))
}

/// Where thread `tid` copies four 16-byte chunks of block row `blk` of a
/// row-major `rows x k` f16 matrix (A, or B seen as N x K): the `F4` index
/// of each chunk in k-block 0, the step per k-block, and each chunk's half
/// offset in the stage tile (swizzled).
pub fn hgemm_copy(rows: usize, k: usize, blk: usize, tid: usize) -> HCopy {
    let kq = k / 8;
    // The stage tile in F4 units: HGEMM_BM (= HGEMM_BN) rows of
    // HGEMM_BK / 8 chunks.
    let tiles = local_tile(
        index(layout!((rows, kq):(kq, 1))),
        (C::<HGEMM_BM>, C::<{ HGEMM_BK / 8 }>),
        (blk, X),
    );
    let thr = hgemm_copy_threads();
    let mine = local_partition(tiles, thr, tid);
    let (r, ch, _) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("hgemm: thread {tid} of {HGEMM_THREADS}"),
    };
    let l = mine.layout();
    let sw = hgemm_smem();
    HCopy {
        global: core::array::from_fn(|v| mine.data_offset() + l.crd2idx((v, 0usize, 0usize))),
        step: l.crd2idx((0usize, 0usize, 1usize)),
        global_chunk: l.crd2idx((1usize, 0usize, 0usize)),
        shared: core::array::from_fn(|v| sw.crd2idx((r + 32 * v, 8 * ch))),
        // 32 rows of 32 halves: above the bits the swizzle mixes.
        shared_chunk: sw.crd2idx((32usize, 0usize)) - sw.crd2idx((0usize, 0usize)),
    }
}

/// One thread's four chunks of a stage copy (see [`hgemm_copy`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HCopy {
    /// `F4` (8 halves) index of each chunk in k-block 0.
    pub global: [usize; 4],
    /// `F4` step from one k-block to the next.
    pub step: usize,
    /// `F4` step from one chunk to the next (`global[v] = global[0] + v *
    /// global_chunk`), so a kernel keeps one address.
    pub global_chunk: usize,
    /// Half offset of each chunk in the stage tile.
    pub shared: [usize; 4],
    /// Half step from one chunk to the next (`shared[v] = shared[0] + v *
    /// shared_chunk`: the swizzle leaves it as it is).
    pub shared_chunk: usize,
}

/// The row address `ldmatrix.x4` takes from thread `tid` for the A
/// fragment of its warp's atom `i` (MMA_M) at k-step `s` (MMA_K): the
/// atom's 16 x 16 block starts where the warp's lane 0 has its value 0
/// (`partition_A` of the stage tile), and the lane names the row of that
/// block that [`ldsm_a_src`] gives. A half offset in the swizzled tile.
pub fn hgemm_ldsm_a(tid: usize, i: usize, s: usize) -> usize {
    let p = hgemm_mma()
        .get_slice(tid - tid % 32)
        .partition_a(index(hgemm_tile_a()));
    let origin = p.data_offset() + p.layout().crd2idx((0usize, i, s));
    let o = ldsm_a_src(tid % 32);
    hgemm_smem()
        .swizzle
        .apply(origin + (o / 16) * HGEMM_BK + o % 16)
}

/// How far apart (halves) a warp's A atoms along MMA_M are in the stage
/// tile: the static stride of `partition_A`'s atom mode. The swizzle leaves
/// it as it is (it moves only bits above the ones the swizzle mixes; checked
/// for every thread and atom by the tests), so a kernel keeps one
/// `ldmatrix` address per k-step and reaches the other atoms at constant
/// offsets.
pub fn hgemm_ldsm_a_atom_step() -> usize {
    let p = hgemm_mma().get_slice(0).partition_a(index(hgemm_tile_a()));
    p.layout().crd2idx((0usize, 1usize, 0usize)) - p.layout().crd2idx((0usize, 0usize, 0usize))
}

/// How far apart (halves) the B address of consecutive atom pairs `j2` is:
/// two strides of `partition_B`'s atom mode, unchanged by the swizzle as
/// [`hgemm_ldsm_a_atom_step`].
pub fn hgemm_ldsm_b_pair_step() -> usize {
    let p = hgemm_mma().get_slice(0).partition_b(index(hgemm_tile_b()));
    p.layout().crd2idx((0usize, 2usize, 0usize)) - p.layout().crd2idx((0usize, 0usize, 0usize))
}

/// The row address `ldmatrix.x4` takes from thread `tid` for the B
/// fragments of its warp's atoms `2 j2` and `2 j2 + 1` (MMA_N) at k-step
/// `s`: matrices 0 and 1 are atom `2 j2`'s k 0-7 and 8-15, matrices 2 and 3
/// atom `2 j2 + 1`'s (registers 0-1 and 2-3 are the two atoms' B).
pub fn hgemm_ldsm_b(tid: usize, j2: usize, s: usize) -> usize {
    let p = hgemm_mma()
        .get_slice(tid - tid % 32)
        .partition_b(index(hgemm_tile_b()));
    let lane = tid % 32;
    let (q, row) = (lane / 8, lane % 8);
    let origin = p.data_offset() + p.layout().crd2idx((0usize, 2 * j2 + q / 2, s));
    hgemm_smem()
        .swizzle
        .apply(origin + row * HGEMM_BK + 8 * (q % 2))
}

/// Thread `tid` of block `(bx, by)`: value `v + 4 (i + 4 j)` is its
/// accumulator v of atom (i, j), at this offset of C (m x n, row-major,
/// in elements: f32 for `hgemm_f32`, f16 for `hgemm_f16`; `partition_C`
/// of the block's tile).
pub fn hgemm_frag_c(
    m: usize,
    n: usize,
    (bx, by): (usize, usize),
    tid: usize,
) -> Offsets<PartC<HgemmMma, HgemmTileC>> {
    let tile = local_tile(
        index(layout!((m, n):(n, 1))),
        (C::<HGEMM_BM>, C::<HGEMM_BN>),
        (by, bx),
    );
    Offsets::of(hgemm_mma().get_slice(tid).partition_c(tile))
}

/// `hgemm_f32`: C = A · Bᵀ on tensor cores, A (M x K) and B (N x K) f16
/// row-major, f32 accumulators and C.
pub const HGEMM_F32: GemmPlan = GemmPlan {
    entry: "hgemm_f32",
    tile: (HGEMM_BM, HGEMM_BN, HGEMM_BK),
    threads: HGEMM_THREADS,
};

/// `hgemm_f16`: as [`HGEMM_F32`] with f16 accumulators and C.
pub const HGEMM_F16: GemmPlan = GemmPlan {
    entry: "hgemm_f16",
    ..HGEMM_F32
};

// What the build tool (`layout-ptx`, run by `kernels/scripts/build-ptx.sh`)
// reads for this kernel's entry points, each const named after its entry
// point: launch bounds it writes into the PTX, and checks on the PTX. They
// generate no code.

/// No division: its shapes are static, and the run-time sizes are only
/// divided by static powers of two.
pub const HGEMM_F32_NO_DIVISION: bool = true;
/// No division: its shapes are static, and the run-time sizes are only
/// divided by static powers of two.
pub const HGEMM_F16_NO_DIVISION: bool = true;

#[cfg(test)]
mod tests {
    //! Every thread of a block, on the CPU: the stage copies fill the
    //! swizzled stage once, `ldmatrix` (emulated) delivers the TiledMMA's
    //! operands, the `ldmatrix` addresses are constant steps apart, and the
    //! layouts print as CuTe prints them.
    use super::*;
    use crate::maps::At;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn hgemm_layouts_print_as_cute() {
        assert_eq!(
            hgemm_smem().to_string(),
            "Sw<2,3,3> o _0 o (_128,_32):(_32,_1)"
        );
        assert_eq!(hgemm_copy_threads().to_string(), "(_32,_4,_1):(_4,_1,_0)");
        // Hand-derived from the atom's A layout ((4,8),(2,2,2)):((32,1),
        // (16,8,128)) over the 16 x 16 (m + 16 k) block, in a row-major
        // 128 x 32 stage (m stride 32, k stride 1): a thread's values step
        // k + 1, m + 8, k + 8 (1, 256, 8); its atoms along M are 2 warps x
        // 16 rows apart (1024), along K 16 apart. Thread 37 is warp 1 (m +
        // 16) lane 5 (m 1, k 2): 16 * 32 + 1 * 32 + 2 = 546.
        let pa = hgemm_mma().get_slice(37).partition_a(index(hgemm_tile_a()));
        assert_eq!(
            pa.layout().to_string(),
            "((_2,_2,_2),_4,_2):((_1,_256,_8),_1024,_16)"
        );
        assert_eq!(pa.data_offset(), 546);
    }

    #[test]
    fn hgemm_ldsm_atoms_are_constant_steps_apart() {
        // Hand count: 2 x 2 warps of 16 x 8 atoms over 128 x 32 row-major
        // halves: a warp's A atoms are 32 rows apart (32 * 32 halves), its
        // B atom pairs 2 * 16 rows apart.
        assert_eq!(hgemm_ldsm_a_atom_step(), 1024);
        for (rows, k) in [(256, 64), (384, 4096)] {
            for blk in 0..rows / 128 {
                for tid in 0..HGEMM_THREADS {
                    let c = hgemm_copy(rows, k, blk, tid);
                    // Chunks are 32 rows apart: 32 rows of k / 8 F4, or
                    // 32 x 32 halves in the stage.
                    assert_eq!(c.global_chunk, 32 * k / 8);
                    assert_eq!(c.shared_chunk, 1024);
                    for v in 0..4 {
                        assert_eq!(c.global[v], c.global[0] + v * c.global_chunk);
                        assert_eq!(c.shared[v], c.shared[0] + v * c.shared_chunk);
                    }
                }
            }
        }
        assert_eq!(hgemm_ldsm_b_pair_step(), 1024);
        for tid in 0..HGEMM_THREADS {
            for s in 0..2 {
                for i in 0..4 {
                    assert_eq!(
                        hgemm_ldsm_a(tid, i, s),
                        hgemm_ldsm_a(tid, 0, s) + i * hgemm_ldsm_a_atom_step()
                    );
                    assert_eq!(
                        hgemm_ldsm_b(tid, i, s),
                        hgemm_ldsm_b(tid, 0, s) + i * hgemm_ldsm_b_pair_step()
                    );
                }
            }
        }
    }

    /// The HGEMM's maps for one block and one k-block, every thread: the
    /// `cp.async` chunks fill each slot of the swizzled stage once, and the
    /// registers `ldmatrix` delivers (emulated from its destination layout)
    /// are exactly the A and B values the TiledMMA's `partition_A` /
    /// `partition_B` assign to that thread; `partition_C` covers the tile
    /// once.
    #[test]
    fn hgemm_maps_feed_the_tiled_mma() {
        use layout_core::atom::{CopyAtom, SM75_U32x4_LDSM_N};
        let (m, n, k) = (256, 384, 64);
        let (by, bx, kt) = (1, 2, 1);
        // Element values name their position.
        let a: Vec<u32> = (0..m * k).map(|x| x as u32).collect();
        let b: Vec<u32> = (0..n * k).map(|x| 1_000_000 + x as u32).collect();
        let stage = |src: &[u32], rows: usize, blk: usize| {
            let mut t = vec![None; 128 * 32];
            for tid in 0..HGEMM_THREADS {
                let c = hgemm_copy(rows, k, blk, tid);
                for v in 0..4 {
                    let g = c.global[v] + kt * c.step;
                    assert_eq!(c.shared[v] % 8, 0, "16-byte chunk");
                    for e in 0..8 {
                        assert!(
                            t[c.shared[v] + e].is_none(),
                            "slot {} written twice",
                            c.shared[v] + e
                        );
                        t[c.shared[v] + e] = Some(src[8 * g + e]);
                    }
                }
            }
            t.into_iter()
                .map(|x| x.expect("slot never written"))
                .collect::<Vec<u32>>()
        };
        let (sa, sb) = (stage(&a, m, by), stage(&b, n, bx));
        let d4 = <SM75_U32x4_LDSM_N as CopyAtom>::DstLayout::default();
        // Emulates ldmatrix.x4: lane L's register r, half h.
        let ldsm =
            |tile: &[u32], addr: &dyn Fn(usize) -> usize, lane: usize, r: usize, h: usize| {
                let bit = d4.crd2idx((lane, (16 * h, r)));
                let (q, row, half) = (bit / 1024, bit % 1024 / 128, bit % 128 / 16);
                tile[addr(8 * q + row) + half]
            };
        let mma = hgemm_mma();
        for tid in 0..HGEMM_THREADS {
            let (w, lane) = (tid / 32, tid % 32);
            let pa = mma.get_slice(tid).partition_a(index(hgemm_tile_a()));
            let pb = mma.get_slice(tid).partition_b(index(hgemm_tile_b()));
            for st in 0..2 {
                for i in 0..4 {
                    let addr = |l: usize| hgemm_ldsm_a(32 * w + l, i, st);
                    for v in 0..8 {
                        let got = ldsm(&sa, &addr, lane, v / 2, v % 2);
                        let o = pa.data_offset() + pa.layout().crd2idx((v, i, st));
                        let want = a[(128 * by + o / 32) * k + 32 * kt + o % 32];
                        assert_eq!(got, want, "A: thread {tid}, atom {i}, step {st}, value {v}");
                    }
                }
                for j2 in 0..4 {
                    let addr = |l: usize| hgemm_ldsm_b(32 * w + l, j2, st);
                    for r in 0..4 {
                        for h in 0..2 {
                            let got = ldsm(&sb, &addr, lane, r, h);
                            let (j, v) = (2 * j2 + r / 2, 2 * (r % 2) + h);
                            let o = pb.data_offset() + pb.layout().crd2idx((v, j, st));
                            let want = b[(128 * bx + o / 32) * k + 32 * kt + o % 32];
                            assert_eq!(
                                got, want,
                                "B: thread {tid}, atom {j}, step {st}, value {v}"
                            );
                        }
                    }
                }
            }
        }
        let mut seen = vec![false; m * n];
        for tid in 0..HGEMM_THREADS {
            let fc = hgemm_frag_c(m, n, (bx, by), tid);
            for x in 0..128 {
                let o = fc.at(x);
                assert!(!seen[o], "C offset {o} twice");
                seen[o] = true;
                let (r, c) = (o / n, o % n);
                assert!(
                    r / 128 == by && c / 128 == bx,
                    "C offset {o} outside the block"
                );
            }
        }
        assert_eq!(seen.iter().filter(|&&x| x).count(), 128 * 128);
    }
}
