//! One answer from both algebras (issue 31): the typed algebra and
//! `DynLayout` give the same layout or both refuse, on overflow and on size
//! 0, and every refusal names its reason. Expected layouts are worked out
//! from CuTe 4.7's code (`include/cute/layout.hpp`) or from the definitions,
//! by hand in the comments; the overflow cases are checked in `i128`.

use layout_core::algebra::{
    try_blocked_product, try_coalesce, try_complement, try_composition, try_logical_divide,
    try_logical_product, try_raked_product, try_zipped_divide,
};
use layout_core::dynamic as d;
use layout_core::{layout, parse_tuple, DynLayout, LayoutError, Tiler, C};

fn dl(s: &str) -> DynLayout {
    s.parse().unwrap()
}

fn text<T: std::fmt::Display>(r: Result<T, LayoutError>) -> Result<String, String> {
    r.map(|l| l.to_string()).map_err(|e| e.to_string())
}

/// A refusal names its reason: never an internal division by zero.
fn named(e: &str) {
    assert!(
        !e.contains("by zero") && !e.contains("divides by 0 (") && !e.contains(" / 0)"),
        "{e}"
    );
}

/// `L(i)` of a flat layout `[(shape, stride)]`, exactly: the last mode
/// takes what the others leave (CuTe's 1-D evaluation).
fn eval(l: &[(i128, i128)], mut i: i128) -> i128 {
    let mut acc = 0;
    for (k, &(s, d)) in l.iter().enumerate() {
        let c = if k + 1 == l.len() { i } else { i % s };
        acc += c * d;
        i /= s;
    }
    acc
}

// ---- 1. Overflow in the typed check or result is a refusal ----

/// The reproducer: A' = (_2, N, _48):(_1, _31, _37) with
/// N = 2^63 + 1, B = (_4, M):(_1, _4) with M = 2^62 + 1. The boundary
/// after A's second mode is 2N = 2^64 + 2, past usize; B's leaves reach
/// 3 and 4 (M - 1) = 2^64, so B(3, M - 1) = 2^64 + 3 = 2N + 1 lies in A's
/// third mode: B's modes carry across that boundary, which no layout
/// congruent with B can follow. The check used to stop at the overflowing
/// boundary and return a layout that differs from A(B(i)) past usize.
#[test]
fn typed_composition_refuses_a_boundary_past_usize() {
    let n = std::hint::black_box((1usize << 63) + 1);
    let m = std::hint::black_box((1usize << 62) + 1);
    let a = layout!(((2, n), 48):((1, 31), 37));
    let b = layout!((4, m):(1, 4));
    // By hand: B(3 + 4 (M - 1)) = 3 + 4 (M - 1) = 2^64 + 3 = 2N + 1, and
    // A(2N + 1) = 1 * 1 + 0 * 31 + 1 * 37 = 38: the fold's second mode
    // would give it N's stride instead.
    let (p, reach) = (2 * n as i128, 3 + 4 * (m as i128 - 1));
    assert!(reach >= p);
    let e = try_composition(a, b).unwrap_err().to_string();
    assert!(e.contains("span more than usize holds"), "{e}");

    // Within i64 (so DynLayout takes it too): A' = (4, N, 48) with
    // N = 2^62 + 1 has its second boundary at 4N = 2^64 + 4; B's leaves
    // (8, M):(1, 8) with M = 2^61 + 1 reach 7 + 8 (M - 1) = 2^64 + 7.
    let (n, m) = std::hint::black_box(((1usize << 62) + 1, (1usize << 61) + 1));
    let a = layout!(((4, n), 48):((1, 31), 37));
    let b = layout!((8, m):(1, 8));
    assert!(try_composition(a, b).is_err());
    let e = d::composition(
        &DynLayout::from_typed(&a).unwrap(),
        &DynLayout::from_typed(&b).unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("span more than usize holds"), "{e}");
}

/// A boundary past usize that B cannot reach is no reason to refuse: B's
/// offsets add up to 11, far below it, and R(i) = A(B(i)) for every i.
#[test]
fn typed_composition_past_usize_boundary_unreached() {
    let n = std::hint::black_box((1usize << 63) + 1);
    let k = std::hint::black_box(3usize);
    let a = layout!(((2, n), 48):((1, 31), 37));
    let b = layout!((4, k):(1, 4));
    let r = try_composition(a, b).unwrap();
    let af = [(2, 1), (n as i128, 31), (48, 37)];
    let bf = [(4, 1), (3, 4)];
    let rf: Vec<(i128, i128)> = {
        // R's leaves, read from its print (exact numbers).
        let s = r.to_string();
        let (sh, st) = s.split_once(':').unwrap();
        let nums = |t: &str| -> Vec<i128> {
            t.split(|c: char| !c.is_ascii_digit())
                .filter(|x| !x.is_empty())
                .map(|x| x.parse().unwrap())
                .collect()
        };
        nums(sh).into_iter().zip(nums(st)).collect()
    };
    for i in 0..12 {
        assert_eq!(eval(&rf, i), eval(&af, eval(&bf, i)), "i = {i}: {r}");
    }
}

