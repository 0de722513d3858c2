//! The tensor layer's `try_` forms are total, and partial tiles are exact.
//! Matrices of fuzzed extents (0 included, small so that their storage is
//! real), storage of a fuzzed length (shorter than the matrix too), tile
//! and thread coordinates and identity extents from the whole `usize`
//! range (`Bytes::leaf`):
//!
//! - `try_local_tile`, `try_local_tile_exact`, `try_local_partition`,
//!   `try_local_partition_proj`, `try_outer_partition`, a TiledMMA's
//!   `try_get_slice` and `try_partition_{a,b,c}`, `try_make_identity_tensor`
//!   return (never panic);
//! - a tile's element (i, j) inside the matrix is the matrix's element
//!   (bm BM + i, bn BN + j), and `get` is `None` past the storage;
//! - `copy_if` of a tile (partial or not) predicated by an identity tensor
//!   tiled the same way copies exactly the elements inside the matrix;
//!   `copy`, `fill`, `axpby` and `gemm` on a tile past the storage return
//!   `Err` and write nothing;
//! - an identity tensor's coordinates decode to themselves.
#![no_main]

use layout_core::tensor::algorithm::{axpby, copy, copy_if, fill, gemm};
use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
use layout_core::atom::mma::make_tiled_mma;
use layout_core::tensor::partition::{
    try_local_partition, try_local_partition_proj, try_local_tile, try_local_tile_exact,
    try_outer_partition,
};
use layout_core::tensor::try_make_identity_tensor;
use layout_core::{layout, Tensor, Underscore as X, C};
use layout_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

