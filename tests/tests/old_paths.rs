//! Code written against the module paths from before the layer folders
//! (`layout_core::partition`, `::algorithm`, `::fragment`, `::raw`,
//! `::mma`, ...) still builds and computes the same thing.
#![allow(deprecated)]

use layout_core::algorithm::copy;
use layout_core::fragment::make_fragment_like;
use layout_core::mma::make_tiled_mma;
use layout_core::partition::{local_partition, local_tile};
use layout_core::{layout, Tensor, Underscore as X, C};

/// Block (1, 0) of 4 x 4 of an 8 x 8 row-major matrix of 0..64, thread 3 of
/// 2 x 2 column-major threads: (1, 1), so rows 5 and 7, columns 1 and 3.
#[test]
fn tile_partition_and_copy_by_the_old_paths() {
    let a: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let ta = Tensor::new(&a[..], layout!((8, 8):(8, 1))).unwrap();
    let blk = local_tile(ta, (C::<4>, C::<4>), (1usize, 0usize));
    let mine = local_partition(blk, layout!((2, 2):(1, 2)), 3);
    let mut frag = make_fragment_like::<f32, _>(mine.layout());
    copy(&mine, &mut frag.view_mut()).unwrap();
    assert_eq!(
        [frag[0], frag[1], frag[2], frag[3]],
        [
            5.0 * 8.0 + 1.0,
            7.0 * 8.0 + 1.0,
            5.0 * 8.0 + 3.0,
            7.0 * 8.0 + 3.0
        ]
    );
}

/// The SM80 atom's 32 threads, by the old `mma` path: one atom is 32
/// threads (CuTe's size of the tiled MMA).
#[test]
fn tiled_mma_by_the_old_path() {
    use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    let mma = make_tiled_mma(Sm80, layout!((1, 1, 1):(0, 0, 0)), (X, X, X));
    assert_eq!(mma.size().to_string(), "_32");
}