/// CuTe merges a run-time shape over static-0 strides, `(m,_4):(_0,_0)`
/// into `4m:_0`: when 4m does not fit usize that is a refusal (it wrapped
/// before), in coalesce and in the composition that coalesces A.
#[test]
fn typed_coalesce_merge_past_usize_is_refused() {
    let m = std::hint::black_box(1usize << 62);
    let e = try_coalesce(layout!((m, 4):(0, 0)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not fit usize"), "{e}");
    assert!(try_composition(layout!(((m, 4), 3):((0, 0), 1)), layout!(8:1)).is_err());
    // One below: 4 (2^62 - 1) fits.
    let m = std::hint::black_box((1usize << 62) - 1);
    assert_eq!(
        try_coalesce(layout!((m, 4):(0, 0))).unwrap().to_string(),
        format!("{}:_0", 4 * m)
    );
}

// ---- 2. Size 0: CuTe's formulas, refused where they divide by 0 ----

/// logical_divide(0:0, 1:_1) (run-time 0s and 1). CuTe: coalesce(A) is
/// 0:0, complement(1:_1, 0) is coalesce((_1,0):(_1,1)) = 0:1 (new_shape
/// _1/_1, new_stride _1*1, rest ceil_div(0,1) = 0); A is an integer
/// layout, so each leaf of (1:_1, 0:1) composes to `s : d*0`:
/// (1,0):(0,0).
#[test]
fn divide_of_size_zero_is_cutes() {
    let (z, k) = std::hint::black_box((0usize, 1usize));
    let r = try_logical_divide(layout!(z:z), layout!(k:1));
    assert_eq!(text(r), Ok("(1,0):(0,0)".to_string()));
    let r = d::logical_divide(&dl("0:0"), &dl("1:_1"));
    assert_eq!(text(r), Ok("(1,0):(0,0)".to_string()));

    // zipped_divide((0,_32):(_32,_1), (_4,_8)), mode by mode. Mode 0:
    // complement(_4:_1, 0) = coalesce((_1,0):(_1,_4)) = 0:_4, and
    // 0:_32 o (_4:_1, 0:_4) = (_4,0):(_32,_128). Mode 1: _32:_1 by _8 is
    // (_8,_4):(_1,_8). Zipped: tiles (_4,_8), a grid of (0,_4) tiles.
    let want = "((_4,_8),(0,_4)):((_32,_1),(_128,_8))".to_string();
    let r = try_zipped_divide(layout!((z, 32):(32, 1)), (C::<4>, C::<8>));
    assert_eq!(text(r), Ok(want.clone()));
    let t: Tiler = "(_4,_8)".parse().unwrap();
    assert_eq!(
        text(d::zipped_divide(&dl("(0,_32):(_32,_1)"), &t)),
        Ok(want)
    );
}

/// logical_product((_4,1):(_1,_4), (_2,0):(_1,2)). CuTe: cosize(B) = 0,
/// complement((_4,1):(_1,_4), 4 * 0 = 0) = coalesce((_1,_1,0):(_1,_4,4)) =
/// 0:4 (the rest ceil_div(0, 4) = 0; an integer cotarget is one division),
/// and 0:4 o (_2,0):(_1,2) = (_2,0):(4,8). DynLayout used to divide 4 by
/// the last mode of the cotarget ("division by zero (4 / 0)").
#[test]
fn product_by_size_zero_is_cutes() {
    let (one, z, two) = std::hint::black_box((1usize, 0usize, 2usize));
    let (a, b) = (layout!((4, one):(1, 4)), layout!((2, z):(1, two)));
    let (da, db) = (dl("(_4,1):(_1,_4)"), dl("(_2,0):(_1,2)"));
    let want = "((_4,1),(_2,0)):((_1,_4),(4,8))".to_string();
    assert_eq!(text(try_logical_product(a, b)), Ok(want.clone()));
    assert_eq!(text(d::logical_product(&da, &db)), Ok(want));
    // Blocked: mode i is (a_i, (C o B)_i); raked: ((C o B)_i, a_i).
    let want = "((_4,_2),(1,0)):((_1,4),(_4,8))".to_string();
    assert_eq!(text(try_blocked_product(a, b)), Ok(want.clone()));
    assert_eq!(text(d::blocked_product(&da, &db)), Ok(want));
    let want = "((_2,_4),(0,1)):((4,_1),(8,_4))".to_string();
    assert_eq!(text(try_raked_product(a, b)), Ok(want.clone()));
    assert_eq!(text(d::raked_product(&da, &db)), Ok(want));
    // Every leaf static: the type checker admits the product (the
    // type-level cosize of a size-0 B is 0, as above), with the same
    // values, static.
    let (a, b) = (layout!((4,1):(1,4)), layout!((2,0):(1,2)));
    assert_eq!(
        layout_core::algebra::logical_product(a, b).to_string(),
        "((_4,_1),(_2,_0)):((_1,_4),(_4,_8))"
    );
    assert_eq!(
        layout_core::algebra::blocked_product(a, b).to_string(),
        "((_4,_2),(_1,_0)):((_1,_4),(_4,_8))"
    );
    assert_eq!(
        layout_core::algebra::raked_product(a, b).to_string(),
        "((_2,_4),(_0,_1)):((_4,_1),(_8,_4))"
    );
}

/// An integer cotarget 0: CuTe's rest is ceil_div(0, 4) = 0, so
/// complement(4:_1, 0) is 0:4 (size 0, nothing to cover).
#[test]
fn complement_in_zero_is_empty() {
    let (four, z) = std::hint::black_box((4usize, 0usize));
    assert_eq!(
        text(try_complement(layout!(four:1), z)),
        Ok("0:4".to_string())
    );
    let r = d::complement(&dl("4:_1"), &parse_tuple("0").unwrap());
    assert_eq!(text(r), Ok("0:4".to_string()));
}

/// Where CuTe's formula divides by a size 0, both refuse, saying so.
#[test]
fn size_zero_divisions_are_refused_by_name() {
    let z = std::hint::black_box(0usize);
    let (one, four, two) = std::hint::black_box((1usize, 4usize, 2usize));
    type Case<'a> = (Result<String, String>, Result<String, String>, &'a str);
    let cases: Vec<Case> = vec![
        // complement of a size-0 layout: new_stride = 1 * 0, then
        // ceil_div(16, 0).
        (
            text(try_complement(layout!(z:1), 16usize)),
            text(d::complement(&dl("0:_1"), &parse_tuple("16").unwrap())),
            "A has size 0",
        ),
        // A block of size 0 has no complement to lay copies out with.
        (
            text(try_logical_product(layout!(z:one), layout!(2:1))),
            text(d::logical_product(&dl("0:1"), &dl("_2:_1"))),
            "A has size 0",
        ),
        // A tiler of size 0 has no complement.
        (
            text(try_logical_divide(layout!(8:1), z)),
            text(d::logical_divide(
                &dl("_8:_1"),
                &Tiler::Int(layout_core::DInt::new_dynamic(0)),
            )),
            "tiler has size 0",
        ),
        // A tuple cotarget (4,0): CuTe's ceil_div((4,0), 2) divides its
        // rest by each mode, the 0 included.
        (
            text(try_complement(layout!(2:1), (four, z))),
            text(d::complement(&dl("_2:_1"), &parse_tuple("(4,0)").unwrap())),
            "cotarget has size 0",
        ),
        // A' = (4,0): composing B = 2:1 walks mode 0, then
        // ceil_div(rest_stride, 0) for the size-0 mode.
        (
            text(try_composition(
                layout!((four, z, two):(1, 4, 1)),
                layout!(2:1),
            )),
            text(d::composition(&dl("(4,0,2):(1,4,1)"), &dl("_2:_1"))),
            "has size 0",
        ),
        // B = 0:1 on a two-mode A: min(4, 0) = 0 is divided into the rest.
        (
            text(try_composition(layout!((four, two):(1, 4)), layout!(z:1))),
            text(d::composition(&dl("(4,2):(1,4)"), &dl("0:_1"))),
            "has size 0",
        ),
    ];
    for (typed, dynamic, says) in cases {
        let (t, d) = (typed.unwrap_err(), dynamic.unwrap_err());
        named(&t);
        named(&d);
        assert!(t.contains(says), "{t}");
        assert!(d.contains("has size 0"), "{d}");
    }
}

// ---- 3. DynLayout does not refuse results that fit ----

/// coalesce((4,127):(2^61,39)): run-time leaves never merge (CuTe merges
/// only what is static), so the result is the layout itself; 4 * 2^61,
/// the merge test's product, does not fit i64 and is no reason to refuse.
#[test]
fn dyn_coalesce_keeps_what_fits() {
    let l = "(4,127):(2305843009213693952,39)";
    assert_eq!(d::coalesce(&dl(l)).unwrap().to_string(), l);
    let (x, y, p, q) = std::hint::black_box((4usize, 127usize, 1usize << 61, 39usize));
    assert_eq!(try_coalesce(layout!((x, y):(p, q))).unwrap().to_string(), l);
}

/// complement(33:_1, 2^63 - 1) = ceil((2^63 - 1) / 33) : 33 =
/// 279496122328932601:33 on both sides (its largest offset,
/// 33 * 279496122328932600, fits i64); the product past its last stride,
/// 33 * 279496122328932601 > 2^63, is no stride of the result.
#[test]
fn complement_near_i64_max_fits() {
    let m = i64::MAX as usize;
    assert_eq!(m.div_ceil(33), 279496122328932601);
    let want = "279496122328932601:33".to_string();
    let r = d::complement(&dl("33:_1"), &parse_tuple("9223372036854775807").unwrap());
    assert_eq!(text(r), Ok(want.clone()));
    let n = std::hint::black_box(33usize);
    assert_eq!(text(try_complement(layout!(n:1), m)), Ok(want));
    // And near usize::MAX for the typed algebra: ceil((2^64 - 1) / 33).
    assert_eq!(usize::MAX.div_ceil(33), 558992244657865201);
    assert_eq!(
        text(try_complement(layout!(n:1), usize::MAX)),
        Ok("558992244657865201:33".to_string())
    );
}
