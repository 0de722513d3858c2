//! `gpu-runner PTX`: loads the PTX that `kernels/scripts/build-ptx.sh` writes, runs
//! each kernel of `layout-kernels` on GPU 0, checks its result against the
//! CPU and times it with CUDA events next to a device-to-device copy (the
//! bandwidth anchor), then prints one table.
//!
//! ```text
//! kernels/scripts/build-ptx.sh target/ptx && cargo build --release -p layout-gpu-runner
//! target/release/gpu-runner target/ptx/layout_kernels.ptx
//! ```
//!
//! `gpu-runner gemm PTX KERNEL A.npy B.npy C.npy` and `gpu-runner transpose
//! PTX KERNEL X.npy Y.npy` run one kernel on `.npy` files instead
//! (`files.rs`; `--help` states each kernel's storage order and shapes);
//! `gpu-runner attention PTX flash_attn_fwd Q.npy K.npy V.npy O.npy
//! [--causal] [--scale S] [--lse LSE.npy] [--time]` a FlashAttention
//! forward kernel (`attention.rs`).

mod attention;
mod files;
mod launch;
mod npy;
mod sm90;
mod timing;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use layout_gpu::launch as gpu_launch;
use layout_kernels::maps::{HGEMM_F16, HGEMM_F32, SGEMM, SGEMM_NT};
use layout_launch::{Device, Stream};

/// Run, check and time the kernels of layout-kernels on GPU 0 (`gpu-runner
/// PTX`), or run one kernel on .npy files (`gpu-runner gemm`, `gpu-runner
/// transpose`, `gpu-runner attention`).
#[derive(Parser, Debug)]
#[command(
    name = "gpu-runner",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    bench: Args,
}

