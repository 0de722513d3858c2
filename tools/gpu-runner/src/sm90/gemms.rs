//! The Hopper GEMMs built on `hgemm_sm90`'s plan from other parts:
//! `gemm_bf16_sm90`, `gemm_bf16_tma_sm90` (C stored by TMA),
//! `gemm_bias_gelu_bf16_sm90` (and by TMA), its tanh form
//! `gemm_bias_gelu_tanh_bf16_sm90` (and by TMA) and `gemm_e4m3_sm90` (and
//! by TMA), each
//! checked on small-integer operands at sizes with partial tiles, then
//! timed beside `hgemm_sm90` at 4096³ and 8192³ on normal operands.

use super::hgemm::{checked_entries, normal, small};
use crate::text;
use crate::timing::{self, IDLE, LAUNCHES, ROUNDS, WARMUP};
use half::bf16;
use layout_gpu::launch::{HgemmSm90Launch, Sm90Epilogue};
use layout_launch::{Device, DeviceBuffer, Module, Stream};

/// FP8 e4m3 bits of a small integer in -2..=2 (exact: sign, 4 exponent
/// bits of bias 7, 3 mantissa bits).
fn e4m3(v: i32) -> u8 {
    let sign = if v < 0 { 0x80 } else { 0 };
    sign | [0x00, 0x38, 0x40][v.unsigned_abs() as usize]
}

/// The nearest e4m3 of a normal value (for timing data: its bits need only
/// be finite e4m3 values with random mantissas): sign, exponent in -6..=8,
/// 3 mantissa bits.
fn e4m3_of(x: f32) -> u8 {
    let sign = if x < 0.0 { 0x80u8 } else { 0 };
    let a = x.abs().clamp(1.0 / 64.0, 448.0);
    let e = a.log2().floor() as i32;
    let m = ((a / 2f32.powi(e) - 1.0) * 8.0).round().min(7.0) as u8;
    sign | (((e + 7) as u8) << 3) | m
}

/// What a check compares: C's entry (bf16) against the exact sum.
enum Want {
    /// The sum rounded once to bf16 (`scale` times it: powers of two).
    Exact(f32),
    /// GELU(sum + bias): within one bf16 ulp of the host's GELU of the
    /// exact value x (the device's `ex2.approx` and the host's `exp2` may
    /// round the last f32 bit apart), plus 1.08 |x| 2^-8 where the entry
    /// rounds x to bf16 before the GELU (the TMA-store entry's epilogue
    /// warps; GELU's slope is at most 1.0741).
    Gelu,
    /// GELU's tanh form, as [`Want::Gelu`] with the host's `gelu_tanh`,
    /// plus |x| 2^-11 for `tanh.approx`'s relative error (about 2^-11 on
    /// the tanh: |x| 2^-12 on the value; twice that allowed).
    GeluTanh,
}

