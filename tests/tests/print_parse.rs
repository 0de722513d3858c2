//! What the library prints, the parser reads back: layouts, swizzled layouts,
//! tilers, coordinates and tuples, printed by `Display` (or, for the typed
//! layouts, tilers and coordinates, by their CuTe printers), parse to the
//! same value and print the same text again.

use layout_core::dynamic::{self as d, ComposedLayout};
use layout_core::layout::print::TilerText;
use layout_core::{
    composition, crd, layout, parse_tuple, Congruent, Crd2Idx, DCoord, DInt, DTuple, DynLayout,
    IntTuple, Layout, LayoutError, Tiler, Underscore, C,
};
use proptest::prelude::*;

/// Any integer the notation holds: small ones, the extremes, and anything
/// in between (`i64::MIN` has no digits of its own: `-` and 2^63, which
/// does not fit 63 bits, and no layout holds it).
fn value() -> impl Strategy<Value = i64> {
    prop_oneof![
        -40i64..40,
        (i64::MIN + 1)..=i64::MAX,
        Just(i64::MAX),
        Just(i64::MIN + 1),
        Just(0),
    ]
}

fn extent() -> impl Strategy<Value = i64> {
    prop_oneof![0i64..40, 0..=i64::MAX, Just(i64::MAX)]
}

fn dint(v: impl Strategy<Value = i64>) -> impl Strategy<Value = DInt> {
    (v, any::<bool>()).prop_map(|(value, is_static)| DInt { value, is_static })
}

/// A shape and a stride that nest alike: up to three levels, up to four
/// modes a level, empty tuples included.
fn pair_tree() -> impl Strategy<Value = (DTuple, DTuple)> {
    let leaf = (dint(extent()), dint(value())).prop_map(|(s, d)| (DTuple::int(s), DTuple::int(d)));
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(|v| {
            let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
            (DTuple::tuple(s), DTuple::tuple(d))
        })
    })
}

fn dyn_layout() -> impl Strategy<Value = DynLayout> {
    pair_tree().prop_map(|(s, d)| DynLayout::new(s, d).expect("congruent, extents >= 0"))
}

fn tuple() -> impl Strategy<Value = DTuple> {
    let leaf = dint(value()).prop_map(DTuple::int);
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(DTuple::tuple)
    })
}

/// Every valid `Swizzle<B,M,S>`: B, M in 0..=30, B <= |S| <= 30.
fn swizzle() -> impl Strategy<Value = d::Swizzle> {
    (0i64..=30, 0i64..=30, 0i64..=30, any::<bool>()).prop_filter_map(
        "|S| >= B",
        |(b, m, s, neg)| {
            if s < b {
                return None;
            }
            Some(d::Swizzle::new(b, m, if neg { -s } else { s }).expect("valid"))
        },
    )
}

fn composed() -> impl Strategy<Value = ComposedLayout> {
    (swizzle(), dyn_layout()).prop_map(|(swizzle, layout)| ComposedLayout { swizzle, layout })
}

fn tiler() -> impl Strategy<Value = Tiler> {
    let leaf = prop_oneof![
        dyn_layout().prop_map(Tiler::Layout),
        dint(value()).prop_map(Tiler::Int),
        Just(Tiler::Underscore),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(Tiler::Tuple)
    })
}

fn coord() -> impl Strategy<Value = DCoord> {
    let leaf = prop_oneof![
        dint(value()).prop_map(DCoord::Int),
        Just(DCoord::Underscore)
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(DCoord::Tuple)
    })
}

