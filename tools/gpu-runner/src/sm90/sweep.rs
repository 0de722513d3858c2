//! `gpu-runner gemm-time PTX --shape MxNxK ...`: the Hopper dense GEMM
//! the host's plan picks for each shape (`layout_gpu::launch::
//! sm90_gemm_entry`: split-K, or clusters of two with C stored by TMA),
//! timed on normal operands by [`crate::timing`]'s protocol, one table row
//! a shape. `kernels/scripts/gemm-sweep-sm90.py` sets the rows beside
//! cuBLAS.

use crate::text;
use crate::timing;
use half::{bf16, f16};
use layout_gpu::launch::{sm90_gemm_entry, HgemmSm90Launch, Sm90Epilogue, SM90_SPLIT_GEMMS};
use layout_launch::{Device, DeviceBuffer, Module, Stream};
use std::path::PathBuf;

/// The arguments of `gpu-runner gemm-time`.
#[derive(clap::Args, Debug, PartialEq)]
pub struct TimeArgs {
    /// The PTX file of layout-kernels-sm90 (OUT/layout_kernels_sm90.ptx).
    pub ptx: PathBuf,
    /// A problem, `MxNxK` (C m x n = A m x k · (B n x k)ᵀ); repeatable.
    #[arg(long = "shape", required = true, value_parser = parse_shape)]
    pub shapes: Vec<(usize, usize, usize)>,
    /// The element type of A, B and C: float16 or bfloat16.
    #[arg(long, default_value = "float16", value_parser = ["float16", "bfloat16"])]
    pub dtype: String,
    /// The split-K entry with this many splits of K (1 to 16) at every
    /// shape, instead of the plan's choice.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub splits: Option<u32>,
    /// This entry at every shape, instead of the plan's choice: a form of
    /// `hgemm_sm90` (f16), a split-K entry, or a TMA-store entry
    /// (`hgemm_tma_sm90`, `gemm_bf16_tma_sm90`), or `gemm_bf16_sm90`; of
    /// the element type `--dtype` names.
    #[arg(long, value_parser = parse_entry)]
    pub entry: Option<&'static str>,
}

/// The dense Hopper GEMM entries `--entry` takes: C = A · Bᵀ with no
/// epilogue argument.
fn parse_entry(s: &str) -> Result<&'static str, String> {
    use layout_kernels_sm90::hgemm::FORMS;
    const OTHERS: [&str; 3] = ["hgemm_tma_sm90", "gemm_bf16_tma_sm90", "gemm_bf16_sm90"];
    FORMS
        .iter()
        .map(|f| f.0)
        .chain(SM90_SPLIT_GEMMS)
        .chain(OTHERS)
        .find(|n| *n == s)
        .ok_or_else(|| format!("'{s}' is not a dense Hopper GEMM entry without epilogue arguments"))
}

/// The entry and splits `a` asks for at one shape: `--entry` (with
/// `--splits`, or one split), `--splits` alone (the split-K entry), or
/// the plan's choice. Refuses an entry of the other element
/// type, and splits for an entry that does not split K.
fn choice(
    a: &TimeArgs,
    bf16: bool,
    dims: (usize, usize, usize),
    sms: u32,
) -> Result<(&'static str, usize), String> {
    match (a.entry, a.splits) {
        (Some(e), s) => {
            if e.contains("bf16") != bf16 {
                return Err(format!("--entry {e} is not a {} entry", a.dtype));
            }
            if s.is_some() && !SM90_SPLIT_GEMMS.contains(&e) {
                return Err(format!(
                    "--entry {e} does not split K: --splits is the split-K entries'"
                ));
            }
            Ok((e, s.map_or(1, |s| s as usize)))
        }
        (None, Some(s)) => Ok((SM90_SPLIT_GEMMS[usize::from(bf16)], s as usize)),
        (None, None) => Ok(sm90_gemm_entry(bf16, dims, sms)),
    }
}

/// `MxNxK` as three positive sizes.
fn parse_shape(s: &str) -> Result<(usize, usize, usize), String> {
    let v: Vec<usize> = s
        .split('x')
        .map(|x| x.parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("'{s}' is not MxNxK"))?;
    match v[..] {
        [m, n, k] if m > 0 && n > 0 && k > 0 => Ok((m, n, k)),
        _ => Err(format!("'{s}' is not MxNxK of positive sizes")),
    }
}

