//! Tiled copies against CuTe 4.7: the strings and offsets below are what
//! CuTe prints for the same `make_tiled_copy`, `make_tiled_copy_{A,B,C}`
//! and partitions (CUTLASS 7107b05, this repository's golden commit, built
//! with g++ on the host); the properties are the partition's definition
//! (every element of the tile copied once, a thread's values where the
//! thread-value layout puts them).

use layout_core::atom::mma::make_tiled_mma;
use layout_core::atom::tiled_copy::{
    make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_copy_c, Copy_Atom,
};
use layout_core::atom::{
    SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN, UniversalCopy,
    SM80_CP_ASYNC_CACHEGLOBAL_U128,
};
use layout_core::tensor::fragment::make_fragment_like;
use layout_core::{layout, to_cute_string, Tensor, C};

/// CuTe's sgemm_2 NT copy: 32 x 8 threads, 4 x 1 floats each by one
/// 16-byte access.
#[test]
fn vector_copy_of_sgemm_2() {
    let copy = make_tiled_copy(
        Copy_Atom::<UniversalCopy<u128>, f32>::default(),
        layout!((32, 8)),
        layout!((4, 1)),
    );
    assert_eq!(
        copy.to_string(),
        "TiledCopy\n  Tiler_MN:       (_128,_8)\n  TiledLayout_TV: (_256,_4):(_4,_1)\n\
         Copy_Atom\n  ThrID:        _1:_0\n  ValLayoutSrc: (_1,_4):(_0,_1)\n  \
         ValLayoutDst: (_1,_4):(_0,_1)\n  ValLayoutRef: (_1,_4):(_0,_1)\n  ValueType:    32b\n"
    );
    assert_eq!(
        copy.get_layout_s_tv().to_string(),
        "(_256,(_4,_1)):(_4,(_1,_0))"
    );
    assert_eq!(
        copy.get_layout_d_tv().to_string(),
        "(_256,(_4,_1)):(_4,(_1,_0))"
    );
    assert_eq!(to_cute_string(&copy.tile_size()), "(_128,_8)");
    assert_eq!(copy.size(), 256);
    let data: Vec<u32> = (0..128 * 8 * 4).collect();
    let tile = Tensor::new(&data[..128 * 8], layout!((128, 8))).unwrap();
    for (t, off) in [(0, 0), (5, 20), (37, 148), (255, 1020)] {
        for p in [
            copy.get_slice(t).partition_s(tile.view()),
            copy.get_slice(t).partition_d(tile.view()),
        ] {
            assert_eq!(p.layout().to_string(), "((_4,_1),_1,_1):((_1,_0),_0,_0)");
            assert_eq!(p.data_offset(), off, "thread {t}");
        }
    }
    // A third mode (the k-blocks) is kept: (CPY, CPY_M, CPY_K, k).
    let tiles = Tensor::new(&data[..], layout!((128, 8, 4))).unwrap();
    for (t, off) in [(0, 0), (37, 148)] {
        let p = copy.get_slice(t).partition_s(tiles.view());
        assert_eq!(
            p.layout().to_string(),
            "((_4,_1),_1,_1,_4):((_1,_0),_0,_0,_1024)"
        );
        assert_eq!(p.data_offset(), off);
    }
}

/// CuTe's sgemm_2 TN copy: 32 x 8 threads k-major, one float each, into a
/// padded tile.
#[test]
fn scalar_copy_into_a_padded_tile() {
    let copy = make_tiled_copy(
        Copy_Atom::<UniversalCopy<f32>, f32>::default(),
        layout!((32,8):(8,1)),
        layout!((1, 1)),
    );
    assert_eq!(copy.layout_tv().to_string(), "((_8,_32),_1):((_32,_1),_0)");
    assert_eq!(
        copy.get_layout_s_tv().to_string(),
        "((_8,_32),(_1,_1)):((_32,_1),(_0,_0))"
    );
    let data = vec![0f32; 129 * 8];
    let tile = Tensor::new(&data[..], layout!((128,8):(1,129))).unwrap();
    for (t, off) in [(0, 0), (5, 645), (37, 649), (255, 934)] {
        let p = copy.get_slice(t).partition_d(tile.view());
        assert_eq!(p.layout().to_string(), "((_1,_1),_4,_1):((_0,_0),_32,_0)");
        assert_eq!(p.data_offset(), off, "thread {t}");
    }
}

