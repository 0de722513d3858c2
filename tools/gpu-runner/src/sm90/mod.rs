//! `gpu-runner sm90 PTX`: the Hopper kernels of layout-kernels-sm90
//! (`kernels/sm90`, PTX for sm_90a), each run once and checked exactly.

mod gemms;
pub mod gmma_atoms;
mod hgemm;
pub mod sweep;
pub(crate) use hgemm::normal;

use crate::text;
use layout_launch::{Device, Module, Stream, TmaSwizzle};

/// The splits a check runs the entry `name` with at (m, n, k): for a
/// split-K entry, the plan's count where the plan picks it, else the most
/// the plan considers (`layout_kernels_sm90::hgemm::most_splits`); 1 for
/// any other entry.
pub(crate) fn check_splits(
    name: &str,
    bf16: bool,
    (m, n, k): (usize, usize, usize),
    sms: u32,
) -> usize {
    use layout_gpu::launch::{sm90_gemm_entry, split_entry};
    use layout_kernels_sm90::hgemm::{ceil_div, most_splits, BK};
    if !split_entry(name) {
        return 1;
    }
    match sm90_gemm_entry(bf16, (m, n, k), sms) {
        (e, splits) if e == name => splits,
        _ => most_splits((m, n, ceil_div(k, BK)), sms as usize),
    }
}

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

/// Runs `wgmma_atom`, `tma_tile`, `tma_round_trip`, `tma_reduce_tile`,
/// the HGEMM (these with `all` only) and the GEMMs built on its plan
/// (bf16, bias and GELU, FP8, split-K, grouped); prints a line each, then
/// (with `timing`) the timing tables; `Ok(false)` when a check fails.
pub fn run(ptx: &std::path::Path, timing: bool, all: bool) -> Result<bool, String> {
    let gpu = Device::new(0).map_err(text)?;
    let module = gpu.load_ptx_file(ptx).map_err(text)?;
    let s = gpu.stream();
    let mut ok = true;
    if all {
        ok &= wgmma_atom(s, &module)?;
        ok &= tma_tile(s, &module)?;
        ok &= tma_round_trip(s, &module)?;
        ok &= tma_reduce_tile(s, &module)?;
        ok &= hgemm::run(&gpu, &module, timing)?;
    }
    Ok(gemms::run(&gpu, &module, timing)? && ok)
}

/// `wgmma_atom`: C (64 x 64) = A (64 x 16) · B (64 x 16)ᵀ on small
/// integers, checked exactly.
fn wgmma_atom(s: &Stream, module: &Module) -> Result<bool, String> {
    let val = |i: usize, seed: usize| ((i * 7 + seed * 5) % 9) as i32 - 4;
    let a: Vec<i32> = (0..1024).map(|i| val(i, 1)).collect();
    let b: Vec<i32> = (0..1024).map(|i| val(i, 2)).collect();
    let da = s
        .upload(&a.iter().map(|&v| f16_bits(v)).collect::<Vec<_>>())
        .map_err(text)?;
    let db = s
        .upload(&b.iter().map(|&v| f16_bits(v)).collect::<Vec<_>>())
        .map_err(text)?;
    let mut dc = s.upload(&vec![f32::NAN; 4096]).map_err(text)?;
    let k = module.kernel("wgmma_atom").map_err(text)?;
    crate::launch::wgmma_atom(s, &k, &da, &db, &mut dc)?;
    let c = s.download(&dc).map_err(text)?;
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
    Ok(wrong == 0)
}

/// `tma_round_trip`: 64 x 64 boxes of a 200 x 136 matrix loaded by TMA and
/// stored by TMA into a matrix of zeros of the same shape: the box's
/// elements inside the matrix arrive, and nothing else is written; one box
/// inside, one over the bottom-right corner. Checked exactly.
fn tma_round_trip(s: &Stream, module: &Module) -> Result<bool, String> {
    let (rows, cols) = (200usize, 136usize);
    let m: Vec<u16> = (0..rows * cols).map(|i| (i % 65521) as u16 | 1).collect();
    let what = "TMA load and TMA store of the 64 x 64 box";
    let want = |src: u16, init: u16, inside: bool| if inside { src } else { init };
    two_map_check(
        s,
        module,
        "tma_round_trip",
        what,
        (&m, 0),
        (rows, cols),
        (64, 64),
        [(64, 64), (96, 160)],
        want,
    )
}

