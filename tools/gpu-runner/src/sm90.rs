//! `gpu-runner sm90 PTX`: the Hopper kernels of layout-kernels-sm90
//! (`kernels/sm90`, PTX for sm_90a), each run once and checked exactly.

use layout_launch::{Device, TmaSwizzle};

/// Small integers as f16 bits (exact in f16 and in any f32 sum here).
fn f16_bits(v: i32) -> u16 {
    // f16 of a small integer: sign, exponent, mantissa by hand (|v| <= 8).
    if v == 0 {
        return 0;
    }
    let (sign, m) = (if v < 0 { 0x8000 } else { 0 }, v.unsigned_abs());
    let e = 31 - m.leading_zeros(); // m = 2^e * (1 + f)
    let frac = (m << (10 - e)) & 0x3ff;
    sign | ((15 + e) << 10) as u16 | frac as u16
}

/// Runs `wgmma_atom` and `tma_tile`; prints a line each; `Ok(false)` when
/// a check fails.
pub fn run(ptx: &std::path::Path) -> Result<bool, String> {
    let gpu = Device::new(0).map_err(|e| e.to_string())?;
    let module = gpu.load_ptx_file(ptx).map_err(|e| e.to_string())?;
    let s = gpu.stream();
    let err = |e: layout_launch::Error| e.to_string();
    let mut ok = true;

    // wgmma_atom: C (64 x 64) = A (64 x 16) · B (64 x 16)ᵀ.
    let val = |i: usize, seed: usize| ((i * 7 + seed * 5) % 9) as i32 - 4;
    let a: Vec<i32> = (0..1024).map(|i| val(i, 1)).collect();
    let b: Vec<i32> = (0..1024).map(|i| val(i, 2)).collect();
    let da = s
        .upload(&a.iter().map(|&v| f16_bits(v)).collect::<Vec<_>>())
        .map_err(err)?;
    let db = s
        .upload(&b.iter().map(|&v| f16_bits(v)).collect::<Vec<_>>())
        .map_err(err)?;
    let mut dc = s.upload(&vec![f32::NAN; 4096]).map_err(err)?;
    let k = module.kernel("wgmma_atom").map_err(err)?;
    crate::launch::wgmma_atom(s, &k, &da, &db, &mut dc)?;
    let c = s.download(&dc).map_err(err)?;
    let wrong = (0..4096)
        .filter(|&ij| {
            let (i, j) = (ij / 64, ij % 64);
            let want: i32 = (0..16).map(|p| a[i * 16 + p] * b[j * 16 + p]).sum();
            c[ij] != want as f32
        })
        .count();
    println!(
        "wgmma_atom (SM90_64x64x16_F32F16F16_SS, K-major INTERLEAVE): {}",
        if wrong == 0 {
            "exact".to_string()
        } else {
            format!("{wrong} of 4096 wrong")
        }
    );
    ok &= wrong == 0;

    // tma_tile: 64 x 64 boxes of a 200 x 136 matrix (row stride 136 halves,
    // 272 bytes), 128-byte swizzle; one box inside, one over the bottom-right
    // corner (zeros past the matrix).
    let (rows, cols) = (200usize, 136usize);
    let m: Vec<u16> = (0..rows * cols).map(|i| (i % 65521) as u16).collect();
    let dm = s.upload(&m).map_err(err)?;
    let map = s
        .tensor_map_2d(&dm, (rows, cols), cols, (64, 64), TmaSwizzle::B128)
        .map_err(err)?;
    let dmap = s.upload(&[map]).map_err(err)?;
    let k = module.kernel("tma_tile").map_err(err)?;
    for (col, row) in [(64i32, 64i32), (96, 160)] {
        let mut out = s.zeros::<u32>(2048).map_err(err)?;
        let ms = s
            .time(|| {
                crate::launch::tma_tile(s, &k, &dmap, &mut out, (col, row))
                    .map_err(layout_launch::Error::Invalid)
            })
            .map_err(err)?;
        println!("  tma_tile launch: {ms:.3} ms");
        let got = s.download(&out).map_err(err)?;
        let half = |h: usize| {
            let word = got[h / 2];
            if h % 2 == 0 {
                word as u16
            } else {
                (word >> 16) as u16
            }
        };
        let want = |h: usize| {
            let (r, c) = (row as usize + h / 64, col as usize + h % 64);
            if r < rows && c < cols {
                m[r * cols + c]
            } else {
                0
            }
        };
        let wrong: Vec<usize> = (0..4096).filter(|&h| half(h) != want(h)).collect();
        println!(
            "tma_tile (64 x 64 f16 box at ({col},{row}) of {rows} x {cols}, SW128, mbarrier): {}",
            if wrong.is_empty() {
                "exact".to_string()
            } else {
                format!("{} of 4096 wrong", wrong.len())
            }
        );
        if !wrong.is_empty() {
            // What went wrong: a copy that never completed leaves all ones.
            let timed_out = got.iter().filter(|&&w| w == u32::MAX).count();
            let first: Vec<String> = wrong
                .iter()
                .take(4)
                .map(|&h| format!("[{}][{}] = {} not {}", h / 64, h % 64, half(h), want(h)))
                .collect();
            let right: Vec<usize> = (0..4096).filter(|h| !wrong.contains(h)).take(8).collect();
            println!(
                "  {timed_out} words all ones; first wrong: {}; first right: {right:?}",
                first.join(", ")
            );
        }
        let wrong = wrong.len();
        ok &= wrong == 0;
    }
    ok &= hgemm(&gpu, &module)?;
    Ok(ok)
}