/// Text near the notation's grammar, to hunt panics in the parsers.
fn near_notation() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "Sw<",
            ">",
            "<",
            ",",
            "o",
            " o ",
            "_0",
            "_",
            "(",
            ")",
            ":",
            "-",
            "3",
            "4",
            "30",
            "31",
            "9223372036854775807",
            "9223372036854775808",
            " ",
        ]),
        0..24,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn layouts_read_back(l in dyn_layout()) {
        let text = l.to_string();
        let back: DynLayout = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &l, "{}", text);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn swizzled_layouts_read_back(c in composed()) {
        let text = c.to_string();
        let back: ComposedLayout = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &c, "{}", text);
        prop_assert_eq!(&back.to_string(), &text);
        // The swizzle alone, as it prints, reads back too.
        let sw = c.swizzle.to_string();
        prop_assert_eq!(sw.parse::<d::Swizzle>().map_err(|e| TestCaseError::fail(format!("{sw}: {e}")))?, c.swizzle);
    }

    #[test]
    fn tilers_read_back(t in tiler()) {
        let text = t.to_string();
        let back: Tiler = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &t, "{}", text);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn coordinates_read_back(c in coord()) {
        let text = c.to_string();
        let back: DCoord = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &c, "{}", text);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn tuples_read_back(t in tuple()) {
        let text = t.to_string();
        let back = parse_tuple(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &t, "{}", text);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn parsers_never_panic(s in near_notation()) {
        // Each an error or a value that prints and reads back.
        if let Ok(c) = s.parse::<ComposedLayout>() {
            prop_assert_eq!(c.to_string().parse::<ComposedLayout>().unwrap(), c);
        }
        if let Ok(sw) = s.parse::<d::Swizzle>() {
            prop_assert_eq!(sw.to_string().parse::<d::Swizzle>().unwrap(), sw);
        }
        if let Ok(t) = s.parse::<Tiler>() {
            prop_assert_eq!(t.to_string().parse::<Tiler>().unwrap(), t);
        }
        if let Ok(c) = s.parse::<DCoord>() {
            prop_assert_eq!(c.to_string().parse::<DCoord>().unwrap(), c);
        }
        let _ = s.parse::<DynLayout>();
    }
}

/// `Swizzle<B,M,S>` by its definition: the B bits at M + S (S >= 0) XOR-ed
/// into the B bits at M.
fn sw_def(b: u32, m: u32, s: u32, x: i64) -> i64 {
    let mask = ((1i64 << b) - 1) << (m + s);
    x ^ ((x & mask) >> s)
}

/// The text CuTe prints for `composition(Swizzle<3,4,3>{}, Layout<Shape<_8,_64>,
/// Stride<_64,_1>>{})` reads as that swizzle over that layout.
#[test]
fn cute_printed_swizzled_layout_reads_back() {
    let c: ComposedLayout = "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)".parse().unwrap();
    assert_eq!(c.swizzle, d::Swizzle::new(3, 4, 3).unwrap());
    assert_eq!(
        c.layout,
        DynLayout::new(
            DTuple::tuple([
                DTuple::int(DInt::new_static(8)),
                DTuple::int(DInt::new_static(64))
            ]),
            DTuple::tuple([
                DTuple::int(DInt::new_static(64)),
                DTuple::int(DInt::new_static(1))
            ]),
        )
        .unwrap()
    );
    // (m, n) is index m + 8 n, offset 64 m + n before the swizzle.
    for m in 0..8 {
        for n in 0..64 {
            assert_eq!(
                c.call(m + 8 * n).unwrap(),
                sw_def(3, 4, 3, 64 * m + n),
                "({m},{n})"
            );
        }
    }
    // Two worked by hand: (2,0) is 128 = bit 7, which flips bit 4: 144;
    // (7,63) is 511, bits 7 and 8 flip bits 4 and 5: 511 - 48 = 463.
    assert_eq!(c.call(2).unwrap(), 144);
    assert_eq!(c.call(7 + 8 * 63).unwrap(), 463);
    // Spaces around `o` are CuTe's; the parser also takes none or more.
    assert_eq!(
        "Sw<3,4,3>o _0o(_8,_64):(_64,_1)"
            .parse::<ComposedLayout>()
            .unwrap(),
        c
    );
    assert_eq!(
        " Sw<3,4,3>  o  _0  o  (_8,_64):(_64,_1) "
            .parse::<ComposedLayout>()
            .unwrap(),
        c
    );
    // A run-time offset 0 is the same swizzled layout (printed `_0`).
    assert_eq!(
        "Sw<3,4,3> o 0 o (_8,_64):(_64,_1)"
            .parse::<ComposedLayout>()
            .unwrap(),
        c
    );
}

