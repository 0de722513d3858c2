//! Two GPU kernels written with the layout library: a tiled scale and a
//! small GEMM. `cargo run --release -p layout-ptx -- CRATE_DIR OUT_DIR`
//! builds them to `OUT_DIR/my_kernels.ptx`; `host/` launches them.
//!
//! Each kernel is an entry point (`extern "ptx-kernel"`, GPU only) that
//! reads its block and thread index and calls a body, plain Rust over
//! device tensors: the host tests run the bodies on the CPU, thread by
//! thread.
#![no_std]
// The GPU build (nvptx64) needs the kernel ABI (`extern "ptx-kernel"`).
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

#[cfg(test)]
extern crate std;

use layout_core::prelude::*;
use layout_device::{Global, GlobalMut};

/// A failed check (an index past a buffer, a tile outside the grid) or a
/// panic stops the kernel; the host's launch reports it, naming the kernel.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    layout_device::trap()
}

/// The tile each block of [`scale`] computes: 32 x 32.
const TILE: (C<32>, C<32>) = (C::<32>, C::<32>);

/// `y = alpha x` for m x n row-major matrices: grid (ceil(n/32),
/// ceil(m/32)), 256 threads. `x` and `y` hold m * n floats (a kernel
/// parameter `Global<f32>` is a buffer and its length: `Launch::slice`).
#[cfg(target_arch = "nvptx64")]
#[no_mangle]
pub extern "ptx-kernel" fn scale(
    x: Global<f32>,
    y: GlobalMut<f32>,
    alpha: f32,
    m: usize,
    n: usize,
) {
    scale_body(x, y, alpha, m, n)
}

/// The body of [`scale`], as the entry point calls it (and the emulator,
/// in the tests): the block's tile and the thread from their indices.
pub fn scale_body(x: Global<f32>, y: GlobalMut<f32>, alpha: f32, m: usize, n: usize) {
    let (bx, by) = layout_device::block_idx();
    scale_block(x, y, alpha, (m, n), (by, bx), layout_device::thread_idx())
}

/// 256 threads per block (the build writes `.maxntid 256` into the PTX);
/// at least 4 blocks per SM.
pub const SCALE_LAUNCH_BOUNDS: (u32, u32) = (256, 4);
/// The layouts are static, and m and n are only compared: no division.
pub const SCALE_NO_DIVISION: bool = true;

/// The body of [`scale`]: thread `tid` of the block at tile `(bm, bn)`.
///
/// The matrix as a tensor over device memory, its 32 x 32 tile, and this
/// thread's 4 elements of it (8 x 32 threads, a row of 32 threads per
/// tile row: consecutive threads read consecutive floats). An identity
/// tensor, tiled and partitioned the same way, gives each element's (row,
/// column), so the tiles at the bottom and right edges skip what lies
/// past the matrix.
pub fn scale_block(
    x: Global<f32>,
    y: GlobalMut<f32>,
    alpha: f32,
    (m, n): (usize, usize),
    (bm, bn): (usize, usize),
    tid: usize,
) {
    let matrix = make_layout((m, n), (n, C::<1>));
    // `unwrap`: a buffer shorter than m * n traps here, before any access.
    let gx = Tensor::from_memory(x, matrix).unwrap();
    let gy = Tensor::from_memory(y, matrix).unwrap();
    let threads = layout!((8,32):(32,1));
    let tx = local_partition(local_tile(gx, TILE, (bm, bn)), threads, tid);
    let ty = local_partition(local_tile(gy, TILE, (bm, bn)), threads, tid);
    let coords = make_identity_tensor((m, n));
    let tc = local_partition(local_tile(coords, TILE, (bm, bn)), threads, tid);
    for i in 0..tx.size() {
        if tc.is_within(i, (m, n)) {
            ty.store(i, alpha * tx.load(i));
        }
    }
}

layout_device::shared_memory!(
    /// Shared memory of [`gemm`]: a 32 x 8 tile of A and one of B (512
    /// floats). Each kernel that uses it gets its own copy.
    static GEMM_TILES: [u8; 2048]
);