/// A pseudo-random small integer in `lo..=hi` for index `i` (a fixed
/// hash: the same inputs on every run).
fn small(i: usize, seed: u64, lo: i32, hi: i32) -> i32 {
    let mut x = (i as u64).wrapping_add(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    lo + (x % (hi - lo + 1) as u64) as i32
}

/// A standard normal value for index `i` (Box-Muller over [`small`]'s
/// hash): timing data with random mantissas, as cuBLAS's anchor gets from
/// `torch.randn` (small integers draw less power and clock higher).
fn normal(i: usize, seed: u64) -> f32 {
    let u = |s: u64| (small(i, s, 0, (1 << 24) - 1) as f64 + 0.5) / (1u64 << 24) as f64;
    let (u1, u2) = (u(seed), u(seed + 1000));
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

/// `hgemm_sm90` and its forms on small-integer operands (A in -1..=1, B in
/// -2..=2): every sum is an integer that f32 holds exactly, so each entry
/// of C is checked for equality with the exact sum rounded once to f16.
/// Sizes with partial tiles in M, N and K; every form once. Then the
/// forms timed at 4096^3 and 8192^3 on normal operands, round-robin (5
/// rounds of 10 launches after 2 warm-ups each, the median round),
/// persistent (one block per SM) and, for the full kernel, one block per
/// tile.
fn hgemm(gpu: &Device, module: &layout_launch::Module) -> Result<bool, String> {
    use layout_gpu::launch::HgemmSm90Launch as HgemmSm90;
    use layout_kernels_sm90::hgemm::FORMS;
    let s = gpu.stream();
    let err = |e: layout_launch::Error| e.to_string();
    let g = |e: layout_gpu::Error| e.to_string();
    let sms = gpu.sm_count().map_err(err)?;
    let f16 = half::f16::from_f32;
    let (full, _) = FORMS[0];
    let check = |checks: Vec<(&str, (usize, usize, usize))>| -> Result<bool, String> {
        let mut ok = true;
        for (name, (m, n, k)) in checks {
            let f = module.kernel(name).map_err(err)?;
            let a: Vec<i32> = (0..m * k).map(|i| small(i, 1, -1, 1)).collect();
            let b: Vec<i32> = (0..n * k).map(|i| small(i, 2, -2, 2)).collect();
            let da = s
                .upload(&a.iter().map(|&v| f16(v as f32)).collect::<Vec<_>>())
                .map_err(err)?;
            let db = s
                .upload(&b.iter().map(|&v| f16(v as f32)).collect::<Vec<_>>())
                .map_err(err)?;
            let mut dc = s.upload(&vec![half::f16::NAN; m * n]).map_err(err)?;
            let plan = HgemmSm90::new(s, &f, Some(sms), &da, &db, (m, n, k)).map_err(g)?;
            plan.launch(s, &f, (&da, &db), &mut dc).map_err(g)?;
            let c = s.download(&dc).map_err(err)?;
            let want = |i: usize, j: usize| -> f32 {
                let dot: i64 = (0..k).map(|p| (a[i * k + p] * b[j * k + p]) as i64).sum();
                half::f16::from_f32(dot as f32).to_f32()
            };
            // Every entry, or 65536 sampled ones of a large C.
            let entries: Vec<usize> = if m * n <= 1 << 21 {
                (0..m * n).collect()
            } else {
                (0..65536)
                    .map(|i| small(i, 3, 0, i32::MAX - 1) as usize % (m * n))
                    .collect()
            };
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
            } else {
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
                ok = false;
            }
        }
        Ok(ok)
    };
    // Round-robin: every form once per round, 5 rounds, each time 10
    // launches after 2 warm-ups; the median of the rounds. A form measured
    // later in a sequence of back-to-back batches meets a slower GPU (its
    // clock falls under sustained load), hence the idle gap and rotation.
    let time = |forms: Vec<(&str, Option<u32>)>| -> Result<(), String> {
        println!("| form | size | blocks | ms (median of 5 rounds) | TFLOP/s | slowest round |");
        println!("| --- | --- | --- | --- | --- | --- |");
        for size in [4096usize, 8192] {
            let (m, n, k) = (size, size, size);
            let da = s
                .upload(&(0..m * k).map(|i| f16(normal(i, 5))).collect::<Vec<_>>())
                .map_err(err)?;
            let db = s
                .upload(&(0..n * k).map(|i| f16(normal(i, 6))).collect::<Vec<_>>())
                .map_err(err)?;
            let mut dc = s.zeros::<half::f16>(m * n).map_err(err)?;
            let mut plans = Vec::new();
            for &(name, grid) in &forms {
                let f = module.kernel(name).map_err(err)?;
                let plan = HgemmSm90::new(s, &f, grid, &da, &db, (m, n, k)).map_err(g)?;
                plans.push((name, grid.is_none(), f, plan, Vec::new()));
            }
            let count = plans.len();
            for round in 0..5 {
                // Each round starts at another form, and each form's batch
                // after the GPU idled 100 ms: the position in a sequence of
                // back-to-back batches (a GPU that has just idled clocks
                // higher) is the same for every form.
                for i in 0..count {
                    let (_, _, f, plan, times) = &mut plans[(round + i) % count];
                    s.synchronize().map_err(err)?;
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    for _ in 0..2 {
                        plan.launch(s, f, (&da, &db), &mut dc).map_err(g)?;
                    }
                    let iters = 10;
                    let ms = s
                        .time(|| {
                            for _ in 0..iters {
                                plan.launch(s, f, (&da, &db), &mut dc)
                                    .map_err(|e| layout_launch::Error::Invalid(e.to_string()))?;
                            }
                            Ok::<(), layout_launch::Error>(())
                        })
                        .map_err(err)?
                        / iters as f32;
                    times.push(ms);
                }
            }
            for (name, per_tile, _, plan, mut times) in plans {
                times.sort_by(f32::total_cmp);
                let (ms, slowest) = (times[times.len() / 2], times[times.len() - 1]);
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
        }
        Ok(())
    };

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
    let ok = check(checks)?;
    let mut runs: Vec<(&str, Option<u32>)> = FORMS.iter().map(|&(f, _)| (f, Some(sms))).collect();
    runs.insert(1, (full, None));
    time(runs)?;
    Ok(ok)
}

#[cfg(test)]
mod tests {
    /// f16 bits of small integers, as IEEE half has them.
    #[test]
    fn f16_of_small_integers() {
        let bits: Vec<u16> = [0, 1, -1, 2, 3, -4, 8]
            .iter()
            .map(|&v| super::f16_bits(v))
            .collect();
        assert_eq!(
            bits,
            [0x0000, 0x3c00, 0xbc00, 0x4000, 0x4200, 0xc400, 0x4800]
        );
    }
}
