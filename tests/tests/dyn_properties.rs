//! Property tests of DynLayout's algebra against the definitions, evaluated
//! point by point (the tables are the oracle here, not the implementation).

use layout_core::dynamic::*;
use proptest::prelude::*;
use std::collections::HashSet;

fn leaf(max_s: i64, max_d: i64) -> impl Strategy<Value = (DTuple, DTuple)> {
    (1..=max_s, 0..=max_d, any::<bool>()).prop_map(|(s, d, st)| {
        (
            DTuple::int(DInt {
                value: s,
                is_static: st,
            }),
            DTuple::int(DInt {
                value: d,
                is_static: st,
            }),
        )
    })
}

/// Random layouts: rank 1 to 3, depth up to 2, small leaves, static or dynamic.
fn layout() -> impl Strategy<Value = DynLayout> {
    let mode = prop_oneof![
        leaf(6, 40),
        prop::collection::vec(leaf(4, 40), 1..3).prop_map(|v| {
            let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
            (DTuple::tuple(s), DTuple::tuple(d))
        }),
    ];
    prop_oneof![
        leaf(8, 20).prop_map(|(s, d)| DynLayout::new(s, d).unwrap()),
        prop::collection::vec(mode, 1..4).prop_map(|v| {
            let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
            DynLayout::new(DTuple::tuple(s), DTuple::tuple(d)).unwrap()
        }),
    ]
}

/// A(i) for any i: the last mode extends, as CuTe evaluates outside the domain.
fn at(a: &DynLayout, i: i64) -> i64 {
    a.call(i).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn composition_is_a_after_b(a in layout(), b in layout()) {
        if let Ok(r) = composition(&a, &b) {
            let n = b.size().unwrap().value;
            for i in 0..n {
                prop_assert_eq!(at(&r, i), at(&a, at(&b, i)), "{} o {} = {} at {}", a, b, r, i);
            }
        }
    }

    #[test]
    fn coalesce_keeps_the_function(a in layout()) {
        let c = coalesce(&a).unwrap();
        prop_assert_eq!(c.size().unwrap().value, a.size().unwrap().value);
        for i in 0..a.size().unwrap().value {
            prop_assert_eq!(at(&c, i), at(&a, i));
        }
        prop_assert!(c.depth() <= 1);
    }

    #[test]
    fn complement_is_disjoint_and_covers(a in layout(), m in 1i64..200) {
        let cot = DTuple::int(DInt::new_dynamic(m));
        if let Ok(r) = complement(&a, &cot) {
            let f = filter(&a).unwrap();
            let mut seen = HashSet::new();
            for j in 0..r.size().unwrap().value {
                for i in 0..f.size().unwrap().value {
                    prop_assert!(seen.insert(at(&f, i) + at(&r, j)), "({}, {}) is not injective", f, r);
                }
            }
            for x in 0..m {
                prop_assert!(seen.contains(&x), "({}, {}) misses {} below {}", f, r, x, m);
            }
        }
    }

    #[test]
    fn right_inverse_is_a_right_inverse(a in layout()) {
        let r = right_inverse(&a).unwrap();
        for i in 0..r.size().unwrap().value {
            prop_assert_eq!(at(&a, at(&r, i)), i, "{} with right inverse {}", a, r);
        }
    }

    #[test]
    fn left_inverse_is_a_left_inverse(a in layout()) {
        if let Ok(l) = left_inverse(&a) {
            for i in 0..a.size().unwrap().value {
                prop_assert_eq!(at(&l, at(&a, i)), i, "{} with left inverse {}", a, l);
            }
        }
    }

    #[test]
    fn logical_divide_is_its_composition(a in layout(), t in layout()) {
        if let Ok(d) = logical_divide(&a, &Tiler::Layout(t.clone())) {
            // The definition, with the complement CuTe builds for it.
            let c = complement(&t, coalesce(&a).unwrap().shape());
            if let Ok(c) = c {
                let tc = DynLayout::from_modes(vec![t.clone(), c]);
                for i in 0..d.size().unwrap().value {
                    prop_assert_eq!(at(&d, i), at(&a, at(&tc, i)));
                }
            }
            for z in [zipped_divide(&a, &Tiler::Layout(t.clone())), flat_divide(&a, &Tiler::Layout(t.clone()))] {
                let z = z.unwrap();
                prop_assert_eq!(z.table().unwrap(), d.table().unwrap());
            }
        }
    }

    #[test]
    fn logical_product_is_its_composition(a in layout(), t in layout()) {
        if let Ok(p) = logical_product(&a, &Tiler::Layout(t.clone())) {
            let first = p.mode(0).unwrap();
            let second = p.mode(1).unwrap();
            prop_assert_eq!(first.table().unwrap(), a.table().unwrap());
            let m = a.size().unwrap().value * t.cosize().unwrap().value;
            if let Ok(c) = complement(&a, &DTuple::int(DInt::new_dynamic(m))) {
                for j in 0..t.size().unwrap().value {
                    prop_assert_eq!(at(&second, j), at(&c, at(&t, j)));
                }
            }
        }
    }

    #[test]
    fn parser_never_panics(s in "\\PC{0,40}") {
        let _ = s.parse::<DynLayout>();
        let _ = s.parse::<Tiler>();
        let _ = parse_tuple(&s);
    }

    #[test]
    fn parser_round_trips(a in layout()) {
        let text = a.to_string();
        prop_assert_eq!(text.parse::<DynLayout>().unwrap(), a);
    }

    #[test]
    fn no_op_panics_on_hostile_layouts(
        s in prop::collection::vec(0i64..i64::MAX, 1..4),
        d in prop::collection::vec(-1000i64..i64::MAX, 1..4),
    ) {
        let n = s.len().min(d.len());
        let shape = DTuple::tuple(s[..n].iter().map(|&v| DTuple::int(DInt::new_dynamic(v))));
        let stride = DTuple::tuple(d[..n].iter().map(|&v| DTuple::int(DInt::new_static(v))));
        let a = DynLayout::new(shape, stride).unwrap();
        let b: DynLayout = "(_3,_2):(_2,_1)".parse().unwrap();
        let _ = a.size();
        let _ = a.cosize();
        let _ = a.call(12345);
        let _ = coalesce(&a);
        let _ = composition(&a, &b);
        let _ = composition(&b, &a);
        let _ = complement(&a, &DTuple::int(DInt::new_dynamic(i64::MAX)));
        let _ = right_inverse(&a);
        let _ = left_inverse(&a);
        let _ = logical_divide(&b, &Tiler::Layout(a.clone()));
        let _ = logical_product(&b, &Tiler::Layout(a.clone()));
        let _ = blocked_product(&a, &b);
    }
}

