//! The CPU kernels: each written with the tensor API and by hand, with the
//! same blocking.

use layout_core::prelude::*;
use layout_core::Underscore as X;

/// The transpose tile's side; 256 "threads" share a tile.
pub const T: usize = 32;

/// `dst = src^T` for an n x n row-major matrix.
///
/// # Panics
///
/// When n is not a multiple of 32 or a slice is shorter than n * n.
pub fn transpose_layout(n: usize, src: &[f32], dst: &mut [f32]) {
    assert!(n % T == 0, "transpose: n = {n} is not a multiple of {T}");
    let s = Tensor::new(src, layout!((n, n):(n, 1))).unwrap();
    // dst seen transposed: element (i, j) of this view is dst[j][i].
    let mut d = Tensor::new(dst, layout!((n, n):(1, n))).unwrap();
    // 8 x 32 threads, row-major: neighbouring threads read neighbouring columns.
    let thr = layout!((8, 32):(32, 1));
    for bj in 0..n / T {
        for bi in 0..n / T {
            let ts = local_tile(s.view(), (C::<T>, C::<T>), (bi, bj));
            let mut td = local_tile(d.view_mut(), (C::<T>, C::<T>), (bi, bj));
            for t in 0..256 {
                let ps = local_partition(ts.view(), thr, t);
                let mut pd = local_partition(td.view_mut(), thr, t);
                copy(&ps, &mut pd).unwrap();
            }
        }
    }
}

/// `dst = src^T` for an m x n row-major `src` (`dst` is n x m, row-major),
/// any m and n: T x T tiles, 8 x 32 "threads" each copying its elements of
/// a tile, the tiles at the right and bottom edges predicated by an
/// identity tensor tiled the same way. Written once for any tile size `T`.
///
/// # Errors
///
/// When a slice is shorter than its matrix.
#[instantiate(32, 64)]
pub fn transpose_any<const T: usize>(
    m: usize,
    n: usize,
    src: &[f32],
    dst: &mut [f32],
) -> Result<(), LayoutError> {
    let s = Tensor::new(src, layout!((m, n):(n, 1)))?;
    // dst seen transposed: element (i, j) of this view is dst[j][i].
    let mut d = Tensor::new(dst, layout!((m, n):(1, m)))?;
    let id = make_identity_tensor((m, n));
    let thr = layout!((8, 32):(32, 1));
    for bj in 0..n.div_ceil(T) {
        for bi in 0..m.div_ceil(T) {
            let tile = (C::<T>, C::<T>);
            let ts = local_tile(s, tile, (bi, bj));
            let mut td = local_tile(d.view_mut(), tile, (bi, bj));
            let tc = local_tile(id, tile, (bi, bj));
            for t in 0..256 {
                copy_if(
                    local_partition(tc, thr, t).within((m, n)),
                    &local_partition(ts, thr, t),
                    &mut local_partition(td.view_mut(), thr, t),
                )?;
            }
        }
    }
    Ok(())
}