/// C = A·B for row-major f32 matrices, A m x k, B k x n, C m x n, any
/// sizes: grid (ceil(n/32), ceil(m/32)), 256 threads. Each block computes
/// a 32 x 32 tile of C, staging 32 x 8 tiles of A and B in shared memory;
/// each thread 4 elements of C.
#[cfg(target_arch = "nvptx64")]
#[no_mangle]
pub extern "ptx-kernel" fn gemm(
    a: Global<f32>,
    b: Global<f32>,
    c: GlobalMut<f32>,
    m: usize,
    n: usize,
    k: usize,
) {
    gemm_body(a, b, c, m, n, k)
}

/// The body of [`gemm`], as the entry point calls it (and the emulator,
/// in the tests).
pub fn gemm_body(a: Global<f32>, b: Global<f32>, c: GlobalMut<f32>, m: usize, n: usize, k: usize) {
    use layout_core::Underscore as X;
    use layout_device::{block_idx, fma, sync_threads, thread_idx, Smem};
    let ((bn, bm), tid) = (block_idx(), thread_idx());
    // The matrices; B seen as N x K (column-major n x k), as CuTe has it.
    let ga = Tensor::from_memory(a, make_layout((m, k), (k, C::<1>))).unwrap();
    let gb = Tensor::from_memory(b, make_layout((n, k), (C::<1>, n))).unwrap();
    let gc = Tensor::from_memory(c, make_layout((m, n), (n, C::<1>))).unwrap();
    // The (row, column) of each element, to skip what lies past a matrix.
    let (ia, ib, ic) = (
        make_identity_tensor((m, k)),
        make_identity_tensor((n, k)),
        make_identity_tensor((m, n)),
    );
    // The shared tiles: A's 32 x 8 (M x K) and B's (N x K), row-major.
    let tile_mk = layout!((32,8):(8,1));
    let sa = Tensor::from_memory(Smem::window::<GEMM_TILES>(0, 256), tile_mk).unwrap();
    let sb = Tensor::from_memory(Smem::window::<GEMM_TILES>(256, 256), tile_mk).unwrap();

    // Copying: 32 x 8 threads, one element of each tile per thread.
    let copy_threads = layout!((32,8):(8,1));
    let (tas, tbs) = (
        local_partition(sa, copy_threads, tid),
        local_partition(sb, copy_threads, tid),
    );
    // Computing: 8 x 32 threads over C's tile, 4 rows of A each (all of
    // the k-tile) and one column of B: CuTe's `local_partition` with a
    // projection (`Step<_1, X>`).
    let threads = layout!((8,32):(32,1));
    let t_sa = local_partition_proj(sa, threads, tid, (C::<1>, X))
        .window()
        .unwrap();
    let t_sb = local_partition_proj(sb, threads, tid, (X, C::<1>))
        .window()
        .unwrap();
    let t_gc = local_partition(local_tile(gc, (C::<32>, C::<32>), (bm, bn)), threads, tid);
    let t_ic = local_partition(local_tile(ic, (C::<32>, C::<32>), (bm, bn)), threads, tid);

    let mut acc = [0f32; 4];
    let tile_k = (C::<32>, C::<8>);
    for kt in 0..k.div_ceil(8) {
        let ta = local_partition(local_tile(ga, tile_k, (bm, kt)), copy_threads, tid);
        let tb = local_partition(local_tile(gb, tile_k, (bn, kt)), copy_threads, tid);
        let ta_in = local_partition(local_tile(ia, tile_k, (bm, kt)), copy_threads, tid);
        let tb_in = local_partition(local_tile(ib, tile_k, (bn, kt)), copy_threads, tid);
        let va = if ta_in.is_within(0usize, (m, k)) {
            ta.load(0usize)
        } else {
            0.0
        };
        let vb = if tb_in.is_within(0usize, (n, k)) {
            tb.load(0usize)
        } else {
            0.0
        };
        tas.store(0usize, va);
        tbs.store(0usize, vb);
        sync_threads();
        for kk in 0..8usize {
            let bv = t_sb.load((0usize, kk));
            for (i, acc) in acc.iter_mut().enumerate() {
                *acc = fma(t_sa.load((i, kk)), bv, *acc);
            }
        }
        sync_threads();
    }
    for (i, v) in acc.into_iter().enumerate() {
        if t_ic.is_within(i, (m, n)) {
            t_gc.store(i, v);
        }
    }
}

