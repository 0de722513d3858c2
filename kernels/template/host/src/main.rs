//! Launches the kernels of my-kernels on a GPU and checks their results.
//!
//!     my-host PTX [M N K]     (default: 1000 700 300)
//!     my-host PTX trap        (a launch whose device-side check fails)
//!
//! Exit status 0 when every result matches the CPU's, 1 when one does not
//! or the GPU reports an error, 2 on bad arguments.

use layout_launch::{Device, DeviceBuffer, Dim3, Error, Kernel, Stream};
use std::process::ExitCode;

/// The tile side of both kernels: each block covers 32 x 32 of the output.
const TILE: usize = 32;

/// The grid of 32 x 32 tiles over an m x n output: (columns, rows).
fn grid(m: usize, n: usize) -> Result<Dim3, Error> {
    Dim3::try_from((n.div_ceil(TILE), m.div_ceil(TILE)))
}

/// `y = alpha x` for m x n matrices: `scale(x, y, alpha, m, n)`.
fn scale(
    s: &Stream,
    k: &Kernel,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    alpha: f32,
    (m, n): (usize, usize),
) -> Result<(), Error> {
    if m == 0 || n == 0 {
        return Err(Error::Invalid(format!("scale: an empty {m} x {n} matrix")));
    }
    // SAFETY: `scale` takes (Global<f32>, GlobalMut<f32>, f32, usize,
    // usize): two f32 slices (the kernel checks every access against their
    // lengths), y written, by the borrow distinct from x.
    unsafe {
        s.launch(k)
            .grid(grid(m, n)?)
            .block(256)
            .slice(x)
            .slice_mut(y)
            .scalar(alpha)
            .scalar(m)
            .scalar(n)
            .launch()
    }
}

/// `C = A·B`, row-major, A m x k, B k x n: `gemm(a, b, c, m, n, k)`.
fn gemm(
    s: &Stream,
    kernel: &Kernel,
    (a, b, c): (
        &DeviceBuffer<f32>,
        &DeviceBuffer<f32>,
        &mut DeviceBuffer<f32>,
    ),
    (m, n, k): (usize, usize, usize),
) -> Result<(), Error> {
    if m == 0 || n == 0 {
        return Err(Error::Invalid(format!("gemm: an empty {m} x {n} C")));
    }
    // SAFETY: `gemm` takes (Global<f32>, Global<f32>, GlobalMut<f32>,
    // usize, usize, usize): f32 slices, checked by the kernel, c written.
    unsafe {
        s.launch(kernel)
            .grid(grid(m, n)?)
            .block(256)
            .slice(a)
            .slice(b)
            .slice_mut(c)
            .scalar(m)
            .scalar(n)
            .scalar(k)
            .launch()
    }
}

/// Small integers, so that every sum is exact in f32 and the GPU's result
/// must equal the CPU's.
fn values(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 7 + seed * 13) % 9) as f32 - 4.0)
        .collect()
}

fn run(ptx: &str, sizes: &[usize]) -> Result<bool, Error> {
    let gpu = Device::new(0)?;
    let module = gpu.load_ptx_file(ptx)?;
    let s = gpu.stream();
    let (m, n, k) = (sizes[0], sizes[1], sizes[2]);

    let x = values(m * n, 1);
    let dx = s.upload(&x)?;
    let mut dy = s.zeros::<f32>(m * n)?;
    let ms = s.time(|| scale(s, &module.kernel("scale")?, &dx, &mut dy, 3.0, (m, n)))?;
    let y = s.download(&dy)?;
    let scale_ok = y.iter().zip(&x).all(|(y, x)| *y == 3.0 * x);
    println!(
        "scale {m} x {n}: {ms:.3} ms, {}",
        if scale_ok { "ok" } else { "WRONG" }
    );

    let (a, b) = (values(m * k, 2), values(k * n, 3));
    let (da, db) = (s.upload(&a)?, s.upload(&b)?);
    let mut dc = s.zeros::<f32>(m * n)?;
    let ms = s.time(|| gemm(s, &module.kernel("gemm")?, (&da, &db, &mut dc), (m, n, k)))?;
    let c = s.download(&dc)?;
    // Every entry of a small C; of a large one (the CPU takes k
    // multiply-adds an entry), 4096 spread over it, the last included.
    let entries: Vec<usize> = if m * n <= 1 << 16 {
        (0..m * n).collect()
    } else {
        (0..4096).map(|t| t * (m * n - 1) / 4095).collect()
    };
    let gemm_ok = entries.iter().all(|&ij| {
        let (i, j) = (ij / n, ij % n);
        let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        c[ij] == want
    });
    let flops = 2.0 * (m * n * k) as f64 / (ms as f64 * 1e-3);
    println!(
        "gemm {m} x {n} x {k}: {ms:.3} ms ({:.1} GFLOP/s), {}",
        flops / 1e9,
        if gemm_ok { "ok" } else { "WRONG" }
    );
    Ok(scale_ok && gemm_ok)
}

/// A launch that the host wrapper would refuse, issued raw: y holds fewer
/// elements than m * n, so the kernel's first check traps, and the host
/// hears of it, by name, at the next synchronisation.
fn trap(ptx: &str) -> Result<bool, Error> {
    let gpu = Device::new(0)?;
    let module = gpu.load_ptx_file(ptx)?;
    let kernel = module.kernel("scale")?;
    let s = gpu.stream();
    let x = s.upload(&values(64 * 64, 1))?;
    let mut short = s.zeros::<f32>(100)?;
    // A wrong argument list is refused before the launch.
    // SAFETY: refused by the signature check, never issued.
    let refused = unsafe {
        s.launch(&kernel)
            .slice(&x)
            .slice_mut(&mut short)
            .scalar(3.0f32)
            .launch()
    };
    println!(
        "three arguments: {}",
        refused.map_or_else(|e| e.to_string(), |_| "launched?".into())
    );
    // SAFETY: the kernel checks y's length (100 < 64 * 64) and traps
    // before any access.
    unsafe {
        s.launch(&kernel)
            .grid((2, 2))
            .block(256)
            .slice(&x)
            .slice_mut(&mut short)
            .scalar(3.0f32)
            .scalar(64usize)
            .scalar(64usize)
            .launch()?
    };
    match s.synchronize() {
        Err(e @ Error::KernelFailed { .. }) => {
            println!("short buffer: {e}");
            Ok(true)
        }
        other => {
            println!("short buffer: expected the kernel to fail, got {other:?}");
            Ok(false)
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: my-host PTX [M N K] | my-host PTX trap";
    let Some(ptx) = args.first() else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let result = match &args[1..] {
        [t] if t == "trap" => trap(ptx),
        [] => run(ptx, &[1000, 700, 300]),
        dims => match dims
            .iter()
            .map(|d| d.parse::<usize>())
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(d) if d.len() == 3 && d[0] > 0 && d[1] > 0 && d.iter().all(|&x| x <= 1 << 14) => {
                run(ptx, &d)
            }
            _ => {
                eprintln!("my-host: M N K must be three integers in 1..=16384 ({usage})");
                return ExitCode::from(2);
            }
        },
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("my-host: {e}");
            ExitCode::from(1)
        }
    }
}