/// 2^20 standard normal values ([`super::normal`]), repeated over any
/// length by a multiplicative hash of the index: random mantissas (the
/// power draw of real data) without 10⁹ Box-Muller draws for B of
/// 128256 x 4096.
fn pool() -> Vec<f32> {
    (0..1 << 20).map(|i| super::normal(i, 3)).collect()
}

/// `len` values of the pool as `T`, from a place `salt` picks.
fn spread<T>(pool: &[f32], len: usize, salt: usize, to: impl Fn(f32) -> T) -> Vec<T> {
    (0..len)
        .map(|i| to(pool[(i.wrapping_add(salt).wrapping_mul(0x9E37_79B1) >> 7) & ((1 << 20) - 1)]))
        .collect()
}

/// Times each shape; prints the table.
pub fn time_gemm(a: &TimeArgs) -> Result<(), String> {
    if a.entry.is_some() {
        // The entry's element type and splits, before the GPU.
        choice(a, a.dtype == "bfloat16", (1, 1, 1), 1)?;
    }
    let gpu = Device::new(0).map_err(text)?;
    let module = gpu.load_ptx_file(&a.ptx).map_err(text)?;
    let sms = gpu.sm_count().map_err(text)?;
    let s = gpu.stream();
    let pool = pool();
    println!(
        "| entry | splits | M | N | K | blocks | ms (median of {}) | TFLOP/s |",
        timing::ROUNDS
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for &dims in &a.shapes {
        if a.dtype == "bfloat16" {
            row(
                s,
                &module,
                sms,
                &pool,
                dims,
                choice(a, true, dims, sms)?,
                bf16::from_f32,
            )?;
        } else {
            row(
                s,
                &module,
                sms,
                &pool,
                dims,
                choice(a, false, dims, sms)?,
                f16::from_f32,
            )?;
        }
    }
    Ok(())
}

/// One shape in `T` with the entry and splits [`choice`] gave, its row
/// printed.
fn row<T: layout_launch::TmaElement + layout_launch::ValidAsZeroBits>(
    s: &Stream,
    module: &Module,
    sms: u32,
    pool: &[f32],
    (m, n, k): (usize, usize, usize),
    (entry, splits): (&'static str, usize),
    to: impl Fn(f32) -> T + Copy,
) -> Result<(), String> {
    let f = module.kernel(entry).map_err(text)?;
    let da = s.upload(&spread(pool, m * k, 1, to)).map_err(text)?;
    let db = s.upload(&spread(pool, n * k, 2, to)).map_err(text)?;
    let mut dc: DeviceBuffer<T> = s.zeros(m * n).map_err(text)?;
    let plan = HgemmSm90Launch::new(s, &f, Some(sms), &da, &db, (m, n, k)).map_err(text)?;
    let plan = plan.ready(s, splits, &dc).map_err(text)?;
    let ms = timing::median_round(s, || {
        plan.launch_epilogue(s, &f, (&da, &db), &mut dc, Sm90Epilogue::Plain)
            .map_err(text)
    })?;
    let tflops = 2.0 * (m * n * k) as f64 / (f64::from(ms) * 1e-3) / 1e12;
    println!(
        "| {entry} | {splits} | {m} | {n} | {k} | {} | {ms:.4} | {tflops:.1} |",
        plan.grid()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_or_are_refused() {
        assert_eq!(parse_shape("128x4096x14336"), Ok((128, 4096, 14336)));
        assert!(parse_shape("128x4096").is_err());
        assert!(parse_shape("0x1x1").is_err());
        assert!(parse_shape("axbxc").is_err());
    }

    #[test]
    fn entries_are_the_dense_ones() {
        assert_eq!(parse_entry("hgemm_splitk_sm90"), Ok("hgemm_splitk_sm90"));
        assert!(parse_entry("hgemm_splitk64_sm90").is_err());
        assert_eq!(parse_entry("hgemm_sm90_1wg"), Ok("hgemm_sm90_1wg"));
        assert!(parse_entry("gemm_e4m3_sm90").is_err());
        assert!(parse_entry("gemm_bias_gelu_bf16_sm90").is_err());
    }
}