/// C += A * B for row-major A (m x k), B (k x n) and C (m x n) of any
/// sizes, written as CuTe's `sgemm_1` and once for any block tile
/// (BM, BN, BK): block tiles by `local_tile` with a projection per operand,
/// A's and B's k-blocks copied into static "shared" tiles by 32 x 8
/// threads, 16 x 16 threads each accumulating its `local_partition` of C in
/// a register fragment (`make_fragment_like`) by `gemm` over its projected
/// partitions of the shared tiles. Edge tiles are predicated by identity
/// tensors: each tile's predicate (`within`) is made once and partitioned
/// over the threads, so a tile wholly inside the matrix costs one check and
/// its copies none; elements past the matrices are zeros in the shared
/// tiles.
///
/// ```
/// use layout_kernels::sgemm_tiled;
/// let (m, n, k) = (50, 37, 20); // no block divides these
/// let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32).collect();
/// let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32).collect();
/// let mut c = vec![0f32; m * n];
/// sgemm_tiled::<32, 32, 8>(m, n, k, &a, &b, &mut c).unwrap();
/// let c_49_36: f32 = (0..k).map(|p| a[49 * k + p] * b[p * n + 36]).sum();
/// assert_eq!(c[49 * n + 36], c_49_36);
/// ```
///
/// # Errors
///
/// When a slice is shorter than its matrix.
#[instantiate((64, 64, 8), (32, 32, 8), (128, 64, 16))]
// Out of line (one call per GEMM): each instance keeps its own symbol, which
// the codegen test reads.
#[inline(never)]
pub fn sgemm_tiled<const BM: usize, const BN: usize, const BK: usize>(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
) -> Result<(), LayoutError> {
    // The matrices (B seen as (N, K)) and their coordinates.
    let ma = Tensor::new(a, layout!((m, k):(k, 1)))?;
    let mb = Tensor::new(b, layout!((n, k):(1, n)))?;
    let mut mc = Tensor::new(c, layout!((m, n):(n, 1)))?;
    let (ida, idb, idc) = (
        make_identity_tensor((m, k)),
        make_identity_tensor((n, k)),
        make_identity_tensor((m, n)),
    );
    let cta = (C::<BM>, C::<BN>, C::<BK>);
    let (pa, pb, pc) = (
        (C::<1>, X, C::<1>),
        (X, C::<1>, C::<1>),
        (C::<1>, C::<1>, X),
    );
    // The block's k-blocks of A and B in "shared memory" (static, M- and
    // N-major); 32 x 8 threads copy them, 16 x 16 threads compute.
    let mut sa = Fragment::<f32, _>::new(layout!((C<BM>, C<BK>)));
    let mut sb = Fragment::<f32, _>::new(layout!((C<BN>, C<BK>)));
    let tcopy = layout!((32, 8):(1, 32));
    let tc = layout!((16, 16):(1, 16));
    for bn in 0..n.div_ceil(BN) {
        for bm in 0..m.div_ceil(BM) {
            let blk = (bm, bn, X);
            let (ga, ca) = (
                local_tile_proj(ma, cta, blk, pa),
                local_tile_proj(ida, cta, blk, pa),
            );
            let (gb, cb) = (
                local_tile_proj(mb, cta, blk, pb),
                local_tile_proj(idb, cta, blk, pb),
            );
            let mut gc = local_tile_proj(mc.view_mut(), cta, blk, pc);
            // The block's predicate of C, checked once for the whole tile.
            let pcc = local_tile_proj(idc, cta, blk, pc).within((m, n));
            // Each thread's accumulators start as its elements of C.
            let mut acc =
                [make_fragment_like::<f32, _>(local_partition(gc.view(), tc, 0).layout()); 256];
            for (t, acc) in acc.iter_mut().enumerate() {
                copy_if(
                    pcc.local_partition(tc, t),
                    &local_partition(gc.view(), tc, t),
                    &mut acc.view_mut(),
                )?;
            }
            for kt in 0..k.div_ceil(BK) {
                sa.clear();
                sb.clear();
                // The k-tile's predicates, checked once for the whole tile.
                let (pa, pb) = (
                    ca.slice((X, X, kt)).within((m, k)),
                    cb.slice((X, X, kt)).within((n, k)),
                );
                for t in 0..256 {
                    copy_if(
                        pa.local_partition(tcopy, t),
                        &local_partition(ga.slice((X, X, kt)), tcopy, t),
                        &mut local_partition(sa.view_mut(), tcopy, t),
                    )?;
                    copy_if(
                        pb.local_partition(tcopy, t),
                        &local_partition(gb.slice((X, X, kt)), tcopy, t),
                        &mut local_partition(sb.view_mut(), tcopy, t),
                    )?;
                }
                for (t, acc) in acc.iter_mut().enumerate() {
                    // CuTe's projections: thread t's rows of A, its columns of B.
                    let tcsa = local_partition_proj(sa.view(), tc, t, (C::<1>, X));
                    let tcsb = local_partition_proj(sb.view(), tc, t, (X, C::<1>));
                    // One gemm per k-step (a rank-1 update of the fragment):
                    // the accumulators' chains stay interleaved k-step by
                    // k-step, as in the hand-written loop. One gemm over the
                    // whole k-tile compiles to each accumulator's chain in a
                    // row (0.87x-0.90x of the hand-written kernel at
                    // (64,64,8) in `cpu_kernels`).
                    for kk in 0..BK {
                        let ak = local_tile(tcsa, (C::<{ BM / 16 }>, C::<1>), (0usize, kk));
                        let bk = local_tile(tcsb, (C::<{ BN / 16 }>, C::<1>), (0usize, kk));
                        gemm(&ak, &bk, &mut acc.view_mut())?;
                    }
                }
            }
            for (t, acc) in acc.iter().enumerate() {
                copy_if(
                    pcc.local_partition(tc, t),
                    &acc.view(),
                    &mut local_partition(gc.view_mut(), tc, t),
                )?;
            }
        }
    }
    Ok(())
}

