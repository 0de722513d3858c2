//! Tensors at work: partitions checked against their definitions (every
//! element of a tile owned by exactly one thread, a thread's partition equal
//! to the TiledMMA's thread-value layout), identity tensors, fragments, the
//! whole-tensor algorithms, and code generic over its tiles.

use layout_core::atom::mma::make_tiled_mma;
use layout_core::atom::{SM80_16x8x16_F32F16F16F32_TN, UniversalFMA};
use layout_core::tensor::algorithm::{axpby, copy, copy_if, gemm};
use layout_core::tensor::fragment::make_fragment_like;
use layout_core::tensor::make_identity_tensor;
use layout_core::tensor::partition::{local_partition, local_tile, try_local_tile, Partition};
use layout_core::{layout, to_cute_string, Tensor, Underscore as X, C};

/// A thread's partition of a column-major reference tile (offset = m + M*n)
/// holds exactly the coordinates the thread-value layout gives it, and the
/// threads together cover the tile once.
#[test]
fn partition_c_matches_layout_c_tv_and_covers_the_tile() {
    let mma = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        layout!((2,2,1):(1,2,0)),
        (X, X, X),
    );
    // The tiled MMA's tile is 32 x 16; take a 64 x 32 C (two steps each way).
    let (m, n) = (64usize, 32usize);
    let data: Vec<u32> = (0..(m * n) as u32).collect();
    let c = Tensor::new(&data[..], layout!((64,32):(1,64))).unwrap();
    let tv = mma.get_layout_c_tv();
    let mut seen = vec![0u8; m * n];
    for t in 0..128 {
        let p = mma.get_slice(t).partition_c(c.view());
        // (FrgV, RestM, RestN) = ((2,2), 2, 2): 16 values per thread.
        assert_eq!(p.size(), 16);
        for v in 0..4 {
            for rm in 0..2 {
                for rn in 0..2 {
                    let got = p[((v % 2, v / 2), rm, rn)] as usize;
                    // Value v of thread t in the first 32 x 16 tile...
                    let q = tv.crd2idx((t, v));
                    let (qm, qn) = (q % 32, q / 32);
                    // ...shifted by the rest coordinate (rm, rn).
                    assert_eq!(
                        got,
                        (qm + 32 * rm) + m * (qn + 16 * rn),
                        "thread {t} value {v}"
                    );
                    seen[got] += 1;
                }
            }
        }
    }
    assert!(
        seen.iter().all(|&k| k == 1),
        "every element of C is owned once"
    );
}

/// A fragment for a thread's partition has one slot per value it holds.
#[test]
fn partition_fragment_has_the_partition_size() {
    let mma = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        layout!((2,2,1):(1,2,0)),
        (X, X, X),
    );
    let data = vec![0f32; 64 * 32];
    let c = Tensor::new(&data[..], layout!((64,32):(1,64))).unwrap();
    let frag = mma.get_slice(7).partition_fragment_c::<f32, _, _>(c.view());
    // CuTe's make_fragment_like of ((_2,_2),_2,_2):((_1,_32),_4,_2048)... is
    // compact: 16 values.
    assert_eq!(frag.as_slice().len(), 16);
    assert_eq!(frag.layout().to_string(), "((_2,_2),_2,_2):((_1,_2),_4,_8)");
    // Past the thread count: refused.
    assert!(mma.try_get_slice(128).is_err());
}

/// A universal FMA tiled 8 x 8: each thread owns a strided 2 x 2 set of a
/// 16 x 16 C (the SIMT GEMM partition).
#[test]
fn universal_fma_partition() {
    let mma = make_tiled_mma(UniversalFMA, layout!((8,8,1):(1,8,0)), (X, X, X));
    let data: Vec<u32> = (0..256).collect();
    let c = Tensor::new(&data[..], layout!((16,16):(1,16))).unwrap();
    let p = mma.get_slice(9).partition_c(c.view());
    // Thread 9 is (m, n) = (1, 1) of the 8 x 8 threads: C(1 + 8i, 1 + 8j).
    let mut got = Vec::new();
    for i in 0..2usize {
        for j in 0..2usize {
            got.push(p[(0usize, i, j)]);
        }
    }
    assert_eq!(got, vec![17, 17 + 16 * 8, 17 + 8, 17 + 8 + 16 * 8]);
}

