//! The CPU kernels: each written with the tensor API and by hand, with the
//! same blocking.

use layout_core::algorithm::{axpby, copy, gemm};
use layout_core::fragment::Fragment;
use layout_core::partition::{local_partition, local_tile};
use layout_core::{layout, Layout, Tensor, Underscore as X, C};

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

/// The micro-tile with the tensor API: per k, a column of A and a row of B
/// copied into static fragments, a rank-1 `gemm` into the accumulator
/// fragment, which is added to C at the end.
#[inline(never)]
fn micro_layout(
    pa: Tensor<&[f32], PanelA>,
    pb: Tensor<&[f32], PanelB>,
    mut pc: Tensor<&mut [f32], TileC>,
) {
    // Row-major: gemm updates a row of NR accumulators per element of A, a
    // row of B in vector registers.
    let mut acc: Fragment<f32, _> = Fragment::new(layout!((4, 8):(8, 1)));
    let mut fa: Fragment<f32, _> = Fragment::new(layout!((4, 1):(1, 4)));
    let mut fb: Fragment<f32, _> = Fragment::new(layout!((8, 1):(1, 8)));
    for p in 0..BK {
        copy(&pa.slice((X, p)), &mut fa.view_mut()).unwrap();
        copy(&pb.slice((X, p)), &mut fb.view_mut()).unwrap();
        gemm(&fa.view(), &fb.view(), &mut acc.view_mut()).unwrap();
    }
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

    #[test]
    fn sgemms_agree_with_the_definition() {
        let (m, n, k) = (2 * BM, 2 * BN, 2 * BK);
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        let mut want = vec![1f32; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    want[i * n + j] += a[i * k + p] * b[p * n + j];
                }
            }
        }
        let (mut c1, mut c2) = (vec![1f32; m * n], vec![1f32; m * n]);
        sgemm_layout(m, n, k, &a, &b, &mut c1);
        sgemm_hand(m, n, k, &a, &b, &mut c2);
        // Small integers: every sum is exact in f32, in any order.
        assert_eq!(c1, want);
        assert_eq!(c2, want);
    }
}
