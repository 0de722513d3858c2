//! The CPU kernels written with the tensor API, each timed against
//! hand-written code of the same blocking, in one run:
//!
//! - a tiled transpose of a 4096 x 4096 f32 matrix: `local_tile` into 32 x 32
//!   tiles, `local_partition` over an 8 x 32 "thread" layout, `copy`;
//! - a single-threaded SGEMM, M = N = K = 1024: block tiles by `local_tile`,
//!   a 4 x 8 register micro-tile accumulated by one `gemm` over a panel of A
//!   and of B; `matrixmultiply::sgemm` as the anchor;
//! - the generic `sgemm_tiled::<64, 64, 8>` (CuTe's `sgemm_1`: predicated
//!   copies into "shared" tiles, 256 "threads" each with a register
//!   fragment of C), M = N = K = 512.
//!
//! `cargo run --release --example cpu_kernels [-- ROUNDS]` checks the
//! results against each other, then runs every kernel once per round,
//! interleaved (the layout and hand-written kernels alternate which goes
//! first), and prints each kernel's median over the rounds and the median
//! of the per-round ratios layout / hand (7 rounds by default).
//!
//! `cpu_kernels --once KERNEL` runs one kernel once, at a small size, for
//! an instruction count (`valgrind --tool=callgrind`; `--once none` runs
//! only the setup, whose count the others subtract). KERNEL is one of
//! `{transpose,sgemm,sgemm_tiled}-{layout,hand}` and `none`; the test
//! `kernels/sm80/tests/codegen.rs` compares the counts.

use layout_kernels::{
    sgemm_hand, sgemm_layout, sgemm_tiled, sgemm_tiled_hand, transpose_hand, transpose_layout,
};
use std::hint::black_box;
use std::time::Instant;

/// `matrixmultiply::sgemm` (single thread), through ndarray's safe
/// `general_mat_mul`, which calls it for contiguous f32 matrices.
fn sgemm_matrixmultiply(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    use ndarray::{linalg::general_mat_mul, ArrayView2, ArrayViewMut2};
    let a = ArrayView2::from_shape((m, k), a).unwrap();
    let b = ArrayView2::from_shape((k, n), b).unwrap();
    let mut c = ArrayViewMut2::from_shape((m, n), c).unwrap();
    general_mat_mul(1.0, &a, &b, 1.0, &mut c);
}

/// Small integers: every product and partial sum below is exact in f32, so
/// the kernels agree bit for bit whatever their order of summation.
fn operands(s: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..s * s).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b = (0..s * s).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    (a, b)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn seconds(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// A kernel written with the layout library and its hand-written twin.
struct Pair<'a> {
    name: String,
    /// Work per run, in `unit`s (bytes moved, flops).
    work: f64,
    unit: &'static str,
    layout: Box<dyn FnMut() + 'a>,
    hand: Box<dyn FnMut() + 'a>,
}

/// Runs every pair `rounds` times, interleaved, and prints the medians.
fn time(pairs: &mut [Pair], anchor: Option<(&str, f64, &mut dyn FnMut())>, rounds: usize) {
    let mut t = vec![(Vec::new(), Vec::new(), Vec::new()); pairs.len()];
    let mut ta = Vec::new();
    for r in 0..rounds {
        for (p, (tl, th, ratio)) in pairs.iter_mut().zip(&mut t) {
            let (l, h) = if r % 2 == 0 {
                let l = seconds(&mut p.layout);
                (l, seconds(&mut p.hand))
            } else {
                let h = seconds(&mut p.hand);
                (seconds(&mut p.layout), h)
            };
            tl.push(l);
            th.push(h);
            ratio.push(h / l);
        }
    }
    let anchor_line = anchor.map(|(name, work, f)| {
        for _ in 0..rounds {
            ta.push(seconds(f));
        }
        (name, work / median(&mut ta) / 1e9)
    });
    for (p, (tl, th, ratio)) in pairs.iter().zip(&mut t) {
        let (l, h) = (p.work / median(tl) / 1e9, p.work / median(th) / 1e9);
        println!(
            "{:<32} layout {l:>7.2} {u}, hand {h:>7.2} {u}, layout/hand {:.3} (median of {rounds} interleaved rounds)",
            p.name,
            median(ratio),
            u = p.unit
        );
    }
    if let Some((name, rate)) = anchor_line {
        println!("{name:<32} {rate:>7.2} GFLOP/s");
    }
}

