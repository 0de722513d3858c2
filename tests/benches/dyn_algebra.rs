//! Run-time algebra on DynLayout with a run-time extent m, including one
//! evaluation of the result: the cost a kernel launcher pays per call.
//!
//! `cargo bench -p layout-tests --bench dyn_algebra`

use divan::black_box;
use layout_core::{composition, zipped_divide, DInt, DTuple, DynLayout, Tiler};

fn main() {
    divan::main();
}

fn lay(shape: &[(i64, bool)], stride: &[(i64, bool)]) -> DynLayout {
    let t = |v: &[(i64, bool)]| {
        DTuple::Tup(
            v.iter()
                .map(|&(v, st)| DTuple::Int(DInt { v, st }))
                .collect(),
        )
    };
    DynLayout::new(t(shape), t(stride)).unwrap()
}

/// composition((m,_32):(_32,_1), (_4,_8):(_1,_4)) with run-time m.
#[divan::bench]
fn composition_runtime_m() -> i64 {
    let m = black_box(64);
    let a = lay(&[(m, false), (32, true)], &[(32, true), (1, true)]);
    let b = lay(&[(4, true), (8, true)], &[(1, true), (4, true)]);
    let r = composition(&a, &b).unwrap();
    r.call(black_box(5)).unwrap()
}

/// zipped_divide((m,_32):(_32,_1), (_4,_4)) with run-time m.
#[divan::bench]
fn zipped_divide_runtime_m() -> i64 {
    let m = black_box(64);
    let a = lay(&[(m, false), (32, true)], &[(32, true), (1, true)]);
    let t = Tiler::Tup(vec![Tiler::Int(DInt::s(4)), Tiler::Int(DInt::s(4))]);
    let r = zipped_divide(&a, &t).unwrap();
    r.call(black_box(5)).unwrap()
}
