//! Every `Ok` of the algebra against the op's definition, on small layouts
//! built from bytes (shapes 1-6, strides -2..13, nested modes, static and
//! run-time leaves):
//! - composition: R(i) = A(B(i)) for every i < size(B), size(R) = size(B);
//! - coalesce: the same function and size;
//! - right_inverse: A(R(i)) = i; left_inverse (A injective): L(A(i)) = i;
//! - complement (A injective): i, j -> A(i) + R(j) injective, R's image
//!   starts at 0;
//! - logical_divide(A, B) = A o (B, complement(B, size(A))) and
//!   logical_product(A, B) = (A, complement(A, size(A) cosize(B)) o B), as
//!   tables; the zipped/tiled/flat divides hold logical_divide's offsets.
#![no_main]

use layout_core::{dynamic as d, DynLayout, Tiler};
use layout_fuzz::{layout, small_tuple, tiler, Bytes};
use libfuzzer_sys::fuzz_target;

/// The table, when the layout is small enough to check.
fn table(l: &DynLayout) -> Option<Vec<i64>> {
    match l.size() {
        Ok(n) if n.value <= 4096 => l.table().ok(),
        _ => None,
    }
}

fn injective(t: &[i64]) -> bool {
    let mut s = t.to_vec();
    s.sort_unstable();
    s.windows(2).all(|w| w[0] != w[1])
}

fn sorted(mut t: Vec<i64>) -> Vec<i64> {
    t.sort_unstable();
    t
}

/// The zipped, tiled and flat divides of `a` by `t` (when `Ok` and small)
/// hold the offsets of its logical_divide, whose table is `logical`.
fn regroups(a: &DynLayout, t: &Tiler, logical: &[i64]) {
    for f in [d::zipped_divide, d::tiled_divide, d::flat_divide] {
        if let Some(tz) = f(a, t).ok().as_ref().and_then(table) {
            assert_eq!(
                sorted(tz),
                sorted(logical.to_vec()),
                "a regrouped divide of {a} by {t:?} moves offsets"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut by = Bytes(data);
    let Some(a) = layout(&mut by) else { return };
    let Some(b) = layout(&mut by) else { return };
    let Some(ta) = table(&a) else { return };
    let size_a = ta.len() as i64;

    // composition
    if let (Ok(r), Some(tb)) = (d::composition(&a, &b), table(&b)) {
        if tb.iter().all(|&x| x >= 0) {
            let tr = table(&r).expect("composition result is small");
            assert_eq!(tr.len(), tb.len(), "size(A o B) = size(B): {a} o {b} = {r}");
            for (i, &bi) in tb.iter().enumerate() {
                assert_eq!(
                    tr[i],
                    a.call(bi).unwrap(),
                    "(A o B)({i}) = A(B({i})): {a} o {b} = {r}"
                );
            }
        }
    }
    // coalesce
    if let Ok(r) = d::coalesce(&a) {
        assert_eq!(
            table(&r).as_deref(),
            Some(&ta[..]),
            "coalesce({a}) = {r} changes the function"
        );
    }
    // right_inverse: A(R(i)) = i
    if let Ok(r) = d::right_inverse(&a) {
        if let Some(tr) = table(&r) {
            for (i, &x) in tr.iter().enumerate() {
                assert!(
                    x >= 0 && x < size_a,
                    "right_inverse({a}) = {r}: R({i}) = {x} outside A"
                );
                assert_eq!(
                    ta[x as usize], i as i64,
                    "A(R({i})) = {i}: right_inverse({a}) = {r}"
                );
            }
        }
    }
    // left_inverse: L(A(i)) = i, for injective A
    if injective(&ta) {
        if let Ok(l) = d::left_inverse(&a) {
            for (i, &x) in ta.iter().enumerate() {
                assert_eq!(
                    l.call(x).unwrap(),
                    i as i64,
                    "L(A({i})) = {i}: left_inverse({a}) = {l}"
                );
            }
        }
    }
    // complement
    if let Some(m) = small_tuple(&mut by) {
        if injective(&ta) {
            if let Ok(c) = d::complement(&a, &m) {
                if let Some(tc) = table(&c) {
                    assert_eq!(
                        tc.first(),
                        Some(&0),
                        "complement({a}, {m}) = {c} does not start at 0"
                    );
                    let sums: Vec<i64> = tc
                        .iter()
                        .flat_map(|&cj| ta.iter().map(move |&ai| ai + cj))
                        .collect();
                    assert!(
                        injective(&sums),
                        "(A, complement({a}, {m}) = {c}) is not injective"
                    );
                }
            }
        }
    }
    // divide and product by a layout: their defining compositions
    let bt = Tiler::Layout(b.clone());
    if let (Ok(r), Ok(c)) = (
        d::logical_divide(&a, &bt),
        d::complement(&b, &layout_core::parse_tuple(&size_a.to_string()).unwrap()),
    ) {
        let want = d::composition(&a, &DynLayout::from_modes(vec![b.clone(), c])).ok();
        if let (Some(tr), Some(tw)) = (table(&r), want.as_ref().and_then(table)) {
            assert_eq!(
                tr,
                tw,
                "logical_divide({a}, {b}) = {r}, definition gives {}",
                want.unwrap()
            );
            regroups(&a, &bt, &tr);
        }
    }
    if let (Ok(r), Ok(cb)) = (d::logical_product(&a, &bt), b.cosize().map(|c| c.value)) {
        let m = layout_core::parse_tuple(&(size_a * cb.max(1)).to_string()).unwrap();
        let want = d::complement(&a, &m)
            .and_then(|c| d::composition(&c, &b))
            .map(|cb| DynLayout::from_modes(vec![a.clone(), cb]));
        if let (Some(tr), Some(tw)) = (table(&r), want.as_ref().ok().and_then(table)) {
            assert_eq!(
                tr,
                tw,
                "logical_product({a}, {b}) = {r}, definition gives {}",
                want.unwrap()
            );
        }
    }
    // the zipped, tiled and flat divides regroup logical_divide's modes
    if let Some(t) = tiler(&mut by) {
        if let Some(tr) = d::logical_divide(&a, &t).ok().as_ref().and_then(table) {
            regroups(&a, &t, &tr);
        }
    }
});