/// The checks, then (with `timing`) the timing; `Ok(false)` when a check
/// fails.
pub fn run(gpu: &Device, module: &Module, timing: bool) -> Result<bool, String> {
    let sms = gpu.sm_count().map_err(text)?;
    let s = gpu.stream();
    let mut ok = true;
    for dims in [
        (1, 1, 16),
        (129, 257, 80),
        (300, 520, 144),
        (1000, 1500, 1024),
    ] {
        ok &= check(s, module, sms, "gemm_bf16_sm90", dims, Want::Exact(1.0))?;
        // (C stored by TMA: N a multiple of 8.)
        let tma_dims = (dims.0, dims.1.next_multiple_of(8), dims.2);
        ok &= check(
            s,
            module,
            sms,
            "gemm_bf16_tma_sm90",
            tma_dims,
            Want::Exact(1.0),
        )?;
        ok &= check(s, module, sms, "gemm_bias_gelu_bf16_sm90", dims, Want::Gelu)?;
        ok &= check(
            s,
            module,
            sms,
            "gemm_bias_gelu_tma_bf16_sm90",
            tma_dims,
            Want::Gelu,
        )?;
        ok &= check(
            s,
            module,
            sms,
            "gemm_bias_gelu_tma_wide_bf16_sm90",
            tma_dims,
            Want::Gelu,
        )?;
        ok &= check(
            s,
            module,
            sms,
            "gemm_bias_gelu_tanh_bf16_sm90",
            dims,
            Want::GeluTanh,
        )?;
        ok &= check(
            s,
            module,
            sms,
            "gemm_bias_gelu_tanh_tma_bf16_sm90",
            tma_dims,
            Want::GeluTanh,
        )?;
        ok &= check(s, module, sms, "gemm_e4m3_sm90", dims, Want::Exact(0.125))?;
        ok &= check(
            s,
            module,
            sms,
            "gemm_e4m3_tma_sm90",
            tma_dims,
            Want::Exact(0.125),
        )?;
    }
    // Split-K (N odd in the second shape).
    for dims in [(64, 520, 1024), (200, 301, 4104), (128, 4096, 14336)] {
        ok &= check(
            s,
            module,
            sms,
            "gemm_bf16_splitk_sm90",
            dims,
            Want::Exact(1.0),
        )?;
    }
    for name in GROUPED {
        ok &= grouped_check(s, module, sms, name, &[0, 70, 129, 5, 300], (520, 72))?;
        ok &= grouped_check(s, module, sms, name, &[64, 2048, 1, 700], (4096, 4096))?;
    }
    if !timing {
        return Ok(ok);
    }
    for name in GROUPED {
        grouped_time(s, module, sms, name, None)?;
    }
    // What the tail split buys: the TMA entry without it.
    grouped_time(s, module, sms, GROUPED[1], Some(1))?;
    println!("| entry | size | blocks | ms (median of {ROUNDS} rounds) | TFLOP/s |");
    println!("| --- | --- | --- | --- | --- |");
    for size in [4096usize, 8192] {
        time(s, module, sms, size)?;
    }
    Ok(ok)
}

/// The operands of `name` on the GPU: bf16 or e4m3 (bytes) from `value`.
enum Operands {
    Bf16(DeviceBuffer<bf16>, DeviceBuffer<bf16>),
    E4m3(DeviceBuffer<u8>, DeviceBuffer<u8>),
}

impl Operands {
    fn new(
        s: &Stream,
        name: &str,
        (m, n, k): (usize, usize, usize),
        value: impl Fn(usize, u64) -> f32,
        fp8: impl Fn(f32) -> u8,
    ) -> Result<Operands, String> {
        Ok(if name.starts_with("gemm_e4m3") {
            let a: Vec<u8> = (0..m * k).map(|i| fp8(value(i, 1))).collect();
            let b: Vec<u8> = (0..n * k).map(|i| fp8(value(i, 2))).collect();
            Operands::E4m3(s.upload(&a).map_err(text)?, s.upload(&b).map_err(text)?)
        } else {
            let a: Vec<bf16> = (0..m * k).map(|i| bf16::from_f32(value(i, 1))).collect();
            let b: Vec<bf16> = (0..n * k).map(|i| bf16::from_f32(value(i, 2))).collect();
            Operands::Bf16(s.upload(&a).map_err(text)?, s.upload(&b).map_err(text)?)
        })
    }

    /// The plan of `f` for these operands.
    fn plan(
        &self,
        s: &Stream,
        f: &layout_launch::Kernel,
        sms: u32,
        dims: (usize, usize, usize),
    ) -> Result<HgemmSm90Launch, String> {
        match self {
            Operands::Bf16(a, b) => HgemmSm90Launch::new(s, f, Some(sms), a, b, dims),
            Operands::E4m3(a, b) => HgemmSm90Launch::new(s, f, Some(sms), a, b, dims),
        }
        .map_err(text)
    }

    fn launch(
        &self,
        s: &Stream,
        f: &layout_launch::Kernel,
        plan: &HgemmSm90Launch,
        c: &mut DeviceBuffer<bf16>,
        epilogue: Sm90Epilogue<'_>,
    ) -> Result<(), String> {
        match self {
            Operands::Bf16(a, b) => plan.launch_epilogue(s, f, (a, b), c, epilogue),
            Operands::E4m3(a, b) => plan.launch_epilogue(s, f, (a, b), c, epilogue),
        }
        .map_err(text)
    }
}