/// `ldmatrix` copies of a TiledMMA's operands (CuTe's sgemm_sm80): the
/// source is one 8-half row address per lane, the destination the MMA's
/// register fragments.
#[test]
fn ldmatrix_copies_of_a_tiled_mma() {
    let mma = make_tiled_mma(
        SM80_16x8x16_F16F16F16F16_TN,
        layout!((2, 2, 1)),
        (C::<32>, C::<32>, C::<16>),
    );
    let a = make_tiled_copy_a(Copy_Atom::<SM75_U32x4_LDSM_N, u16>::default(), mma);
    assert_eq!(to_cute_string(&a.tile_size()), "(_32,_16)");
    assert_eq!(
        a.layout_tv().to_string(),
        "((_4,_8,_2,_2),((_2,_2,_2),(_1,_1))):((_64,_1,_16,_0),((_32,_8,_256),(_0,_0)))"
    );
    assert!(a.to_string().contains(
        "  ValLayoutSrc: (_32,_8):(_8,_1)\n  ValLayoutDst: (_32,(_2,_4)):(_2,(_1,_64))\n  \
         ValLayoutRef: (_32,(_2,_4)):(_2,(_1,_64))\n  ValueType:    16b\n"
    ));
    assert_eq!(
        a.get_layout_s_tv().to_string(),
        "((_16,_2,_2,_2),(_8,_1)):((_1,_256,_16,_0),(_32,_0))"
    );
    assert_eq!(
        a.get_layout_d_tv().to_string(),
        "((_4,_8,_2,_2),((_2,_2,_2),_1)):((_64,_1,_16,_0),((_32,_8,_256),_0))"
    );
    let data = vec![0u16; 128 * 32];
    let sa = Tensor::new(&data[..], layout!((128,32):(32,1))).unwrap();
    for (t, s_off, d_off) in [(0, 0, 0), (5, 160, 34), (37, 672, 546), (127, 1000, 742)] {
        let s = a.get_slice(t).partition_s(sa.view());
        assert_eq!(
            s.layout().to_string(),
            "((_8,_1),_4,_2):((_1,_0),_1024,_16)"
        );
        assert_eq!(s.data_offset(), s_off, "thread {t}");
        let d = a.get_slice(t).partition_d(sa.view());
        assert_eq!(
            d.layout().to_string(),
            "(((_2,_2,_2),_1),_4,_2):(((_1,_256,_8),_0),_1024,_16)"
        );
        assert_eq!(d.data_offset(), d_off, "thread {t}");
        // The destination is the TiledMMA's A partition (CuTe's retile
        // relies on it): same elements, same order.
        let q = mma.get_slice(t).partition_a(sa.view());
        assert_eq!(q.data_offset(), d.data_offset());
        assert_eq!(q.layout().size(), d.layout().size());
    }
    let b = make_tiled_copy_b(Copy_Atom::<SM75_U32x2_LDSM_N, u16>::default(), mma);
    assert_eq!(
        b.get_layout_s_tv().to_string(),
        "((_8,_2,_4,_2),(_8,_2)):((_1,_256,_0,_8),(_32,_16))"
    );
    assert_eq!(
        b.get_layout_d_tv().to_string(),
        "((_4,_8,_2,_2),((_2,_2),_2)):((_64,_1,_0,_8),((_32,_256),_16))"
    );
    let c = make_tiled_copy_c(Copy_Atom::<UniversalCopy<u32>, u16>::default(), mma);
    assert_eq!(
        c.get_layout_s_tv().to_string(),
        "((_4,_8,_2,_2),(_2,(_2,_2))):((_64,_1,_16,_256),(_32,(_8,_512)))"
    );
}

/// `retile`: a thread's register fragments seen in each copy's value order
/// (CuTe's sgemm_sm80 feeds `ldmatrix` and stores C so).
#[test]
fn retile_views_fragments_in_copy_order() {
    let mma = make_tiled_mma(
        SM80_16x8x16_F16F16F16F16_TN,
        layout!((2, 2, 1)),
        (C::<32>, C::<32>, C::<16>),
    );
    let smem = vec![0u16; 128 * 128];
    let s = Tensor::new(&smem[..128 * 32], layout!((128,32):(32,1))).unwrap();
    let thr = mma.get_slice(5);
    let mut fa = thr.partition_fragment_a::<u16, _, _>(s.view());
    let mut fb = thr.partition_fragment_b::<u16, _, _>(s.view());
    let mut fc =
        thr.partition_fragment_c::<u16, _, _>(Tensor::new(&smem[..], layout!((128, 128))).unwrap());
    assert_eq!(fb.layout().to_string(), "((_2,_2),_8,_2):((_1,_2),_8,_4)");
    assert_eq!(fc.layout().to_string(), "((_2,_2),_4,_8):((_1,_2),_4,_16)");
    let a = make_tiled_copy_a(Copy_Atom::<SM75_U32x4_LDSM_N, u16>::default(), mma);
    let b2 = make_tiled_copy_b(Copy_Atom::<SM75_U32x2_LDSM_N, u16>::default(), mma);
    let b4 = make_tiled_copy_b(Copy_Atom::<SM75_U32x4_LDSM_N, u16>::default(), mma);
    let c = make_tiled_copy_c(Copy_Atom::<UniversalCopy<u32>, u16>::default(), mma);
    assert_eq!(
        a.get_slice(5).retile_d(fa.view_mut()).layout().to_string(),
        "((_8,_1),_4,_2):((_1,_0),_16,_8)"
    );
    assert_eq!(
        b2.get_slice(5).retile_d(fb.view_mut()).layout().to_string(),
        "((_4,_2),_4,_2):((_1,_8),_16,_4)"
    );
    assert_eq!(
        b4.get_slice(5).retile_d(fb.view_mut()).layout().to_string(),
        "(((_4,_2),_1),_4,_2):(((_1,_8),_0),_16,_4)"
    );
    assert_eq!(
        c.get_slice(5).retile_s(fc.view_mut()).layout().to_string(),
        "((_2,(_2,_2)),_4,_4):((_1,(_2,_16)),_4,_32)"
    );
    // A vector copy's own fragment is already in its order.
    let nt = make_tiled_copy(
        Copy_Atom::<UniversalCopy<u128>, f32>::default(),
        layout!((32, 8)),
        layout!((4, 1)),
    );
    let tile = vec![0f32; 128 * 8];
    let d = nt
        .get_slice(0)
        .partition_d(Tensor::new(&tile[..], layout!((128, 8))).unwrap());
    let mut fr = make_fragment_like::<f32, _>(d.layout());
    assert_eq!(fr.layout().to_string(), "((_4,_1),_1,_1):((_1,_0),_0,_0)");
    assert_eq!(
        nt.get_slice(0).retile_d(fr.view_mut()).layout().to_string(),
        "((_4,_1),_1,_1):((_1,_0),_0,_0)"
    );
}