/// `tma_reduce_tile`: 64 x 32 f32 boxes of a 100 x 72 matrix added by a TMA
/// reduce-add into a matrix holding 0.5 everywhere: the box's elements
/// inside the matrix are 0.5 + the source's, the rest 0.5 (small
/// integers and halves: every sum exact); one box inside, one over the
/// corner.
fn tma_reduce_tile(s: &Stream, module: &Module) -> Result<bool, String> {
    let (rows, cols) = (100usize, 72usize);
    let m: Vec<f32> = (0..rows * cols).map(|i| (i % 1000) as f32).collect();
    let what = "TMA prefetch, load and reduce-add of the 64 x 32 f32 box";
    let want = |src: f32, init: f32, inside: bool| if inside { init + src } else { init };
    two_map_check(
        s,
        module,
        "tma_reduce_tile",
        what,
        (&m, 0.5),
        (rows, cols),
        (64, 32),
        [(32, 32), (48, 64)],
        want,
    )
}

/// A kernel of (src map, dst map, col, row) at each box position `at`:
/// `src` holds `m`, `dst` holds `init` everywhere (`rows x cols` matrices,
/// boxes of `boxes` (rows, cols), the 128-byte swizzle); after the launch
/// each element of `dst` must be `want(m's, init, inside the box)`,
/// exactly. A line per position; whether all were exact.
#[allow(clippy::too_many_arguments)]
fn two_map_check<T: layout_launch::TmaElement + Copy + PartialEq>(
    s: &Stream,
    module: &Module,
    kernel: &str,
    what: &str,
    (m, init): (&[T], T),
    (rows, cols): (usize, usize),
    (box_rows, box_cols): (usize, usize),
    at: [(i32, i32); 2],
    want: impl Fn(T, T, bool) -> T,
) -> Result<bool, String> {
    let k = module.kernel(kernel).map_err(text)?;
    let mut ok = true;
    for (col, row) in at {
        let src = s.upload(m).map_err(text)?;
        let dst = s.upload(&vec![init; rows * cols]).map_err(text)?;
        let map = |b: &layout_launch::DeviceBuffer<T>| {
            let boxes = (box_rows as u32, box_cols as u32);
            s.tensor_map_2d(b, (rows, cols), cols, boxes, TmaSwizzle::B128)
                .and_then(|t| s.upload(&[t]))
                .map_err(text)
        };
        let (ms, md) = (map(&src)?, map(&dst)?);
        crate::launch::tma_two_maps(s, &k, (&ms, &md), (col, row))?;
        let got = s.download(&dst).map_err(text)?;
        let (r0, c0) = (row as usize, col as usize);
        let inside = |r: usize, c: usize| {
            (r0..r0 + box_rows).contains(&r) && (c0..c0 + box_cols).contains(&c)
        };
        let wrong = (0..rows * cols)
            .filter(|&i| got[i] != want(m[i], init, inside(i / cols, i % cols)))
            .count();
        println!(
            "{kernel} ({what} at ({col},{row}) of {rows} x {cols}, SW128): {}",
            if wrong == 0 {
                "exact".to_string()
            } else {
                format!("{wrong} of {} wrong", rows * cols)
            }
        );
        ok &= wrong == 0;
    }
    Ok(ok)
}

/// `tma_tile`: 64 x 64 boxes of a 200 x 136 matrix (row stride 136 halves,
/// 272 bytes), 128-byte swizzle; one box inside, one over the bottom-right
/// corner (zeros past the matrix), checked exactly.
fn tma_tile(s: &Stream, module: &Module) -> Result<bool, String> {
    let mut ok = true;
    let (rows, cols) = (200usize, 136usize);
    let m: Vec<u16> = (0..rows * cols).map(|i| (i % 65521) as u16).collect();
    let dm = s.upload(&m).map_err(text)?;
    let map = s
        .tensor_map_2d(&dm, (rows, cols), cols, (64, 64), TmaSwizzle::B128)
        .map_err(text)?;
    let dmap = s.upload(&[map]).map_err(text)?;
    let k = module.kernel("tma_tile").map_err(text)?;
    for (col, row) in [(64i32, 64i32), (96, 160)] {
        let mut out = s.zeros::<u32>(2048).map_err(text)?;
        let ms = s
            .time(|| {
                crate::launch::tma_tile(s, &k, &dmap, &mut out, (col, row))
                    .map_err(layout_launch::Error::Invalid)
            })
            .map_err(text)?;
        println!("  tma_tile launch: {ms:.3} ms");
        let got = s.download(&out).map_err(text)?;
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