/// The epilogue argument of `name`: the bias (values in -3..=3 by
/// quarters, exact in bf16) or the scales (0.5 and 0.25).
fn epilogue<'a>(name: &str, bias: &'a DeviceBuffer<bf16>) -> Sm90Epilogue<'a> {
    match name {
        "gemm_bias_gelu_bf16_sm90"
        | "gemm_bias_gelu_tma_bf16_sm90"
        | "gemm_bias_gelu_tma_wide_bf16_sm90"
        | "gemm_bias_gelu_tanh_bf16_sm90"
        | "gemm_bias_gelu_tanh_tma_bf16_sm90" => Sm90Epilogue::Bias(bias),
        "gemm_e4m3_sm90" | "gemm_e4m3_tma_sm90" => Sm90Epilogue::Scales(0.5, 0.25),
        _ => Sm90Epilogue::Plain,
    }
}

/// `name` on an m x n x k problem with A and B in -2..=2: every entry (or
/// 65536 sampled ones of a large C) against [`Want`]. Prints a line.
fn check(
    s: &Stream,
    module: &Module,
    sms: u32,
    name: &str,
    (m, n, k): (usize, usize, usize),
    want: Want,
) -> Result<bool, String> {
    let f = module.kernel(name).map_err(text)?;
    let value = |i: usize, seed: u64| small(i, seed, -2, 2) as f32;
    let ops = Operands::new(s, name, (m, n, k), value, |x| e4m3(x as i32))?;
    let bias_v: Vec<f32> = (0..n).map(|j| small(j, 9, -12, 12) as f32 / 4.0).collect();
    let bias = s
        .upload(
            &bias_v
                .iter()
                .map(|&x| bf16::from_f32(x))
                .collect::<Vec<_>>(),
        )
        .map_err(text)?;
    let mut dc = s.upload(&vec![bf16::NAN; m * n]).map_err(text)?;
    let splits = super::check_splits(name, true, (m, n, k), sms);
    let plan = ops
        .plan(s, &f, sms, (m, n, k))?
        .ready(s, splits, &dc)
        .map_err(text)?;
    ops.launch(s, &f, &plan, &mut dc, epilogue(name, &bias))?;
    let c = s.download(&dc).map_err(text)?;
    let dot = |i: usize, j: usize| -> f32 {
        (0..k)
            .map(|p| value(i * k + p, 1) * value(j * k + p, 2))
            .sum()
    };
    let good = |i: usize, j: usize| -> bool {
        let got = c[i * n + j].to_f32();
        match want {
            Want::Exact(scale) => got == bf16::from_f32(scale * dot(i, j)).to_f32(),
            Want::Gelu | Want::GeluTanh => {
                use layout_device::epilogue::{gelu, gelu_tanh};
                // The tanh form's `tanh.approx`: |x| 2^-11 more.
                let (f, approx): (fn(f32) -> f32, f32) = match want {
                    Want::Gelu => (gelu, 0.0),
                    _ => (gelu_tanh, 1.0 / 2048.0),
                };
                let x = dot(i, j) + bias_v[j];
                let r = f(x);
                let bound = r.abs() / 128.0 + 1.08 * x.abs() / 256.0 + approx * x.abs();
                (got - r).abs() <= bound + 1e-6
            }
        }
    };
    let entries = checked_entries(m * n);
    let wrong: Vec<usize> = entries
        .iter()
        .copied()
        .filter(|&ij| !good(ij / n, ij % n))
        .collect();
    let how = match want {
        Want::Exact(_) => "exact",
        Want::Gelu => "within the bound of GELU",
        Want::GeluTanh => "within the bound of GELU's tanh form",
    };
    if wrong.is_empty() {
        println!(
            "{name} {m} x {n} x {k} ({} blocks): {} entries {how}",
            plan.grid(),
            entries.len()
        );
        return Ok(true);
    }
    let first: Vec<String> = wrong
        .iter()
        .take(4)
        .map(|&ij| format!("[{}][{}] = {}", ij / n, ij % n, c[ij]))
        .collect();
    println!(
        "{name} {m} x {n} x {k}: {} of {} not {how} (first: {})",
        wrong.len(),
        entries.len(),
        first.join(", ")
    );
    Ok(false)
}

