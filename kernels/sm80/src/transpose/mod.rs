//! The transpose's maps (`transpose_f32`): a block moves one 64 x 64 tile
//! of `f32` through a swizzled shared tile, 16-byte loads and stores on both
//! sides.

use crate::maps::{index, THREADS};

pub(crate) mod body;
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
mod entry;
use layout_core::algebra::{composition, ComposedLayout, Swizzle};
use layout_core::tensor::partition::{local_partition, local_tile, ThreadLayout};
use layout_core::{layout, layout_type, C};

/// The transpose's tile side (`f32`); a block moves one 64 x 64 tile.
pub const TT: usize = 64;

/// The transpose's shared tile: 64 x 64 `f32` row-major, XOR-swizzled
/// (bits 2-4 of the offset flipped by bits 8-10): a warp writes 16-byte
/// chunks along rows and reads single floats down columns, each without bank
/// conflicts, and chunks of 4 floats stay contiguous.
pub type TransposeSmem = ComposedLayout<Swizzle<3, 2, 6>, layout_type!((64, 64):(64, 1))>;

/// The value of [`TransposeSmem`].
pub fn transpose_smem() -> TransposeSmem {
    composition(Swizzle::<3, 2, 6>, layout!((64,64):(64,1)))
}

/// Threads of the transpose's load phase over the tile in `F4` units
/// (64 rows x 16 chunks): 16 x 16, row-major, so a warp reads two rows of
/// 256 contiguous bytes.
pub fn transpose_load_threads() -> layout_type!((16, 16):(16, 1)) {
    layout!((16,16):(16,1))
}

/// Threads of the store phase over the output tile (64 rows x 16 chunks):
/// a warp takes 4 rows x 8 chunks (128 contiguous bytes per row), so its
/// shared-memory reads down 8 x 4 rows and 4 columns hit 32 banks.
pub fn transpose_store_threads() -> layout_type!(((4, 4), (8, 2)):((8, 64), (1, 32))) {
    layout!(((4,4),(8,2)):((8,64),(1,32)))
}

/// Thread `tid` of block `(bx, by)` (tile column, tile row) in the load
/// phase of an n x n transpose: four `(F4 index in the source, f32 offset
/// in the shared tile)` pairs, one per value.
#[inline(always)]
pub fn transpose_load(n: usize, (bx, by): (usize, usize), tid: usize) -> [(usize, usize); 4] {
    let q = n / 4;
    let src = local_tile(index(layout!((n, q):(q, 1))), (C::<TT>, C::<16>), (by, bx));
    let mine = local_partition(src, transpose_load_threads(), tid);
    // The same threads over the shared tile in F4 units, then swizzled.
    let s = local_partition(
        index(layout!((64,16):(16,1))),
        transpose_load_threads(),
        tid,
    );
    let sw = transpose_smem();
    core::array::from_fn(|v| {
        let g = mine.data_offset() + mine.layout().call(v);
        let o = s.data_offset() + s.layout().call(v);
        (g, sw.swizzle.apply(4 * o))
    })
}

/// Thread `tid` of block `(bx, by)` in the store phase: four `(F4 index in
/// the destination, the shared offsets of its four floats)`.
#[inline(always)]
pub fn transpose_store(n: usize, (bx, by): (usize, usize), tid: usize) -> [(usize, [usize; 4]); 4] {
    let q = n / 4;
    // The destination tile: row j of dst is column j of src.
    let dst = local_tile(index(layout!((n, q):(q, 1))), (C::<TT>, C::<16>), (bx, by));
    let thr = transpose_store_threads();
    let mine = local_partition(dst, thr, tid);
    let (jr, i4) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("transpose: thread {tid} of {THREADS}"),
    };
    // Output element (row j, float 4*i4 + k) is shared (row 4*i4 + k, column j).
    let seen = layout!((64,(4,16)):(1,(64,256)));
    let sw = transpose_smem();
    core::array::from_fn(|v| {
        let g = mine.data_offset() + mine.layout().call(v);
        let offs = core::array::from_fn(|k| sw.swizzle.apply(seen.crd2idx((jr + 16 * v, (k, i4)))));
        (g, offs)
    })
}

