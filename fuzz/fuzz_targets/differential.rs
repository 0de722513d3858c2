//! The typed algebra against `DynLayout` and against the definitions,
//! exactly. A few fixed typed structures (run-time, nested and mixed
//! static/run-time layouts; integer, tuple and layout tilers) take their
//! run-time leaves from the input: small values and 0, powers of two and
//! their neighbours, values near 2^63 and 2^64. For every typed `try_`
//! operation:
//!
//! - it returns (never panics), and no refusal reads as an internal
//!   division by zero;
//! - it agrees with `DynLayout` on the same input: the same layout printed
//!   (static leaves included), or both refuse; the typed side may hold a
//!   result the run-time side refuses only when a leaf of it does not fit
//!   `i64` (the README's ranges);
//! - an `Ok` holds the operation's definition, evaluated in `i128` by a
//!   model that shares no code with the library (`layout_fuzz::exact`):
//!   composition `R(i) = A(B(i))` (and R congruent with B); complement one
//!   to one with A, covering `[0, M)`, increasing; `logical_divide(A, B) =
//!   A o (B, complement(B, shape(coalesce(A))))`; `logical_product(A, B) =
//!   (A, complement(A, size(A) cosize(B)) o B)`; the zipped, tiled, flat,
//!   blocked and raked forms hold the same leaves; coalesce keeps the
//!   function.
#![no_main]

use core::fmt::Display;
use layout_core::algebra as t;
use layout_core::{dynamic as d, layout, DInt, DTuple, DynLayout, LayoutError, Tiler, C};
use layout_fuzz::exact::{self, Ex};
use layout_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

/// The exact model of a printed layout.
fn ex(l: &dyn Display) -> Ex {
    let s = l.to_string();
    Ex::parse(&s).unwrap_or_else(|| panic!("{s} does not read back"))
}

/// A refusal names the problem; it never reads as an internal division.
fn named(e: &LayoutError, op: &str) {
    let m = e.to_string();
    assert!(
        !m.contains("by zero") && !m.contains("divides by 0") && !m.contains("by 0 "),
        "{op}: the refusal reads as an internal division by zero: {m}"
    );
}

/// The typed result against DynLayout's (`None` when the input does not
/// fit `DynLayout`).
///
/// `inner` is the layout a divide or product complements and the
/// cotarget's size: DynLayout computes that complement in `i64` (a mode's
/// extent times its stride is its next stride), so the typed side may hold
/// a result the run-time side refuses when one of those passes `i64`.
fn agree(
    op: &str,
    shown: &dyn Fn() -> String,
    typed: &Result<String, LayoutError>,
    dynamic: Option<Result<DynLayout, LayoutError>>,
    inner: Option<(Ex, i128)>,
) {
    if let Err(e) = typed {
        named(e, op);
    }
    let Some(dynamic) = dynamic else { return };
    if let Err(e) = &dynamic {
        named(e, op);
    }
    match (typed, &dynamic) {
        (Ok(x), Ok(y)) => assert_eq!(
            x,
            &y.to_string(),
            "{op}{}: typed and DynLayout differ",
            shown()
        ),
        (Ok(x), Err(e)) => {
            let big = |v: i128| v > i64::MAX as i128;
            let wide = ex(x).leaves().iter().any(|&(s, d)| big(s) || big(d))
                || inner.is_some_and(|(c, m)| {
                    big(m) || c.leaves().iter().any(|&(s, d)| big(s) || big(s * d))
                });
            assert!(
                wide,
                "{op}{}: typed gives {x}, DynLayout refuses: {e}",
                shown()
            );
        }
        (Err(e), Ok(y)) => panic!("{op}{}: typed refuses ({e}), DynLayout gives {y}", shown()),
        (Err(_), Err(_)) => {}
    }
}