/// The entries at size³ on normal operands, round-robin with the
/// timing protocol of [`crate::timing`]; prints the table's rows.
fn time(s: &Stream, module: &Module, sms: u32, size: usize) -> Result<(), String> {
    let dims = (size, size, size);
    let names = [
        "gemm_bf16_sm90",
        "gemm_bf16_tma_sm90",
        "gemm_bias_gelu_bf16_sm90",
        "gemm_bias_gelu_tma_bf16_sm90",
        "gemm_bias_gelu_tma_wide_bf16_sm90",
        "gemm_bias_gelu_tanh_tma_bf16_sm90",
        "gemm_e4m3_sm90",
        "gemm_e4m3_tma_sm90",
    ];
    let bias = s
        .upload(
            &(0..size)
                .map(|j| bf16::from_f32(normal(j, 9)))
                .collect::<Vec<_>>(),
        )
        .map_err(text)?;
    let mut dc = s.zeros::<bf16>(size * size).map_err(text)?;
    let mut runs = Vec::new();
    for name in names {
        let f = module.kernel(name).map_err(text)?;
        let ops = Operands::new(s, name, dims, normal, e4m3_of)?;
        let plan = ops.plan(s, &f, sms, dims)?.ready(s, 1, &dc).map_err(text)?;
        runs.push((name, f, ops, plan, Vec::new()));
    }
    for round in 0..ROUNDS {
        for i in 0..runs.len() {
            let count = runs.len();
            let (name, f, ops, plan, times) = &mut runs[(round + i) % count];
            s.synchronize().map_err(text)?;
            std::thread::sleep(IDLE);
            for _ in 0..WARMUP {
                ops.launch(s, f, plan, &mut dc, epilogue(name, &bias))?;
            }
            let mut failed = None;
            let ms = s
                .time(|| {
                    for _ in 0..LAUNCHES {
                        if let Err(e) = ops.launch(s, f, plan, &mut dc, epilogue(name, &bias)) {
                            failed = Some(e);
                        }
                    }
                    Ok::<(), layout_launch::Error>(())
                })
                .map_err(text)?
                / LAUNCHES as f32;
            if let Some(e) = failed {
                return Err(e);
            }
            times.push(ms);
        }
    }
    for (name, _, _, plan, mut times) in runs {
        let ms = timing::median(&mut times);
        let tflops = 2.0 * (size * size * size) as f64 / (ms as f64 * 1e-3) / 1e12;
        println!(
            "| {name} | {size}^3 | {} | {ms:.4} | {tflops:.1} |",
            plan.grid()
        );
    }
    Ok(())
}

/// The offsets (from 0) of groups of `sizes` rows.
fn offsets_of(sizes: &[usize]) -> Vec<i32> {
    let mut v = vec![0i32];
    for &m in sizes {
        v.push(v[v.len() - 1] + m as i32);
    }
    v
}

/// The grouped GEMM's entries (`layout_gpu::launch::grouped_entry` picks
/// one per problem).
const GROUPED: [&str; 3] = [
    "gemm_grouped_bf16_sm90",
    "gemm_grouped_tma_bf16_sm90",
    "gemm_grouped_tma_nocluster_bf16_sm90",
];

