//! Tuple tilers work mode by mode: mode i of A by tiler mode i, A's modes
//! past the tiler kept (divides, products) or dropped (composition). The
//! typed algebra has one impl per (tiler rank, rank of A), and one for a
//! one-mode tiler on an integer-shaped A; this test runs every op with a
//! tuple tiler over those shapes (A of rank 1 to 5, leaves static and
//! run-time, nested modes, `_`, integer and layout tilers) and compares
//! each result, its printed static leaves included, with `DynLayout`'s
//! (an independent implementation of the same definitions).

use layout_core::algebra::{
    try_composition, try_flat_divide, try_flat_product, try_logical_divide, try_logical_product,
    try_tiled_divide, try_tiled_product, try_zipped_divide, try_zipped_product,
};
use layout_core::dynamic::op::{self, Arg};
use layout_core::dynamic::Tiler;
use layout_core::{layout, DynLayout, Layout, LayoutError, Underscore as X, C};
use std::fmt::Display;

fn show<L: Display>(r: Result<L, LayoutError>) -> Result<String, ()> {
    r.map(|l| l.to_string()).map_err(|_| ())
}

/// A tiler mode in CuTe notation.
trait Notation {
    fn notation(&self) -> String;
}
impl<const N: usize> Notation for C<N> {
    fn notation(&self) -> String {
        self.to_string()
    }
}
impl Notation for usize {
    fn notation(&self) -> String {
        self.to_string()
    }
}
impl<S, D> Notation for Layout<S, D>
where
    Layout<S, D>: Display,
{
    fn notation(&self) -> String {
        self.to_string()
    }
}
impl Notation for X {
    fn notation(&self) -> String {
        "_".into()
    }
}

/// The tiler as `DynLayout`'s, from its modes' CuTe notation.
fn tiler(modes: &[String]) -> Tiler {
    Tiler::Tuple(modes.iter().map(|m| m.parse().unwrap()).collect())
}

/// The typed result against `DynLayout`'s op of the same name, from the
/// library's table of operations.
fn agree(name: &str, typed: Result<String, ()>, a: &DynLayout, t: &Tiler) {
    let o = op::lookup(name, 2).unwrap_or_else(|e| panic!("{e}"));
    let args = [Arg::Layout(a.clone()), Arg::Tiler(t.clone())];
    let dynamic = o.apply(&args).map(|l| l.to_string()).map_err(|_| ());
    assert_eq!(typed, dynamic, "{name}({a}, {t:?})");
}

/// Runs each named op (a `try_` function and `DynLayout`'s op of the same
/// name) on A and the tuple tiler.
macro_rules! ops {
    ([$($op:ident)+] $a:expr, ($($t:expr),+)) => {{
        let (a, t) = ($a, ($($t,)+));
        let (da, dt) = (a.to_string().parse::<DynLayout>().unwrap(), tiler(&[$($t.notation()),+]));
        $(agree(&stringify!($op)[4..], show($op(a, t)), &da, &dt);)+
    }};
}
macro_rules! divides {
    ($($x:tt)*) => { ops!([try_logical_divide try_zipped_divide try_tiled_divide try_flat_divide] $($x)*) };
}
macro_rules! products {
    ($($x:tt)*) => { ops!([try_logical_product try_zipped_product try_tiled_product try_flat_product] $($x)*) };
}
macro_rules! compositions {
    ($($x:tt)*) => { ops!([try_composition] $($x)*) };
}

#[test]
fn divides_by_tuple_tilers() {
    for m in [1usize, 4, 6, 12, 24] {
        // One mode: an integer-shaped A, and a rank-1 tuple.
        divides!(layout!(12:2), (C::<4>));
        divides!(layout!(m:2), (C::<4>));
        divides!(layout!((m):(3)), (layout!(2:2)));
        // Rank 2 by 1 and 2 modes.
        divides!(layout!((12, m):(m, 1)), (C::<4>));
        divides!(layout!((12, m):(m, 1)), (C::<4>, C::<2>));
        divides!(layout!((m, 8):(1, m)), (layout!(2:3), 4usize));
        // Rank 3 by 1, 2, 3 modes; a nested mode; `_` on a rank-2 mode.
        divides!(layout!((8, (2, m), 6):(1, (8, 16), 64)), (C::<2>, X));
        divides!(
            layout!((8, (2, m), 6):(1, (8, 16), 64)),
            (layout!((2,2):(1,4)), C::<2>)
        );
        divides!(
            layout!((8, (2, m), 6):(1, (8, 16), 64)),
            (C::<4>, C::<2>, C::<3>)
        );
        // Rank 5 by 4: one mode kept.
        divides!(
            layout!((2, 4, m, 6, 3):(1, 2, 8, 0, m)),
            (C::<2>, C::<2>, C::<1>, C::<3>)
        );
    }
}

#[test]
fn products_by_tuple_tilers() {
    for m in [1usize, 2, 3, 8] {
        products!(layout!(4:1), (C::<3>));
        products!(layout!(m:2), (layout!(2:1)));
        products!(layout!((2, m):(1, 2)), (C::<3>));
        products!(layout!((2, m):(1, 2)), (layout!(2:1), layout!(3:1)));
        products!(
            layout!((2, (2, m), 4):(m, (1, 2), 64)),
            (C::<2>, X, layout!(2:2))
        );
        products!(layout!((2, 2, 2, m):(1, 2, 4, 8)), (C::<2>, C::<1>, C::<3>));
    }
}

#[test]
fn compositions_by_tuple_tilers() {
    for m in [1usize, 2, 6, 16] {
        compositions!(layout!(12:2), (layout!(4:3)));
        compositions!(layout!((12, m):(m, 1)), (layout!(4:3)));
        compositions!(layout!((12, m):(m, 1)), (layout!(4:3), layout!(2:1)));
        compositions!(
            layout!((8, (2, m), 6):(1, (8, 16), 64)),
            (layout!(2:4), layout!((2,2):(1,2)))
        );
        compositions!(
            layout!((2, 4, m, 6, 3):(1, 2, 8, 0, m)),
            (layout!(2:1), layout!(2:2), layout!(1:0), layout!(3:2))
        );
    }
}
