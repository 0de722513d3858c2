//! Typed launches of the diagnostic kernels (one atom, one tile, one TMA
//! load) that `gpu-runner`'s default mode and `sm90` mode check: the
//! runner's only `unsafe` code. The GEMM, transpose and attention launches
//! are `layout_gpu::launch`'s.
#![allow(unsafe_code)]

use layout_launch::{DeviceBuffer, Kernel, Stream};

/// Refuses a kernel other than `name`: each wrapper's checks are that
/// entry point's contract, so they hold for it alone.
fn expect(f: &Kernel, name: &str) -> Result<(), String> {
    if f.name() == name {
        Ok(())
    } else {
        Err(format!("{name}'s launch given kernel {}", f.name()))
    }
}

/// `mma_atom(a, b, c, f16acc)`: one warp's m16n8k16 tensor-core atom,
/// c = a · bᵀ (a 16 x 16, b 8 x 16, c 16 x 8, row-major; f16 inputs as
/// bits; c f32, or f16 bits in its low 128 halves when `f16acc` is 1).
pub fn mma_atom(
    stream: &Stream,
    f: &Kernel,
    a: &DeviceBuffer<u16>,
    b: &DeviceBuffer<u16>,
    c: &mut DeviceBuffer<u32>,
    f16acc: u32,
) -> Result<(), String> {
    expect(f, "mma_atom")?;
    if a.len() < 256 || b.len() < 128 || c.len() < 128 {
        return Err("mma_atom: a holds 256 halves, b 128, c 128 words".into());
    }
    // SAFETY: the entry point's contract: the lengths (checked), 256-byte
    // aligned, distinct allocations; one block of one warp.
    unsafe {
        stream
            .launch(f)
            .block(32)
            .arg(a)
            .arg(b)
            .arg_mut(c)
            .scalar(f16acc)
            .launch()
    }
    .map_err(|e| format!("mma_atom launch: {e}"))
}

/// `mma_tile(a, b, c)`: the same product through `cp.async`, shared memory
/// and `ldmatrix` (a 16 x 16, b 8 x 16 f16 bits, c 16 x 8 f32).
pub fn mma_tile(
    stream: &Stream,
    f: &Kernel,
    a: &DeviceBuffer<u16>,
    b: &DeviceBuffer<u16>,
    c: &mut DeviceBuffer<f32>,
) -> Result<(), String> {
    expect(f, "mma_tile")?;
    if a.len() < 256 || b.len() < 128 || c.len() < 128 {
        return Err("mma_tile: a holds 256 halves, b 128, c 128 floats".into());
    }
    // SAFETY: the entry point's contract: the lengths (checked), 256-byte
    // aligned, distinct allocations; one block of one warp.
    unsafe { stream.launch(f).block(32).arg(a).arg(b).arg_mut(c).launch() }
        .map_err(|e| format!("mma_tile launch: {e}"))
}

/// `ldsm_atoms(src, out)`: every `ldmatrix` form on 32 rows of 8 halves,
/// 14 registers per lane out.
pub fn ldsm_atoms(
    stream: &Stream,
    f: &Kernel,
    src: &DeviceBuffer<u16>,
    out: &mut DeviceBuffer<u32>,
) -> Result<(), String> {
    expect(f, "ldsm_atoms")?;
    if src.len() < 256 || out.len() < 448 {
        return Err("ldsm_atoms: src holds 256 halves, out 448 words".into());
    }
    // SAFETY: the entry point's contract: the lengths (checked), 256-byte
    // aligned, distinct allocations; one block of one warp.
    unsafe { stream.launch(f).block(32).arg(src).arg_mut(out).launch() }
        .map_err(|e| format!("ldsm_atoms launch: {e}"))
}

