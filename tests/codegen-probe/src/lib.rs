//! Functions whose optimised assembly the codegen test reads.
#![allow(missing_docs)]

use lc::{crd, layout, Tensor};

/// crd2idx of a static coordinate on a static layout: (3,(1,5)) on
/// (4,(2,8)):(16,(8,1)) is 3*16 + 1*8 + 5*1 = 61.
#[no_mangle]
#[inline(never)]
pub fn probe_static_crd() -> usize {
    layout!((4,(2,8)):(16,(8,1))).crd2idx(crd!(3, (1, 5)))
}

/// A run-time 1-D index into a static power-of-two layout.
#[no_mangle]
#[inline(never)]
pub fn probe_pow2_index(i: usize) -> usize {
    layout!((8,(4,16)):(1,(64,8))).call(i)
}

/// A run-time natural coordinate into a static tensor over a slice.
#[no_mangle]
#[inline(never)]
pub fn probe_tensor_read(data: &[f32], m: usize, n: usize) -> f32 {
    let t = Tensor::new(data, layout!((64,64):(64,1))).unwrap();
    *t.get((m, n)).unwrap_or(&0.0)
}

/// Control: the same index into a layout with a run-time shape must divide,
/// which shows that the detector sees division instructions.
#[no_mangle]
#[inline(never)]
pub fn probe_dynamic_index(i: usize, n: usize) -> usize {
    layout!((n, 16):(16, 1)).call(i)
}

/// crd2idx of a static coordinate on the static result of a zipped_divide:
/// ((3,5),(2,7)) on ((_32,_8),(_4,_8)):((_64,_1),(_2048,_8)) is
/// 3*64 + 5*1 + 2*2048 + 7*8 = 4349.
#[no_mangle]
#[inline(never)]
pub fn probe_zipped_divide_crd() -> usize {
    let z = lc::algebra::zipped_divide(layout!((128,64):(64,1)), (lc::C::<32>, lc::C::<8>));
    z.crd2idx(crd!((3, 5), (2, 7)))
}

/// zipped_divide of a mixed layout (run-time m) by (_4,_4), evaluated at a
/// run-time index: the layout algebra runs at run time here.
#[no_mangle]
#[inline(never)]
pub fn probe_mixed_zipped_divide(m: usize, i: usize) -> usize {
    match lc::algebra::try_zipped_divide(layout!((m, 32):(32, 1)), (lc::C::<4>, lc::C::<4>)) {
        Ok(z) => z.call(i),
        Err(_) => usize::MAX,
    }
}

/// The same by hand: the result is ((4,4),(ceil(m/4),8)):((32,1),(128,4)).
#[no_mangle]
#[inline(never)]
pub fn probe_mixed_zipped_divide_hand(m: usize, i: usize) -> usize {
    let q = m.div_ceil(4);
    let (c0, r) = (i % 4, i / 4);
    let (c1, r) = (r % 4, r / 4);
    let (c2, c3) = (r % q, r / q);
    c0 * 32 + c1 + c2 * 128 + c3 * 4
}

/// Control for the loop detector: a sum over a run-time length loops.
#[no_mangle]
#[inline(never)]
pub fn probe_sum_loop(n: usize) -> usize {
    let mut s = 0usize;
    let mut k = 1usize;
    for _ in 0..n {
        s = s.wrapping_add(k);
        k = k.wrapping_mul(3);
    }
    s
}

/// composition((m,_32):(_32,_1), (_4,_8):(_1,_4)) with a run-time m, then
/// one evaluation: the run-time admissibility check and the leaf values.
#[no_mangle]
#[inline(never)]
pub fn probe_mixed_composition(m: usize, i: usize) -> usize {
    match lc::algebra::try_composition(layout!((m, 32):(32, 1)), layout!((4,8):(1,4))) {
        Ok(r) => r.call(i),
        Err(_) => usize::MAX,
    }
}

/// The same by hand: `A(B(i))` with `B(i) = i % 4 + 4 * (i / 4)`.
#[no_mangle]
#[inline(never)]
pub fn probe_mixed_composition_hand(m: usize, i: usize) -> usize {
    let j = (i % 4) + 4 * (i / 4);
    32 * (j % m) + j / m
}

/// A static fragment written and read at coordinates in visible ranges.
#[no_mangle]
#[inline(never)]
pub fn probe_fragment(x: f32) -> f32 {
    let mut f: lc::tensor::fragment::Fragment<f32, _> = lc::tensor::fragment::Fragment::new(layout!((4,8):(8,1)));
    for i in 0..4usize {
        for j in 0..8usize {
            f[(i, j)] = x * (i * 8 + j) as f32;
        }
    }
    let mut s = 0.0;
    for j in 0..8usize {
        for i in 0..4usize {
            s += f[(i, j)];
        }
    }
    s
}

/// The same on a plain array.
#[no_mangle]
#[inline(never)]
pub fn probe_fragment_hand(x: f32) -> f32 {
    let mut f = [[0f32; 8]; 4];
    for (i, row) in f.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = x * (i * 8 + j) as f32;
        }
    }
    let mut s = 0.0;
    for j in 0..8 {
        for row in &f {
            s += row[j];
        }
    }
    s
}

/// A static 4 x 8 row-major tile at a run-time offset copied into a
/// column-major register fragment: one window check, then constant offsets.
#[no_mangle]
#[inline(never)]
pub fn probe_copy_static_tile(src: &[f32], off: usize) -> f32 {
    let mut f: lc::tensor::fragment::Fragment<f32, _> =
        lc::tensor::fragment::Fragment::new(layout!((4,8):(1,4)));
    let Some(s) = src.get(off..) else { return -1.0 };
    let Ok(t) = Tensor::new(s, layout!((4,8):(8,1))) else { return -1.0 };
    if lc::tensor::algorithm::copy(&t, &mut f.view_mut()).is_err() {
        return -1.0;
    }
    f.as_slice().iter().sum()
}