/// What a product complements: A, in `size(A) * cosize(B)`.
fn product_inner(a: &Ex, b: &Ex) -> (Ex, i128) {
    let m = a.size().zip(b.cosize()).and_then(|(x, y)| x.checked_mul(y));
    (a.clone(), m.unwrap_or(i128::MAX))
}

fn dl<S: layout_core::Congruent<D>, D: layout_core::IntTuple>(
    l: &layout_core::Layout<S, D>,
) -> Option<DynLayout> {
    DynLayout::from_typed(l).ok()
}

fn dint(n: usize) -> Option<DInt> {
    i64::try_from(n).ok().map(DInt::new_dynamic)
}

/// `R(i) = A(B(i))` at the indices to check, R compatible with B (the
/// same size; for a tuple B, the same rank and mode sizes).
fn composition_holds(a: &Ex, b: &Ex, r: &Ex, extra: &[u64], what: &str) {
    assert_eq!(r.size(), b.size(), "{what}: size");
    if !b.is_int() {
        assert_eq!(r.rank(), b.rank(), "{what}: rank");
        for k in 0..b.rank() {
            let (rk, bk) = (r.mode(k).unwrap(), b.mode(k).unwrap());
            assert_eq!(rk.size(), bk.size(), "{what}: size of mode {k}");
        }
    }
    let Some(n) = b.size() else { return };
    for i in exact::indices(n, extra) {
        let want = b.at(i).filter(|&x| x >= 0).and_then(|x| a.at(x));
        if let (Some(w), Some(got)) = (want, r.at(i)) {
            assert_eq!(got, w, "{what}: R({i}) = {got}, A(B({i})) = {w}");
        }
    }
}

/// `complement(A, M) = R` by the definition.
fn complement_holds(a: &Ex, r: &Ex, m: i128, what: &str) {
    assert_ne!(a.size(), Some(0), "{what}: A has size 0, yet Ok");
    if let Err(e) = exact::complement_holds(a, r, m) {
        panic!("{what}: {e}");
    }
    assert!(exact::increasing(r), "{what}: R does not increase");
}

/// `(R0, R1) = A o (B, C)`: mode 0 is `A o B`, mode 1 is `A o C`.
fn divide_holds(a: &Ex, b: &Ex, c: Option<&Ex>, r: &Ex, extra: &[u64], what: &str) {
    assert_eq!(r.rank(), 2, "{what}: rank");
    composition_holds(
        a,
        b,
        &r.mode(0).unwrap(),
        extra,
        &format!("{what}, tile mode"),
    );
    if let Some(c) = c {
        composition_holds(
            a,
            c,
            &r.mode(1).unwrap(),
            extra,
            &format!("{what}, rest mode"),
        );
    }
}

/// `(R0, R1) = (A, C o B)`.
fn product_holds(a: &Ex, b: &Ex, c: Option<&Ex>, r: &Ex, extra: &[u64], what: &str) {
    assert_eq!(r.rank(), 2, "{what}: rank");
    assert_eq!(&r.mode(0).unwrap(), a, "{what}: mode 0 is not A");
    if let Some(c) = c {
        composition_holds(c, b, &r.mode(1).unwrap(), extra, &format!("{what}, mode 1"));
    }
}

/// The zipped, tiled and flat forms hold the logical form's leaves, and
/// refuse where it refuses.
fn regrouped(
    logical: &Result<String, LayoutError>,
    forms: [(&str, Result<String, LayoutError>); 3],
    shown: &dyn Fn() -> String,
) {
    for (name, z) in forms {
        match (logical, &z) {
            (Ok(l), Ok(z)) => same_leaves(&ex(l), &ex(z), name),
            (Err(_), Err(e)) => named(e, name),
            _ => panic!("{name}{}: {z:?}, the logical form: {logical:?}", shown()),
        }
    }
}

fn same_leaves(x: &Ex, y: &Ex, what: &str) {
    assert_eq!(
        exact::leaf_multiset(x),
        exact::leaf_multiset(y),
        "{what}: the leaves differ"
    );
}

