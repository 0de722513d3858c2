//! `copy`, `copy_if`, `fill`, `axpby` and `gemm` against their definitions,
//! element `i` of one tensor with element `i` of the other (CuTe's 1-D
//! index), on layouts of every kind: static and run-time leaves, row- and
//! column-major, nested modes, broadcast (stride 0) sources, tiles at an
//! offset, and windows past the storage.

use layout_core::tensor::algorithm::{axpby, copy, copy_if, fill, gemm};
use layout_core::tensor::make_identity_tensor;
use layout_core::tensor::partition::{local_partition, local_tile};
use layout_core::{layout, Congruent, IntTuple, Layout, Tensor, C};
use proptest::prelude::*;

/// `dst[d(i)] = src[s(i)]` for every index, by the definition.
fn copy_ref<S1: Congruent<D1>, D1: IntTuple, S2: Congruent<D2>, D2: IntTuple>(
    src: &[i64],
    (so, s): (usize, Layout<S1, D1>),
    dst: &mut [i64],
    (d_o, d): (usize, Layout<S2, D2>),
) {
    for i in 0..s.size() {
        dst[d_o + d.call(i)] = src[so + s.call(i)];
    }
}

/// A rank-2 layout with run-time leaves: extents 0..5, strides 0..7.
fn rank2() -> impl Strategy<Value = Layout<(usize, usize), (usize, usize)>> {
    (0usize..5, 0usize..5, 0usize..7, 0usize..7).prop_map(|(m, n, a, b)| layout!((m, n):(a, b)))
}

/// An injective rank-2 destination of `m x n`: column- or row-major, with
/// a padded leading dimension.
fn injective(
    m: usize,
    n: usize,
    row_major: bool,
    pad: usize,
) -> Layout<(usize, usize), (usize, usize)> {
    if row_major {
        layout!((m, n):({ n + pad }, { 1 }))
    } else {
        layout!((m, n):({ 1 }, { m + pad }))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any source (overlapping, broadcast) into an injective destination,
    /// both at an offset in their storage.
    #[test]
    fn copy_is_the_definition(s in rank2(), row_major: bool, pad in 0usize..3, so in 0usize..4, d_o in 0usize..4) {
        let (m, n) = (s.shape().0, s.shape().1);
        let d = injective(m, n, row_major, pad);
        let src: Vec<i64> = (0..so + s.cosize() + 2).map(|i| i as i64 * 3 + 1).collect();
        let mut dst = vec![-1i64; d_o + d.cosize() + 2];
        let mut want = dst.clone();
        copy_ref(&src, (so, s), &mut want, (d_o, d));
        let ts = local_offset(&src, so, s);
        let mut td = Tensor::new(&mut dst[d_o..], d).unwrap();
        copy(&ts, &mut td).unwrap();
        prop_assert_eq!(dst, want);
    }

    /// `y = a x + b y` elementwise; `fill` sets every element reached.
    #[test]
    fn axpby_and_fill_are_the_definition(s in rank2(), row_major: bool, pad in 0usize..3) {
        let (m, n) = (s.shape().0, s.shape().1);
        let d = injective(m, n, row_major, pad);
        let x: Vec<i64> = (0..s.cosize() + 1).map(|i| i as i64 - 5).collect();
        let mut y: Vec<i64> = (0..d.cosize() + 1).map(|i| 2 * i as i64).collect();
        let mut want = y.clone();
        for i in 0..m * n {
            let k = d.call(i);
            want[k] = 3 * x[s.call(i)] + 2 * want[k];
        }
        let tx = Tensor::new(&x[..], s).unwrap();
        axpby(3, &tx, 2, &mut Tensor::new(&mut y[..], d).unwrap()).unwrap();
        prop_assert_eq!(&y, &want);
        fill(&mut Tensor::new(&mut y[..], d).unwrap(), 7).unwrap();
        for i in 0..m * n {
            want[d.call(i)] = 7;
        }
        prop_assert_eq!(y, want);
    }

    /// `copy_if` with a closure copies exactly the kept elements.
    #[test]
    fn copy_if_keeps_what_the_predicate_keeps(s in rank2(), row_major: bool, keep in 0usize..7) {
        let (m, n) = (s.shape().0, s.shape().1);
        let d = injective(m, n, row_major, 1);
        let src: Vec<i64> = (0..s.cosize() + 1).map(|i| i as i64 + 100).collect();
        let mut dst = vec![0i64; d.cosize() + 1];
        let mut want = dst.clone();
        for i in (0..m * n).filter(|i| i % 7 != keep) {
            want[d.call(i)] = src[s.call(i)];
        }
        let ts = Tensor::new(&src[..], s).unwrap();
        copy_if(|i| i % 7 != keep, &ts, &mut Tensor::new(&mut dst[..], d).unwrap()).unwrap();
        prop_assert_eq!(dst, want);
    }

    /// `c(m,n) += a(m,k) b(n,k)`, any layouts of A and B (broadcast too),
    /// C row- or column-major; integers, so exact in any order.
    #[test]
    fn gemm_is_the_definition(
        (m, n, k) in (0usize..5, 0usize..5, 0usize..5),
        (a0, a1, b0, b1) in (0usize..6, 0usize..6, 0usize..6, 0usize..6),
        row_major: bool,
    ) {
        let la = layout!((m, k):(a0, a1));
        let lb = layout!((n, k):(b0, b1));
        let lc = injective(m, n, row_major, 1);
        let a: Vec<i64> = (0..la.cosize() + 1).map(|i| (i as i64 * 7) % 11 - 5).collect();
        let b: Vec<i64> = (0..lb.cosize() + 1).map(|i| (i as i64 * 5) % 13 - 6).collect();
        let mut c: Vec<i64> = (0..lc.cosize() + 1).map(|i| i as i64).collect();
        let mut want = c.clone();
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    want[lc.crd2idx((i, j))] += a[la.crd2idx((i, p))] * b[lb.crd2idx((j, p))];
                }
            }
        }
        gemm(
            &Tensor::new(&a[..], la).unwrap(),
            &Tensor::new(&b[..], lb).unwrap(),
            &mut Tensor::new(&mut c[..], lc).unwrap(),
        )
        .unwrap();
        prop_assert_eq!(c, want);
    }
}

