//! Seed 000's exercises 1 to 4, with the seed's reference answers.

use layout_core::{crd, flatten, group, layout, Tensor};

/// Exercise 1: rows start at offsets 0, 8 and 16; each row is contiguous.
#[test]
fn exercise1_padded_rows() {
    let l = layout!((3,4):(8,1));
    let table: Vec<Vec<usize>> = (0..3)
        .map(|m| (0..4).map(|n| l.crd2idx((m, n))).collect())
        .collect();
    assert_eq!(
        table,
        vec![vec![0, 1, 2, 3], vec![8, 9, 10, 11], vec![16, 17, 18, 19]]
    );
    assert_eq!(l.size(), 12);
    assert_eq!(l.cosize(), 20);
    // Twenty ints suffice: the largest offset is 19.
    assert!(Tensor::new(&[0i32; 20][..], l).is_ok());
    assert!(Tensor::new(&[0i32; 19][..], l).is_err());
}

/// Exercise 2: copy a row-major matrix into a column-major one by logical index.
#[test]
fn exercise2_copy_by_logical_index() {
    let mut src_data = [0i32; 12];
    let mut src = Tensor::new(&mut src_data[..], layout!((3,4):(4,1))).unwrap();
    for m in 0..3usize {
        for n in 0..4usize {
            src[(m, n)] = (10 * m + n) as i32;
        }
    }
    let mut dst_data = [0i32; 12];
    let mut dst = Tensor::new(&mut dst_data[..], layout!((3,4):(1,3))).unwrap();
    for i in 0..12usize {
        dst[i] = src[i];
    }
    // i = 5 is (2,1): offsets 9 and 5, value 21 in both.
    assert_eq!(src.layout().call(5), 9);
    assert_eq!(dst.layout().call(5), 5);
    assert_eq!((src[5usize], dst[5usize]), (21, 21));
    assert_eq!(dst_data, [0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23]);
}

/// Exercise 3: split a mode in two; three coordinate forms reach offset 8.
#[test]
fn exercise3_nested_mode() {
    let h = layout!((2,(2,3)):(6,(3,1)));
    assert_eq!(h.crd2idx(crd!(1, (0, 2))), 8);
    assert_eq!(h.crd2idx(crd!(1, 4)), 8);
    assert_eq!(h.crd2idx(crd!(9)), 8);
    let rows: Vec<Vec<usize>> = (0..2usize)
        .map(|m| (0..6usize).map(|j| h.crd2idx((m, j))).collect())
        .collect();
    assert_eq!(rows, vec![vec![0, 3, 1, 4, 2, 5], vec![6, 9, 7, 10, 8, 11]]);
    assert_eq!((h.rank(), h.depth(), h.size()), (2, 2, 12));
    for m in 0..2usize {
        for a in 0..2usize {
            for b in 0..3usize {
                assert_eq!(h.crd2idx((m, (a, b))), 6 * m + 3 * a + b);
            }
        }
    }
    let flat = flatten(h);
    assert_eq!(flat.with_dynamic_leaves().to_string(), "(2,2,3):(6,3,1)");
    for i in 0..12 {
        assert_eq!(flat.call(i), h.call(i));
    }
    assert_eq!(group::<1, 3, _>(flat).to_string(), h.to_string());
}

/// Exercise 4: a transpose is a view; a write through a row of it lands at offset 10.
#[test]
fn exercise4_transpose_view() {
    let mut storage = [-1i32; 24];
    let a_layout = layout!((3,4):(8,1));
    {
        let mut a = Tensor::new(&mut storage[..], a_layout).unwrap();
        for m in 0..3usize {
            for n in 0..4usize {
                a[(m, n)] = (10 * m + n) as i32;
            }
        }
    }
    let before = storage;
    let b_layout = layout!((4,3):(1,8));
    {
        let mut a = Tensor::new(&mut storage[..], a_layout).unwrap();
        assert_eq!(b_layout.with_dynamic_leaves().to_string(), "(4,3):(1,8)");
        {
            let b = a.view_as(b_layout).unwrap();
            assert_eq!(b.data_offset(), a.data_offset());
            for m in 0..3usize {
                for n in 0..4usize {
                    assert_eq!(b[(n, m)], a[(m, n)]);
                }
            }
            let row = b.slice(crd!(2, _));
            assert_eq!(row.data_offset(), 2);
            assert_eq!(row.layout().to_string(), "(_3):(_8)");
            assert_eq!([row[0usize], row[1usize], row[2usize]], [2, 12, 22]);
        }
        {
            let mut b = a.view_mut_as(b_layout).unwrap();
            let mut row = b.slice_mut(crd!(2, _));
            row[1usize] = 777;
        }
        assert_eq!(a[crd!(1, 2)], 777);
    }
    for (i, (&now, &was)) in storage.iter().zip(before.iter()).enumerate() {
        if i == 10 {
            assert_eq!(now, 777);
        } else {
            assert_eq!(now, was, "offset {i} changed");
        }
    }
}

