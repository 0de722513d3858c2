//! Run-time algebra on DynLayout with a run-time extent m, including one
//! evaluation of the result: the cost a kernel launcher pays per call.
//!
//! `cargo bench -p layout-tests --bench dyn_algebra`; the typed algebra on the
//! same inputs and the hand-written offset are in the same run.

use divan::black_box;
use layout_core::dynamic::{composition, zipped_divide};
use layout_core::{DInt, DTuple, DynLayout, Tiler};

fn main() {
    divan::main();
}

fn lay(shape: &[(i64, bool)], stride: &[(i64, bool)]) -> DynLayout {
    let t = |v: &[(i64, bool)]| {
        DTuple::tuple(v.iter().map(|&(v, st)| {
            DTuple::int(DInt {
                value: v,
                is_static: st,
            })
        }))
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
    let t = Tiler::Tuple(vec![
        Tiler::Int(DInt::new_static(4)),
        Tiler::Int(DInt::new_static(4)),
    ]);
    let r = zipped_divide(&a, &t).unwrap();
    r.call(black_box(5)).unwrap()
}

/// The typed composition of the same inputs: `(m,32):(32,1)` with a
/// run-time `m`, so the result has run-time leaves (computed in place by the
/// typed algebra, with its run-time admissibility check); then one evaluation.
#[divan::bench]
fn typed_composition_runtime_m() -> usize {
    let m: usize = black_box(64);
    let a = layout_core::layout!((m, 32):(32, 1));
    let r = layout_core::algebra::composition(a, layout_core::layout!((4,8):(1,4)));
    r.call(black_box(5))
}

/// The typed zipped_divide of the same inputs, then one evaluation.
#[divan::bench]
fn typed_zipped_divide_runtime_m() -> usize {
    let m: usize = black_box(64);
    let a = layout_core::layout!((m, 32):(32, 1));
    let r = layout_core::algebra::zipped_divide(a, (layout_core::C::<4>, layout_core::C::<4>));
    r.call(black_box(5))
}

/// Hand-written: the offset of index 5 in `(m,32):(32,1) o (4,8):(1,4)`.
#[divan::bench]
fn hand_composition_runtime_m() -> usize {
    let m: usize = black_box(64);
    let i = black_box(5);
    // B(i) = (i % 4) + 4 * (i / 4); A(j) = 32 * (j % m) + (j / m).
    let j = (i % 4) + 4 * (i / 4);
    32 * (j % m) + j / m
}

/// Hand-written: the offset of index 5 in zipped_divide((m,32):(32,1), (4,4)),
/// that is ((4,4),(ceil(m/4),8)):((32,1),(128,4)).
#[divan::bench]
fn hand_zipped_divide_runtime_m() -> usize {
    let m: usize = black_box(64);
    let i = black_box(5);
    let q = m.div_ceil(4);
    let (c0, r) = (i % 4, i / 4);
    let (c1, r) = (r % 4, r / 4);
    let (c2, c3) = (r % q, r / q);
    c0 * 32 + c1 + c2 * 128 + c3 * 4
}
