//! The default mode, `gpu-runner PTX`: every kernel of `layout-kernels`
//! run on GPU 0, checked against the CPU, and (the large sizes) timed with
//! CUDA events next to a device-to-device copy, the bandwidth anchor; one
//! table.

use std::error::Error;
use std::path::PathBuf;

use layout_gpu::launch as gpu_launch;
use layout_kernels::maps::{GemmPlan, HGEMM_F16, HGEMM_F32, SGEMM, SGEMM_NT};
use layout_launch::{DeviceRepr, Kernel, Module, Stream, ValidAsZeroBits};

use crate::launch;

/// The default mode: every kernel run, checked and timed.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The PTX file (kernels/scripts/build-ptx.sh writes target/ptx/layout_kernels.ptx).
    #[arg(required = true)]
    pub ptx: Option<PathBuf>,
    /// Side of the square problems (a multiple of 128).
    #[arg(long, default_value_t = 4096)]
    pub n: usize,
    /// Timed launches per kernel (after 3 untimed).
    #[arg(long, default_value_t = 20)]
    pub reps: usize,
    /// More entry points with `sgemm_nt_f32`'s signature and contract (forms
    /// of the kernel under study), checked and timed as it is.
    #[arg(long, value_delimiter = ',')]
    pub sgemm_nt_forms: Vec<String>,
    /// The same for `sgemm_f32`'s contract (A row-major).
    #[arg(long, value_delimiter = ',')]
    pub sgemm_forms: Vec<String>,
}

/// Runs, checks and times every kernel; prints the table. `Ok(false)` when
/// a check failed.
pub fn run(args: &Args) -> Result<bool, Box<dyn Error>> {
    let n = args.n;
    // A size every kernel of the table takes (their launch rules).
    if n == 0 || ![SGEMM, HGEMM_F32].iter().all(|p| p.divides(n, n, n)) {
        return Err(format!("--n {n}: a positive multiple of 128").into());
    }
    let ptx = args.ptx.as_ref().ok_or("no PTX file given")?;
    let gpu = layout_launch::Device::new(0)?;
    let (major, minor) = gpu.compute_capability()?;
    println!("GPU 0: {}, compute capability {major}.{minor}", gpu.name()?);
    let module = gpu.load_ptx_file(ptx)?;
    let mut t = Table {
        stream: gpu.stream(),
        module: &module,
        reps: args.reps,
        rows: Vec::new(),
        ok: true,
    };
    t.transpose(n)?;
    t.sgemms(n, &args.sgemm_forms, &args.sgemm_nt_forms)?;
    t.atoms()?;
    t.ldmatrix()?;
    t.hgemm_f32(n)?;
    t.hgemm_f16(n)?;
    println!("| kernel | size | ms | rate | check |");
    println!("| --- | --- | --- | --- | --- |");
    for r in &t.rows {
        println!(
            "| {} | {} | {:.4} | {} | {} |",
            r.kernel, r.size, r.ms, r.rate, r.check
        );
    }
    Ok(t.ok)
}

/// One line of the table.
struct Row {
    kernel: String,
    size: String,
    ms: f64,
    rate: String,
    check: String,
}

/// The table as it fills: the stream and module every part runs on.
struct Table<'a> {
    stream: &'a Stream,
    module: &'a Module,
    reps: usize,
    rows: Vec<Row>,
    ok: bool,
}

/// The sizes each GEMM runs at: 256³ checked at every entry, and the
/// table's size timed and checked at sampled entries.
fn gemm_sizes(n: usize) -> [(usize, bool); 2] {
    [(256, false), (n, true)]
}