/// [`sgemm_tiled`]'s blocking by hand, on slices: the same block tiles,
/// the same copies by 32 x 8 threads into M- and N-major "shared" tiles
/// (zeros past the matrices), the same 16 x 16 threads each accumulating
/// rows `t % 16 + 16 i` and columns `t / 16 + 16 j` of the block, in the
/// same order. A tile wholly inside its matrix is copied without a
/// predicate; an edge tile predicates each element by its row and column.
///
/// # Panics
///
/// When a slice is shorter than its matrix.
// Out of line, as `sgemm_tiled`.
#[inline(never)]
pub fn sgemm_tiled_hand<const BM: usize, const BN: usize, const BK: usize>(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
) {
    assert!(
        a.len() >= m * k && b.len() >= k * n && c.len() >= m * n,
        "sgemm_tiled_hand: a slice is too short"
    );
    // Per thread: TM x TN accumulators.
    let (tm, tn) = (BM / 16, BN / 16);
    let mut sa = alloc::vec![0f32; BM * BK];
    let mut sb = alloc::vec![0f32; BN * BK];
    let mut acc = alloc::vec![0f32; 256 * tm * tn];
    for bn in 0..n.div_ceil(BN) {
        for bm in 0..m.div_ceil(BM) {
            let (r0, c0) = (bm * BM, bn * BN);
            let c_full = r0 + BM <= m && c0 + BN <= n;
            let c_at = |t: usize, i: usize, j: usize| (r0 + t % 16 + 16 * i, c0 + t / 16 + 16 * j);
            for t in 0..256 {
                for j in 0..tn {
                    for i in 0..tm {
                        let (r, col) = c_at(t, i, j);
                        acc[t * tm * tn + i * tn + j] = if c_full || (r < m && col < n) {
                            c[r * n + col]
                        } else {
                            0.0
                        };
                    }
                }
            }
            for kt in 0..k.div_ceil(BK) {
                let k0 = kt * BK;
                let a_full = r0 + BM <= m && k0 + BK <= k;
                let b_full = c0 + BN <= n && k0 + BK <= k;
                sa.fill(0.0);
                sb.fill(0.0);
                for t in 0..256 {
                    let (tr, tk) = (t % 32, t / 32);
                    for j in 0..BK / 8 {
                        let p = tk + 8 * j;
                        for i in 0..BM / 32 {
                            let r = tr + 32 * i;
                            if a_full || (r0 + r < m && k0 + p < k) {
                                sa[r + BM * p] = a[(r0 + r) * k + k0 + p];
                            }
                        }
                        for i in 0..BN / 32 {
                            let q = tr + 32 * i;
                            if b_full || (c0 + q < n && k0 + p < k) {
                                sb[q + BN * p] = b[(k0 + p) * n + c0 + q];
                            }
                        }
                    }
                }
                for t in 0..256 {
                    let acc = &mut acc[t * tm * tn..][..tm * tn];
                    let (tr, tc) = (t % 16, t / 16);
                    for p in 0..BK {
                        for j in 0..tn {
                            let bv = sb[tc + 16 * j + BN * p];
                            for i in 0..tm {
                                acc[i * tn + j] += sa[tr + 16 * i + BM * p] * bv;
                            }
                        }
                    }
                }
            }
            for t in 0..256 {
                for j in 0..tn {
                    for i in 0..tm {
                        let (r, col) = c_at(t, i, j);
                        if c_full || (r < m && col < n) {
                            c[r * n + col] = acc[t * tm * tn + i * tn + j];
                        }
                    }
                }
            }
        }
    }
}

/// The same blocking by hand: 32 x 32 tiles, 256 threads of 4 rows each.
///
/// # Panics
///
/// As [`transpose_layout`].
pub fn transpose_hand(n: usize, src: &[f32], dst: &mut [f32]) {
    assert!(n % T == 0, "transpose: n = {n} is not a multiple of {T}");
    for bj in 0..n / T {
        for bi in 0..n / T {
            for t in 0..256 {
                let (r, c) = (t / 32, t % 32);
                for v in 0..4 {
                    let (i, j) = (bi * T + r + 8 * v, bj * T + c);
                    dst[j * n + i] = src[i * n + j];
                }
            }
        }
    }
}

