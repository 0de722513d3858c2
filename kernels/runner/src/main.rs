//! `gpu-runner PTX`: loads the PTX that `kernels/build-ptx.sh` writes, runs
//! each kernel of `layout-kernels` on GPU 0, checks its result against the
//! CPU and times it with CUDA events next to a device-to-device copy (the
//! bandwidth anchor), then prints one table.
//!
//! ```text
//! kernels/build-ptx.sh target/ptx && cargo build --release -p layout-gpu-runner
//! target/release/gpu-runner target/ptx/layout_kernels.ptx
//! ```

mod launch;

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use cudarc::driver::{sys::CUevent_flags, CudaContext, CudaStream};
use cudarc::nvrtc::Ptx;

/// Run, check and time the kernels of layout-kernels on GPU 0.
#[derive(Parser)]
struct Args {
    /// The PTX file (kernels/build-ptx.sh writes target/ptx/layout_kernels.ptx).
    ptx: std::path::PathBuf,
    /// Side of the square problems (a multiple of 128).
    #[arg(long, default_value_t = 4096)]
    n: usize,
    /// Timed launches per kernel (after 3 untimed).
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// More entry points with `sgemm_nt_f32`'s signature and contract (forms
    /// of the kernel under study), checked and timed as it is.
    #[arg(long, value_delimiter = ',')]
    sgemm_nt_forms: Vec<String>,
    /// The same for `sgemm_f32`'s contract (A row-major).
    #[arg(long, value_delimiter = ',')]
    sgemm_forms: Vec<String>,
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("gpu-runner: a check failed");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("gpu-runner: {e}");
            ExitCode::from(2)
        }
    }
}