fn text<T: Display>(r: &Result<T, LayoutError>) -> Result<String, LayoutError> {
    r.as_ref().map(|l| l.to_string()).map_err(Clone::clone)
}

fuzz_target!(|data: &[u8]| {
    let mut by = Bytes(data);
    let which = by.next();
    let [a0, a1, a2, a3] = [by.leaf(), by.leaf(), by.leaf(), by.leaf()];
    let [b0, b1, b2, b3] = [by.leaf(), by.leaf(), by.leaf(), by.leaf()];
    let [n0, n1, m] = [by.leaf(), by.leaf(), by.leaf()];
    let extra: Vec<u64> = (0..6)
        .map(|_| (0..8).fold(0u64, |v, _| v << 8 | by.next() as u64))
        .collect();
    let extra = &extra[..];

    // The typed structures.
    let l2 = layout!((a0, a1):(a2, a3));
    let ln = layout!(((2, a0), a1):((1, a2), a3));
    let l1 = layout!(a0:a2);
    let m2 = layout!((b0, b1):(b2, b3));
    let m1 = layout!(b0:b1);
    let mb = layout!(b2:b3);
    let bt = layout!((4, b0):(1, b1));
    // A complement (and the divides and products built on it) of rank
    // above 1 needs static strides, as CuTe's: run-time shapes over them.
    let lc = layout!((a0, a1):(1, 8));
    let lc2 = layout!(((2, a0), a1):((1, 6), 64));
    let tc = layout!((4, b0):(1, 8));

    macro_rules! shown {
        ($($x:expr),*) => {
            &|| {
                let mut s = String::new();
                $( s += &format!(" {}", $x); )*
                s
            }
        };
    }

    match which % 8 {
        // composition
        0 => {
            macro_rules! comp {
                ($a:expr, $b:expr) => {{
                    let r = t::try_composition($a, $b);
                    agree(
                        "composition",
                        shown!($a, $b),
                        &text(&r),
                        dl(&$a).zip(dl(&$b)).map(|(x, y)| d::composition(&x, &y)),
                        None,
                    );
                    if let Ok(r) = &r {
                        composition_holds(
                            &ex(&$a),
                            &ex(&$b),
                            &ex(r),
                            extra,
                            &format!("{} o {} = {r}", $a, $b),
                        );
                    }
                }};
            }
            comp!(l2, m2);
            comp!(ln, bt);
            comp!(ln, m2);
            comp!(l2, bt);
            comp!(l1, m2);
        }
        // complement
        1 => {
            macro_rules! compl {
                ($a:expr) => {{
                    let r = t::try_complement($a, m);
                    agree(
                        "complement",
                        shown!($a, m),
                        &text(&r),
                        dl(&$a)
                            .zip(dint(m))
                            .map(|(x, y)| d::complement(&x, &DTuple::int(y))),
                        None,
                    );
                    if let Ok(r) = &r {
                        complement_holds(
                            &ex(&$a),
                            &ex(r),
                            m as i128,
                            &format!("complement({}, {m}) = {r}", $a),
                        );
                    }
                    let r = t::try_complement_default($a);
                    agree(
                        "complement_default",
                        shown!($a),
                        &text(&r),
                        dl(&$a).map(|x| d::complement_default(&x)),
                        None,
                    );
                    if let Ok(r) = &r {
                        let a = ex(&$a);
                        complement_holds(
                            &a,
                            &ex(r),
                            a.cosize().unwrap(),
                            &format!("complement({}) = {r}", $a),
                        );
                    }
                }};
            }
            compl!(l1);
            compl!(lc);
            compl!(lc2);
            // A tuple cotarget.
            let r = t::try_complement(lc, (n0, n1));
            agree(
                "complement",
                shown!(lc, n0, n1),
                &text(&r),
                dl(&lc).zip(dint(n0).zip(dint(n1))).map(|(x, (p, q))| {
                    d::complement(&x, &DTuple::tuple([DTuple::int(p), DTuple::int(q)]))
                }),
                None,
            );
            if let Ok(r) = &r {
                let cot = (n0 as i128).checked_mul(n1 as i128).unwrap();
                complement_holds(
                    &ex(&lc),
                    &ex(r),
                    cot,
                    &format!("complement({lc}, ({n0},{n1})) = {r}"),
                );
            }
        }
        // divides by a layout
        2 => {
            macro_rules! div {
                ($a:expr, $b:expr) => {{
                    let r = t::try_logical_divide($a, $b);
                    agree(
                        "logical_divide",
                        shown!($a, $b),
                        &text(&r),
                        dl(&$a).zip(dl(&$b)).map(|(x, y)| d::logical_divide(&x, &y)),
                        // The complement's rest multiplies A's run-time extents.
                        Some((ex(&$b), ex(&$a).size().unwrap_or(i128::MAX))),
                    );
                    if let Ok(r) = &r {
                        let cot = t::try_coalesce($a).unwrap().shape();
                        let c = t::try_complement($b, cot).ok().map(|c| ex(&c));
                        divide_holds(
                            &ex(&$a),
                            &ex(&$b),
                            c.as_ref(),
                            &ex(r),
                            extra,
                            &format!("logical_divide({}, {}) = {r}", $a, $b),
                        );
                    }
                    regrouped(
                        &text(&r),
                        [
                            ("zipped_divide", text(&t::try_zipped_divide($a, $b))),
                            ("tiled_divide", text(&t::try_tiled_divide($a, $b))),
                            ("flat_divide", text(&t::try_flat_divide($a, $b))),
                        ],
                        shown!($a, $b),
                    );
                }};
            }
            div!(l2, m1);
            div!(l2, tc);
            div!(ln, m1);
            div!(l1, tc);
        }
        // divides by integers and tuples
        3 => {
            let r = t::try_logical_divide(l1, n0);
            agree(
                "logical_divide",
                shown!(l1, n0),
                &text(&r),
                dl(&l1)
                    .zip(dint(n0))
                    .map(|(x, y)| d::logical_divide(&x, &Tiler::Int(y))),
                None,
            );
            if let Ok(r) = &r {
                // complement(n:1, s) = ceil(s/n):n, by hand.
                let (s, n) = (a0 as i128, n0 as i128);
                let c = Ex::parse(&format!("{}:{n}", (s + n - 1) / n));
                divide_holds(
                    &ex(&l1),
                    &ex(&layout!(n0:1)),
                    c.as_ref(),
                    &ex(r),
                    extra,
                    &format!("logical_divide({l1}, {n0}) = {r}"),
                );
            }
            let tiler = dint(n0)
                .zip(dint(n1))
                .map(|(p, q)| Tiler::Tuple(vec![Tiler::Int(p), Tiler::Int(q)]));
            let logical = t::try_logical_divide(l2, (n0, n1));
            agree(
                "logical_divide",
                shown!(l2, n0, n1),
                &text(&logical),
                dl(&l2)
                    .zip(tiler.clone())
                    .map(|(x, y)| d::logical_divide(&x, &y)),
                None,
            );
            macro_rules! tup {
                ($name:literal, $f:ident, $g:ident) => {{
                    let r = t::$f(l2, (n0, n1));
                    agree(
                        $name,
                        shown!(l2, n0, n1),
                        &text(&r),
                        dl(&l2).zip(tiler.clone()).map(|(x, y)| d::$g(&x, &y)),
                        None,
                    );
                    match (&logical, &r) {
                        (Ok(l), Ok(r)) => same_leaves(&ex(l), &ex(r), $name),
                        (Err(_), Err(_)) => {}
                        _ => panic!(
                            "{}({l2}, ({n0},{n1})): {:?}, logical_divide: {:?}",
                            $name,
                            text(&r),
                            text(&logical)
                        ),
                    }
                }};
            }
            tup!("zipped_divide", try_zipped_divide, zipped_divide);
            tup!("tiled_divide", try_tiled_divide, tiled_divide);
            tup!("flat_divide", try_flat_divide, flat_divide);
            if let Ok(r) = &logical {
                // Mode by mode: (a_k o (n_k:1, ceil(a_k/n_k):n_k)).
                let (a, r) = (ex(&l2), ex(r));
                for (k, n) in [(0, n0 as i128), (1, n1 as i128)] {
                    let ak = a.mode(k).unwrap();
                    let s = ak.size().unwrap();
                    let c = Ex::parse(&format!("{}:{n}", (s + n - 1) / n));
                    let b = Ex::parse(&format!("{n}:1")).unwrap();
                    divide_holds(
                        &ak,
                        &b,
                        c.as_ref(),
                        &r.mode(k).unwrap(),
                        extra,
                        &format!("logical_divide({l2}, ({n0},{n1})) mode {k}"),
                    );
                }
            }
            let r = t::try_zipped_divide(ln, (C::<4>, n1));
            agree(
                "zipped_divide",
                shown!(ln, n1),
                &text(&r),
                dl(&ln).zip(dint(n1)).map(|(x, q)| {
                    d::zipped_divide(
                        &x,
                        &Tiler::Tuple(vec![Tiler::Int(DInt::new_static(4)), Tiler::Int(q)]),
                    )
                }),
                None,
            );
        }
        // products by a layout
        4 => {
            macro_rules! prod {
                ($a:expr, $b:expr) => {{
                    let r = t::try_logical_product($a, $b);
                    agree(
                        "logical_product",
                        shown!($a, $b),
                        &text(&r),
                        dl(&$a)
                            .zip(dl(&$b))
                            .map(|(x, y)| d::logical_product(&x, &y)),
                        Some(product_inner(&ex(&$a), &ex(&$b))),
                    );
                    if let Ok(r) = &r {
                        let (a, b) = (ex(&$a), ex(&$b));
                        let cot = a.size().zip(b.cosize()).and_then(|(x, y)| x.checked_mul(y));
                        let c = cot
                            .and_then(|cot| usize::try_from(cot).ok())
                            .and_then(|cot| t::try_complement($a, cot).ok())
                            .map(|c| ex(&c));
                        product_holds(
                            &a,
                            &b,
                            c.as_ref(),
                            &ex(r),
                            extra,
                            &format!("logical_product({}, {}) = {r}", $a, $b),
                        );
                    }
                    regrouped(
                        &text(&r),
                        [
                            ("zipped_product", text(&t::try_zipped_product($a, $b))),
                            ("tiled_product", text(&t::try_tiled_product($a, $b))),
                            ("flat_product", text(&t::try_flat_product($a, $b))),
                        ],
                        shown!($a, $b),
                    );
                }};
            }
            prod!(lc, m2);
            prod!(l1, m1);
            prod!(lc, bt);
            prod!(lc2, m1);
        }
        // blocked and raked products, tuple tilers
        5 => {
            let logical = t::try_logical_product(lc, m2);
            macro_rules! zip {
                ($name:literal, $f:ident, $g:ident) => {{
                    let r = t::$f(lc, m2);
                    agree(
                        $name,
                        shown!(lc, m2),
                        &text(&r),
                        dl(&lc).zip(dl(&m2)).map(|(x, y)| d::$g(&x, &y)),
                        Some(product_inner(&ex(&lc), &ex(&m2))),
                    );
                    match (&logical, &r) {
                        (Ok(l), Ok(r)) => same_leaves(&ex(l), &ex(r), $name),
                        (Err(_), Err(_)) => {}
                        _ => panic!(
                            "{}({lc}, {m2}): {:?}, logical_product: {:?}",
                            $name,
                            text(&r),
                            text(&logical)
                        ),
                    }
                }};
            }
            zip!("blocked_product", try_blocked_product, blocked_product);
            zip!("raked_product", try_raked_product, raked_product);
            let tiler = dl(&m1)
                .zip(dl(&mb))
                .map(|(x, y)| Tiler::Tuple(vec![Tiler::Layout(x), Tiler::Layout(y)]));
            // Mode by mode: a_k:s_k complemented in a_k * cosize(tiler_k).
            let tuple_inner = {
                let (a, x, y) = (ex(&l2), ex(&m1), ex(&mb));
                let (p, q) = (
                    product_inner(&a.mode(0).unwrap(), &x),
                    product_inner(&a.mode(1).unwrap(), &y),
                );
                (a, p.1.max(q.1))
            };
            let r = t::try_logical_product(l2, (m1, mb));
            agree(
                "logical_product",
                shown!(l2, m1, mb),
                &text(&r),
                dl(&l2)
                    .zip(tiler.clone())
                    .map(|(x, y)| d::logical_product(&x, &y)),
                Some(tuple_inner.clone()),
            );
            let r = t::try_zipped_product(l2, (m1, mb));
            agree(
                "zipped_product",
                shown!(l2, m1, mb),
                &text(&r),
                dl(&l2).zip(tiler).map(|(x, y)| d::zipped_product(&x, &y)),
                Some(tuple_inner),
            );
        }
        // coalesce, tile_to_shape
        6 => {
            macro_rules! co {
                ($a:expr) => {{
                    let r = t::try_coalesce($a);
                    agree(
                        "coalesce",
                        shown!($a),
                        &text(&r),
                        dl(&$a).map(|x| d::coalesce(&x)),
                        None,
                    );
                    if let Ok(r) = &r {
                        let (a, r) = (ex(&$a), ex(r));
                        assert_eq!(a.size(), r.size(), "coalesce({}) = {r:?}: size", $a);
                        for i in exact::indices(a.size().unwrap_or(0), extra) {
                            if let (Some(x), Some(y)) = (a.at(i), r.at(i)) {
                                assert_eq!(x, y, "coalesce({}): index {i}", $a);
                            }
                        }
                    }
                }};
            }
            co!(l2);
            co!(ln);
            co!(layout!((a0, 4, a1):(0, 0, a3)));
            let r = t::try_tile_to_shape(lc, (n0, n1));
            agree(
                "tile_to_shape",
                shown!(lc, n0, n1),
                &text(&r),
                dl(&lc).zip(dint(n0).zip(dint(n1))).map(|(x, (p, q))| {
                    d::tile_to_shape(&x, &DTuple::tuple([DTuple::int(p), DTuple::int(q)]), None)
                }),
                // blocked_product(lc, repeats): lc complemented in about n0 n1.
                Some((
                    ex(&lc),
                    (n0 as i128 + a0 as i128) * (n1 as i128 + a1 as i128),
                )),
            );
        }
        // composition with an integer and a tuple tiler
        _ => {
            let r = t::try_composition(l2, n0);
            agree(
                "composition",
                shown!(l2, n0),
                &text(&r),
                dl(&l2)
                    .zip(dint(n0))
                    .map(|(x, y)| d::composition(&x, &Tiler::Int(y))),
                None,
            );
            if let Ok(r) = &r {
                composition_holds(
                    &ex(&l2),
                    &Ex::parse(&format!("{n0}:1")).unwrap(),
                    &ex(r),
                    extra,
                    &format!("{l2} o {n0} = {r}"),
                );
            }
            let r = t::try_composition(l2, (m1, n1));
            agree(
                "composition",
                shown!(l2, m1, n1),
                &text(&r),
                dl(&l2).zip(dl(&m1).zip(dint(n1))).map(|(x, (y, q))| {
                    d::composition(&x, &Tiler::Tuple(vec![Tiler::Layout(y), Tiler::Int(q)]))
                }),
                None,
            );
        }
    }
});