/// SGEMM block tile: rows of C.
pub const BM: usize = 64;
/// SGEMM block tile: columns of C.
pub const BN: usize = 64;
/// SGEMM block of K.
pub const BK: usize = 256;
/// Register micro-tile: rows.
pub const MR: usize = 4;
/// Register micro-tile: columns.
pub const NR: usize = 8;

/// A micro-panel of A (MR x BK, row stride k), of B seen as (N, K) (NR x BK,
/// k stride n) and a micro-tile of C (MR x NR, row stride n).
/// (A unit stride computed by the algebra is typenum's `S<U1>`.)
type One = layout_core::S<layout_core::typenum::U1>;
type PanelA = Layout<(C<MR>, C<BK>), (usize, One)>;
type PanelB = Layout<(C<NR>, C<BK>), (One, usize)>;
type TileC = Layout<(C<MR>, C<NR>), (usize, One)>;

/// C += A * B, all row-major: A is m x k, B is k x n, C is m x n.
///
/// # Panics
///
/// When m, n, k are not multiples of the block tile (BM, BN, BK) or a slice
/// is shorter than its matrix.
pub fn sgemm_layout(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    check_blocks(m, n, k);
    let ta = Tensor::new(a, layout!((m, k):(k, 1))).unwrap();
    // B seen as (N, K): element (j, p) is b[p][j].
    let tb = Tensor::new(b, layout!((n, k):(1, n))).unwrap();
    let mut tc = Tensor::new(c, layout!((m, n):(n, 1))).unwrap();
    for nb in 0..n / BN {
        for kb in 0..k / BK {
            let gb = local_tile(tb.view(), (C::<BN>, C::<BK>), (nb, kb));
            for mb in 0..m / BM {
                let ga = local_tile(ta.view(), (C::<BM>, C::<BK>), (mb, kb));
                let mut gc = local_tile(tc.view_mut(), (C::<BM>, C::<BN>), (mb, nb));
                for mi in 0..BM / MR {
                    let pa = local_tile(ga.view(), (C::<MR>, C::<BK>), (mi, 0));
                    for ni in 0..BN / NR {
                        let pb = local_tile(gb.view(), (C::<NR>, C::<BK>), (ni, 0));
                        let pc = local_tile(gc.view_mut(), (C::<MR>, C::<NR>), (mi, ni));
                        micro_layout(pa.view(), pb, pc);
                    }
                }
            }
        }
    }
}

/// The micro-tile with the tensor API: one `gemm` of the MR x BK panel of
/// A and the NR x BK panel of B into a static MR x NR accumulator fragment
/// (row-major: a row of B's panel is a vector of NR), added to C at the
/// end. `gemm` checks each panel once, then each k-column of A and B once;
/// the accumulators stay in vector registers through the k-loop (the
/// codegen test `kernels/sm80/tests/codegen.rs` pins this).
#[inline(never)]
fn micro_layout(
    pa: Tensor<&[f32], PanelA>,
    pb: Tensor<&[f32], PanelB>,
    mut pc: Tensor<&mut [f32], TileC>,
) {
    let mut acc: Fragment<f32, _> = Fragment::new(layout!((4, 8):(8, 1)));
    gemm(&pa, &pb, &mut acc.view_mut()).unwrap();
    axpby(1.0, &acc.view(), 1.0, &mut pc).unwrap();
}

/// The same blocking by hand, on slices.
///
/// # Panics
///
/// As [`sgemm_layout`].
pub fn sgemm_hand(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    check_blocks(m, n, k);
    assert!(
        a.len() >= m * k && b.len() >= k * n && c.len() >= m * n,
        "sgemm: a slice is too short"
    );
    for nb in 0..n / BN {
        for kb in 0..k / BK {
            for mb in 0..m / BM {
                for mi in 0..BM / MR {
                    for ni in 0..BN / NR {
                        let (r0, c0) = (mb * BM + mi * MR, nb * BN + ni * NR);
                        let (a, b) = (&a[r0 * k + kb * BK..], &b[kb * BK * n + c0..]);
                        micro_hand(k, n, a, b, &mut c[r0 * n + c0..]);
                    }
                }
            }
        }
    }
}

fn check_blocks(m: usize, n: usize, k: usize) {
    assert!(
        m % BM == 0 && n % BN == 0 && k % BK == 0,
        "sgemm: ({m}, {n}, {k}) is not a multiple of the block ({BM}, {BN}, {BK})"
    );
}

