//! Two CPU kernels written with the tensor API, each against hand-written
//! code of the same blocking, in one run:
//!
//! - a tiled transpose of a 4096 x 4096 f32 matrix: `local_tile` into 32 x 32
//!   tiles, `local_partition` over an 8 x 32 "thread" layout, `copy`;
//! - a single-threaded SGEMM, M = N = K = 1024: block tiles by `local_tile`,
//!   a static register micro-tile as a `Fragment`, the k-loop over the
//!   tiler's blocks; also against `matrixmultiply::sgemm`.
//!
//! `cargo run --release --example cpu_kernels` (the results are checked
//! against each other before the figures are printed; the last two lines
//! are the figures).

use layout_kernels::{sgemm_hand, sgemm_layout, transpose_hand, transpose_layout};
use std::hint::black_box;
use std::time::Instant;

/// Best of `reps` runs of `f`, in seconds.
fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// `matrixmultiply::sgemm` (single thread), through ndarray's safe
/// `general_mat_mul`, which calls it for contiguous f32 matrices.
fn sgemm_matrixmultiply(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    use ndarray::{linalg::general_mat_mul, ArrayView2, ArrayViewMut2};
    let a = ArrayView2::from_shape((m, k), a).unwrap();
    let b = ArrayView2::from_shape((k, n), b).unwrap();
    let mut c = ArrayViewMut2::from_shape((m, n), c).unwrap();
    general_mat_mul(1.0, &a, &b, 1.0, &mut c);
}

/// Runs both kernels at n x n (transpose) and s³ (SGEMM) and checks them
/// against each other and the definition; then times them when `time`.
fn run(n: usize, s: usize, time: bool) {
    let src: Vec<f32> = (0..n * n).map(|i| (i % 1000) as f32).collect();
    let (mut d1, mut d2) = (vec![0f32; n * n], vec![0f32; n * n]);
    transpose_layout(n, &src, &mut d1);
    transpose_hand(n, &src, &mut d2);
    assert!(d1 == d2, "the two transposes disagree");
    assert!(
        (0..n).all(|i| d1[i * n + 7] == src[7 * n + i]),
        "not a transpose"
    );
    let reps = if time { 5 } else { 1 };
    let bytes = 2.0 * (n * n * 4) as f64;
    let tl = best(reps, || {
        transpose_layout(n, black_box(&src), black_box(&mut d1))
    });
    let th = best(reps, || {
        transpose_hand(n, black_box(&src), black_box(&mut d2))
    });

    // SGEMM, s³, C += A * B from C = 0.
    let a: Vec<f32> = (0..s * s).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..s * s).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    let (mut c1, mut c2, mut c3) = (vec![0f32; s * s], vec![0f32; s * s], vec![0f32; s * s]);
    sgemm_layout(s, s, s, &a, &b, &mut c1);
    sgemm_hand(s, s, s, &a, &b, &mut c2);
    sgemm_matrixmultiply(s, s, s, &a, &b, &mut c3);
    // Small integers: every product and partial sum is exact in f32.
    assert!(c1 == c2 && c2 == c3, "the three SGEMMs disagree");
    let flops = 2.0 * (s * s * s) as f64;
    let reps = if time { 3 } else { 1 };
    let gl = best(reps, || {
        sgemm_layout(s, s, s, black_box(&a), black_box(&b), black_box(&mut c1))
    });
    let gh = best(reps, || {
        sgemm_hand(s, s, s, black_box(&a), black_box(&b), black_box(&mut c2))
    });
    let gm = best(reps, || {
        sgemm_matrixmultiply(s, s, s, black_box(&a), black_box(&b), black_box(&mut c3))
    });
    if !time {
        return;
    }
    println!(
        "transpose {n}: layout {:.2} GB/s, hand {:.2} GB/s",
        bytes / tl / 1e9,
        bytes / th / 1e9
    );
    println!(
        "sgemm {s}: layout {:.2} GFLOP/s, hand {:.2} GFLOP/s, matrixmultiply {:.2} GFLOP/s",
        flops / gl / 1e9,
        flops / gh / 1e9,
        flops / gm / 1e9
    );
}

fn main() {
    run(4096, 1024, true);
}

/// `cargo test` runs the example's checks at a small size (no timing).
#[test]
fn runs() {
    run(256, 256, false);
}