/// A nested atom layout (CuTe allows one: each mode of the thread grid may
/// be a layout of its own). `((4,4),(8,2),1):((1,32),(4,128),0)` puts the
/// threads of a warp on a 4 x 8 block of the 16 x 16 grid. The strings are
/// what CuTe 4.7 prints for the same TiledMMA (CUTLASS 7107b05, g++); a
/// thread's partition is the flat grid's partition of the thread at the
/// same grid position (m = t0 + 4 t2, n = t1 + 8 t3 for thread
/// t0 + 4 t1 + 32 t2 + 128 t3).
#[test]
fn nested_atom_layout_relabels_the_threads() {
    type Perm = layout_core::layout_type!((16, 4, 2):(4, 1, 64));
    let perm = (Perm::default(), Perm::default(), X);
    let flat = make_tiled_mma(UniversalFMA, layout!((16,16,1):(1,16,0)), perm);
    let nested = make_tiled_mma(
        UniversalFMA,
        layout!(((4,4),(8,2),1):((1,32),(4,128),0)),
        perm,
    );
    assert_eq!(
        nested.thr_layout_vmnk().to_string(),
        "(_1,(_4,_4),(_8,_2),_1):(_0,(_1,_32),(_4,_128),_0)"
    );
    assert_eq!(to_cute_string(&nested.tile_size()), "(_128,_128,_1)");
    assert_eq!(
        nested.get_layout_c_tv().to_string(),
        "((_4,_8,_4,_2),(_1,((_4,_2),(_4,_2)))):((_4,_512,_16,_4096),(_0,((_1,_64),(_128,_8192))))"
    );
    assert_eq!(
        nested.get_layout_a_tv().to_string(),
        "((_4,_8,_4,_2),(_1,((_4,_2),_1))):((_4,_0,_16,_0),(_0,((_1,_64),_0)))"
    );
    assert_eq!(
        nested.get_layout_b_tv().to_string(),
        "((_4,_8,_4,_2),(_1,((_4,_2),_1))):((_0,_4,_0,_32),(_0,((_1,_64),_0)))"
    );
    let a: Vec<u32> = (0..128 * 8).collect();
    let sa = Tensor::new(&a[..], layout!((128,8):(1,128))).unwrap();
    let c: Vec<u32> = (0..128 * 128).collect();
    let gc = Tensor::new(&c[..], layout!((128,128):(128,1))).unwrap();
    // CuTe: thread 5's A partition (_1,(_4,_2),_8):(_0,(_1,_64),_128) from
    // offset 4, its C partition (_1,(_4,_2),(_4,_2)):(_0,(_128,_8192),(_1,_64))
    // from 516; threads 37 and 200: A from 20 and 32, C from 2564 and 4136.
    for (t, a0, c0) in [(0, 0, 0), (5, 4, 516), (37, 20, 2564), (200, 32, 4136)] {
        let pa = nested.get_slice(t).partition_a(sa.view());
        assert_eq!(
            pa.layout().to_string(),
            "(_1,(_4,_2),_8):(_0,(_1,_64),_128)"
        );
        assert_eq!(pa.data_offset(), a0, "thread {t}");
        let pc = nested.get_slice(t).partition_c(gc.view());
        assert_eq!(
            pc.layout().to_string(),
            "(_1,(_4,_2),(_4,_2)):(_0,(_128,_8192),(_1,_64))"
        );
        assert_eq!(pc.data_offset(), c0, "thread {t}");
    }
    for t in 0..256 {
        let (m, n) = (t % 4 + 4 * (t / 32 % 4), t / 4 % 8 + 8 * (t / 128));
        let (mine, same) = (nested.get_slice(t), flat.get_slice(m + 16 * n));
        assert_eq!(mine.thr_vmnk(), (0, m, n, 0), "thread {t}");
        let (pa, qa) = (mine.partition_a(sa.view()), same.partition_a(sa.view()));
        assert_eq!(pa.data_offset(), qa.data_offset(), "thread {t}");
        let (pc, qc) = (mine.partition_c(gc.view()), same.partition_c(gc.view()));
        assert_eq!(pc.data_offset(), qc.data_offset(), "thread {t}");
        assert_eq!(pc.layout().to_string(), qc.layout().to_string());
    }
    // The tensor-core atom with 2 x 2 warps, M's warps nested: CuTe prints
    // these.
    let tc = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        layout!(((2,2),2,1):((1,4),2,0)),
        (X, X, X),
    );
    assert_eq!(
        tc.thr_layout_vmnk().to_string(),
        "(_32,(_2,_2),_2,_1):(_1,(_32,_128),_64,_0)"
    );
    assert_eq!(to_cute_string(&tc.tile_size()), "(_64,_16,_16)");
    assert_eq!(tc.size().to_string(), "_256");
    assert!(tc
        .to_string()
        .contains("ThrLayoutVMNK:  (_32,(_2,_2),_2,_1):(_1,(_32,_128),_64,_0)"));
    assert_eq!(
        tc.thrfrg_a(layout!((64,32):(32,1))).to_string(),
        "(((_4,_8),(_4,_1)),((_2,_2,_2),(_1,_2))):(((_2,_32),(_512,_0)),((_1,_256,_8),(_0,_16)))"
    );
    assert_eq!(
        tc.get_layout_c_tv().to_string(),
        "(((_4,_8,_2),_2,_2),((_2,_2),(_1,_1))):(((_128,_1,_16),_512,_32),((_64,_8),(_0,_0)))"
    );
    assert_eq!(
        tc.get_layout_a_tv().to_string(),
        "(((_4,_8,_2),_2,_2),((_2,_2,_2),(_1,_1))):(((_128,_1,_16),_0,_32),((_64,_8,_512),(_0,_0)))"
    );
    assert_eq!(
        tc.get_layout_b_tv().to_string(),
        "(((_4,_8,_2),_2,_2),((_2,_2),(_1,_1))):(((_32,_1,_0),_8,_0),((_16,_128),(_0,_0)))"
    );
}