impl Table<'_> {
    /// A row whose check found `bad` wrong values: `ok` falls with it.
    fn push(&mut self, bad: usize, row: Row) {
        self.ok &= bad == 0;
        self.rows.push(row);
    }

    /// A check-only row (one launch, untimed).
    fn push_exact(&mut self, kernel: &str, size: &str, bad: usize, of: usize) {
        let row = Row {
            kernel: kernel.into(),
            size: size.into(),
            ms: 0.0,
            rate: "-".into(),
            check: exact(bad, of),
        };
        self.push(bad, row);
    }

    /// Mean milliseconds of `reps` runs of `f`, after 3 warm-up runs; with
    /// `timed` false one run (0 ms).
    fn time(
        &self,
        timed: bool,
        mut f: impl FnMut() -> Result<(), String>,
    ) -> Result<f64, Box<dyn Error>> {
        if !timed {
            f()?;
            self.stream.synchronize()?;
            return Ok(0.0);
        }
        for _ in 0..3 {
            f()?;
        }
        let ms = self.stream.time(|| -> Result<(), Box<dyn Error>> {
            for _ in 0..self.reps {
                f()?;
            }
            Ok(())
        })?;
        Ok(f64::from(ms) / self.reps as f64)
    }

    /// Transpose, exact; and a plain copy of the same bytes.
    fn transpose(&mut self, n: usize) -> Result<(), Box<dyn Error>> {
        let (s, f) = (self.stream, self.module.kernel("transpose_f32")?);
        let gbs = |ms: f64| format!("{:.0} GB/s", (2 * 4 * n * n) as f64 / ms / 1e6);
        let host: Vec<f32> = (0..n * n).map(|i| (i % (1 << 24)) as f32).collect();
        let src = s.upload(&host)?;
        let mut dst = s.zeros::<f32>(n * n)?;
        let ms = self.time(true, || {
            gpu_launch::transpose(s, &f, &src, &mut dst, n).map_err(|e| e.to_string())
        })?;
        let got = s.download(&dst)?;
        let bad = (0..n * n)
            .filter(|&x| got[(x % n) * n + x / n] != host[x])
            .count();
        let row = Row {
            kernel: "transpose_f32 (layout)".into(),
            size: format!("{n}x{n}"),
            ms,
            rate: gbs(ms),
            check: exact(bad, n * n),
        };
        self.push(bad, row);
        let ms = self.time(true, || s.copy(&src, &mut dst).map_err(|e| e.to_string()))?;
        let row = Row {
            kernel: "copy (cuMemcpyDtoD)".into(),
            size: format!("{n}x{n}"),
            ms,
            rate: gbs(ms),
            check: "-".into(),
        };
        self.push(0, row);
        Ok(())
    }

    /// One GEMM at both sizes: `inputs(size)` gives the operands as the
    /// kernel stores them and a checker of C's entry (i, j), true when
    /// right; `verdict` names what the check counts.
    fn gemm<In: DeviceRepr, Out: DeviceRepr + ValidAsZeroBits>(
        &mut self,
        (kernel, f, plan): (&str, &Kernel, &GemmPlan),
        n: usize,
        seed: u64,
        verdict: &str,
        mut inputs: impl FnMut(usize) -> GemmCase<In, Out>,
    ) -> Result<(), Box<dyn Error>> {
        let s = self.stream;
        for (size, timed) in gemm_sizes(n) {
            let case = inputs(size);
            let (da, db) = (s.upload(&case.a)?, s.upload(&case.b)?);
            let mut dc = s.zeros::<Out>(size * size)?;
            let ms = self.time(timed, || {
                gpu_launch::gemm(s, f, plan, (&da, &db, &mut dc), (size, size, size))
                    .map_err(|e| e.to_string())
            })?;
            let c = s.download(&dc)?;
            let checked = samples(size, timed, seed);
            let bad = checked
                .iter()
                .filter(|&&(i, j)| !(case.right)(&c, i, j))
                .count();
            let what = if timed { "sampled" } else { "all" };
            let row = Row {
                kernel: kernel.into(),
                size: format!("{size}x{size}x{size}"),
                ms,
                rate: tflops(size, ms, timed),
                check: format!("{} {what} entries, {bad} {verdict}", checked.len()),
            };
            self.push(bad, row);
        }
        Ok(())
    }

    /// SGEMM and its forms; error bound k · eps · Σ|a b|. A is row-major
    /// for sgemm_f32, M-major (the same values transposed) for
    /// sgemm_nt_f32, CuTe's NT.
    fn sgemms(
        &mut self,
        n: usize,
        forms: &[String],
        nt_forms: &[String],
    ) -> Result<(), Box<dyn Error>> {
        let mut sgemms = vec![
            ("sgemm_f32 (layout)".to_string(), "sgemm_f32", false),
            (
                "sgemm_nt_f32 (layout, A M-major)".to_string(),
                "sgemm_nt_f32",
                true,
            ),
        ];
        for (forms, a_m_major) in [(forms, false), (nt_forms, true)] {
            sgemms.extend(forms.iter().map(|f| (f.clone(), f.as_str(), a_m_major)));
        }
        for (name, entry, a_m_major) in sgemms {
            let f = self.module.kernel(entry)?;
            let plan = if a_m_major { SGEMM_NT } else { SGEMM };
            self.gemm((&name, &f, &plan), n, 3, BOUND, |size| {
                let (a, b) = (random(size * size, 1), random(size * size, 2));
                let stored = if a_m_major {
                    transposed(&a, size)
                } else {
                    a.clone()
                };
                GemmCase {
                    a: stored,
                    b: b.clone(),
                    right: Box::new(move |c: &[f32], i, j| within_bound(&a, &b, c, size, (i, j))),
                }
            })?;
        }
        Ok(())
    }

    /// HGEMM on tensor cores, C = A · Bᵀ (A m x k, B n x k), f16 inputs,
    /// f32 accumulators and output, against f64 dot products of the same
    /// f16 values (bound k · eps · Σ|a b|).
    fn hgemm_f32(&mut self, n: usize) -> Result<(), Box<dyn Error>> {
        let f = self.module.kernel("hgemm_f32")?;
        let kernel = ("hgemm_f32 (layout, tensor cores)", &f, &HGEMM_F32);
        self.gemm(kernel, n, 6, BOUND, |size| {
            // The f16 values themselves, for the reference.
            let round = |v: Vec<f32>| -> Vec<f32> {
                v.into_iter()
                    .map(|x| half::f16::from_f32(x).to_f32())
                    .collect()
            };
            let (a, bt) = (round(random(size * size, 4)), round(random(size * size, 5)));
            let (ha, hb) = (halves(&a), halves(&bt));
            // within_bound takes B as k x n: transpose the n x k B.
            let b = transposed(&bt, size);
            GemmCase {
                a: ha,
                b: hb,
                right: Box::new(move |c: &[f32], i, j| within_bound(&a, &b, c, size, (i, j))),
            }
        })
    }

    /// f16 accumulators (C f16): entries in {-1, 0, 1}, so every partial
    /// sum is a small integer, exact in f16 (up to 2048) as in f32; the
    /// check is exact, against integer dot products.
    fn hgemm_f16(&mut self, n: usize) -> Result<(), Box<dyn Error>> {
        let f = self.module.kernel("hgemm_f16")?;
        let kernel = ("hgemm_f16 (layout, tensor cores, f16 acc)", &f, &HGEMM_F16);
        self.gemm(kernel, n, 9, "wrong (exact)", |size| {
            let tern = |seed: u64| -> Vec<f32> {
                random(size * size, seed)
                    .into_iter()
                    .map(|x| (((x + 1.0) * 1.5) as i32 - 1) as f32)
                    .collect()
            };
            let (a, b) = (tern(7), tern(8));
            GemmCase {
                a: halves(&a),
                b: halves(&b),
                right: Box::new(move |c: &[half::f16], i, j| {
                    // Small integers: the f32 sum is exact.
                    let want: f32 = (0..size).map(|p| a[i * size + p] * b[j * size + p]).sum();
                    c[i * size + j].to_f32() == want
                }),
            }
        })
    }

    /// The tensor-core atom, f32 and f16 accumulators, and the tile kernel
    /// (cp.async, ldmatrix, mma): small integers, so every product and sum
    /// is exact in both.
    fn atoms(&mut self) -> Result<(), Box<dyn Error>> {
        let s = self.stream;
        let f_mma = self.module.kernel("mma_atom")?;
        let ai: Vec<f32> = (0..256)
            .map(|i| ((i * 3 + i / 16) % 7) as f32 - 3.0)
            .collect();
        let bi: Vec<f32> = (0..128).map(|i| ((i * 5 + 1) % 7) as f32 - 3.0).collect();
        let (da, db) = (s.upload(&f16_bits(&ai))?, s.upload(&f16_bits(&bi))?);
        let want: Vec<f32> = (0..128)
            .map(|x| {
                (0..16)
                    .map(|k| ai[(x / 8) * 16 + k] * bi[(x % 8) * 16 + k])
                    .sum()
            })
            .collect();
        let wrong = |got: &[f32]| (0..128).filter(|&x| got[x] != want[x]).count();
        for f16acc in [0u32, 1] {
            let mut dc = s.zeros::<u32>(128)?;
            launch::mma_atom(s, &f_mma, &da, &db, &mut dc, f16acc)?;
            let c = s.download(&dc)?;
            let got: Vec<f32> = if f16acc == 0 {
                c.iter().map(|&w| f32::from_bits(w)).collect()
            } else {
                (0..128)
                    .map(|x| half::f16::from_bits((c[x / 2] >> (16 * (x % 2))) as u16).to_f32())
                    .collect()
            };
            let kernel = if f16acc == 0 {
                "mma_atom m16n8k16 f32 acc"
            } else {
                "mma_atom m16n8k16 f16 acc"
            };
            self.push_exact(kernel, "16x8x16", wrong(&got), 128);
        }
        let f_tile = self.module.kernel("mma_tile")?;
        let mut dc = s.zeros::<f32>(128)?;
        launch::mma_tile(s, &f_tile, &da, &db, &mut dc)?;
        let got = s.download(&dc)?;
        let kernel = "mma_tile (cp.async, ldmatrix, mma)";
        self.push_exact(kernel, "16x8x16", wrong(&got), 128);
        Ok(())
    }

    /// Every ldmatrix form, against the copy atoms' layouts: source element
    /// e holds the value e + 1, so each half names the element it came
    /// from.
    fn ldmatrix(&mut self) -> Result<(), Box<dyn Error>> {
        use layout_kernels::maps::{ldsm_expected, LDSM_FORMS};
        let s = self.stream;
        let f = self.module.kernel("ldsm_atoms")?;
        let src: Vec<u16> = (1..=256).collect();
        let dsrc = s.upload(&src)?;
        let mut dout = s.zeros::<u32>(448)?;
        launch::ldsm_atoms(s, &f, &dsrc, &mut dout)?;
        let got = s.download(&dout)?;
        let mut at = 0;
        for (form, &(_, regs)) in LDSM_FORMS.iter().enumerate() {
            let mut bad = 0;
            for lane in 0..32 {
                for r in 0..regs {
                    let [lo, hi] = ldsm_expected(form, lane, r);
                    let want = src[lo] as u32 | (src[hi] as u32) << 16;
                    bad += usize::from(got[14 * lane + at + r] != want);
                }
            }
            at += regs;
            let kernel = match form {
                0 => "ldmatrix x1 (SM75_U32x1_LDSM_N)",
                1 => "ldmatrix x2 (SM75_U32x2_LDSM_N)",
                2 => "ldmatrix x4 (SM75_U32x4_LDSM_N)",
                3 => "ldmatrix x1.trans (SM75_U16x2_LDSM_T)",
                4 => "ldmatrix x2.trans (SM75_U16x4_LDSM_T)",
                _ => "ldmatrix x4.trans (SM75_U16x8_LDSM_T)",
            };
            self.push_exact(kernel, &format!("{regs} x 8x8"), bad, 32 * regs);
        }
        Ok(())
    }
}

