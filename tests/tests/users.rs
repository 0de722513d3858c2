//! CuTe's idioms as a user ports them: partial tiles predicated by an
//! identity tensor, projected thread partitions (`sgemm_1`), refusals that
//! name the value and point at the caller. Expected values are by hand
//! (each test says how) or from definitions; the CuTe-printed cases are in
//! the golden records (`tensor/local_partition_proj.jsonl`).

use layout_core::tensor::algorithm::{axpby, copy, copy_if, fill, gemm};
use layout_core::tensor::fragment::Fragment;
use layout_core::tensor::partition::{
    local_partition, local_partition_proj, local_tile, try_local_partition,
    try_local_partition_proj, try_local_tile, try_local_tile_exact,
};
use layout_core::tensor::{make_identity_tensor, try_make_identity_tensor};
use layout_core::{layout, Tensor, Underscore as X, C};
use std::panic::{catch_unwind, AssertUnwindSafe, Location};
use std::sync::Mutex;

/// A 10 x 10 row-major matrix with a(i, j) = 10 i + j.
fn ten_by_ten() -> Vec<i32> {
    (0..100).collect()
}

#[test]
fn copy_if_of_a_bottom_edge_tile_copies_exactly_the_elements_inside() {
    let src = ten_by_ten();
    let a = Tensor::new(&src[..], layout!((10, 10):(10, 1))).unwrap();
    let id = make_identity_tensor((C::<10>, C::<10>));
    // Tile (2, 0) of 4 x 4 covers rows 8..12, columns 0..4: rows 10 and 11
    // are past the matrix (and past the storage).
    let tile = local_tile(a, (C::<4>, C::<4>), (2usize, 0usize));
    let tile_id = local_tile(id, (C::<4>, C::<4>), (2usize, 0usize));
    let mut out = [-1i32; 16];
    let mut o = Tensor::new(&mut out[..], layout!((4, 4):(4, 1))).unwrap();
    copy_if(|i| tile_id.is_within(i, (10, 10)), &tile, &mut o).unwrap();
    let want: Vec<i32> = (0..16)
        .map(|e| {
            let (r, c) = (8 + e / 4, e % 4);
            if r < 10 {
                10 * r + c
            } else {
                -1
            }
        })
        .collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn copy_if_of_a_right_edge_tile_with_threads() {
    // A 10 x 10 matrix in 4 x 4 tiles: tile (1, 2) is rows 4..8, columns
    // 8..12. Its columns 10 and 11 are in the storage (the next rows' first
    // elements): only the predicate keeps them out.
    let src = ten_by_ten();
    let a = Tensor::new(&src[..], layout!((10, 10):(10, 1))).unwrap();
    let id = make_identity_tensor((10usize, 10usize));
    let mut dst = vec![-1i32; 100];
    let mut d = Tensor::new(&mut dst[..], layout!((10, 10):(10, 1))).unwrap();
    let tile = local_tile(a, (C::<4>, C::<4>), (1usize, 2usize));
    let tile_id = local_tile(id, (C::<4>, C::<4>), (1usize, 2usize));
    // 2 x 2 threads, each with its 2 x 2 elements.
    let thr = layout!((2, 2):(1, 2));
    for t in 0..4 {
        let mine = local_partition(tile_id, thr, t);
        let mut td = local_partition(
            local_tile(d.view_mut(), (C::<4>, C::<4>), (1usize, 2usize)),
            thr,
            t,
        );
        copy_if(
            |i| mine.is_within(i, (10, 10)),
            &local_partition(tile, thr, t),
            &mut td,
        )
        .unwrap();
    }
    for (k, v) in dst.iter().enumerate() {
        let (r, c) = (k / 10, k % 10);
        let inside = (4..8).contains(&r) && (8..10).contains(&c);
        assert_eq!(*v, if inside { k as i32 } else { -1 }, "element ({r}, {c})");
    }
}

#[test]
fn whole_tensor_operations_on_a_tile_past_the_storage_are_errors() {
    // try_local_tile of a 50 x 48 row-major tensor by (_32,_8) at (1, 0):
    // rows 32..64, 14 of them past the storage.
    let data: Vec<f32> = (0..50 * 48).map(|i| i as f32).collect();
    let t = Tensor::new(&data[..], layout!((50, 48):(48, 1))).unwrap();
    let tile = try_local_tile(t, (C::<32>, C::<8>), (1usize, 0usize)).unwrap();
    let mut buf = [0f32; 256];
    let mut o = Tensor::new(&mut buf[..], layout!((32, 8):(8, 1))).unwrap();
    // The tile starts at 32 * 48 = 1536; its last element (31, 7) is at
    // 1536 + 31 * 48 + 7 = 3031, past the 2400 elements. Nothing is copied.
    let e = copy(&tile, &mut o).unwrap_err();
    assert_eq!(
        e.to_string(),
        "copy: the source, from offset 1536, reaches past its storage of 2400 elements (a tile that reaches past its matrix: predicate it, as with copy_if)"
    );
    // A predicate that keeps every element: the first one met past the
    // storage (row 18 of the tile, visited row by row) is named.
    let e = copy_if(|_| true, &tile, &mut o).unwrap_err();
    assert_eq!(
        e.to_string(),
        "copy_if: element 18 of the source is at offset 2400, past its storage of 2400 elements (a tile that reaches past its matrix: predicate it, as with copy_if)"
    );
    // The refused copy wrote nothing; copy_if wrote the rows before 18.
    assert!(buf[18 * 8..].iter().all(|&x| x == 0.0));
    assert_eq!(buf[8], 1584.0); // tile row 1 = matrix row 33: 33 * 48
    let mut y = [0f32; 256];
    let mut ty = Tensor::new(&mut y[..], layout!((32, 8):(8, 1))).unwrap();
    assert!(axpby(1.0, &tile, 1.0, &mut ty).is_err());
    // Writing through the tile: fill and gemm.
    let mut data2 = vec![0f32; 50 * 48];
    let mut t2 = Tensor::new(&mut data2[..], layout!((50, 48):(48, 1))).unwrap();
    let mut tile2 = local_tile(t2.view_mut(), (C::<32>, C::<8>), (1usize, 0usize));
    assert!(fill(&mut tile2, 1.0).is_err());
    let ones = [1f32; 32 * 8];
    let ta = Tensor::new(&ones[..], layout!((32, 8):(1, 32))).unwrap();
    let tb = Tensor::new(&ones[..8 * 8], layout!((8, 8):(1, 8))).unwrap();
    assert!(gemm(&ta, &tb, &mut tile2).is_err());
    // Predicated, the same tile copies exactly its 18 rows inside.
    let id = local_tile(
        make_identity_tensor((50usize, 48usize)),
        (C::<32>, C::<8>),
        (1usize, 0usize),
    );
    let mut buf = [-1f32; 256];
    let mut o = Tensor::new(&mut buf[..], layout!((32, 8):(8, 1))).unwrap();
    copy_if(|i| id.is_within(i, (50, 48)), &tile, &mut o).unwrap();
    for r in 0..32 {
        for c in 0..8 {
            let want = if 32 + r < 50 {
                ((32 + r) * 48 + c) as f32
            } else {
                -1.0
            };
            assert_eq!(buf[r * 8 + c], want, "tile element ({r}, {c})");
        }
    }
}

#[test]
fn a_bool_tensor_predicates_as_cutes() {
    let src = [1i32, 2, 3, 4];
    let mut dst = [0i32; 4];
    let s = Tensor::new(&src[..], layout!(4:1)).unwrap();
    let mut d = Tensor::new(&mut dst[..], layout!(4:1)).unwrap();
    let mut pred = Fragment::<bool, _>::new(layout!(4:1));
    pred[1usize] = true;
    pred[3usize] = true;
    copy_if(&pred, &s, &mut d).unwrap();
    assert_eq!(dst, [0, 2, 0, 4]);
    // A predicate of another size is refused, naming both sizes.
    let short = Fragment::<bool, _>::new(layout!(3:1));
    let mut d = Tensor::new(&mut dst[..], layout!(4:1)).unwrap();
    let e = copy_if(&short, &s, &mut d).unwrap_err();
    assert_eq!(
        e.to_string(),
        "copy_if: the predicate's size (3) differs from the source's size (4)"
    );
}

/// Run-time sizes that differ are refused with `Err` naming both (static
/// sizes that differ do not compile: the ui suite's check cases).
#[test]
fn size_mismatches_name_both_sizes() {
    let a = [0f32; 64];
    let mut b = [0f32; 32];
    let (n64, n32, k8) = (64, 32, 8);
    let s = Tensor::new(&a[..], layout!(n64:1)).unwrap();
    let mut d = Tensor::new(&mut b[..], layout!(n32:1)).unwrap();
    assert_eq!(
        copy(&s, &mut d).unwrap_err().to_string(),
        "copy: the source's size (64) differs from the destination's size (32)"
    );
    assert_eq!(
        axpby(1.0, &s, 1.0, &mut d).unwrap_err().to_string(),
        "axpby: x's size (64) differs from y's size (32)"
    );
    // gemm: A is 4 x 8 (M x K), B 4 x 4 (N x K), C 4 x 4: the K differ.
    let ta = Tensor::new(&a[..32], layout!((4, k8):(1, 4))).unwrap();
    let tb = Tensor::new(&a[..16], layout!((4, 4):(1, 4))).unwrap();
    let mut tc = Tensor::new(&mut b[..16], layout!((4, 4):(1, 4))).unwrap();
    assert_eq!(
        gemm(&ta, &tb, &mut tc).unwrap_err().to_string(),
        "gemm: A's K (8) differs from B's K (4)"
    );
}

/// CuTe's sgemm_1: tC = (16,16) column-major over sA = (128,8) M-major and
/// sB = (128,8) N-major. By the definition of the projections, thread t
/// owns rows m with m % 16 == t % 16 of A (every k) and rows n with
/// n % 16 == t / 16 of B.
#[test]
fn sgemm_1_projections_for_every_thread() {
    let data: Vec<usize> = (0..128 * 8).collect();
    let s = Tensor::new(&data[..], layout!((128, 8):(1, 128))).unwrap();
    let tc = layout!((16, 16):(1, 16));
    for t in 0..256 {
        let a = local_partition_proj(s, tc, t, (C::<1>, X));
        let b = local_partition_proj(s, tc, t, (X, C::<1>));
        assert_eq!(a.layout().to_string(), "(_8,_8):(_16,_128)");
        assert_eq!(b.layout().to_string(), "(_8,_8):(_16,_128)");
        let mut got_a: Vec<usize> = (0..64).map(|i| a[i]).collect();
        let mut got_b: Vec<usize> = (0..64).map(|i| b[i]).collect();
        got_a.sort();
        got_b.sort();
        // Element (m, k) holds m + 128 k.
        let rows = |r: usize| -> Vec<usize> {
            let mut v: Vec<usize> = (0..128 * 8).filter(|e| (e % 128) % 16 == r).collect();
            v.sort();
            v
        };
        assert_eq!(got_a, rows(t % 16), "thread {t}, A");
        assert_eq!(got_b, rows(t / 16), "thread {t}, B");
    }
    // C: both modes kept, thread 17 at (1, 1) of a (128,128) M-major tile.
    let c = vec![0f32; 128 * 128];
    let gc = Tensor::new(&c[..], layout!((128, 128):(1, 128))).unwrap();
    let tcgc = local_partition_proj(gc, tc, 17, (C::<1>, C::<1>));
    assert_eq!(tcgc.layout().to_string(), "(_8,_8):(_16,_2048)");
    assert_eq!(tcgc.data_offset(), 1 + 128);
    // Past the 256 threads of the whole layout: refused, by name.
    let e = try_local_partition_proj(s, tc, 256, (C::<1>, X)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "local_partition: thread 256 is outside the thread layout (_16,_16):(_1,_16) of 256 threads"
    );
}

/// The location of the panic `f` raises.
fn panic_location(f: impl FnOnce()) -> (String, u32) {
    static HOOK: Mutex<()> = Mutex::new(());
    let _guard = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let seen: &'static Mutex<Option<(String, u32)>> = Box::leak(Box::new(Mutex::new(None)));
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let l: &Location = info.location().unwrap();
        *seen.lock().unwrap() = Some((l.file().to_string(), l.line()));
    }));
    let r = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(prev);
    assert!(r.is_err(), "no panic");
    let got = seen.lock().unwrap().clone();
    got.unwrap()
}

