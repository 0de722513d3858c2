//! Kernel launches: the runner's only `unsafe` code. Each function checks
//! what the kernel's entry point requires (`kernels/src/device.rs`: buffer
//! lengths, sizes that are multiples of the tile) and then passes exactly
//! the arguments that entry point declares, in its order and types.
#![allow(unsafe_code)]

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

/// Threads per block of the transpose and the SGEMM
/// (`layout_kernels::maps::THREADS`, `SGEMM_THREADS`).
const THREADS: u32 = 256;

fn grid(x: usize, y: usize) -> Result<LaunchConfig, String> {
    grid_of(x, y, THREADS)
}

fn grid_of(x: usize, y: usize, threads: u32) -> Result<LaunchConfig, String> {
    let dim = |v: usize| u32::try_from(v).map_err(|_| format!("grid of {v} blocks is too large"));
    Ok(LaunchConfig {
        grid_dim: (dim(x)?, dim(y)?, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// `transpose_f32(src, dst, n)`: `dst = src^T`, both n x n row-major.
pub fn transpose(
    stream: &CudaStream,
    f: &CudaFunction,
    src: &CudaSlice<f32>,
    dst: &mut CudaSlice<f32>,
    n: usize,
) -> Result<(), String> {
    let len = n.checked_mul(n).ok_or("n * n overflows")?;
    if n == 0 || n % 64 != 0 || src.len() < len || dst.len() < len {
        return Err(format!("transpose: n = {n} must be a positive multiple of 64 and both buffers hold n * n floats"));
    }
    let cfg = grid(n / 64, n / 64)?;
    let mut b = stream.launch_builder(f);
    b.arg(src).arg(dst).arg(&n);
    // SAFETY: the entry point's contract: src and dst hold n * n floats
    // (checked), cudarc's allocations are 256-byte aligned and distinct.
    unsafe { b.launch(cfg) }.map_err(|e| format!("transpose launch: {e}"))?;
    Ok(())
}

/// A GEMM's launch conditions: m, n positive multiples of the 128 x 128
/// block tile, k of `bk`, and buffers of at least m·k (A), k·n (B) and m·n
/// (C) elements.
fn check_gemm(
    op: &str,
    (m, n, k): (usize, usize, usize),
    bk: usize,
    (la, lb, lc): (usize, usize, usize),
) -> Result<(), String> {
    let sizes = (m.checked_mul(k), k.checked_mul(n), m.checked_mul(n));
    let (Some(a), Some(b), Some(c)) = sizes else {
        return Err(format!("{op}: sizes overflow"));
    };
    if m == 0 || n == 0 || k == 0 || m % 128 != 0 || n % 128 != 0 || k % bk != 0 {
        return Err(format!(
            "{op}: ({m}, {n}, {k}) must be positive multiples of (128, 128, {bk})"
        ));
    }
    if la < a || lb < b || lc < c {
        return Err(format!("{op}: a buffer is shorter than its matrix"));
    }
    Ok(())
}

/// One block of one warp (the atom tests).
const ONE_WARP: LaunchConfig = LaunchConfig {
    grid_dim: (1, 1, 1),
    block_dim: (32, 1, 1),
    shared_mem_bytes: 0,
};

/// `sgemm_f32(a, b, c, m, n, k)`: `C = A · B`, row-major, A m x k, B k x n
/// (or `sgemm_nt_f32`, the same with A M-major: `f` is either).
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    stream: &CudaStream,
    f: &CudaFunction,
    a: &CudaSlice<f32>,
    b: &CudaSlice<f32>,
    c: &mut CudaSlice<f32>,
    (m, n, k): (usize, usize, usize),
) -> Result<(), String> {
    check_gemm("sgemm", (m, n, k), 8, (a.len(), b.len(), c.len()))?;
    let cfg = grid(n / 128, m / 128)?;
    let mut l = stream.launch_builder(f);
    l.arg(a).arg(b).arg(c).arg(&m).arg(&n).arg(&k);
    // SAFETY: the entry point's contract: a, b, c hold m*k, k*n, m*n floats
    // (checked), 256-byte aligned, c distinct from a and b.
    unsafe { l.launch(cfg) }.map_err(|e| format!("sgemm launch: {e}"))?;
    Ok(())
}

/// `mma_atom(a, b, c, f16acc)`: one warp's m16n8k16 tensor-core atom,
/// c = a · bᵀ (a 16 x 16, b 8 x 16, c 16 x 8, row-major; f16 inputs as
/// bits; c f32, or f16 bits in its low 128 halves when `f16acc` is 1).
pub fn mma_atom(
    stream: &CudaStream,
    f: &CudaFunction,
    a: &CudaSlice<u16>,
    b: &CudaSlice<u16>,
    c: &mut CudaSlice<u32>,
    f16acc: u32,
) -> Result<(), String> {
    if a.len() < 256 || b.len() < 128 || c.len() < 128 {
        return Err("mma_atom: a holds 256 halves, b 128, c 128 words".into());
    }
    let mut l = stream.launch_builder(f);
    l.arg(a).arg(b).arg(c).arg(&f16acc);
    // SAFETY: the entry point's contract: the lengths (checked), cudarc's
    // 256-byte aligned, distinct allocations.
    unsafe { l.launch(ONE_WARP) }.map_err(|e| format!("mma_atom launch: {e}"))?;
    Ok(())
}

/// `mma_tile(a, b, c)`: the same product through `cp.async`, shared memory
/// and `ldmatrix` (a 16 x 16, b 8 x 16 f16 bits, c 16 x 8 f32).
pub fn mma_tile(
    stream: &CudaStream,
    f: &CudaFunction,
    a: &CudaSlice<u16>,
    b: &CudaSlice<u16>,
    c: &mut CudaSlice<f32>,
) -> Result<(), String> {
    if a.len() < 256 || b.len() < 128 || c.len() < 128 {
        return Err("mma_tile: a holds 256 halves, b 128, c 128 floats".into());
    }
    let mut l = stream.launch_builder(f);
    l.arg(a).arg(b).arg(c);
    // SAFETY: the entry point's contract: the lengths (checked), cudarc's
    // 256-byte aligned, distinct allocations.
    unsafe { l.launch(ONE_WARP) }.map_err(|e| format!("mma_tile launch: {e}"))?;
    Ok(())
}

/// `ldsm_atoms(src, out)`: every `ldmatrix` form on 32 rows of 8 halves,
/// 14 registers per lane out.
pub fn ldsm_atoms(
    stream: &CudaStream,
    f: &CudaFunction,
    src: &CudaSlice<u16>,
    out: &mut CudaSlice<u32>,
) -> Result<(), String> {
    if src.len() < 256 || out.len() < 448 {
        return Err("ldsm_atoms: src holds 256 halves, out 448 words".into());
    }
    let mut l = stream.launch_builder(f);
    l.arg(src).arg(out);
    // SAFETY: the entry point's contract: the lengths (checked), cudarc's
    // 256-byte aligned, distinct allocations.
    unsafe { l.launch(ONE_WARP) }.map_err(|e| format!("ldsm_atoms launch: {e}"))?;
    Ok(())
}

/// `hgemm_f32(a, b, c, m, n, k)` (C f32) or `hgemm_f16` (C f16 bits, `T`
/// = u16): C = A · Bᵀ, A m x k and B n x k f16 (bits), row-major.
pub fn hgemm<T>(
    stream: &CudaStream,
    f: &CudaFunction,
    a: &CudaSlice<u16>,
    b: &CudaSlice<u16>,
    c: &mut CudaSlice<T>,
    (m, n, k): (usize, usize, usize),
) -> Result<(), String> {
    check_gemm("hgemm", (m, n, k), 32, (a.len(), b.len(), c.len()))?;
    // 4 warps (`layout_kernels::maps::HGEMM_THREADS`).
    let cfg = grid_of(n / 128, m / 128, 128)?;
    let mut l = stream.launch_builder(f);
    l.arg(a).arg(b).arg(c).arg(&m).arg(&n).arg(&k);
    // SAFETY: the entry point's contract: a, b, c hold m*k, n*k, m*n
    // elements (checked), 256-byte aligned, c distinct from a and b.
    unsafe { l.launch(cfg) }.map_err(|e| format!("hgemm launch: {e}"))?;
    Ok(())
}