/// The most elements a fuzzed matrix has (its storage is allocated).
const MAX_SIDE: usize = 40;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let (m, n) = (
        (b.next() as usize) % MAX_SIDE,
        (b.next() as usize) % MAX_SIDE,
    );
    let full = m * n;
    // Storage of the matrix's length, or shorter (a view that lies), or longer.
    let len = match b.next() % 4 {
        0 => full.saturating_sub((b.next() as usize) % 8),
        1 => full + (b.next() as usize) % 8,
        _ => full,
    };
    let src: Vec<i32> = (0..len as i32).collect();
    let (bm, bn) = (b.leaf(), b.leaf());
    let thr = b.leaf();

    // The row-major matrix; Tensor::new refuses storage shorter than it.
    let Ok(a) = Tensor::new(&src[..], layout!((m, n):(n, 1))) else {
        assert!(
            len < full,
            "Tensor::new refused a storage that covers the matrix"
        );
        return;
    };
    let tiler = (C::<4>, C::<8>);
    let tile = try_local_tile(a, tiler, (bm, bn));
    let _ = try_local_tile_exact(a, tiler, (bm, bn));
    let _ = try_outer_partition(a, tiler, (bm, bn));
    let _ = try_local_partition(a, layout!((4, 8):(8, 1)), thr);
    let _ = try_local_partition_proj(a, layout!((4, 2, 8):(1, 4, 8)), thr, (C::<1>, X, C::<1>));
    let _ = try_local_partition(a, layout!((2, 3):(1, 2)), thr);
    let Ok(tile) = tile else {
        // Refused: the coordinate is past the grid of tiles.
        assert!(bm >= m.div_ceil(4).max(1) || bn >= n.div_ceil(8).max(1) || m == 0 || n == 0);
        return;
    };
    // Element (i, j) of the tile: the matrix's (4 bm + i, 8 bn + j) where
    // that is inside the matrix.
    for i in 0..4 {
        for j in 0..8 {
            let (r, c) = (4 * bm + i, 8 * bn + j);
            if r < m && c < n {
                assert_eq!(
                    tile.get((i, j)).copied(),
                    Some((r * n + c) as i32),
                    "tile ({bm},{bn}) element ({i},{j})"
                );
            }
        }
    }

    // Predicated copy: exactly the elements inside.
    let id = match try_make_identity_tensor((m, n)) {
        Ok(id) => id,
        Err(e) => panic!("identity tensor of {m} x {n}: {e}"),
    };
    let Ok(tile_id) = try_local_tile(id, tiler, (bm, bn)) else {
        panic!("the identity tensor refused a tile the matrix took");
    };
    let mut out = [-1i32; 32];
    let mut o = Tensor::new(&mut out[..], layout!((4, 8):(8, 1))).unwrap();
    copy_if(|k| tile_id.is_within(k, (m, n)), &tile, &mut o)
        .expect("copy_if of the elements inside");
    for i in 0..4 {
        for j in 0..8 {
            let (r, c) = (4 * bm + i, 8 * bn + j);
            let want = if r < m && c < n {
                (r * n + c) as i32
            } else {
                -1
            };
            assert_eq!(out[i * 8 + j], want, "copy_if element ({i},{j})");
            assert_eq!(
                tile_id.at((i, j)),
                Some((r, c)),
                "identity element ({i},{j})"
            );
        }
    }
    // Without a predicate: Ok when the tile lies in the storage, else Err
    // and nothing written.
    let mut out2 = [-1i32; 32];
    let mut o2 = Tensor::new(&mut out2[..], layout!((4, 8):(8, 1))).unwrap();
    let inside = 4 * bm * n + 8 * bn + 3 * n + 8 <= len;
    match copy(&tile, &mut o2) {
        Ok(()) => assert!(inside, "copy of a tile past the storage returned Ok"),
        Err(_) => {
            assert!(!inside, "copy refused a tile inside the storage");
            assert!(out2.iter().all(|&x| x == -1), "a refused copy wrote");
        }
    }
    let mut dst = src.clone();
    let mut d = Tensor::new(&mut dst[..], layout!((m, n):(n, 1))).unwrap();
    if let Ok(mut dt) = try_local_tile(d.view_mut(), tiler, (bm, bn)) {
        let before = src.clone();
        let r = fill(&mut dt, 7);
        assert_eq!(r.is_ok(), inside);
        if r.is_err() {
            assert_eq!(dst, before, "a refused fill wrote");
        }
    }
    let ones = [1i32; 32];
    let t1 = Tensor::new(&ones[..], layout!((4, 8):(8, 1))).unwrap();
    let mut dst = src.clone();
    let mut d = Tensor::new(&mut dst[..], layout!((m, n):(n, 1))).unwrap();
    if let Ok(mut dt) = try_local_tile(d.view_mut(), tiler, (bm, bn)) {
        assert_eq!(axpby(1, &t1, 1, &mut dt).is_ok(), inside);
        // gemm: A (4 x 1), B (8 x 1), C the tile.
        let ta = Tensor::new(&ones[..4], layout!((4, 1):(1, 4))).unwrap();
        let tb = Tensor::new(&ones[..8], layout!((8, 1):(1, 8))).unwrap();
        assert_eq!(gemm(&ta, &tb, &mut dt).is_ok(), inside);
    }

    // Identity tensors of any extents: refused or exact.
    let (e0, e1) = (b.leaf(), b.leaf());
    if let Ok(idt) = try_make_identity_tensor((e0, C::<8>)) {
        if let Ok(t) = try_local_tile(idt, (C::<4>, C::<8>), (bm, 0usize)) {
            let (r, c) = (
                4usize.checked_mul(bm).and_then(|x| x.checked_add(3)),
                7usize,
            );
            if let Some(r) = r {
                assert_eq!(
                    t.at((3usize, 7usize)),
                    Some((r, c)),
                    "identity of {e0} rows, tile {bm}"
                );
            }
        }
    }
    let _ = try_make_identity_tensor((e0, e1, C::<2>)).map(|t| t.at((0usize, 0usize, 1usize)));

    // A TiledMMA over matrices of fuzzed extents (0 included).
    let mma = make_tiled_mma(Sm80, layout!((2, 2, 1):(1, 2, 0)), (X, X, X));
    let (mm, kk) = (m * 4, n * 4);
    let half = vec![0u16; mm * kk];
    if let Ok(t) = Tensor::new(&half[..], layout!((mm, kk):(kk, 1))) {
        if let Ok(s) = mma.try_get_slice(thr) {
            let _ = s.try_partition_a(t);
            let _ = s.try_partition_b(t);
            let _ = s.try_partition_c(t);
        }
        let _ = mma
            .try_get_slice(thr % 128)
            .map(|s| s.try_partition_c(t).map(|p| p.data_offset()));
    }
});