/// `sgemm_tiled` and its hand-written twin at one block tile, `st`³ (a
/// macro: a generic function would need `sgemm_tiled`'s instantiation bound).
macro_rules! tiled_pair {
    ($bm:literal, $bn:literal, $bk:literal, $st:expr, $a:expr, $b:expr) => {{
        let (st, a, b) = ($st, $a, $b);
        let (mut e1, mut e2) = (vec![0f32; st * st], vec![0f32; st * st]);
        Pair {
            name: format!("sgemm_tiled::<{},{},{}> {st}^3", $bm, $bn, $bk),
            work: 2.0 * (st * st * st) as f64,
            unit: "GFLOP/s",
            layout: Box::new(move || {
                sgemm_tiled::<$bm, $bn, $bk>(st, st, st, black_box(a), black_box(b), &mut e1)
                    .unwrap()
            }),
            hand: Box::new(move || {
                sgemm_tiled_hand::<$bm, $bn, $bk>(st, st, st, black_box(a), black_box(b), &mut e2)
            }),
        }
    }};
}

/// Checks every kernel against its twin and the definition at sizes n
/// (transpose), s (SGEMM) and st (sgemm_tiled); then times them when
/// `rounds > 0`.
fn run(n: usize, s: usize, st: usize, rounds: usize) {
    let src: Vec<f32> = (0..n * n).map(|i| (i % 1000) as f32).collect();
    let (mut d1, mut d2) = (vec![0f32; n * n], vec![0f32; n * n]);
    transpose_layout(n, &src, &mut d1);
    transpose_hand(n, &src, &mut d2);
    assert!(d1 == d2, "the two transposes disagree");
    assert!(
        (0..n).all(|i| (0..n).all(|j| d1[j * n + i] == src[i * n + j])),
        "not a transpose"
    );

    let (a, b) = operands(s);
    let (mut c1, mut c2, mut c3) = (vec![0f32; s * s], vec![0f32; s * s], vec![0f32; s * s]);
    sgemm_layout(s, s, s, &a, &b, &mut c1);
    sgemm_hand(s, s, s, &a, &b, &mut c2);
    sgemm_matrixmultiply(s, s, s, &a, &b, &mut c3);
    assert!(c1 == c2 && c2 == c3, "the three SGEMMs disagree");

    let (ta, tb) = operands(st);
    let mut e3 = vec![0f32; st * st];
    sgemm_matrixmultiply(st, st, st, &ta, &tb, &mut e3);
    let tiled_agree = |layout: &dyn Fn(&mut [f32]), hand: &dyn Fn(&mut [f32]), what: &str| {
        let (mut e1, mut e2) = (vec![0f32; st * st], vec![0f32; st * st]);
        layout(&mut e1);
        hand(&mut e2);
        assert!(e1 == e2 && e2 == e3, "the tiled SGEMMs {what} disagree");
    };
    tiled_agree(
        &|c| sgemm_tiled::<64, 64, 8>(st, st, st, &ta, &tb, c).unwrap(),
        &|c| sgemm_tiled_hand::<64, 64, 8>(st, st, st, &ta, &tb, c),
        "<64,64,8>",
    );
    tiled_agree(
        &|c| sgemm_tiled::<32, 32, 8>(st, st, st, &ta, &tb, c).unwrap(),
        &|c| sgemm_tiled_hand::<32, 32, 8>(st, st, st, &ta, &tb, c),
        "<32,32,8>",
    );
    tiled_agree(
        &|c| sgemm_tiled::<128, 64, 16>(st, st, st, &ta, &tb, c).unwrap(),
        &|c| sgemm_tiled_hand::<128, 64, 16>(st, st, st, &ta, &tb, c),
        "<128,64,16>",
    );
    if rounds == 0 {
        return;
    }

    let gemm_flops = |s: usize| 2.0 * (s * s * s) as f64;
    let (src, a, b, ta, tb) = (&src, &a, &b, &ta, &tb);
    let mut pairs = [
        Pair {
            name: format!("transpose {n}x{n}"),
            work: 2.0 * (n * n * 4) as f64,
            unit: "GB/s",
            layout: Box::new(move || transpose_layout(n, black_box(src), black_box(&mut d1))),
            hand: Box::new(move || transpose_hand(n, black_box(src), black_box(&mut d2))),
        },
        Pair {
            name: format!("sgemm {s}^3"),
            work: gemm_flops(s),
            unit: "GFLOP/s",
            layout: Box::new(move || sgemm_layout(s, s, s, black_box(a), black_box(b), &mut c1)),
            hand: Box::new(move || sgemm_hand(s, s, s, black_box(a), black_box(b), &mut c2)),
        },
        tiled_pair!(64, 64, 8, st, ta, tb),
        tiled_pair!(32, 32, 8, st, ta, tb),
        tiled_pair!(128, 64, 16, st, ta, tb),
    ];
    let mut mm = move || sgemm_matrixmultiply(s, s, s, black_box(a), black_box(b), &mut c3);
    time(
        &mut pairs,
        Some((
            &format!("matrixmultiply {s}^3 (anchor)"),
            gemm_flops(s),
            &mut mm,
        )),
        rounds,
    );
}