/// The default mode: every kernel run, checked and timed.
#[derive(clap::Args, Debug)]
struct Args {
    /// The PTX file (kernels/scripts/build-ptx.sh writes target/ptx/layout_kernels.ptx).
    #[arg(required = true)]
    ptx: Option<PathBuf>,
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

/// Running one kernel on .npy files.
#[derive(Subcommand, Debug, PartialEq, Eq)]
enum Command {
    /// Run one GEMM kernel on A.npy and B.npy on GPU 0 and write its C to
    /// C.npy.
    #[command(after_help = files::gemm_help())]
    Gemm {
        /// The PTX file (target/ptx/layout_kernels.ptx).
        ptx: PathBuf,
        /// sgemm_f32, sgemm_nt_f32, hgemm_f32 or hgemm_f16.
        kernel: String,
        /// A (.npy), in the kernel's storage order.
        a: PathBuf,
        /// B (.npy), in the kernel's storage order.
        b: PathBuf,
        /// Where to write C (.npy, C-order).
        c: PathBuf,
    },
    /// Run the transpose kernel on X.npy on GPU 0 and write Y = Xᵀ to
    /// Y.npy.
    #[command(after_help = files::transpose_help())]
    Transpose {
        /// The PTX file (target/ptx/layout_kernels.ptx).
        ptx: PathBuf,
        /// transpose_f32.
        kernel: String,
        /// X (.npy).
        x: PathBuf,
        /// Where to write Y (.npy, C-order).
        y: PathBuf,
    },
    /// Run a FlashAttention forward kernel on Q.npy, K.npy and V.npy on GPU
    /// 0 and write O to O.npy (and the log-sum-exp to LSE.npy).
    #[command(after_help = attention::ATTENTION_HELP)]
    Attention(attention::Args),
    /// Run and check the Hopper kernels of layout-kernels-sm90 (PTX for
    /// sm_90a: `layout-ptx kernels/sm90 OUT --arch sm_90a`).
    Sm90 {
        /// The PTX file (OUT/layout_kernels_sm90.ptx).
        ptx: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Gemm {
            ptx,
            kernel,
            a,
            b,
            c,
        }) => files::prepare_gemm(ptx, kernel, a, b, c).and_then(|job| files::run_gemm(&job)),
        Some(Command::Transpose { ptx, kernel, x, y }) => {
            files::prepare_transpose(ptx, kernel, x, y).and_then(|job| files::run_transpose(&job))
        }
        Some(Command::Attention(args)) => {
            attention::prepare_attention(args).and_then(|job| attention::run_attention(&job))
        }
        Some(Command::Sm90 { ptx }) => match sm90::run(ptx) {
            Ok(true) => Ok(()),
            Ok(false) => {
                eprintln!("gpu-runner: a check failed");
                return ExitCode::FAILURE;
            }
            Err(e) => Err(e),
        },
        None => {
            return match run(&cli.bench) {
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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gpu-runner: {}", e.replace('\n', " "));
            ExitCode::from(2)
        }
    }
}

/// Mean milliseconds of `reps` runs of `f`, after 3 warm-up runs.
fn time(
    stream: &Stream,
    reps: usize,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<f64, Box<dyn Error>> {
    for _ in 0..3 {
        f()?;
    }
    let ms = stream.time(|| -> Result<(), Box<dyn Error>> {
        for _ in 0..reps {
            f()?;
        }
        Ok(())
    })?;
    Ok(f64::from(ms) / reps as f64)
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
    stream: &Stream,
    reps: usize,
    timed: bool,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<f64, Box<dyn Error>> {
    if timed {
        return time(stream, reps, f);
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

/// Each value as f16 (rounded to nearest).
fn halves(v: &[f32]) -> Vec<half::f16> {
    v.iter().map(|&x| half::f16::from_f32(x)).collect()
}

/// f16 bits of each value (rounded to nearest), for the diagnostic
/// kernels, which take halves as bits.
fn f16_bits(v: &[f32]) -> Vec<u16> {
    halves(v).iter().map(|x| x.to_bits()).collect()
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
    // A size every kernel of the table takes (their launch rules).
    if n == 0 || ![SGEMM, HGEMM_F32].iter().all(|p| p.divides(n, n, n)) {
        return Err(format!("--n {n}: a positive multiple of 128").into());
    }
    let ptx = args.ptx.as_ref().ok_or("no PTX file given")?;
    let gpu = Device::new(0)?;
    let (major, minor) = gpu.compute_capability()?;
    println!("GPU 0: {}, compute capability {major}.{minor}", gpu.name()?);
    let module = gpu.load_ptx_file(ptx)?;
    let (f_transpose, f_sgemm, f_sgemm_nt) = (
        module.kernel("transpose_f32")?,
        module.kernel("sgemm_f32")?,
        module.kernel("sgemm_nt_f32")?,
    );
    let stream = gpu.stream();
    let mut rows = Vec::new();
    let mut ok = true;
    let gbs = |bytes: usize, ms: f64| format!("{:.0} GB/s", bytes as f64 / ms / 1e6);

    // Transpose, exact; and a plain copy of the same bytes.
    let host: Vec<f32> = (0..n * n).map(|i| (i % (1 << 24)) as f32).collect();
    let src = stream.upload(&host)?;
    let mut dst = stream.zeros::<f32>(n * n)?;
    let ms = time(stream, args.reps, || {
        gpu_launch::transpose(stream, &f_transpose, &src, &mut dst, n).map_err(|e| e.to_string())
    })?;
    let got = stream.download(&dst)?;
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
    let ms = time(stream, args.reps, || {
        stream.copy(&src, &mut dst).map_err(|e| e.to_string())
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
            sgemms.push((form.clone(), module.kernel(form)?, a_m_major));
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
            let (da, db) = (stream.upload(&a_dev)?, stream.upload(&b)?);
            let mut dc = stream.zeros::<f32>(size * size)?;
            let dims = (size, size, size);
            let plan = if *a_m_major { SGEMM_NT } else { SGEMM };
            let ms = run_or_time(stream, args.reps, timed, || {
                gpu_launch::gemm(stream, f, &plan, (&da, &db, &mut dc), dims)
                    .map_err(|e| e.to_string())
            })?;
            let c = stream.download(&dc)?;
            let checked = samples(size, timed, 3);
            let bad = beyond_bound(&a, &b, &c, size, &checked);
            ok &= bad == 0;
            rows.push(gemm_row(name, size, ms, timed, checked.len(), bad, BOUND));
        }
    }

    // The tensor-core atom, f32 and f16 accumulators: small integers, so
    // every product and sum is exact in both.
    let f_mma = module.kernel("mma_atom")?;
    let ai: Vec<f32> = (0..256)
        .map(|i| ((i * 3 + i / 16) % 7) as f32 - 3.0)
        .collect();
    let bi: Vec<f32> = (0..128).map(|i| ((i * 5 + 1) % 7) as f32 - 3.0).collect();
    let (da, db) = (
        stream.upload(&f16_bits(&ai))?,
        stream.upload(&f16_bits(&bi))?,
    );
    let want: Vec<f32> = (0..128)
        .map(|x| {
            (0..16)
                .map(|k| ai[(x / 8) * 16 + k] * bi[(x % 8) * 16 + k])
                .sum()
        })
        .collect();
    for f16acc in [0u32, 1] {
        let mut dc = stream.zeros::<u32>(128)?;
        launch::mma_atom(stream, &f_mma, &da, &db, &mut dc, f16acc)?;
        let c = stream.download(&dc)?;
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

    let f_tile = module.kernel("mma_tile")?;
    let mut dc = stream.zeros::<f32>(128)?;
    launch::mma_tile(stream, &f_tile, &da, &db, &mut dc)?;
    let got = stream.download(&dc)?;
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
    let f_ldsm = module.kernel("ldsm_atoms")?;
    let src: Vec<u16> = (1..=256).collect();
    let dsrc = stream.upload(&src)?;
    let mut dout = stream.zeros::<u32>(448)?;
    launch::ldsm_atoms(stream, &f_ldsm, &dsrc, &mut dout)?;
    let got = stream.download(&dout)?;
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
    let f_hgemm = module.kernel("hgemm_f32")?;
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
        let (da, db) = (stream.upload(&halves(&a))?, stream.upload(&halves(&bt))?);
        let mut dc = stream.zeros::<f32>(size * size)?;
        let dims = (size, size, size);
        let ms = run_or_time(stream, args.reps, timed, || {
            gpu_launch::gemm(stream, &f_hgemm, &HGEMM_F32, (&da, &db, &mut dc), dims)
                .map_err(|e| e.to_string())
        })?;
        let c = stream.download(&dc)?;
        let checked = samples(size, timed, 6);
        let bad = beyond_bound(&a, &b, &c, size, &checked);
        ok &= bad == 0;
        let kernel = "hgemm_f32 (layout, tensor cores)";
        rows.push(gemm_row(kernel, size, ms, timed, checked.len(), bad, BOUND));
    }

    // f16 accumulators (C f16): entries in {-1, 0, 1}, so every partial sum
    // is a small integer, exact in f16 (up to 2048) as in f32; the check is
    // exact, against integer dot products.
    let f_hgemm16 = module.kernel("hgemm_f16")?;
    for (size, timed) in [(256, false), (n, true)] {
        let tern = |seed: u64| -> Vec<f32> {
            random(size * size, seed)
                .into_iter()
                .map(|x| (((x + 1.0) * 1.5) as i32 - 1) as f32)
                .collect()
        };
        let (a, b) = (tern(7), tern(8));
        let (da, db) = (stream.upload(&halves(&a))?, stream.upload(&halves(&b))?);
        let mut dc = stream.zeros::<half::f16>(size * size)?;
        let dims = (size, size, size);
        let ms = run_or_time(stream, args.reps, timed, || {
            gpu_launch::gemm(stream, &f_hgemm16, &HGEMM_F16, (&da, &db, &mut dc), dims)
                .map_err(|e| e.to_string())
        })?;
        let c = stream.download(&dc)?;
        let checked = samples(size, timed, 9);
        let bad = checked
            .iter()
            .filter(|&&(i, j)| {
                // Small integers: the f32 sum is exact.
                let want: f32 = (0..size).map(|p| a[i * size + p] * b[j * size + p]).sum();
                c[i * size + j].to_f32() != want
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("gpu-runner").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// The default mode as docs/gpu.md, README.md and kernels/scripts/gpu-bench.sh
    /// invoke it, with and without flags.
    #[test]
    fn default_mode() {
        let cli = parse(&["target/ptx/layout_kernels.ptx"]).unwrap();
        assert_eq!(cli.command, None);
        let a = &cli.bench;
        assert_eq!(
            a.ptx.as_deref(),
            Some("target/ptx/layout_kernels.ptx".as_ref())
        );
        assert_eq!((a.n, a.reps), (4096, 20));
        assert!(a.sgemm_forms.is_empty() && a.sgemm_nt_forms.is_empty());

        let cli = parse(&[
            "--n",
            "256",
            "k.ptx",
            "--reps",
            "3",
            "--sgemm-nt-forms",
            "f1,f2",
            "--sgemm-forms",
            "g",
        ])
        .unwrap();
        let a = &cli.bench;
        assert_eq!((a.n, a.reps), (256, 3));
        assert_eq!(a.sgemm_nt_forms, ["f1", "f2"]);
        assert_eq!(a.sgemm_forms, ["g"]);
        assert_eq!(a.ptx.as_deref(), Some("k.ptx".as_ref()));

        // No PTX: a usage error (clap's exit code 2).
        let e = parse(&[]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert_eq!(e.exit_code(), 2);
        let e = parse(&["k.ptx", "extra"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn gemm_and_transpose_subcommands() {
        let cli = parse(&["gemm", "k.ptx", "hgemm_f16", "a.npy", "b.npy", "c.npy"]).unwrap();
        assert_eq!(
            cli.command,
            Some(Command::Gemm {
                ptx: "k.ptx".into(),
                kernel: "hgemm_f16".into(),
                a: "a.npy".into(),
                b: "b.npy".into(),
                c: "c.npy".into(),
            })
        );
        assert_eq!(cli.bench.ptx, None);
        let cli = parse(&["transpose", "k.ptx", "transpose_f32", "x.npy", "y.npy"]).unwrap();
        assert_eq!(
            cli.command,
            Some(Command::Transpose {
                ptx: "k.ptx".into(),
                kernel: "transpose_f32".into(),
                x: "x.npy".into(),
                y: "y.npy".into(),
            })
        );
        // Missing or extra operands, the default mode's flags on a
        // subcommand: usage errors, exit code 2.
        for args in [
            &["gemm", "k.ptx", "sgemm_f32", "a.npy", "b.npy"][..],
            &[
                "gemm",
                "k.ptx",
                "sgemm_f32",
                "a.npy",
                "b.npy",
                "c.npy",
                "d.npy",
            ],
            &["transpose", "k.ptx", "transpose_f32", "x.npy"],
            &[
                "--n",
                "256",
                "gemm",
                "k.ptx",
                "sgemm_f32",
                "a.npy",
                "b.npy",
                "c.npy",
            ],
            &[
                "gemm",
                "--reps",
                "3",
                "k.ptx",
                "sgemm_f32",
                "a.npy",
                "b.npy",
                "c.npy",
            ],
        ] {
            let e = parse(args).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn attention_subcommand() {
        let args = |o: &str| attention::Args {
            ptx: "k.ptx".into(),
            kernel: "flash_attn_fwd".into(),
            q: "q.npy".into(),
            k: "k.npy".into(),
            v: "v.npy".into(),
            o: o.into(),
            causal: false,
            scale: None,
            lse: None,
            time: false,
        };
        let ops = [
            "k.ptx",
            "flash_attn_fwd",
            "q.npy",
            "k.npy",
            "v.npy",
            "o.npy",
        ];
        let with = |flags: &[&str]| {
            let mut v = vec!["attention"];
            v.extend(ops);
            v.extend(flags);
            parse(&v)
        };
        assert_eq!(
            with(&[]).unwrap().command,
            Some(Command::Attention(args("o.npy")))
        );
        assert_eq!(
            with(&["--causal", "--scale", "0.3", "--lse", "lse.npy", "--time"])
                .unwrap()
                .command,
            Some(Command::Attention(attention::Args {
                causal: true,
                scale: Some("0.3".into()),
                lse: Some("lse.npy".into()),
                time: true,
                ..args("o.npy")
            }))
        );
        // A negative scale is a value, not a flag; flags before operands.
        let cli = parse(&[
            "attention",
            "--scale",
            "-0.5",
            "--causal",
            "k.ptx",
            "flash_attn_fwd",
            "q.npy",
            "k.npy",
            "v.npy",
            "o.npy",
        ])
        .unwrap();
        assert_eq!(
            cli.command,
            Some(Command::Attention(attention::Args {
                causal: true,
                scale: Some("-0.5".into()),
                ..args("o.npy")
            }))
        );
        // Missing or extra operands, a flag without its value, unknown
        // flags: usage errors, exit code 2.
        for flags in [
            &["--scale"][..],
            &["--lse"],
            &["extra.npy"],
            &["--mask", "causal"],
            &["--n", "256"],
        ] {
            let e = with(flags).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{flags:?}");
        }
        let e = parse(&[
            "attention",
            "k.ptx",
            "flash_attn_fwd",
            "q.npy",
            "k.npy",
            "v.npy",
        ])
        .unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert_eq!(e.exit_code(), 2);
    }

    /// Each subcommand's help states every kernel's storage order.
    #[test]
    fn help_names_each_kernels_storage_order() {
        let mut cmd = Cli::command();
        let gemm = cmd
            .find_subcommand_mut("gemm")
            .unwrap()
            .render_help()
            .to_string();
        for line in [
            "sgemm_f32     C = A B. A: M x K float32, C-order (row-major).",
            "sgemm_nt_f32  C = A B. A: M x K float32, Fortran-order (M-major, i.e.",
            "A: M x K float16, C-order. B: N x K float16, C-order",
            "hgemm_f16     as hgemm_f32 with f16 accumulators; C: M x N float16.",
        ] {
            assert!(gemm.contains(line), "{line} not in\n{gemm}");
        }
        let transpose = cmd
            .find_subcommand_mut("transpose")
            .unwrap()
            .render_help()
            .to_string();
        assert!(transpose
            .contains("transpose_f32  Y = X^T. X: N x N float32, C-order, N a multiple of 64."));
        let attention = cmd
            .find_subcommand_mut("attention")
            .unwrap()
            .render_help()
            .to_string();
        for line in [
            "Q: (batch, seq_q, heads, d) float16, C-order (BSHD).",
            "K, V: (batch, seq_k, heads, d) float16, C-order.",
            "O: (batch, seq_q, heads, d) float16, C-order.",
            "LSE (--lse): (batch, heads, seq_q) float32, C-order",
            "--causal: query i sees keys 0..=i (top-left aligned",
            "Usage: attention [OPTIONS] <PTX> <KERNEL> <Q> <K> <V> <O>",
        ] {
            assert!(attention.contains(line), "{line} not in\n{attention}");
        }
    }
}
