//! Launches `gemm_residual_bf16` of my-hopper-kernels on a Hopper GPU and
//! checks C = alpha · A · Bᵀ + R against the CPU on small integers.
//!
//!     my-hopper-host PTX [M N K]     (default: 1000 1500 1024)
//!
//! Exit status 0 when every entry matches, 1 when one does not or the GPU
//! reports an error, 2 on bad arguments.

use half::bf16;
use layout_kernels_sm90::hgemm::{ceil_div, Bf16In, Inputs, BN, FORMS, SMEM_BYTES};
use layout_launch::{Device, Error, TmaSwizzle};
use std::process::ExitCode;

/// A small integer in -r..=r for index i (exact in bf16 and in f32 sums).
fn int(i: usize, r: usize) -> f32 {
    ((i * 2654435761) % (2 * r + 1)) as f32 - r as f32
}

fn run(ptx: &str, (m, n, k): (usize, usize, usize)) -> Result<bool, Error> {
    let gpu = Device::new(0)?;
    let module = gpu.load_ptx_file(ptx)?;
    let f = module.kernel("gemm_residual_bf16")?;
    let s = gpu.stream();
    let a: Vec<f32> = (0..m * k).map(|i| int(i, 2)).collect();
    let b: Vec<f32> = (0..n * k).map(|i| int(i + 5, 2)).collect();
    let r: Vec<f32> = (0..m * n).map(|i| int(i + 11, 8)).collect();
    let up = |v: &[f32]| s.upload(&v.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>());
    let (da, db, dr) = (up(&a)?, up(&b)?, up(&r)?);
    let mut dc = s.zeros::<bf16>(m * n)?;
    // The plan's full form: 128 x 256 tiles, clusters of two along M, each
    // block loading half of B's 256 rows for both; K-blocks of 64 bf16.
    let form = FORMS[0].1;
    let bk = <Bf16In as Inputs>::BK as u32;
    let map_a = s.tensor_map_2d(&da, (m, k), k, (form.bm() as u32, bk), TmaSwizzle::B128)?;
    let b_rows = (BN / form.cluster) as u32;
    let map_b = s.tensor_map_2d(&db, (n, k), k, (b_rows, bk), TmaSwizzle::B128)?;
    // Rust kernels cannot take CUDA's `__grid_constant__`: the maps go in
    // global memory.
    let (ma, mb) = (s.upload(&[map_a])?, s.upload(&[map_b])?);
    // One cluster per pair of tile rows and tile column (the kernel is
    // persistent: a smaller grid walks the same tiles).
    let tiles = ceil_div(m, form.bm() * form.cluster) * ceil_div(n, BN);
    let alpha = 0.5f32;
    let dim = |v: usize| u32::try_from(v).map_err(|_| Error::Invalid(format!("{v} is too large")));
    // SAFETY: `gemm_residual_bf16` takes (map_a, map_b, c, r, alpha, m, n,
    // k): the maps encode A (m x k) and B (n x k) with the plan's boxes
    // and swizzle, over buffers alive for the launch; C and R are slices
    // of m x n bf16 (the kernel checks every access); 384 threads, a grid
    // of whole clusters, the plan's shared memory.
    unsafe {
        s.launch(&f)
            .grid(dim(tiles * form.cluster)?)
            .block(form.threads() as u32)
            .shared_bytes(SMEM_BYTES as u32)
            .arg(&ma)
            .arg(&mb)
            .slice_mut(&mut dc)
            .slice(&dr)
            .scalar(alpha)
            .scalar(dim(m)?)
            .scalar(dim(n)?)
            .scalar(dim(k)?)
            .launch()?;
    }
    let c = s.download(&dc)?;
    let mut wrong = 0;
    for i in 0..m {
        for j in 0..n {
            let dot: f32 = (0..k).map(|p| a[i * k + p] * b[j * k + p]).sum();
            wrong += usize::from(c[i * n + j] != bf16::from_f32(alpha * dot + r[i * n + j]));
        }
    }
    println!(
        "gemm_residual_bf16 {m} x {n} x {k}: {wrong} of {} entries wrong",
        m * n
    );
    Ok(wrong == 0)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: my-hopper-host PTX [M N K]";
    let Some(ptx) = args.first() else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let dims = match &args[1..] {
        [] => (1000, 1500, 1024),
        d => {
            match d
                .iter()
                .map(|x| x.parse::<usize>())
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(v) if v.len() == 3 && v[0] > 0 && v[1] > 0 && v[2] > 0 && v[2] % 8 == 0 => {
                    (v[0], v[1], v[2])
                }
                _ => {
                    eprintln!("my-hopper-host: M N K must be positive integers, K a multiple of 8 ({usage})");
                    return ExitCode::from(2);
                }
            }
        }
    };
    match run(ptx, dims) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("my-hopper-host: {e}");
            ExitCode::from(1)
        }
    }
}