/// Bad swizzled text is an `Err` that names the problem.
#[test]
fn bad_swizzled_text_is_an_error_naming_it() {
    let parse = |s: &str| s.parse::<ComposedLayout>().unwrap_err();
    let expected = |e: LayoutError| match e {
        LayoutError::Parse { pos, expected } => (pos, expected),
        e => panic!("not a parse error: {e}"),
    };
    // An offset other than 0: CuTe's `o _8 o` is not a swizzle after a layout.
    let (pos, what) = expected(parse("Sw<3,4,3> o _8 o 8:1"));
    assert_eq!(pos, 12);
    assert!(what.contains("offset"), "{what}");
    // |S| < B, and bits past 30: the swizzle's own refusal.
    for s in ["Sw<3,4,2> o _0 o 8:1", "Sw<31,0,31> o _0 o 8:1"] {
        let e = parse(s).to_string();
        assert!(e.contains("Sw<"), "{s}: {e}");
    }
    // A stride that does not nest like the shape.
    let (_, what) = expected(parse("Sw<1,0,1> o _0 o (2,3):(1)"));
    assert!(what.contains("nests like the shape"), "{what}");
    // Missing pieces.
    for (s, at) in [
        ("Sw<3,4,3>", 9),
        ("Sw<3,4,3> o _0", 14),
        ("Sw<3,4> o _0 o 8:1", 6),
        ("(8,64):(64,1)", 0),
        ("Sw<3,4,3> o _0 o 8:1 x", 21),
    ] {
        assert_eq!(expected(parse(s)).0, at, "{s}");
    }
    // An integer past 63 bits is refused by name, never wrapped.
    let (_, what) = expected("(-9223372036854775808)".parse::<DCoord>().unwrap_err());
    assert!(what.contains("63 bits"), "{what}");
}

fn crd_text<S: Congruent<D>, D: IntTuple, Cc: Crd2Idx<S, D>>(c: Cc, _: Layout<S, D>) -> String {
    let mut s = String::new();
    c.write_crd(&mut s).unwrap();
    s
}

fn tiler_text(t: &impl TilerText) -> String {
    let mut s = String::new();
    t.write_tiler(&mut s).unwrap();
    s
}

/// The typed library's printed forms read back as their run-time twins:
/// a layout as `DynLayout::from_typed` of it, a swizzled layout as the same
/// swizzle over that layout (equal offsets at every index), a tiler and a
/// coordinate as the values written by hand.
#[test]
fn typed_printed_forms_read_back() {
    let n = 5usize;
    let a = layout!((3, (2, n)):(n, (1, 15)));
    let text = a.to_string();
    assert_eq!(text, "(_3,(_2,5)):(5,(_1,_15))");
    assert_eq!(
        text.parse::<DynLayout>().unwrap(),
        DynLayout::from_typed(&a).unwrap()
    );

    let c = composition(layout_core::Swizzle::<2, 1, -3>, layout!((8, 16):(16, 1)));
    let text = c.to_string();
    assert_eq!(text, "Sw<2,1,-3> o _0 o (_8,_16):(_16,_1)");
    let back: ComposedLayout = text.parse().unwrap();
    assert_eq!(back.swizzle, d::Swizzle::new(2, 1, -3).unwrap());
    assert_eq!(back.layout, DynLayout::from_typed(&c.layout).unwrap());
    for i in 0..128 {
        assert_eq!(back.call(i as i64).unwrap(), c.call(i) as i64, "{i}");
    }

    let t = (C::<32>, layout!((8, 2):(1, 16)), Underscore);
    let text = tiler_text(&t);
    assert_eq!(text, "(_32,(_8,_2):(_1,_16),_)");
    let l: DynLayout = "(_8,_2):(_1,_16)".parse().unwrap();
    assert_eq!(
        text.parse::<Tiler>().unwrap(),
        Tiler::Tuple(vec![
            Tiler::Int(DInt::new_static(32)),
            Tiler::Layout(l),
            Tiler::Underscore
        ])
    );

    let padded = layout!((3, (2, 2)):(6, (2, 1)));
    let one = 1usize;
    let text = crd_text(crd!(one, (_, 1)), padded);
    assert_eq!(text, "(1,(_,_1))");
    assert_eq!(
        text.parse::<DCoord>().unwrap(),
        DCoord::Tuple(vec![
            DCoord::Int(DInt::new_dynamic(1)),
            DCoord::Tuple(vec![DCoord::Underscore, DCoord::Int(DInt::new_static(1))]),
        ])
    );
}

