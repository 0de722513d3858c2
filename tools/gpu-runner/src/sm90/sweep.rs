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
                (true, a.splits),
                bf16::from_f32,
            )?;
        } else {
            row(
                s,
                &module,
                sms,
                &pool,
                dims,
                (false, a.splits),
                f16::from_f32,
            )?;
        }
    }
    Ok(())
}

/// One shape in `T` (`bf16`: the bf16 entries; `forced`: the split-K
/// entry with that many splits), its row printed.
fn row<T: layout_launch::TmaElement + layout_launch::ValidAsZeroBits>(
    s: &Stream,
    module: &Module,
    sms: u32,
    pool: &[f32],
    (m, n, k): (usize, usize, usize),
    (bf16, forced): (bool, Option<u32>),
    to: impl Fn(f32) -> T + Copy,
) -> Result<(), String> {
    let (entry, splits) = match forced {
        Some(s) => (SM90_SPLIT_GEMMS[usize::from(bf16)], s as usize),
        None => sm90_gemm_entry(bf16, (m, n, k), sms),
    };
    let f = module.kernel(entry).map_err(text)?;
    let da = s.upload(&spread(pool, m * k, 1, to)).map_err(text)?;
    let db = s.upload(&spread(pool, n * k, 2, to)).map_err(text)?;
    let mut dc: DeviceBuffer<T> = s.zeros(m * n).map_err(text)?;
    let plan = HgemmSm90Launch::new(s, &f, Some(sms), &da, &db, (m, n, k)).map_err(text)?;
    let plan = super::ready(s, module, plan, (entry, splits), &dc)?;
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
}
