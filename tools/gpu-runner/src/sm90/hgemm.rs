//! `hgemm_sm90` and its forms (`layout_kernels_sm90::hgemm::FORMS`): each
//! checked exactly at sizes with partial tiles, then timed round-robin.

use crate::text;
use layout_gpu::launch::HgemmSm90Launch;
use layout_kernels_sm90::hgemm::FORMS;
use layout_launch::{Device, Module, Stream};

use crate::timing::{self, IDLE, LAUNCHES, ROUNDS, WARMUP};

/// A pseudo-random small integer in `lo..=hi` for index `i` (a fixed
/// hash: the same inputs on every run).
pub(super) fn small(i: usize, seed: u64, lo: i32, hi: i32) -> i32 {
    let mut x = (i as u64).wrapping_add(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    lo + (x % (hi - lo + 1) as u64) as i32
}

/// A standard normal value for index `i` (Box-Muller over [`small`]'s
/// hash): timing data with random mantissas, as cuBLAS's anchor gets from
/// `torch.randn` (small integers draw less power and clock higher).
pub(crate) fn normal(i: usize, seed: u64) -> f32 {
    let u = |s: u64| (small(i, s, 0, (1 << 24) - 1) as f64 + 0.5) / (1u64 << 24) as f64;
    let (u1, u2) = (u(seed), u(seed + 1000));
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

/// `hgemm_sm90` and its forms on small-integer operands, then (with
/// `timing`) timed at 4096³ and 8192³ on normal operands: persistent (one
/// block per SM) and, for the full kernel, one block per tile.
/// `Ok(false)` when a check fails.
pub fn run(gpu: &Device, module: &Module, timing: bool) -> Result<bool, String> {
    let sms = gpu.sm_count().map_err(text)?;
    let (full, _) = FORMS[0];
    // The full kernel at every size, then each form at sizes with partial
    // tiles (an odd count of tile rows: a cluster's last block past C), a
    // single element and the shared 1000 x 1500 x 1016.
    let mut checks: Vec<(&str, (usize, usize, usize))> = [
        (128, 256, 64),
        (1, 1, 8),
        (129, 257, 72),
        (200, 136, 520),
        (300, 520, 136),
        (1000, 1500, 1016),
        (4096, 4096, 4096),
    ]
    .into_iter()
    .map(|d| (full, d))
    .collect();
    for &(f, _) in &FORMS[1..] {
        checks.extend([
            (f, (300, 520, 136)),
            (f, (1, 1, 8)),
            (f, (1000, 1500, 1016)),
        ]);
    }
    // C stored by TMA (N a multiple of 8), and the split-K entry
    // (`super::check_splits` says how many splits): one element, a partial
    // K-block, a language model's (128, 4096, 14336), past a tile row, and
    // the 128 tiles of 512 x 4096 x 4096.
    checks.extend([
        ("hgemm_tma_sm90", (129, 264, 72)),
        ("hgemm_tma_sm90", (1000, 1504, 1016)),
        ("hgemm_splitk_sm90", (1, 1, 8)),
        ("hgemm_splitk_sm90", (64, 520, 1024)),
        ("hgemm_splitk_sm90", (200, 300, 4104)),
        ("hgemm_splitk_sm90", (128, 4096, 14336)),
        ("hgemm_splitk_sm90", (130, 7000, 512)),
        ("hgemm_splitk_sm90", (512, 4096, 4096)),
    ]);
    let mut ok = true;
    for (name, dims) in checks {
        ok &= check(gpu.stream(), module, sms, name, dims)?;
    }
    if !timing {
        return Ok(ok);
    }
    let mut runs: Vec<(&str, Option<u32>)> = FORMS.iter().map(|&(f, _)| (f, Some(sms))).collect();
    runs.insert(1, (full, None));
    println!("| form | size | blocks | ms (median of {ROUNDS} rounds) | TFLOP/s | slowest round |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for size in [4096usize, 8192] {
        time(gpu.stream(), module, &runs, size)?;
    }
    Ok(ok)
}

/// Entry point `name` on an m x n x k problem with A in -1..=1 and B in
/// -2..=2: every sum is an integer that f32 holds exactly, so each entry
/// of C (every one, or 65536 sampled ones of a large C) is checked for
/// equality with the exact sum rounded once to f16. Prints a line.
fn check(
    s: &Stream,
    module: &Module,
    sms: u32,
    name: &str,
    (m, n, k): (usize, usize, usize),
) -> Result<bool, String> {
    let f16 = half::f16::from_f32;
    let f = module.kernel(name).map_err(text)?;
    let a: Vec<i32> = (0..m * k).map(|i| small(i, 1, -1, 1)).collect();
    let b: Vec<i32> = (0..n * k).map(|i| small(i, 2, -2, 2)).collect();
    let upload = |v: &[i32]| s.upload(&v.iter().map(|&x| f16(x as f32)).collect::<Vec<_>>());
    let (da, db) = (upload(&a).map_err(text)?, upload(&b).map_err(text)?);
    let mut dc = s.upload(&vec![half::f16::NAN; m * n]).map_err(text)?;
    let plan = HgemmSm90Launch::new(s, &f, Some(sms), &da, &db, (m, n, k)).map_err(text)?;
    // A split-K entry says how many splits it took.
    let splits = super::check_splits(name, false, (m, n, k), sms);
    let plan = plan.ready(s, splits, &dc).map_err(text)?;
    let name = if layout_gpu::launch::split_entry(name) {
        format!("{name} ({splits} splits)")
    } else {
        name.to_string()
    };
    // Twice, C made NaN again before the second: every launch writes all
    // of C (a split-K entry's second launch runs on the flags the first
    // left at 0, over its sums).
    let nan = s.upload(&vec![half::f16::NAN; m * n]).map_err(text)?;
    for _ in 0..2 {
        s.copy(&nan, &mut dc).map_err(text)?;
        plan.launch(s, &f, (&da, &db), &mut dc).map_err(text)?;
    }
    let c = s.download(&dc).map_err(text)?;
    let want = |i: usize, j: usize| -> f32 {
        let dot: i64 = (0..k).map(|p| (a[i * k + p] * b[j * k + p]) as i64).sum();
        half::f16::from_f32(dot as f32).to_f32()
    };
    let entries = checked_entries(m * n);
    let wrong: Vec<usize> = entries
        .iter()
        .copied()
        .filter(|&ij| c[ij].to_f32() != want(ij / n, ij % n))
        .collect();
    let what = if entries.len() == m * n {
        "every entry".to_string()
    } else {
        format!("{} sampled entries", entries.len())
    };
    if wrong.is_empty() {
        println!(
            "{name} {m} x {n} x {k} ({} blocks): {what} exact",
            plan.grid()
        );
        return Ok(true);
    }
    let first: Vec<String> = wrong
        .iter()
        .take(4)
        .map(|&ij| {
            let (i, j) = (ij / n, ij % n);
            format!("[{i}][{j}] = {} not {}", c[ij], want(i, j))
        })
        .collect();
    println!(
        "{name} {m} x {n} x {k}: {} of {} ({what}) wrong (first: {})",
        wrong.len(),
        entries.len(),
        first.join(", ")
    );
    Ok(false)
}

/// The entries of a C of `len` elements a check compares: every one, or
/// 65536 sampled (a fixed hash) of a C of more than 2^21.
pub(super) fn checked_entries(len: usize) -> Vec<usize> {
    if len <= 1 << 21 {
        (0..len).collect()
    } else {
        (0..65536)
            .map(|i| small(i, 3, 0, i32::MAX - 1) as usize % len)
            .collect()
    }
}

/// The forms `(entry point, grid: None for one block per tile)` timed at
/// size³, round-robin: every form once per round, [`ROUNDS`] rounds, each
/// form's batch after the GPU idled (the timing protocol of
/// [`crate::timing`]); each round starts at another form, so that the
/// position in a sequence of back-to-back batches (a GPU under sustained
/// load clocks lower) is the same for every form. Prints the table's rows.
fn time(
    s: &Stream,
    module: &Module,
    forms: &[(&str, Option<u32>)],
    size: usize,
) -> Result<(), String> {
    let (m, n, k) = (size, size, size);
    let f16 = half::f16::from_f32;
    let da = s
        .upload(&(0..m * k).map(|i| f16(normal(i, 5))).collect::<Vec<_>>())
        .map_err(text)?;
    let db = s
        .upload(&(0..n * k).map(|i| f16(normal(i, 6))).collect::<Vec<_>>())
        .map_err(text)?;
    let mut dc = s.zeros::<half::f16>(m * n).map_err(text)?;
    let mut plans = Vec::new();
    for &(name, grid) in forms {
        let f = module.kernel(name).map_err(text)?;
        let plan = HgemmSm90Launch::new(s, &f, grid, &da, &db, (m, n, k)).map_err(text)?;
        plans.push((name, grid.is_none(), f, plan, Vec::new()));
    }
    let count = plans.len();
    for round in 0..ROUNDS {
        for i in 0..count {
            let (_, _, f, plan, times) = &mut plans[(round + i) % count];
            s.synchronize().map_err(text)?;
            std::thread::sleep(IDLE);
            for _ in 0..WARMUP {
                plan.launch(s, f, (&da, &db), &mut dc).map_err(text)?;
            }
            let ms = s
                .time(|| {
                    for _ in 0..LAUNCHES {
                        plan.launch(s, f, (&da, &db), &mut dc)
                            .map_err(|e| layout_launch::Error::Invalid(e.to_string()))?;
                    }
                    Ok::<(), layout_launch::Error>(())
                })
                .map_err(text)?
                / LAUNCHES as f32;
            times.push(ms);
        }
    }
    for (name, per_tile, _, plan, mut times) in plans {
        let ms = timing::median(&mut times);
        let slowest = times[times.len() - 1];
        let tflops = 2.0 * (m * n * k) as f64 / (ms as f64 * 1e-3) / 1e12;
        let label = if per_tile {
            format!("{name}, one block per tile")
        } else {
            name.to_string()
        };
        println!(
            "| {label} | {size}^3 | {} | {ms:.4} | {tflops:.1} | {slowest:.4} |",
            plan.grid()
        );
    }
    Ok(())
}