/// A tensor over `data` whose first element is at `off` (a tile's view).
fn local_offset<S: Congruent<D>, D: IntTuple>(
    data: &[i64],
    off: usize,
    l: Layout<S, D>,
) -> Tensor<&[i64], Layout<S, D>> {
    Tensor::new(&data[off..], l).unwrap()
}

/// Layouts that split differently at mode 0 (a (2,3) source, a (3,2)
/// destination, a rank-3 one) are walked index by index.
#[test]
fn copy_between_shapes_that_split_differently() {
    let src: Vec<i64> = (0..6).collect();
    let mut dst = [0i64; 6];
    let s = Tensor::new(&src[..], layout!((2,3):(3,1))).unwrap();
    copy(
        &s,
        &mut Tensor::new(&mut dst[..], layout!((3,2):(2,1))).unwrap(),
    )
    .unwrap();
    // Index i: source (i % 2, i / 2) at 3 (i % 2) + i / 2; destination
    // (i % 3, i / 3) at 2 (i % 3) + i / 3.
    let mut want = [0i64; 6];
    for i in 0..6 {
        want[2 * (i % 3) + i / 3] = src[3 * (i % 2) + i / 2];
    }
    assert_eq!(dst, want);
    let mut d3 = [0i64; 6];
    copy(
        &s,
        &mut Tensor::new(&mut d3[..], layout!((2, 1, 3))).unwrap(),
    )
    .unwrap();
    assert_eq!(d3, [0, 3, 1, 4, 2, 5]);
}

/// Static layouts: a row-major tile copied into a column-major fragment
/// and back, the whole 4 x 8 transposed.
#[test]
fn static_tiles_copy_by_rows() {
    let src: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let mut t = [0f32; 32];
    let s = Tensor::new(&src[..], layout!((4,8):(8,1))).unwrap();
    copy(
        &s,
        &mut Tensor::new(&mut t[..], layout!((4,8):(1,4))).unwrap(),
    )
    .unwrap();
    for i in 0..4 {
        for j in 0..8 {
            assert_eq!(t[i + 4 * j], src[8 * i + j]);
        }
    }
}