#[test]
fn refusals_panic_at_the_callers_line() {
    let data = [0f32; 100];
    let t = Tensor::new(&data[..], layout!((10, 10):(10, 1))).unwrap();
    // Each panic is reported in this file (the caller), not in the library.
    let here = file!().to_string();
    let (file, _) = panic_location(|| {
        let _ = local_tile(t, (C::<4>, C::<4>), (3usize, 0usize));
    });
    assert_eq!(file, here);
    let (file, _) = panic_location(|| {
        let _ = local_partition(t, layout!((16, 16):(1, 16)), 300);
    });
    assert_eq!(file, here);
    let (file, line) = panic_location(|| {
        let _ = local_partition_proj(t, layout!((2, 5):(1, 2)), 10, (C::<1>, X));
    });
    assert_eq!(file, here);
    assert!(line > line!() - 4 && line < line!(), "line {line}");
    // And the messages name the function, the value and the shape.
    assert_eq!(
        try_local_tile(t, (C::<4>, C::<4>), (3usize, 0usize))
            .unwrap_err()
            .to_string(),
        "local_tile: tile (3,0) is outside the grid of tiles (_3,_3)"
    );
    assert_eq!(
        try_local_partition(t, layout!((16, 16):(1, 16)), 300).unwrap_err().to_string(),
        "local_partition: thread 300 is outside the thread layout (_16,_16):(_1,_16) of 256 threads"
    );
}