/// `transpose_f32(src, dst, n)`: `dst = srcᵀ`, both n x n f32 row-major,
/// n a multiple of [`TRANSPOSE_TILE`]; one block of [`THREADS`] per tile,
/// grid `(n / 64, n / 64)`.
pub const TRANSPOSE_TILE: usize = TT;

/// Whether `transpose_f32` takes side `n` (the kernel traps otherwise).
///
/// ```
/// assert!(layout_kernels::maps::transpose_divides(128));
/// assert!(!layout_kernels::maps::transpose_divides(100));
/// ```
#[inline(always)]
pub const fn transpose_divides(n: usize) -> bool {
    n % TRANSPOSE_TILE == 0
}

// What the build tool (`layout-ptx`, run by `kernels/scripts/build-ptx.sh`)
// reads for this kernel's entry points, each const named after its entry
// point: launch bounds it writes into the PTX, and checks on the PTX. They
// generate no code.

/// No division: its shapes are static, and the run-time sizes are only
/// divided by static powers of two.
pub const TRANSPOSE_F32_NO_DIVISION: bool = true;

#[cfg(test)]
mod tests {
    //! Every thread of every block, on the CPU: the maps move each element
    //! exactly once to the right place, and a warp's accesses are
    //! coalesced and free of bank conflicts.
    use super::*;
    use crate::maps::conflict_free;
    use std::collections::HashSet;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn transpose_moves_every_element_once() {
        let n = 256;
        let src: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
        let mut dst = vec![f32::NAN; n * n];
        for by in 0..n / TT {
            for bx in 0..n / TT {
                let mut smem = vec![None; TT * TT];
                for tid in 0..THREADS {
                    for (g, s) in transpose_load(n, (bx, by), tid) {
                        assert_eq!(s % 4, 0, "16-byte shared store");
                        for j in 0..4 {
                            assert!(smem[s + j].is_none(), "shared slot {} written twice", s + j);
                            smem[s + j] = Some(src[4 * g + j]);
                        }
                    }
                }
                for tid in 0..THREADS {
                    for (g, offs) in transpose_store(n, (bx, by), tid) {
                        for (j, o) in offs.into_iter().enumerate() {
                            assert!(dst[4 * g + j].is_nan(), "dst {} written twice", 4 * g + j);
                            dst[4 * g + j] = smem[o].expect("read before written");
                        }
                    }
                }
            }
        }
        for i in 0..n {
            for j in 0..n {
                assert_eq!(dst[j * n + i], src[i * n + j], "dst[{j}][{i}]");
            }
        }
    }

    #[test]
    fn transpose_swizzle_is_the_composed_layout() {
        // The maps apply the swizzle to the unswizzled offset: that is the
        // composed layout at the same coordinate.
        let sw = transpose_smem();
        for r in 0..TT {
            for c in 0..TT {
                assert_eq!(sw.swizzle.apply(r * TT + c), sw.crd2idx((r, c)));
            }
        }
    }

    #[test]
    fn transpose_warps_are_conflict_free_and_coalesced() {
        let n = 4096;
        for warp in 0..THREADS / 32 {
            let tids = warp * 32..warp * 32 + 32;
            for v in 0..4 {
                let loads: Vec<_> = tids
                    .clone()
                    .map(|t| transpose_load(n, (3, 5), t)[v])
                    .collect();
                let s: Vec<usize> = loads.iter().map(|l| l.1).collect();
                assert!(
                    conflict_free(&s, 4),
                    "load phase, warp {warp}, value {v}: {s:?}"
                );
                // 32-byte sectors: the warp's 16-byte chunks pair up.
                let g: HashSet<usize> = loads.iter().map(|l| l.0).collect();
                assert!(g.iter().all(|x| g.contains(&(x ^ 1))), "uncoalesced load");
                let stores: Vec<_> = tids
                    .clone()
                    .map(|t| transpose_store(n, (3, 5), t)[v])
                    .collect();
                for k in 0..4 {
                    let s: Vec<usize> = stores.iter().map(|st| st.1[k]).collect();
                    assert!(
                        conflict_free(&s, 1),
                        "store phase, warp {warp}, ({v}, {k}): {s:?}"
                    );
                }
                let g: HashSet<usize> = stores.iter().map(|st| st.0).collect();
                assert!(g.iter().all(|x| g.contains(&(x ^ 1))), "uncoalesced store");
            }
        }
    }
}