/// Mean milliseconds of `reps` runs of `f`, after 3 warm-up runs.
fn time(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    reps: usize,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<f64, Box<dyn Error>> {
    for _ in 0..3 {
        f()?;
    }
    let ev = || ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
    let (start, end) = (ev()?, ev()?);
    start.record(stream)?;
    for _ in 0..reps {
        f()?;
    }
    end.record(stream)?;
    end.synchronize()?;
    Ok(f64::from(start.elapsed_ms(&end)?) / reps as f64)
}

/// A reproducible pseudo-random matrix with entries in [-1, 1).
fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// `C[i][j]` in f64, and the sum of `|A[i][p] B[p][j]|` that bounds its
/// rounding error.
fn dot(a: &[f32], b: &[f32], (n, k): (usize, usize), i: usize, j: usize) -> (f64, f64) {
    (0..k).fold((0.0, 0.0), |(s, t), p| {
        let x = f64::from(a[i * k + p]) * f64::from(b[p * n + j]);
        (s + x, t + x.abs())
    })
}

/// How many of the `checked` entries of the size x size product `c` lie
/// farther than `k * eps * sum |a b|` from the f64 dot product ([`dot`]).
fn beyond_bound(a: &[f32], b: &[f32], c: &[f32], size: usize, checked: &[(usize, usize)]) -> usize {
    let eps = f64::from(f32::EPSILON) * size as f64;
    checked
        .iter()
        .filter(|&&(i, j)| {
            let (want, bound) = dot(a, b, (size, size), i, j);
            (f64::from(c[i * size + j]) - want).abs() > eps * bound + 1e-30
        })
        .count()
}

/// Runs `f` once (0 ms) when `timed` is false, else times it ([`time`]).
fn run_or_time(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    reps: usize,
    timed: bool,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<f64, Box<dyn Error>> {
    if timed {
        return time(ctx, stream, reps, f);
    }
    f()?;
    stream.synchronize()?;
    Ok(0.0)
}

/// The entries of a size x size product to check: all of them, or (for the
/// timed size) 4096 reproducible random ones and the two corners.
fn samples(size: usize, timed: bool, seed: u64) -> Vec<(usize, usize)> {
    if !timed {
        return (0..size)
            .flat_map(|i| (0..size).map(move |j| (i, j)))
            .collect();
    }
    let at = |x: f32| ((x + 1.0) / 2.0 * size as f32) as usize % size;
    random(2 * 4096, seed)
        .chunks(2)
        .map(|p| (at(p[0]), at(p[1])))
        .chain([(0, 0), (size - 1, size - 1)])
        .collect()
}

/// The rate of a timed size³ product, "-" when untimed.
fn tflops(size: usize, ms: f64, timed: bool) -> String {
    if timed {
        format!(
            "{:.1} TFLOP/s",
            2.0 * (size * size * size) as f64 / ms / 1e9
        )
    } else {
        "-".into()
    }
}

/// What the f32 GEMM checks count: entries beyond `k * eps * sum |a b|`.
const BOUND: &str = "beyond k*eps*sum|ab|";

/// A GEMM's table row: `checked` entries (every one or sampled), `bad` of
/// them failing the check that `verdict` names.
fn gemm_row(
    kernel: &str,
    size: usize,
    ms: f64,
    timed: bool,
    checked: usize,
    bad: usize,
    verdict: &str,
) -> Row {
    let what = if timed { "sampled" } else { "all" };
    Row {
        kernel: kernel.into(),
        size: format!("{size}x{size}x{size}"),
        ms,
        rate: tflops(size, ms, timed),
        check: format!("{checked} {what} entries, {bad} {verdict}"),
    }
}

/// "exact", or how many of `of` values were wrong.
fn exact(bad: usize, of: usize) -> String {
    if bad == 0 {
        "exact".into()
    } else {
        format!("{bad} of {of} wrong")
    }
}

/// f16 bits of each value (rounded to nearest).
fn f16_bits(v: &[f32]) -> Vec<u16> {
    v.iter()
        .map(|&x| half::f16::from_f32(x).to_bits())
        .collect()
}

struct Row {
    kernel: String,
    size: String,
    ms: f64,
    rate: String,
    check: String,
}

fn run(args: &Args) -> Result<bool, Box<dyn Error>> {
    let n = args.n;
    if n == 0 || n % 128 != 0 {
        return Err(format!("--n {n}: a positive multiple of 128").into());
    }
    let ctx = CudaContext::new(0)?;
    let (major, minor) = ctx.compute_capability()?;
    println!("GPU 0: {}, compute capability {major}.{minor}", ctx.name()?);
    let module = ctx.load_module(Ptx::from_file(&args.ptx))?;
    let (f_transpose, f_sgemm, f_sgemm_nt) = (
        module.load_function("transpose_f32")?,
        module.load_function("sgemm_f32")?,
        module.load_function("sgemm_nt_f32")?,
    );
    let stream = ctx.default_stream();
    let mut rows = Vec::new();
    let mut ok = true;
    let gbs = |bytes: usize, ms: f64| format!("{:.0} GB/s", bytes as f64 / ms / 1e6);

    // Transpose, exact; and a plain copy of the same bytes.
    let host: Vec<f32> = (0..n * n).map(|i| (i % (1 << 24)) as f32).collect();
    let src = stream.clone_htod(&host)?;
    let mut dst = stream.alloc_zeros::<f32>(n * n)?;
    let ms = time(&ctx, &stream, args.reps, || {
        launch::transpose(&stream, &f_transpose, &src, &mut dst, n)
    })?;
    let got = stream.clone_dtoh(&dst)?;
    let bad = (0..n * n)
        .filter(|&x| got[(x % n) * n + x / n] != host[x])
        .count();
    ok &= bad == 0;
    rows.push(Row {
        kernel: "transpose_f32 (layout)".into(),
        size: format!("{n}x{n}"),
        ms,
        rate: gbs(2 * 4 * n * n, ms),
        check: if bad == 0 {
            "exact".into()
        } else {
            format!("{bad} wrong")
        },
    });
    let ms = time(&ctx, &stream, args.reps, || {
        stream
            .memcpy_dtod(&src, &mut dst)
            .map_err(|e| e.to_string())
    })?;
    rows.push(Row {
        kernel: "copy (cuMemcpyDtoD)".into(),
        size: format!("{n}x{n}"),
        ms,
        rate: gbs(2 * 4 * n * n, ms),
        check: "-".into(),
    });

    // SGEMM: a small product checked everywhere, the large one timed and
    // checked at sampled entries; error bound: k * eps * sum |a b|. A is
    // row-major for sgemm_f32, M-major (the same values transposed) for
    // sgemm_nt_f32, CuTe's NT.
    let mut sgemms = vec![
        ("sgemm_f32 (layout)".to_string(), f_sgemm, false),
        (
            "sgemm_nt_f32 (layout, A M-major)".to_string(),
            f_sgemm_nt,
            true,
        ),
    ];
    for (forms, a_m_major) in [(&args.sgemm_forms, false), (&args.sgemm_nt_forms, true)] {
        for form in forms {
            sgemms.push((form.clone(), module.load_function(form)?, a_m_major));
        }
    }
    for (name, f, a_m_major) in &sgemms {
        for (size, timed) in [(256, false), (n, true)] {
            let (a, b) = (random(size * size, 1), random(size * size, 2));
            let a_dev: Vec<f32> = if *a_m_major {
                (0..size * size)
                    .map(|x| a[(x % size) * size + x / size])
                    .collect()
            } else {
                a.clone()
            };
            let (da, db) = (stream.clone_htod(&a_dev)?, stream.clone_htod(&b)?);
            let mut dc = stream.alloc_zeros::<f32>(size * size)?;
            let dims = (size, size, size);
            let ms = run_or_time(&ctx, &stream, args.reps, timed, || {
                launch::sgemm(&stream, f, &da, &db, &mut dc, dims)
            })?;
            let c = stream.clone_dtoh(&dc)?;
            let checked = samples(size, timed, 3);
            let bad = beyond_bound(&a, &b, &c, size, &checked);
            ok &= bad == 0;
            rows.push(gemm_row(name, size, ms, timed, checked.len(), bad, BOUND));
        }
    }

    // The tensor-core atom, f32 and f16 accumulators: small integers, so
    // every product and sum is exact in both.
    let f_mma = module.load_function("mma_atom")?;
    let ai: Vec<f32> = (0..256)
        .map(|i| ((i * 3 + i / 16) % 7) as f32 - 3.0)
        .collect();
    let bi: Vec<f32> = (0..128).map(|i| ((i * 5 + 1) % 7) as f32 - 3.0).collect();
    let (da, db) = (
        stream.clone_htod(&f16_bits(&ai))?,
        stream.clone_htod(&f16_bits(&bi))?,
    );
    let want: Vec<f32> = (0..128)
        .map(|x| {
            (0..16)
                .map(|k| ai[(x / 8) * 16 + k] * bi[(x % 8) * 16 + k])
                .sum()
        })
        .collect();
    for f16acc in [0u32, 1] {
        let mut dc = stream.alloc_zeros::<u32>(128)?;
        launch::mma_atom(&stream, &f_mma, &da, &db, &mut dc, f16acc)?;
        let c = stream.clone_dtoh(&dc)?;
        let got: Vec<f32> = if f16acc == 0 {
            c.iter().map(|&w| f32::from_bits(w)).collect()
        } else {
            (0..128)
                .map(|x| half::f16::from_bits((c[x / 2] >> (16 * (x % 2))) as u16).to_f32())
                .collect()
        };
        let bad = (0..128).filter(|&x| got[x] != want[x]).count();
        ok &= bad == 0;
        rows.push(Row {
            kernel: if f16acc == 0 {
                "mma_atom m16n8k16 f32 acc"
            } else {
                "mma_atom m16n8k16 f16 acc"
            }
            .into(),
            size: "16x8x16".into(),
            ms: 0.0,
            rate: "-".into(),
            check: exact(bad, 128),
        });
    }

    let f_tile = module.load_function("mma_tile")?;
    let mut dc = stream.alloc_zeros::<f32>(128)?;
    launch::mma_tile(&stream, &f_tile, &da, &db, &mut dc)?;
    let got = stream.clone_dtoh(&dc)?;
    let bad = (0..128).filter(|&x| got[x] != want[x]).count();
    ok &= bad == 0;
    rows.push(Row {
        kernel: "mma_tile (cp.async, ldmatrix, mma)".into(),
        size: "16x8x16".into(),
        ms: 0.0,
        rate: "-".into(),
        check: exact(bad, 128),
    });

    // Every ldmatrix form, against the copy atoms' layouts: source element
    // e holds the value e + 1, so each half names the element it came from.
    let f_ldsm = module.load_function("ldsm_atoms")?;
    let src: Vec<u16> = (1..=256).collect();
    let dsrc = stream.clone_htod(&src)?;
    let mut dout = stream.alloc_zeros::<u32>(448)?;
    launch::ldsm_atoms(&stream, &f_ldsm, &dsrc, &mut dout)?;
    let got = stream.clone_dtoh(&dout)?;
    let mut at = 0;
    for (form, &(_, regs)) in layout_kernels::maps::LDSM_FORMS.iter().enumerate() {
        let mut bad = 0;
        for lane in 0..32 {
            for r in 0..regs {
                let [lo, hi] = layout_kernels::maps::ldsm_expected(form, lane, r);
                let want = src[lo] as u32 | (src[hi] as u32) << 16;
                bad += usize::from(got[14 * lane + at + r] != want);
            }
        }
        at += regs;
        ok &= bad == 0;
        rows.push(Row {
            kernel: match form {
                0 => "ldmatrix x1 (SM75_U32x1_LDSM_N)",
                1 => "ldmatrix x2 (SM75_U32x2_LDSM_N)",
                2 => "ldmatrix x4 (SM75_U32x4_LDSM_N)",
                3 => "ldmatrix x1.trans (SM75_U16x2_LDSM_T)",
                4 => "ldmatrix x2.trans (SM75_U16x4_LDSM_T)",
                _ => "ldmatrix x4.trans (SM75_U16x8_LDSM_T)",
            }
            .into(),
            size: format!("{} x 8x8", regs),
            ms: 0.0,
            rate: "-".into(),
            check: exact(bad, 32 * regs),
        });
    }

    // HGEMM on tensor cores, C = A · Bᵀ (A m x k, B n x k), f16 inputs, f32
    // accumulators and output: 256³ checked everywhere, n³ timed and
    // checked at sampled entries, against f64 dot products of the same
    // f16 values (bound k · eps · Σ|a b|).
    let f_hgemm = module.load_function("hgemm_f32")?;
    for (size, timed) in [(256, false), (n, true)] {
        // The f16 values themselves, for the reference.
        let round = |v: Vec<f32>| -> Vec<f32> {
            v.into_iter()
                .map(|x| half::f16::from_f32(x).to_f32())
                .collect()
        };
        let (a, bt) = (round(random(size * size, 4)), round(random(size * size, 5)));
        // dot() takes B as k x n: transpose the n x k B.
        let b: Vec<f32> = (0..size * size)
            .map(|x| bt[(x % size) * size + x / size])
            .collect();
        let (da, db) = (
            stream.clone_htod(&f16_bits(&a))?,
            stream.clone_htod(&f16_bits(&bt))?,
        );
        let mut dc = stream.alloc_zeros::<f32>(size * size)?;
        let dims = (size, size, size);
        let ms = run_or_time(&ctx, &stream, args.reps, timed, || {
            launch::hgemm(&stream, &f_hgemm, &da, &db, &mut dc, dims)
        })?;
        let c = stream.clone_dtoh(&dc)?;
        let checked = samples(size, timed, 6);
        let bad = beyond_bound(&a, &b, &c, size, &checked);
        ok &= bad == 0;
        let kernel = "hgemm_f32 (layout, tensor cores)";
        rows.push(gemm_row(kernel, size, ms, timed, checked.len(), bad, BOUND));
    }

    // f16 accumulators (C f16): entries in {-1, 0, 1}, so every partial sum
    // is a small integer, exact in f16 (up to 2048) as in f32; the check is
    // exact, against integer dot products.
    let f_hgemm16 = module.load_function("hgemm_f16")?;
    for (size, timed) in [(256, false), (n, true)] {
        let tern = |seed: u64| -> Vec<f32> {
            random(size * size, seed)
                .into_iter()
                .map(|x| (((x + 1.0) * 1.5) as i32 - 1) as f32)
                .collect()
        };
        let (a, b) = (tern(7), tern(8));
        let (da, db) = (
            stream.clone_htod(&f16_bits(&a))?,
            stream.clone_htod(&f16_bits(&b))?,
        );
        let mut dc = stream.alloc_zeros::<u16>(size * size)?;
        let dims = (size, size, size);
        let ms = run_or_time(&ctx, &stream, args.reps, timed, || {
            launch::hgemm(&stream, &f_hgemm16, &da, &db, &mut dc, dims)
        })?;
        let c = stream.clone_dtoh(&dc)?;
        let checked = samples(size, timed, 9);
        let bad = checked
            .iter()
            .filter(|&&(i, j)| {
                // Small integers: the f32 sum is exact.
                let want: f32 = (0..size).map(|p| a[i * size + p] * b[j * size + p]).sum();
                half::f16::from_bits(c[i * size + j]).to_f32() != want
            })
            .count();
        ok &= bad == 0;
        let kernel = "hgemm_f16 (layout, tensor cores, f16 acc)";
        rows.push(gemm_row(
            kernel,
            size,
            ms,
            timed,
            checked.len(),
            bad,
            "wrong (exact)",
        ));
    }

    println!("| kernel | size | ms | rate | check |");
    println!("| --- | --- | --- | --- | --- |");
    for r in &rows {
        println!(
            "| {} | {} | {:.4} | {} | {} |",
            r.kernel, r.size, r.ms, r.rate, r.check
        );
    }
    Ok(ok)
}