#[test]
fn the_identity_tensor_is_a_value() {
    let id = make_identity_tensor((C::<8>, 12usize));
    // Built once, tiled and partitioned many times: tile (1, 2) of 4 x 4 is
    // rows 4..8, columns 8..12; thread 3 of 2 x 2 (column-major) is at (1, 1).
    for round in 0..3 {
        let tile = local_tile(id, (C::<4>, C::<4>), (1usize, 2usize));
        let mine = local_partition(tile.view(), layout!((2, 2):(1, 2)), 3);
        assert_eq!(mine.at((0usize, 0usize)), Some((5, 9)), "round {round}");
        assert_eq!(mine.at((1usize, 1usize)), Some((7, 11)));
    }
    let copy = id;
    assert_eq!(copy.view().at((7usize, 11usize)), id.at((7usize, 11usize)));
}

#[test]
fn identity_coordinates_past_the_end_stay_exact() {
    // Rank 2 holds extents up to 2^31 per mode: the last tile of 4 rows of
    // 2^31 - 1 rows covers rows 2^31 - 4 ..= 2^31 - 1, the last one past
    // the end, each exactly.
    let m = (1usize << 31) - 1;
    let id = try_make_identity_tensor((m, C::<8>)).unwrap();
    let last = m.div_ceil(4) - 1;
    let tile = local_tile(id, (C::<4>, C::<8>), (last, 0usize));
    assert_eq!(tile.at((3usize, 7usize)), Some((4 * last + 3, 7)));
    assert_eq!(4 * last + 3, m); // the first row past the end
    assert!(!tile.is_within((3usize, 7usize), (m, 8)));
    assert!(tile.is_within((2usize, 7usize), (m, 8)));
    // Extents the bit fields cannot hold with room for a partial tile.
    let e = try_make_identity_tensor((1usize << 32, C::<8>)).unwrap_err();
    assert!(e.to_string().contains("extent 4294967296"), "{e}");
    assert!(try_make_identity_tensor(((1usize << 31) + 1, C::<8>)).is_err());
    assert!(try_make_identity_tensor((C::<8>, 1usize << 32)).is_err());
    // Rank 3: 2^20 per mode.
    assert!(try_make_identity_tensor((1usize << 20, C::<2>, C::<2>)).is_ok());
    assert!(try_make_identity_tensor((1usize << 21, C::<2>, C::<2>)).is_err());
    let id3 = make_identity_tensor(((1usize << 20) - 1, C::<2>, 3usize));
    let t3 = local_tile(
        id3,
        (C::<16>, C::<2>, C::<3>),
        ((1usize << 16) - 1, 0usize, 0usize),
    );
    // Row 15 of the last tile is 16 * (2^16 - 1) + 15 = 2^20 - 1, the first
    // row past the end.
    assert_eq!(
        t3.at((15usize, 1usize, 2usize)),
        Some(((1 << 20) - 1, 1, 2))
    );
}