/// `cp.async` of 8 halves per thread, 32 x 4 threads (CuTe's sgemm_sm80
/// global-to-shared copy), and the definition: over the whole tensor,
/// thread t's value v of copy (i, j) is the element the thread-value layout
/// names, shifted by the copy's tile, and every element is copied once.
#[test]
fn cp_async_copy_covers_the_tile_once() {
    let copy = make_tiled_copy(
        Copy_Atom::<SM80_CP_ASYNC_CACHEGLOBAL_U128, u16>::default(),
        layout!((32,4):(4,1)),
        layout!((1, 8)),
    );
    assert_eq!(to_cute_string(&copy.tile_size()), "(_32,_32)");
    assert_eq!(
        copy.layout_tv().to_string(),
        "((_4,_32),_8):((_256,_1),_32)"
    );
    assert_eq!(
        copy.get_layout_s_tv().to_string(),
        "((_4,_32),(_8,_1)):((_256,_1),(_32,_0))"
    );
    let data: Vec<u32> = (0..128 * 64).collect();
    let g = Tensor::new(&data[..], layout!((128,64):(64,1))).unwrap();
    for (t, off) in [(0, 0), (5, 72), (127, 2008)] {
        let p = copy.get_slice(t).partition_s(g.view());
        assert_eq!(
            p.layout().to_string(),
            "((_8,_1),_4,_2):((_1,_0),_2048,_32)"
        );
        assert_eq!(p.data_offset(), off, "thread {t}");
    }
    let tv = copy.get_layout_s_tv();
    let mut seen = vec![0u8; 128 * 64];
    for t in 0..128 {
        let p = copy.get_slice(t).partition_s(g.view());
        for v in 0..8 {
            for i in 0..4usize {
                for j in 0..2usize {
                    let got = p[((v, 0usize), i, j)] as usize;
                    // (m, n) in the 32 x 32 tile, column-major.
                    let q = tv.crd2idx((t, (v, 0usize)));
                    let (m, n) = (q % 32 + 32 * i, q / 32 + 32 * j);
                    assert_eq!(got, m * 64 + n, "thread {t} value {v} copy ({i},{j})");
                    seen[got] += 1;
                }
            }
        }
    }
    assert!(seen.iter().all(|&k| k == 1), "every element copied once");
}

/// A tile that does not divide the tensor, and a thread past the count,
/// are refused (CuTe would address past the tensor).
#[test]
fn partial_tiles_and_extra_threads_are_refused() {
    let copy = make_tiled_copy(
        Copy_Atom::<UniversalCopy<u128>, f32>::default(),
        layout!((32, 8)),
        layout!((4, 1)),
    );
    let data = vec![0f32; 100 * 8];
    let m = 100;
    let t = Tensor::new(&data[..], layout!((m, 8))).unwrap();
    assert!(copy.get_slice(0).try_partition_s(t.view()).is_err());
    assert!(copy.try_get_slice(256).is_err());
    // Run-time extents that the tile divides are partitioned; CuTe prints
    // the same layouts (which leaves are static included) and offsets.
    let (m, k) = (128, 3);
    let data = vec![0f32; 128 * 8 * 3];
    let t = Tensor::new(&data[..128 * 8], layout!((m, 8))).unwrap();
    let p = copy.get_slice(37).partition_s(t);
    assert_eq!(p.layout().to_string(), "((_4,_1),1,_1):((_1,_0),_128,_0)");
    assert_eq!(p.data_offset(), 148);
    let t = Tensor::new(&data[..], layout!((m, 8, k):(1, m, {8 * m}))).unwrap();
    let p = copy.get_slice(37).partition_s(t);
    assert_eq!(
        p.layout().to_string(),
        "((_4,_1),1,_1,3):((_1,_0),_128,_0,1024)"
    );
    assert_eq!(p.data_offset(), 148);
}
