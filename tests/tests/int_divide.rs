//! Dividing a leaf mode by an integer tiler `n` takes a short path in the
//! typed algebra (two leaf compositions instead of the general
//! `A o (n, complement(n, s))` chain). CuTe defines the integer tiler as
//! the layout `make_layout(n)`, so the defining property is: dividing by `n`
//! and by `make_layout(n)` (which takes the general chain) give the same
//! layout, with the same static leaves, and the same error. Every result is
//! also compared with `DynLayout`'s divide of the same input.
//!
//! The grid covers each leaf static or run-time, the static special cases
//! (a tiler or shape of static 1, a static stride 0, a tiler larger than the
//! mode, one that does not divide it) and run-time values from 0 to past
//! `usize`'s overflow.

use layout_core::algebra::{try_logical_divide, try_zipped_divide};
use layout_core::dynamic::{
    logical_divide as dyn_logical_divide, zipped_divide as dyn_zipped_divide,
};
use layout_core::{make_layout, make_layout_left, DynLayout, LayoutError, Tiler, C};
use std::fmt::Display;

fn show<L: Display>(r: Result<L, LayoutError>) -> Result<String, String> {
    r.map(|l| l.to_string()).map_err(|e| e.to_string())
}

/// `DynLayout`'s result, when the typed one is `Ok`, except where
/// `DynLayout` has no such input: a leaf of 2^63 or more (its leaves are
/// `i64`). A of size 0 is divided by both as CuTe divides it.
fn dyn_agrees(typed: &Result<String, String>, a: &str, t: &str, zipped: bool) {
    let Ok(typed) = typed else { return };
    let (Ok(a), Ok(t)) = (a.parse::<DynLayout>(), t.parse::<Tiler>()) else {
        return;
    };
    let d = if zipped {
        dyn_zipped_divide(&a, &t)
    } else {
        dyn_logical_divide(&a, &t)
    };
    assert_eq!(
        d.map(|d| d.to_string()).as_ref(),
        Ok(typed),
        "DynLayout: {a} / {t:?}"
    );
}

/// Run-time values: small ones, ones that make ceil(s/n) a static-looking
/// 1, and ones whose products overflow.
const VALUES: [usize; 14] = [
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    8,
    9,
    16,
    1 << 33,
    (1 << 63) + 1,
    usize::MAX - 1,
    usize::MAX,
];

macro_rules! same {
    ($count:ident; $s:expr, $d:expr, $n:expr) => {{
        let (s, d, n) = ($s, $d, $n);
        let a = make_layout(s, d);
        let by_int = show(try_logical_divide(a, n));
        let by_layout = show(try_logical_divide(a, make_layout_left(n)));
        assert_eq!(by_int, by_layout, "logical_divide({a}, {n})");
        dyn_agrees(&by_int, &a.to_string(), &n.to_string(), false);
        // The same leaf as mode 0 of a tuple tiler, zipped.
        let a2 = make_layout((s, C::<6>), (d, C::<2>));
        let z_int = show(try_zipped_divide(a2, (n, C::<4>)));
        let z_layout = show(try_zipped_divide(
            a2,
            (make_layout_left(n), make_layout_left(C::<4>)),
        ));
        assert_eq!(z_int, z_layout, "zipped_divide({a2}, ({n},_4))");
        dyn_agrees(&z_int, &a2.to_string(), &format!("({n},_4)"), true);
        $count += 1;
    }};
}

/// Every leaf static: each type of the grid is its own instantiation.
#[test]
fn static_leaves() {
    let mut count = 0;
    macro_rules! by_n {
        ($s:literal, $d:literal) => {
            same!(count; C::<$s>, C::<$d>, C::<1>);
            same!(count; C::<$s>, C::<$d>, C::<2>);
            same!(count; C::<$s>, C::<$d>, C::<3>);
            same!(count; C::<$s>, C::<$d>, C::<4>);
            same!(count; C::<$s>, C::<$d>, C::<8>);
        };
    }
    macro_rules! by_d {
        ($($s:literal)*) => {$(
            by_n!($s, 0);
            by_n!($s, 1);
            by_n!($s, 3);
        )*};
    }
    by_d!(1 2 4 6 8 12);
    assert_eq!(count, 6 * 3 * 5);
}

/// Run-time leaves in every combination, over [`VALUES`].
#[test]
fn runtime_leaves() {
    let mut count = 0;
    for v in VALUES {
        for w in VALUES {
            // run-time s
            same!(count; v, C::<0>, C::<2>);
            same!(count; v, C::<3>, C::<1>);
            same!(count; v, C::<3>, C::<4>);
            // run-time d
            same!(count; C::<1>, v, C::<2>);
            same!(count; C::<6>, v, C::<4>);
            same!(count; C::<4>, v, C::<1>);
            // run-time n
            same!(count; C::<1>, C::<3>, v);
            same!(count; C::<6>, C::<0>, v);
            same!(count; C::<6>, C::<3>, v);
            // two run-time leaves
            same!(count; v, w, C::<4>);
            same!(count; v, C::<3>, w);
            same!(count; C::<6>, v, w);
            same!(count; v, w, v);
        }
    }
    assert_eq!(count, VALUES.len() * VALUES.len() * 13);
}