/// Whether entry (i, j) of C is right.
type EntryCheck<Out> = Box<dyn Fn(&[Out], usize, usize) -> bool>;

/// A GEMM's operands as the kernel stores them, and its check of C.
struct GemmCase<In, Out> {
    a: Vec<In>,
    b: Vec<In>,
    right: EntryCheck<Out>,
}

/// What the f32 GEMM checks count: entries beyond `k * eps * sum |a b|`.
const BOUND: &str = "beyond k*eps*sum|ab|";

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

/// The size x size matrix `x` transposed (its other storage order).
fn transposed(x: &[f32], size: usize) -> Vec<f32> {
    (0..size * size)
        .map(|e| x[(e % size) * size + e / size])
        .collect()
}

/// Whether entry (i, j) of the size x size product `c` = a · b lies within
/// `k * eps * sum |a b|` of the f64 dot product.
fn within_bound(a: &[f32], b: &[f32], c: &[f32], size: usize, (i, j): (usize, usize)) -> bool {
    let (want, bound) = (0..size).fold((0.0f64, 0.0f64), |(s, t), p| {
        let x = f64::from(a[i * size + p]) * f64::from(b[p * size + j]);
        (s + x, t + x.abs())
    });
    let eps = f64::from(f32::EPSILON) * size as f64;
    (f64::from(c[i * size + j]) - want).abs() <= eps * bound + 1e-30
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference check against hand-computed products: [[1,2],[3,4]]
    /// times the identity is itself; one entry off by more than the bound
    /// fails, and only that one.
    #[test]
    fn within_bound_accepts_the_product_and_rejects_an_error() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let id = [1.0, 0.0, 0.0, 1.0];
        let mut c = a;
        let all = [(0, 0), (0, 1), (1, 0), (1, 1)];
        assert!(all.iter().all(|&e| within_bound(&a, &id, &c, 2, e)));
        c[1] = 2.001;
        let bad: Vec<_> = all
            .into_iter()
            .filter(|&e| !within_bound(&a, &id, &c, 2, e))
            .collect();
        assert_eq!(bad, [(0, 1)]);
    }

    #[test]
    fn transposed_swaps_storage_order() {
        assert_eq!(transposed(&[1.0, 2.0, 3.0, 4.0], 2), [1.0, 3.0, 2.0, 4.0]);
    }

    #[test]
    fn samples_cover_every_entry_or_4098() {
        assert_eq!(samples(3, false, 1).len(), 9);
        let s = samples(256, true, 1);
        assert_eq!(s.len(), 4098);
        assert!(s.iter().all(|&(i, j)| i < 256 && j < 256));
        assert_eq!(s[4096..], [(0, 0), (255, 255)]);
    }
}