/// A tile past its storage: `copy`, `axpby` and `gemm` refuse it and
/// write nothing; `copy_if` copies the elements its predicate keeps.
#[test]
fn windows_past_the_storage() {
    let data: Vec<i64> = (0..100).collect();
    let a = Tensor::new(&data[..], layout!((10,10):(10,1))).unwrap();
    // Rows 8..12 of a 10-row matrix.
    let tile = local_tile(a, (C::<4>, C::<4>), (2usize, 0usize));
    let mut out = [-1i64; 16];
    let e = copy(
        &tile,
        &mut Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("copy"), "{e}");
    assert_eq!(out, [-1; 16]);
    let e = axpby(
        1,
        &tile,
        1,
        &mut Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("axpby"), "{e}");
    assert_eq!(out, [-1; 16]);
    let ones = [1i64; 16];
    let e = gemm(
        &tile,
        &Tensor::new(&ones[..], layout!((4,4):(4,1))).unwrap(),
        &mut Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("gemm"), "{e}");
    assert_eq!(out, [-1; 16]);
    // The identity tile says which rows are inside.
    let id = make_identity_tensor((C::<10>, C::<10>));
    let inside = local_tile(id, (C::<4>, C::<4>), (2usize, 0usize)).within((10, 10));
    copy_if(
        inside,
        &tile,
        &mut Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap(),
    )
    .unwrap();
    assert_eq!(out[..8], [80, 81, 82, 83, 90, 91, 92, 93]);
    assert_eq!(out[8..], [-1; 8]);
}

/// `within` on a tile wholly inside copies every element; on a tile
/// partly outside, exactly those inside (the right edge of a row-major
/// matrix, where the tile's elements past the edge lie in the next rows'
/// storage and only the predicate tells them apart); a predicate of
/// another size is refused.
#[test]
fn within_predicates_tiles() {
    let data: Vec<i64> = (0..60).collect();
    let a = Tensor::new(&data[..], layout!((6,10):(10,1))).unwrap();
    let id = make_identity_tensor((6usize, 10usize));
    let mut out = [0i64; 16];
    let full = local_tile(a, (C::<4>, C::<4>), (0usize, 1usize));
    let inside = local_tile(id, (C::<4>, C::<4>), (0usize, 1usize)).within((6, 10));
    copy_if(
        inside,
        &full,
        &mut Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap(),
    )
    .unwrap();
    for i in 0..4 {
        for j in 0..4 {
            assert_eq!(out[4 * i + j], data[10 * i + 4 + j]);
        }
    }
    // Columns 8..12 of rows 0..4: columns 10 and 11 are outside.
    let edge = local_tile(a, (C::<4>, C::<4>), (0usize, 2usize));
    let inside = local_tile(id, (C::<4>, C::<4>), (0usize, 2usize)).within((6, 10));
    let mut out = [-1i64; 16];
    copy_if(
        inside,
        &edge,
        &mut Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap(),
    )
    .unwrap();
    for i in 0..4 {
        assert_eq!(
            out[4 * i..4 * i + 4],
            [data[10 * i + 8], data[10 * i + 9], -1, -1]
        );
    }
    let other = local_tile(id, (C::<2>, C::<4>), (0usize, 0usize)).within((6, 10));
    assert!(copy_if(
        other,
        &edge,
        &mut Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap()
    )
    .is_err());
}

proptest! {
    /// A tile's predicate made once and partitioned over 2 x 4 threads
    /// (`Within::local_partition`) copies, thread by thread, exactly the
    /// tile's elements inside the matrix, wherever the tile of the grid lies
    /// (wholly inside, across the right or bottom edge, or both), and leaves
    /// the rest of the destination alone: the definition, element by
    /// element, for any matrix size.
    #[test]
    fn a_tile_predicate_partitioned_over_threads_keeps_the_inside(
        m in 1usize..13, n in 1usize..13, bi in 0usize..4, bj in 0usize..4,
    ) {
        let (bi, bj) = (bi % m.div_ceil(4), bj % n.div_ceil(4));
        let data: Vec<i64> = (0..(m * n) as i64).collect();
        let a = Tensor::new(&data[..], layout!((m, n):(n, 1))).unwrap();
        let id = make_identity_tensor((m, n));
        let (tile, thr) = ((C::<4>, C::<4>), layout!((2,4):(4,1)));
        let src = local_tile(a, tile, (bi, bj));
        let pred = local_tile(id, tile, (bi, bj)).within((m, n));
        let mut out = [-1i64; 16];
        let mut o = Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap();
        for t in 0..8 {
            copy_if(
                pred.local_partition(thr, t),
                &local_partition(src, thr, t),
                &mut local_partition(o.view_mut(), thr, t),
            )
            .unwrap();
        }
        for i in 0..4 {
            for j in 0..4 {
                let (r, c) = (4 * bi + i, 4 * bj + j);
                let want = if r < m && c < n { data[r * n + c] } else { -1 };
                prop_assert_eq!(out[4 * i + j], want, "({}, {})", r, c);
            }
        }
    }
}
