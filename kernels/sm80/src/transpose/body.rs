//! `transpose_f32`'s body: one 64 x 64 tile through a swizzled shared
//! tile, every offset from the plan ([`super`]).

use crate::maps::{transpose_divides, transpose_load, transpose_store, TT};
use crate::smem::SMEM;
use layout_device::{block_idx, sync_threads, thread_idx, trap, Global, GlobalMut, Smem, F4};

/// `dst = src^T`, n x n: each block moves one 64 x 64 tile through a
/// swizzled shared tile, 16-byte loads and stores on both sides.
#[inline(always)]
pub fn transpose(n: usize, src: Global<F4>, dst: GlobalMut<F4>) {
    if !transpose_divides(n) {
        trap()
    }
    let (blk, tid) = (block_idx(), thread_idx());
    let tile = Smem::window::<SMEM>(0, TT * TT);
    let loads = transpose_load(n, blk, tid);
    let vals = loads.map(|(g, _)| src.ld(g));
    for ((_, s), v) in loads.into_iter().zip(vals) {
        tile.st4(s, v);
    }
    sync_threads();
    for (g, offs) in transpose_store(n, blk, tid) {
        dst.st(g, F4(offs.map(|o| tile.ld(o))));
    }
}