/// Every string of CuTe notation in the golden vectors (CuTe's own prints
/// of layouts, swizzled layouts, tilers, coordinates, shapes and integers,
/// as arguments and results) parses, as each thing it can be, and prints
/// back byte for byte; each swizzled layout CuTe printed evaluates to the
/// table CuTe printed with it.
#[test]
fn cute_printed_golden_text_reads_back() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/data");
    let notation = |s: &str| s.chars().all(|c| "0123456789_-(),:".contains(c)) && !s.is_empty();
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() > 40, "golden vectors in {}", dir.display());
    for file in files {
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let rec: serde_json::Value = serde_json::from_str(line).unwrap();
            let id = rec["id"].as_str().unwrap_or("?");
            let mut texts: Vec<&str> = rec["args"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            texts.extend(rec["result"].as_str());
            for s in texts {
                if s.starts_with("Sw<") && s.contains(" o ") {
                    let c: ComposedLayout = s.parse().unwrap_or_else(|e| panic!("{id}: {s}: {e}"));
                    assert_eq!(c.to_string(), s, "{id}");
                    if let Some(t) = rec["table"].as_array().filter(|_| rec["result"] == s) {
                        let want: Vec<i64> = t.iter().map(|v| v.as_i64().unwrap()).collect();
                        assert_eq!(c.table().unwrap(), want, "{id}: {s}");
                        *seen.entry("swizzled layout with CuTe's table").or_default() += 1;
                    }
                    *seen.entry("swizzled layout").or_default() += 1;
                    continue;
                }
                if !notation(s) {
                    continue;
                }
                let t: Tiler = s.parse().unwrap_or_else(|e| panic!("{id}: tiler {s}: {e}"));
                assert_eq!(t.to_string(), s, "{id}");
                *seen.entry("tiler").or_default() += 1;
                if let Ok(l) = s.parse::<DynLayout>() {
                    if s.contains(':') {
                        assert_eq!(l.to_string(), s, "{id}");
                        *seen.entry("layout").or_default() += 1;
                    }
                }
                if !s.contains(':') {
                    let c: DCoord = s.parse().unwrap_or_else(|e| panic!("{id}: coord {s}: {e}"));
                    assert_eq!(c.to_string(), s, "{id}");
                    *seen.entry("coordinate").or_default() += 1;
                    if let Ok(t) = parse_tuple(s) {
                        assert_eq!(t.to_string(), s, "{id}");
                        *seen.entry("tuple").or_default() += 1;
                    }
                }
            }
        }
    }
    eprintln!("{seen:?}");
    for (kind, at_least) in [
        ("swizzled layout with CuTe's table", 80),
        ("layout", 5000),
        ("tiler", 5000),
        ("coordinate", 1000),
        ("tuple", 1000),
    ] {
        assert!(
            seen.get(kind).copied().unwrap_or(0) >= at_least,
            "{kind}: {seen:?}"
        );
    }
}