/// Out-of-shape coordinates: `get` is `None`, indexing panics naming coordinate and shape.
#[test]
fn tensor_bounds() {
    let data = [0u8; 16];
    let t = Tensor::new(&data[..], layout!((3,4):(6,1))).unwrap();
    assert!(t.get((3usize, 0usize)).is_none());
    assert!(t.get(12usize).is_none());
    assert!(t.get((2usize, 3usize)).is_some());
    let err = std::panic::catch_unwind(|| t[(0usize, 4usize)]).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_eq!(msg, "tensor coordinate (0,4) is outside shape (_3,_4)");
}

/// Storage shorter than cosize, or a cosize that overflows, is an `Err`.
#[test]
fn tensor_construction_checks() {
    let n = usize::MAX / 2;
    // 4n coordinates: the size itself overflows.
    let huge = layout!((n, 4):(n, 1));
    assert_eq!(
        Tensor::new(&[0u8; 4][..], huge).err(),
        Some(layout_core::LayoutError::SizeOverflow)
    );
    // 6 coordinates, but the last is at 2n + 1 and the cosize 2n + 2 = 2^64.
    let far = layout!((3, 2):(n, 1));
    assert_eq!(
        Tensor::new(&[0u8; 4][..], far).err(),
        Some(layout_core::LayoutError::CosizeOverflow)
    );
    let err = Tensor::new(&[0u8; 15][..], layout!((3,4):(6,1)))
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "storage of 15 elements is shorter than the 16 the layout reaches"
    );
}

/// Exercise 6: lane 4's eight A elements, from the SM80 ALayout's strides.
/// The seed's table: v -> (m,k), q = m + 16k, row-major offset 16m + k.
#[test]
fn exercise6_lane4_of_the_sm80_a_layout() {
    use layout_core::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN as Mma};
    let a = <Mma as MmaAtom>::ALayout::default();
    let seed = [
        ((1, 0), 1, 16),
        ((1, 1), 17, 17),
        ((9, 0), 9, 144),
        ((9, 1), 25, 145),
        ((1, 8), 129, 24),
        ((1, 9), 145, 25),
        ((9, 8), 137, 152),
        ((9, 9), 153, 153),
    ];
    for (v, ((m, k), q, row_major)) in seed.into_iter().enumerate() {
        let got = a.crd2idx((4usize, v));
        assert_eq!(got, q, "lane 4, v {v}");
        assert_eq!((got % 16, got / 16), (m, k));
        assert_eq!(16 * m + k, row_major);
    }
    // All 32 x 8 (lane, value) pairs cover the 16x16 tile exactly once.
    let mut seen = [0u8; 256];
    for lane in 0..32usize {
        for v in 0..8usize {
            seen[a.crd2idx((lane, v))] += 1;
        }
    }
    assert!(seen.iter().all(|&c| c == 1));
}

/// Exercise 5: eight threads fill a padded 4x4 tile through the typed
/// composition(data_layout, tv), a zero-sized static layout.
#[test]
fn exercise5_threads_fill_a_padded_tile() {
    use layout_core::algebra::composition;
    let tv = layout!((8,2):(1,8));
    let data = layout!((4,4):(6,1));
    let tv_to_address = composition(data, tv);
    assert_eq!(core::mem::size_of_val(&tv_to_address), 0);
    // (t,v) = (1,1): q = 9, (m,n) = (1,2), offset 6*1 + 2 = 8.
    let q = tv.crd2idx((1usize, 1usize));
    assert_eq!((q, q % 4, q / 4), (9, 1, 2));
    assert_eq!(tv_to_address.crd2idx((1usize, 1usize)), 8);

    let mut storage = [-99i32; 24];
    let mut writes = [0u8; 16];
    for t in 0..8usize {
        for v in 0..2usize {
            let q = tv.crd2idx((t, v));
            let (m, n) = (q % 4, q / 4);
            let by_hand = 6 * m + n;
            let composed = tv_to_address.crd2idx((t, v));
            assert_eq!(composed, by_hand, "t {t} v {v}");
            storage[composed] = (100 * t + v) as i32;
            writes[q] += 1;
        }
    }
    assert!(
        writes.iter().all(|&w| w == 1),
        "each logical position written once"
    );
    let rows: Vec<Vec<i32>> = (0..4)
        .map(|m| (0..4).map(|n| storage[6 * m + n]).collect())
        .collect();
    assert_eq!(
        rows,
        vec![
            vec![0, 400, 1, 401],
            vec![100, 500, 101, 501],
            vec![200, 600, 201, 601],
            vec![300, 700, 301, 701]
        ]
    );
    // The row padding (offsets 4, 5, 10, 11, 16, 17 and past 21) is untouched.
    for m in 0..4 {
        for pad in 4..6 {
            if 6 * m + pad < 24 {
                assert_eq!(storage[6 * m + pad], -99);
            }
        }
    }
}