/// The micro-tile by hand: a column of A and a row of B loaded into
/// fixed-size arrays, then a branch-free update the compiler vectorizes.
#[inline(never)]
fn micro_hand(k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    let mut acc = [[0f32; NR]; MR];
    for p in 0..BK {
        let brow: &[f32; NR] = b[p * n..][..NR].try_into().unwrap();
        let acol: [f32; MR] = core::array::from_fn(|i| a[i * k + p]);
        for i in 0..MR {
            for j in 0..NR {
                acc[i][j] += acol[i] * brow[j];
            }
        }
    }
    for i in 0..MR {
        let crow: &mut [f32; NR] = (&mut c[i * n..][..NR]).try_into().unwrap();
        for j in 0..NR {
            crow[j] += acc[i][j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{vec, vec::Vec};

    #[test]
    fn transposes_agree_with_the_definition() {
        let n = 64;
        let src: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
        let (mut d1, mut d2) = (vec![0f32; n * n], vec![0f32; n * n]);
        transpose_layout(n, &src, &mut d1);
        transpose_hand(n, &src, &mut d2);
        for i in 0..n {
            for j in 0..n {
                assert_eq!(d1[j * n + i], src[i * n + j]);
            }
        }
        assert_eq!(d1, d2);
    }

    /// `dst[j][i] == src[i][j]` for every element, the definition.
    fn is_transpose(m: usize, n: usize, src: &[f32], dst: &[f32]) -> bool {
        (0..m).all(|i| (0..n).all(|j| dst[j * m + i] == src[i * n + j]))
    }

    #[test]
    fn transpose_any_handles_partial_tiles() {
        // 1000 = 31 * 32 + 8: the last row and column of tiles are partial;
        // 37 columns: one full tile of 32 and one of 5.
        for (m, n) in [(1000, 1000), (1000, 37), (5, 3), (64, 64)] {
            let src: Vec<f32> = (0..m * n).map(|i| i as f32).collect();
            let mut d32 = vec![-1f32; m * n];
            transpose_any::<32>(m, n, &src, &mut d32).unwrap();
            assert!(is_transpose(m, n, &src, &d32), "T = 32, {m} x {n}");
            let mut d64 = vec![-1f32; m * n];
            transpose_any::<64>(m, n, &src, &mut d64).unwrap();
            assert!(is_transpose(m, n, &src, &d64), "T = 64, {m} x {n}");
        }
        // A destination too short is an error, not a panic.
        assert!(transpose_any::<32>(4, 4, &[0.0; 16], &mut [0.0; 15]).is_err());
    }

    /// C (all 1) + A * B by the definition.
    fn reference(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Vec<f32> {
        let mut want = vec![1f32; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    want[i * n + j] += a[i * k + p] * b[p * n + j];
                }
            }
        }
        want
    }

    #[test]
    fn sgemm_tiled_agrees_with_the_definition_for_three_tiles() {
        // Divisible and not: partial blocks in M, N and K.
        for (m, n, k) in [(128, 128, 32), (50, 37, 20), (130, 70, 33), (1, 1, 1)] {
            let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
            let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
            let want = reference(m, n, k, &a, &b);
            // Small integers: every sum is exact in f32, in any order.
            let mut c = vec![1f32; m * n];
            sgemm_tiled::<64, 64, 8>(m, n, k, &a, &b, &mut c).unwrap();
            assert_eq!(c, want, "(64, 64, 8) at {m} x {n} x {k}");
            let mut c = vec![1f32; m * n];
            sgemm_tiled::<32, 32, 8>(m, n, k, &a, &b, &mut c).unwrap();
            assert_eq!(c, want, "(32, 32, 8) at {m} x {n} x {k}");
            let mut c = vec![1f32; m * n];
            sgemm_tiled::<128, 64, 16>(m, n, k, &a, &b, &mut c).unwrap();
            assert_eq!(c, want, "(128, 64, 16) at {m} x {n} x {k}");
        }
    }

    #[test]
    fn sgemms_agree_with_the_definition() {
        let (m, n, k) = (2 * BM, 2 * BN, 2 * BK);
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        let want = reference(m, n, k, &a, &b);
        let (mut c1, mut c2) = (vec![1f32; m * n], vec![1f32; m * n]);
        sgemm_layout(m, n, k, &a, &b, &mut c1);
        sgemm_hand(m, n, k, &a, &b, &mut c2);
        // Small integers: every sum is exact in f32, in any order.
        assert_eq!(c1, want);
        assert_eq!(c2, want);
    }
}