/// `wgmma_atom(a, b, c)` of layout-kernels-sm90: one warpgroup, C (64 x 64
/// f32) = A · Bᵀ for 64 x 16 f16 A and B.
pub fn wgmma_atom(
    stream: &Stream,
    k: &Kernel,
    a: &DeviceBuffer<u16>,
    b: &DeviceBuffer<u16>,
    c: &mut DeviceBuffer<f32>,
) -> Result<(), String> {
    if a.len() < 1024 || b.len() < 1024 || c.len() < 4096 {
        return Err("wgmma_atom: A and B hold 1024 halves, C 4096 floats".into());
    }
    // SAFETY: wgmma_atom takes (a, b, c) and reads 1024 u16 of each of a
    // and b, writes 4096 f32 of c (checked); c distinct (a `&mut`).
    unsafe {
        stream
            .launch(k)
            .block(128)
            .arg(a)
            .arg(b)
            .arg_mut(c)
            .launch()
    }
    .map_err(|e| e.to_string())
}

/// One atom check of layout-kernels-sm90-gmma (`k`, the atom's entry,
/// N = `n`): one block of 128 threads over A (512 words), B (8 N words)
/// and C (64 N words).
pub fn gmma_atom_check(
    stream: &Stream,
    k: &Kernel,
    a: &DeviceBuffer<u32>,
    b: &DeviceBuffer<u32>,
    c: &mut DeviceBuffer<u32>,
    n: usize,
) -> Result<(), String> {
    if a.len() < 512 || b.len() < 8 * n || c.len() < 64 * n {
        return Err(format!(
            "gmma atom check: A holds 512 words, B 8 N, C 64 N (N = {n})"
        ));
    }
    // SAFETY: the entry reads 512 words of a and 8 N of b and writes 64 N
    // of c (checked), one block of 128 threads; c distinct (a `&mut`).
    unsafe {
        stream
            .launch(k)
            .block(128)
            .arg(a)
            .arg(b)
            .arg_mut(c)
            .launch()
    }
    .map_err(|e| e.to_string())
}

/// `tma_tile(map, out, col, row)` of layout-kernels-sm90: one TMA load of
/// the 64 x 64 f16 box at (col, row) through the tensor map, into `out`.
pub fn tma_tile(
    stream: &Stream,
    k: &Kernel,
    map: &DeviceBuffer<layout_launch::TensorMap>,
    out: &mut DeviceBuffer<u32>,
    (col, row): (i32, i32),
) -> Result<(), String> {
    if map.is_empty() || out.len() < 2048 {
        return Err("tma_tile: one tensor map, 2048 words of output".into());
    }
    // SAFETY: tma_tile takes (map, out, col, row): a tensor map (encoded by
    // the driver for a live buffer, 64-byte aligned in its 256-byte
    // aligned allocation) and 2048 u32 of output (checked).
    unsafe {
        stream
            .launch(k)
            .block(128)
            .arg(map)
            .arg_mut(out)
            .scalar(col)
            .scalar(row)
            .launch()
    }
    .map_err(|e| e.to_string())
}

/// The kernels of layout-kernels-sm90 that take `(src, dst, col, row)`:
/// `tma_round_trip` (a TMA load of the box at (col, row) through `src`,
/// stored by TMA to the same place through `dst`) and `tma_reduce_tile`
/// (the same with a TMA reduce-add); one warp. The maps point into buffers
/// the caller keeps alive.
pub fn tma_two_maps(
    stream: &Stream,
    k: &Kernel,
    (src, dst): (
        &DeviceBuffer<layout_launch::TensorMap>,
        &DeviceBuffer<layout_launch::TensorMap>,
    ),
    (col, row): (i32, i32),
) -> Result<(), String> {
    if src.is_empty() || dst.is_empty() {
        return Err("tma_two_maps: two tensor maps".into());
    }
    // SAFETY: both kernels take (src, dst, col, row): two tensor maps
    // (encoded by the driver for live buffers, 64-byte aligned in their
    // 256-byte aligned allocations); the hardware writes only inside the
    // tensor `dst` describes. One warp.
    unsafe {
        stream
            .launch(k)
            .block(32)
            .arg(src)
            .arg(dst)
            .scalar(col)
            .scalar(row)
            .launch()
    }
    .map_err(|e| e.to_string())
}