#[test]
fn the_checked_tile_refuses_a_tiler_that_does_not_divide() {
    let data = [0u8; 1000 * 37];
    let t = Tensor::new(&data[..], layout!((1000, 37):(37, 1))).unwrap();
    // 1000 = 31 * 32 + 8: the tiles would cover 32 * 32 rows of 37 columns
    // (two tiles of 32 columns): 1024 * 64 elements.
    let e = try_local_tile_exact(t, (C::<32>, C::<32>), (0usize, 0usize)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "local_tile: the elements the tiles cover (65536) differs from the tensor's size (37000)"
    );
    assert!(try_local_tile_exact(t, (C::<8>, C::<37>), (124usize, 0usize)).is_ok());
}

#[test]
fn tiled_mma_partitions_of_run_time_extents_never_panic() {
    use layout_core::atom::mma::make_tiled_mma;
    use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    let mma = make_tiled_mma(Sm80, layout!((2, 2, 1):(1, 2, 0)), (X, X, X));
    let buf = vec![0u16; 128 * 64];
    // An extent of 0 (an empty matrix) and extents the tile does not
    // divide: each try_ form answers, none panics.
    for m in [0usize, 1, 31, 32, 64] {
        let a = Tensor::new(&buf[..], layout!((m, 64):(1, 32))).unwrap();
        let thr = mma.get_slice(7);
        let (pa, pc) = (thr.try_partition_a(a), thr.try_partition_c(a));
        let pb = thr.try_partition_b(a);
        if m == 0 {
            // An empty matrix: an answer (Ok with no tiles, or Err), no panic.
            continue;
        }
        // The tile is 32 x 16 (M x N) and K 16: a multiple of 32 rows divides.
        let divides = m % 32 == 0;
        assert_eq!(pa.is_ok(), divides, "A, m = {m}");
        assert_eq!(pc.is_ok(), divides, "C, m = {m}");
        // B is (N, K): m rows of N, a multiple of 16 divides.
        assert_eq!(pb.is_ok(), m % 16 == 0, "B, m = {m}");
    }
    // A thread past the 128 of the TiledMMA: refused, by name.
    let e = mma.try_get_slice(128).err().expect("thread 128 refused");
    assert_eq!(
        e.to_string(),
        "get_slice: thread 128 is outside the TiledMMA's thread layout (_32,_2,_2,_1):(_1,_32,_64,_0) of 128 threads"
    );
}