/// `--once KERNEL`: the setup of every kernel, then KERNEL once (see the
/// module docs); the sizes are those of the codegen test.
fn once(kernel: &str) {
    let (n, s) = (512, 256);
    let src: Vec<f32> = (0..n * n).map(|i| (i % 1000) as f32).collect();
    let mut d = vec![0f32; n * n];
    let (a, b) = operands(s);
    let mut c = vec![0f32; s * s];
    match kernel {
        "none" => {}
        "transpose-layout" => transpose_layout(n, black_box(&src), &mut d),
        "transpose-hand" => transpose_hand(n, black_box(&src), &mut d),
        "sgemm-layout" => sgemm_layout(s, s, s, black_box(&a), black_box(&b), &mut c),
        "sgemm-hand" => sgemm_hand(s, s, s, black_box(&a), black_box(&b), &mut c),
        "sgemm_tiled-layout" => {
            sgemm_tiled::<64, 64, 8>(s, s, s, black_box(&a), black_box(&b), &mut c).unwrap()
        }
        "sgemm_tiled-hand" => {
            sgemm_tiled_hand::<64, 64, 8>(s, s, s, black_box(&a), black_box(&b), &mut c)
        }
        k => {
            eprintln!("cpu_kernels: no kernel {k:?}");
            std::process::exit(2)
        }
    }
    black_box((&d, &c));
}

fn main() {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if first.as_deref() == Some("--once") {
        match args.next() {
            Some(k) => return once(&k),
            None => {
                eprintln!("cpu_kernels: --once needs a KERNEL");
                std::process::exit(2)
            }
        }
    }
    let rounds = first
        .map(|r| match r.parse::<usize>() {
            Ok(r) if r > 0 => r,
            _ => {
                eprintln!("cpu_kernels: ROUNDS must be a positive integer, not {r:?}");
                std::process::exit(2)
            }
        })
        .unwrap_or(7);
    run(4096, 1024, 512, rounds);
}

/// `cargo test` runs the example's checks at small sizes (no timing).
#[test]
fn runs() {
    run(256, 256, 128, 0);
}