/// The grouped entry `name` on groups of `sizes` rows, n x k each, A and B
/// in -2..=2: each group's C (every entry, or 65536 sampled ones) exact.
/// Prints a line.
fn grouped_check(
    s: &Stream,
    module: &Module,
    sms: u32,
    name: &str,
    sizes: &[usize],
    (n, k): (usize, usize),
) -> Result<bool, String> {
    let f = module.kernel(name).map_err(text)?;
    let offsets = offsets_of(sizes);
    let (rows, g) = (offsets[sizes.len()] as usize, sizes.len());
    let value = |i: usize, seed: u64| small(i, seed, -2, 2) as f32;
    let up = |len: usize, seed: u64| {
        s.upload(
            &(0..len)
                .map(|i| bf16::from_f32(value(i, seed)))
                .collect::<Vec<_>>(),
        )
    };
    let (da, db) = (
        up(rows * k, 1).map_err(text)?,
        up(g * n * k, 2).map_err(text)?,
    );
    let mut dc = s.upload(&vec![bf16::NAN; rows * n]).map_err(text)?;
    layout_gpu::launch::gemm_grouped_bf16_sm90(s, &f, sms, (&da, &db), &offsets, &mut dc, (n, k))
        .map_err(text)?;
    let c = s.download(&dc).map_err(text)?;
    let group = |i: usize| {
        offsets
            .iter()
            .rposition(|&o| o as usize <= i)
            .unwrap_or(0)
            .min(g - 1)
    };
    let want = |i: usize, j: usize| -> f32 {
        let gi = group(i);
        let dot: f32 = (0..k)
            .map(|p| value(i * k + p, 1) * value((gi * n + j) * k + p, 2))
            .sum();
        bf16::from_f32(dot).to_f32()
    };
    let entries = checked_entries(rows * n);
    let wrong: Vec<usize> = entries
        .iter()
        .copied()
        .filter(|&ij| c[ij].to_f32() != want(ij / n, ij % n))
        .collect();
    println!(
        "{name} groups {sizes:?} x {n} x {k}: {} of {} entries wrong",
        wrong.len(),
        entries.len()
    );
    Ok(wrong.is_empty())
}

/// The grouped entry `name` timed: 8 groups of 64 to 2048 rows, N = K =
/// 4096, normal operands (torch's `_grouped_mm` is the anchor, in the
/// same call from Python), the last round's tiles split as the plan
/// chooses or `tail` ways. Prints a line, marking the entry the host
/// picks.
fn grouped_time(
    s: &Stream,
    module: &Module,
    sms: u32,
    name: &str,
    tail: Option<usize>,
) -> Result<(), String> {
    let f = module.kernel(name).map_err(text)?;
    let sizes = [64usize, 2048, 512, 128, 1024, 256, 1536, 768];
    let (n, k) = (4096, 4096);
    let offsets = offsets_of(&sizes);
    let (rows, g) = (offsets[sizes.len()] as usize, sizes.len());
    let up = |len: usize, seed: u64| {
        s.upload(
            &(0..len)
                .map(|i| bf16::from_f32(normal(i, seed)))
                .collect::<Vec<_>>(),
        )
    };
    let (da, db) = (
        up(rows * k, 5).map_err(text)?,
        up(g * n * k, 6).map_err(text)?,
    );
    let mut dc = s.zeros::<bf16>(rows * n).map_err(text)?;
    // The maps made once, as the dense GEMMs' plans are.
    let plan =
        layout_gpu::launch::GroupedSm90Launch::new(s, &f, sms, (&da, &db), &offsets, &dc, (n, k))
            .map_err(text)?;
    let plan = match tail {
        Some(splits) => plan.with_tail_splits(s, splits).map_err(text)?,
        None => plan,
    };
    let mut times = Vec::new();
    for _ in 0..ROUNDS {
        s.synchronize().map_err(text)?;
        std::thread::sleep(IDLE);
        for _ in 0..WARMUP {
            plan.launch(s, &f, (&da, &db), &mut dc).map_err(text)?;
        }
        let mut failed = None;
        let ms = s
            .time(|| {
                for _ in 0..LAUNCHES {
                    if let Err(e) = plan.launch(s, &f, (&da, &db), &mut dc) {
                        failed = Some(e.to_string());
                    }
                }
                Ok::<(), layout_launch::Error>(())
            })
            .map_err(text)?
            / LAUNCHES as f32;
        if let Some(e) = failed {
            return Err(e);
        }
        times.push(ms);
    }
    let ms = timing::median(&mut times);
    let tflops = 2.0 * (rows * n * k) as f64 / (ms as f64 * 1e-3) / 1e12;
    let picked = if layout_gpu::launch::grouped_entry(&offsets, n) == name {
        " (the host's pick)"
    } else {
        ""
    };
    println!(
        "{name}{picked} groups {sizes:?} x {n} x {k}: {} blocks, tail split {}: {ms:.4} ms (median of {ROUNDS} rounds), {tflops:.1} TFLOP/s",
        plan.grid(),
        plan.tail_splits()
    );
    Ok(())
}