/// 256 threads per block, at least 2 blocks per SM: 128 registers a
/// thread (at 4 blocks, 64, and ptxas spills).
pub const GEMM_LAUNCH_BOUNDS: (u32, u32) = (256, 2);

#[cfg(test)]
mod tests {
    use super::*;

    /// `scale_block` run for every block and thread of a launch on the
    /// CPU, on sizes that leave partial tiles at both edges: every element
    /// scaled once, nothing written past the matrix.
    #[test]
    fn scale_covers_every_element_once() {
        let (m, n) = (45, 70);
        let x: std::vec::Vec<f32> = (0..m * n).map(|i| i as f32).collect();
        // One guard element past the matrix: it must stay untouched.
        let mut y = std::vec![-1f32; m * n + 1];
        // SAFETY: x and y outlive the handles; the "threads" run one after
        // another, each writing its own elements.
        let (gx, gy) = unsafe {
            (
                Global::new(x.as_ptr(), m * n),
                GlobalMut::new(y.as_mut_ptr(), m * n),
            )
        };
        for bm in 0..m.div_ceil(32) {
            for bn in 0..n.div_ceil(32) {
                for tid in 0..256 {
                    scale_block(gx, gy, 3.0, (m, n), (bm, bn), tid);
                }
            }
        }
        assert!(x.iter().zip(&y).all(|(x, y)| *y == 3.0 * x));
        assert_eq!(y[m * n], -1.0);
    }

    use layout_device::emulator::{run, Buffer, Launch};
    use std::vec::Vec;

    /// `scale` run as the GPU runs it, under the emulator: every block and
    /// thread of the launch, partial tiles at both edges.
    #[test]
    fn scale_runs_under_the_emulator() {
        let (m, n) = (45, 70);
        let x: Vec<f32> = (0..m * n).map(|i| i as f32).collect();
        let (bx, by) = (Buffer::from_slice(&x), Buffer::filled(0f32, m * n));
        let (gx, gy) = (bx.global(), by.global_mut());
        let launch = Launch::new("scale", (n.div_ceil(32), m.div_ceil(32)), 256);
        run(&launch, move || scale_body(gx, gy, 3.0, m, n)).unwrap();
        let want: Vec<f32> = x.iter().map(|v| 3.0 * v).collect();
        // On a difference: the element, both values, and the block and
        // thread that wrote it.
        if let Err(e) = by.check(&want, |a, b| a == b) {
            panic!("scale: {e}")
        }
    }

    /// `gemm` under the emulator, its barriers and shared tiles included,
    /// against the definition of C = A·B: small integers, so every sum is
    /// exact; sizes with partial tiles in m, n and k.
    #[test]
    fn gemm_runs_under_the_emulator() {
        let (m, n, k) = (45, 70, 13);
        let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 - 2.0).collect();
        let want: Vec<f32> = (0..m * n)
            .map(|i| (0..k).map(|p| a[i / n * k + p] * b[p * n + i % n]).sum())
            .collect();
        let (ba, bb, bc) = (Buffer::from_slice(&a), Buffer::from_slice(&b), Buffer::filled(0f32, m * n));
        let (ga, gb, gc) = (ba.global(), bb.global(), bc.global_mut());
        let launch = Launch::new("gemm", (n.div_ceil(32), m.div_ceil(32)), 256);
        run(&launch, move || gemm_body(ga, gb, gc, m, n, k)).unwrap();
        if let Err(e) = bc.check(&want, |x, y| x == y) {
            panic!("gemm: {e}")
        }
    }
}