/// The properties above only check results that exist; make sure they do
/// exist for most inputs, so that no property holds vacuously.
#[test]
fn properties_are_not_vacuous() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut comp, mut compl, mut linv, mut div) = (0, 0, 0, 0);
    for _ in 0..1000 {
        let a = layout().new_tree(&mut runner).unwrap().current();
        let b = layout().new_tree(&mut runner).unwrap().current();
        comp += composition(&a, &b).is_ok() as usize;
        compl += complement(&a, &DTuple::int(DInt::new_dynamic(64))).is_ok() as usize;
        linv += left_inverse(&a).is_ok() as usize;
        div += logical_divide(&a, &Tiler::Layout(b)).is_ok() as usize;
    }
    eprintln!("ok counts: composition {comp}, complement {compl}, left_inverse {linv}, logical_divide {div}");
    assert!(comp > 300 && compl > 100 && linv > 50 && div > 100, "ok counts: composition {comp}, complement {compl}, left_inverse {linv}, logical_divide {div}");
}

/// An integer tiler on an integer mode takes a closed form of the
/// complement (`ceil(s/n):n`); dividing by the same tile written as a
/// layout, `make_layout(n)`, takes the general complement. Both must give
/// the same layout, printed the same, or the same error, for every leaf
/// static or run-time, including 0, 1 and values near i64::MAX.
#[test]
fn integer_tiler_matches_the_general_divide() {
    let values = [0i64, 1, 2, 3, 4, 6, 8, 12, 1 << 40, i64::MAX / 3, i64::MAX];
    let strides = [0i64, 1, 3, -2, 1 << 40];
    let mut compared = (0, 0);
    for &s in &values {
        for &d in &strides {
            for &n in &values {
                for st in 0..8 {
                    let int = |v: i64, bit: usize| DInt {
                        value: v,
                        is_static: st & (1 << bit) != 0,
                    };
                    let a = DynLayout::int(int(s, 0), int(d, 1));
                    let n = int(n, 2);
                    let by_int = logical_divide(&a, &Tiler::Int(n));
                    let general = make_layout_left(&DTuple::int(n))
                        .and_then(|t| logical_divide(&a, &Tiler::Layout(t)));
                    match (&by_int, &general) {
                        (Ok(x), Ok(y)) => {
                            assert_eq!(x.to_string(), y.to_string(), "{a} / {n}");
                            compared.0 += 1;
                        }
                        (Err(x), Err(y)) => {
                            assert_eq!(x.to_string(), y.to_string(), "{a} / {n}");
                            compared.1 += 1;
                        }
                        _ => panic!("{a} / {n}: {by_int:?} against {general:?}"),
                    }
                }
            }
        }
    }
    // Both kinds of outcome occur (the grid is not all errors or all Ok).
    assert!(compared.0 > 1000 && compared.1 > 100, "{compared:?}");
}
