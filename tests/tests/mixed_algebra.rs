//! Typed algebra on mixed layouts (run-time leaves computed in place, no
//! `DynLayout`): every result agrees with `DynLayout` on the same input
//! (printed layout, which leaves are static) and with the operation's
//! definition at every index.

use layout_core::algebra::{
    blocked_product, complement, composition, logical_divide, logical_product, raked_product,
    tile_to_shape, try_complement, try_composition, zipped_divide,
};
use layout_core::{layout, DynLayout, C};

fn dyn_of(text: &str) -> DynLayout {
    text.parse().unwrap()
}

#[test]
fn composition_is_a_of_b() {
    for m in [1usize, 2, 3, 4, 7, 8, 12, 16, 33] {
        let a = layout!((m, 32):(32, 1));
        let b = layout!((4,8):(1,4));
        let Ok(r) = try_composition(a, b) else {
            // DynLayout refuses the same input.
            assert!(
                layout_core::dynamic::composition(&dyn_of(&a.to_string()), &dyn_of(&b.to_string()))
                    .is_err(),
                "m={m}"
            );
            continue;
        };
        for i in 0..32 {
            assert_eq!(r.call(i), a.call(b.call(i)), "m={m} i={i}: {r}");
        }
        let d = layout_core::dynamic::composition(&dyn_of(&a.to_string()), &dyn_of(&b.to_string()))
            .unwrap();
        assert_eq!(r.to_string(), d.to_string(), "m={m}");
    }
}

#[test]
fn zipped_divide_matches_dyn_and_definition() {
    for m in [1usize, 4, 5, 8, 64, 100] {
        let a = layout!((m, 32):(32, 1));
        let r = zipped_divide(a, (C::<4>, C::<4>));
        let d = layout_core::dynamic::zipped_divide(
            &dyn_of(&a.to_string()),
            &"(_4,_4)".parse::<layout_core::dynamic::Tiler>().unwrap(),
        )
        .unwrap();
        assert_eq!(r.to_string(), d.to_string(), "m={m}");
        // By hand: ((4,4),(ceil(m/4),8)):((32,1),(128,4)).
        let q = m.div_ceil(4);
        assert_eq!(
            r.to_string(),
            format!("((_4,_4),({q},_8)):((_32,_1),(_128,_4))")
        );
        for i in 0..(16 * q * 8) {
            assert_eq!(r.call(i) as i64, d.call(i as i64).unwrap(), "m={m} i={i}");
        }
    }
}

#[test]
fn complement_is_disjoint_and_covers() {
    for m in [4usize, 8, 16, 24, 64] {
        let a = layout!((2,2):(1,4));
        let r = complement(a, m);
        let d = layout_core::dynamic::complement(
            &dyn_of(&a.to_string()),
            &layout_core::parse_tuple(&m.to_string()).unwrap(),
        )
        .unwrap();
        assert_eq!(r.to_string(), d.to_string(), "m={m}");
        let mut seen = vec![0u32; 4 * r.size()];
        for j in 0..r.size() {
            for i in 0..4 {
                seen[a.call(i) + r.call(j)] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c <= 1), "m={m}: not disjoint");
        assert!(
            seen[..m].iter().all(|&c| c == 1),
            "m={m}: [0, m) not covered"
        );
    }
    // A run-time cotarget the static modes leave a gap below is refused.
    assert!(try_complement(layout!((2,2):(1,3)), 6usize).is_err());
    // A run-time shape that makes the modes overlap is refused.
    let n = 3;
    assert!(try_complement(layout!((n, 2):(1, 2)), 12usize).is_err());
}

#[test]
fn divides_and_products_match_dyn() {
    let check = |typed: String, dynamic: DynLayout| assert_eq!(typed, dynamic.to_string());
    for m in [2usize, 4, 6, 16] {
        let a = layout!((m, 8):(8, 1));
        let t = (layout!(2:1), layout!(4:2));
        let r = logical_divide(a, t);
        check(
            r.to_string(),
            layout_core::dynamic::logical_divide(
                &dyn_of(&a.to_string()),
                &"(_2:_1,_4:_2)"
                    .parse::<layout_core::dynamic::Tiler>()
                    .unwrap(),
            )
            .unwrap(),
        );
        let p = layout!((2, m):(1, 2));
        let b = layout!((3,2):(1,3));
        let dp = dyn_of(&p.to_string());
        let db = dyn_of(&b.to_string());
        let lp = logical_product(p, b);
        check(
            lp.to_string(),
            layout_core::dynamic::logical_product(&dp, &layout_core::Tiler::Layout(db.clone()))
                .unwrap(),
        );
        check(
            blocked_product(p, b).to_string(),
            layout_core::dynamic::blocked_product(&dp, &db).unwrap(),
        );
        check(
            raked_product(p, b).to_string(),
            layout_core::dynamic::raked_product(&dp, &db).unwrap(),
        );
        // The product's first mode is A itself, its second B's pattern of copies of A.
        for i in 0..lp.size() {
            let (ai, bi) = (i % p.size(), i / p.size());
            let copy = composition(complement(p, p.size() * 6), b);
            assert_eq!(lp.call(i), p.call(ai) + copy.call(bi), "m={m} i={i}");
        }
        let t = tile_to_shape(layout!((2,2):(1,2)), (C::<8>, 4 * m));
        for i in 0..t.size() {
            // Every offset of the tiling is hit once: it is a bijection onto [0, size).
            assert!(t.call(i) < t.size());
        }
    }
}

/// CuTe merges a mode into a front mode with a static shape when `s*d` is
/// provably the front stride: with static-0 strides that holds for a
/// run-time shape too (`_0 * m` is `_0`), so `(m,_4):(_0,_0)` coalesces to
/// `(4m):_0`, and a composition with it walks one mode.
#[test]
fn static_zero_strides_merge_run_time_shapes() {
    let m = 4usize;
    let a = layout!((m, 4):(0, 0));
    let c = layout_core::algebra::coalesce(a);
    assert_eq!(c.to_string(), "16:_0");
    assert_eq!(
        layout_core::dynamic::coalesce(&dyn_of("(4,_4):(_0,_0)"))
            .unwrap()
            .to_string(),
        "16:_0"
    );
    let r = composition(a, layout!(8:1));
    assert_eq!(r.to_string(), "_8:_0");
    let d = layout_core::dynamic::composition(&dyn_of("(4,_4):(_0,_0)"), &dyn_of("_8:_1")).unwrap();
    assert_eq!(d.to_string(), "_8:_0");
    // A run-time 0 stride is not provably the front stride: no merge.
    let z = 0usize;
    assert_eq!(
        layout_core::algebra::coalesce(layout!((m, 4):(z, 0))).to_string(),
        "(4,_4):(0,_0)"
    );
}