/// The identity tensor predicates a partial tile: copy_if moves exactly the
/// elements inside the matrix (rows < m) of the last, partial tile.
#[test]
fn identity_tensor_predicates_a_partial_tile() {
    let m = 10usize;
    // The buffer has room for 12 rows (a padded allocation); the matrix has 10.
    let data: Vec<f32> = (0..12 * 8).map(|i| i as f32).collect();
    let a = Tensor::new(&data[..], layout!((m, 8):(8, 1))).unwrap();
    let id = make_identity_tensor((m, C::<8>));
    // Tile 2 of 4 rows starts at row 8: rows 10 and 11 are outside.
    let src = local_tile(a.view(), (C::<4>, C::<8>), (2usize, 0usize));
    let ids = local_tile(id, (C::<4>, C::<8>), (2usize, 0usize));
    assert_eq!(ids.at((3usize, 5usize)), Some((11, 5)));
    let mut frag = make_fragment_like::<f32, _>(layout!((4,8):(1,4)));
    copy_if(
        |i| ids.at(i).is_some_and(|(r, _)| r < m),
        &src,
        &mut frag.view_mut(),
    )
    .unwrap();
    for r in 0..4usize {
        for c in 0..8usize {
            let want = if 8 + r < m {
                ((8 + r) * 8 + c) as f32
            } else {
                0.0
            };
            assert_eq!(frag[(r, c)], want, "({r},{c})");
        }
    }
}

/// Whole-tensor algorithms on mixed layouts, with their errors.
#[test]
fn algorithms_check_sizes() {
    let src = [1i32, 2, 3, 4, 5, 6];
    let mut dst = [0i32; 6];
    let s = Tensor::new(&src[..], layout!((2, 3):(3, 1))).unwrap();
    let mut d = Tensor::new(&mut dst[..], layout!((3, 2):(1, 3))).unwrap();
    // Same size, different shapes: element i goes to element i (colex).
    copy(&s, &mut d).unwrap();
    assert_eq!(dst, [1, 4, 2, 5, 3, 6]);
    // Sizes 6 and 4: static sizes that differ do not compile (the ui
    // suite's check cases); a run-time size is refused with `Err`.
    let mut small = [0i32; 4];
    let four = small.len();
    let mut t = Tensor::new(&mut small[..], layout!(four:1)).unwrap();
    assert!(copy(&s, &mut t).is_err());
    assert!(axpby(1, &s, 1, &mut t).is_err());
    // gemm: A (2,3), B (2,3) -> C (2,2) = A * B^T.
    let a = Tensor::new(&src[..], layout!((2,3):(3,1))).unwrap();
    let mut c = [0i32; 4];
    let mut tc = Tensor::new(&mut c[..], layout!((2,2):(1,2))).unwrap();
    gemm(&a, &a, &mut tc).unwrap();
    // Rows of A: [1,2,3], [4,5,6]; A A^T = [[14, 32], [32, 77]].
    assert_eq!(c, [14, 32, 32, 77]);
}

/// Code generic over its tile: one `Partition` bound, any static or
/// run-time tiler.
fn tile_of<L, T>(t: Tensor<&[f32], L>, tiler: T, i: usize) -> Tensor<&[f32], L::Inner>
where
    L: Partition<T, (usize, usize)>,
{
    local_tile(t, tiler, (i, 0usize))
}

#[test]
fn generic_over_the_tile() {
    let data: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let t = Tensor::new(&data[..], layout!((8, 8):(8, 1))).unwrap();
    let a = tile_of(t.view(), (C::<4>, C::<4>), 1);
    // Literal leaves in `layout!` are static: the row stride is `_8`.
    assert_eq!(a.layout().to_string(), "(_4,_4):(_8,_1)");
    assert_eq!(a[(1usize, 1usize)], 41.0);
    let b = tile_of(t.view(), (C::<2>, C::<8>), 3);
    assert_eq!(b[(1usize, 7usize)], 63.0);
    // The tile returned outlives the tensor it was cut from.
    let keep = {
        let inner = Tensor::new(&data[..], layout!((8, 8):(8, 1))).unwrap();
        local_partition(inner, layout!((2, 2):(2, 1)), 3)
    };
    assert_eq!(keep[(0usize, 0usize)], 9.0);
    // Tile coordinates past the grid are refused.
    assert!(try_local_tile(t.view(), (C::<4>, C::<4>), (2usize, 0usize)).is_err());
}
