//! Whole-tensor operations (CuTe's `copy`, `copy_if`, `fill`, `clear`,
//! `axpby`, `gemm`): element `i` of one tensor goes with element `i` of the
//! other, `i` running over the 1-D (colexicographic) index, so the two
//! tensors may have any layouts of the same size. Sizes are checked once,
//! before the loop; each access is a layout offset into a slice (bounds
//! checked by the slice, which the compiler drops where the layout is
//! static and the range visible).

use crate::error::{LayoutError, Refusal};
use crate::layout::{Congruent, Layout};
use crate::tensor::{Engine, EngineMut, Tensor};
use crate::tuple::IntTuple;

fn sizes_differ(op: &'static str, a: usize, b: usize) -> LayoutError {
    LayoutError::Refused {
        op,
        why: Refusal::NotDividing {
            mode: 0,
            block: a,
            target: b,
        },
    }
}

/// The elements a tensor reaches, `storage[offset .. offset + cosize]`,
/// taken once: indices into it are below the cosize, which the compiler
/// sees for static layouts (no check per element then).
#[inline(always)]
fn window<'a, T, S: Congruent<D>, D: IntTuple>(
    data: &'a [T],
    off: usize,
    l: &Layout<S, D>,
) -> &'a [T] {
    match l
        .checked_cosize()
        .and_then(|c| data.get(off..off.checked_add(c)?))
    {
        Some(w) => w,
        // A tensor's layout is within its storage by construction.
        None => &data[..0],
    }
}
#[inline(always)]
fn window_mut<'a, T, S: Congruent<D>, D: IntTuple>(
    data: &'a mut [T],
    off: usize,
    l: &Layout<S, D>,
) -> &'a mut [T] {
    match l.checked_cosize().and_then(|c| off.checked_add(c)) {
        Some(end) if end <= data.len() => &mut data[off..end],
        _ => &mut data[..0],
    }
}

/// Visit the 1-D indices `0..n` of a layout, rows first when it is rank 2
/// and its second mode has the smaller stride (row-major): the innermost
/// loop then walks consecutive elements, which the compiler vectorizes (a
/// static layout decides this at compile time).
#[inline(always)]
fn for_each_index<S: Congruent<D>, D: IntTuple>(l: &Layout<S, D>, mut f: impl FnMut(usize)) {
    let sh = l.shape();
    let (m, n) = (sh.mode_size(0), sh.mode_size(1));
    if S::RANK == 2 && m > 1 && n > 1 && l.call(m) < l.call(1) {
        for i in 0..m {
            for j in 0..n {
                f(i + m * j);
            }
        }
    } else {
        for i in 0..sh.size() {
            f(i);
        }
    }
}

/// [`for_each_index`] in the order of `a`, or of `b` when only `b` has
/// static strides: an order fixed at compile time keeps one loop (a
/// run-time choice would leave two, and the code around them split).
#[inline(always)]
fn for_each_index2<S1: Congruent<D1>, D1: IntTuple, S2: Congruent<D2>, D2: IntTuple>(
    a: &Layout<S1, D1>,
    b: &Layout<S2, D2>,
    f: impl FnMut(usize),
) {
    if !D1::ALL_STATIC && D2::ALL_STATIC {
        for_each_index(b, f)
    } else {
        for_each_index(a, f)
    }
}

/// The windows of a source and a destination of the same size: what every
/// two-tensor operation checks once before its loop.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn windows<'a, T, E1, S1, D1, E2, S2, D2>(
    op: &'static str,
    src: &'a Tensor<E1, Layout<S1, D1>>,
    dst: &'a mut Tensor<E2, Layout<S2, D2>>,
) -> Result<(usize, &'a [T], &'a mut [T]), LayoutError>
where
    E1: Engine<Elem = T>,
    E2: EngineMut<Elem = T>,
    S1: Congruent<D1>,
    D1: IntTuple,
    S2: Congruent<D2>,
    D2: IntTuple,
{
    let n = src.size();
    if n != dst.size() {
        return Err(sizes_differ(op, n, dst.size()));
    }
    let (d_layout, do_) = (dst.layout(), dst.data_offset());
    let sl = window(src.storage(), src.data_offset(), &src.layout());
    Ok((n, sl, window_mut(dst.storage_mut(), do_, &d_layout)))
}

/// `dst(i) = src(i)` where `pred(i)`; `block` allows one block copy when
/// both layouts are contiguous with static strides (`copy`, whose predicate
/// is always true).
#[inline(always)]
fn copy_where<E1, S1, D1, E2, S2, D2>(
    block: bool,
    mut pred: impl FnMut(usize) -> bool,
    src: &Tensor<E1, Layout<S1, D1>>,
    dst: &mut Tensor<E2, Layout<S2, D2>>,
) -> Result<(), LayoutError>
where
    E1: Engine,
    E2: EngineMut<Elem = E1::Elem>,
    E1::Elem: Copy,
    S1: Congruent<D1>,
    D1: IntTuple,
    S2: Congruent<D2>,
    D2: IntTuple,
{
    let (s_layout, d_layout) = (src.layout(), dst.layout());
    let (n, sl, dl) = windows("copy", src, dst)?;
    // Static strides decide contiguity at compile time (no run-time branch
    // between a block copy and a loop, which would split the code after).
    let static_strides = D1::ALL_STATIC && D2::ALL_STATIC;
    if block
        && static_strides
        && s_layout.is_contiguous()
        && d_layout.is_contiguous()
        && sl.len() >= n
        && dl.len() >= n
    {
        // Both run through consecutive elements: one block copy.
        dl[..n].copy_from_slice(&sl[..n]);
    } else {
        for_each_index2(&d_layout, &s_layout, |i| {
            if pred(i) {
                dl[d_layout.call(i)] = sl[s_layout.call(i)];
            }
        });
    }
    Ok(())
}

/// CuTe's `copy(src, dst)`: `dst(i) = src(i)` for every 1-D index `i`.
///
/// ```
/// use layout_core::{algorithm::copy, layout, Tensor};
/// let src: Vec<i32> = (0..6).collect();
/// let mut dst = [0i32; 6];
/// let s = Tensor::new(&src[..], layout!((2,3):(3,1))).unwrap();
/// let mut d = Tensor::new(&mut dst[..], layout!((2,3):(1,2))).unwrap();
/// copy(&s, &mut d).unwrap();
/// // A transpose: dst is column-major, src row-major.
/// assert_eq!(dst, [0, 3, 1, 4, 2, 5]);
/// ```
///
/// # Errors
///
/// When the sizes differ.
#[inline(always)]
pub fn copy<E1, S1, D1, E2, S2, D2>(
    src: &Tensor<E1, Layout<S1, D1>>,
    dst: &mut Tensor<E2, Layout<S2, D2>>,
) -> Result<(), LayoutError>
where
    E1: Engine,
    E2: EngineMut<Elem = E1::Elem>,
    E1::Elem: Copy,
    S1: Congruent<D1>,
    D1: IntTuple,
    S2: Congruent<D2>,
    D2: IntTuple,
{
    copy_where(true, |_| true, src, dst)
}

/// CuTe's `copy_if(pred, src, dst)`: `dst(i) = src(i)` where `pred(i)`
/// holds (a predicate over the 1-D index, as CuTe's predicate tensor).
///
/// ```
/// use layout_core::{algorithm::copy_if, layout, Tensor};
/// let src = [1i32; 8];
/// let mut dst = [0i32; 8];
/// let s = Tensor::new(&src[..], layout!((4,2):(1,4))).unwrap();
/// let mut d = Tensor::new(&mut dst[..], layout!((4,2):(1,4))).unwrap();
/// // Only the first 3 rows: a partial tile.
/// copy_if(|i| i % 4 < 3, &s, &mut d).unwrap();
/// assert_eq!(dst, [1, 1, 1, 0, 1, 1, 1, 0]);
/// ```
///
/// # Errors
///
/// When the sizes differ.
#[inline(always)]
pub fn copy_if<E1, S1, D1, E2, S2, D2>(
    pred: impl FnMut(usize) -> bool,
    src: &Tensor<E1, Layout<S1, D1>>,
    dst: &mut Tensor<E2, Layout<S2, D2>>,
) -> Result<(), LayoutError>
where
    E1: Engine,
    E2: EngineMut<Elem = E1::Elem>,
    E1::Elem: Copy,
    S1: Congruent<D1>,
    D1: IntTuple,
    S2: Congruent<D2>,
    D2: IntTuple,
{
    copy_where(false, pred, src, dst)
}

/// CuTe's `fill(tensor, v)`: every element of the tensor set to `v`.
///
/// ```
/// use layout_core::{algorithm::fill, layout, Tensor};
/// let mut data = [0u8; 8];
/// let mut t = Tensor::new(&mut data[..], layout!((2,2):(1,4))).unwrap();
/// fill(&mut t, 7);
/// assert_eq!(data, [7, 7, 0, 0, 7, 7, 0, 0]);
/// ```
#[inline(always)]
pub fn fill<E: EngineMut, S: Congruent<D>, D: IntTuple>(t: &mut Tensor<E, Layout<S, D>>, v: E::Elem)
where
    E::Elem: Copy,
{
    let (o, l) = (t.data_offset(), t.layout());
    let data = window_mut(t.storage_mut(), o, &l);
    for_each_index(&l, |i| data[l.call(i)] = v);
}

/// CuTe's `axpby(a, x, b, y)`: `y(i) = a * x(i) + b * y(i)`.
///
/// ```
/// use layout_core::{algorithm::axpby, layout, Tensor};
/// let x = [1.0f32, 2.0, 3.0, 4.0];
/// let mut y = [1.0f32; 4];
/// let tx = Tensor::new(&x[..], layout!(4:1)).unwrap();
/// let mut ty = Tensor::new(&mut y[..], layout!(4:1)).unwrap();
/// axpby(2.0, &tx, 0.5, &mut ty).unwrap();
/// assert_eq!(y, [2.5, 4.5, 6.5, 8.5]);
/// ```
///
/// # Errors
///
/// When the sizes differ.
#[inline(always)]
pub fn axpby<T, E1, S1, D1, E2, S2, D2>(
    a: T,
    x: &Tensor<E1, Layout<S1, D1>>,
    b: T,
    y: &mut Tensor<E2, Layout<S2, D2>>,
) -> Result<(), LayoutError>
where
    T: Copy + core::ops::Mul<Output = T> + core::ops::Add<Output = T>,
    E1: Engine<Elem = T>,
    E2: EngineMut<Elem = T>,
    S1: Congruent<D1>,
    D1: IntTuple,
    S2: Congruent<D2>,
    D2: IntTuple,
{
    let (x_layout, y_layout) = (x.layout(), y.layout());
    let (_, xl, yl) = windows("axpby", x, y)?;
    for_each_index2(&y_layout, &x_layout, |i| {
        let k = y_layout.call(i);
        yl[k] = a * xl[x_layout.call(i)] + b * yl[k];
    });
    Ok(())
}

/// CuTe's `gemm(a, b, c)` on rank-2 tensors: `c(m,n) += a(m,k) * b(n,k)`
/// (A is M x K, B is N x K, C is M x N, as CuTe's TN convention).
///
/// ```
/// use layout_core::{algorithm::gemm, layout, Tensor};
/// let a = [1.0f32, 2.0, 3.0, 4.0]; // (2,2) column-major: [[1,3],[2,4]]
/// let b = [1.0f32, 0.0, 0.0, 1.0]; // the identity
/// let mut c = [0.0f32; 4];
/// let ta = Tensor::new(&a[..], layout!((2,2):(1,2))).unwrap();
/// let tb = Tensor::new(&b[..], layout!((2,2):(1,2))).unwrap();
/// let mut tc = Tensor::new(&mut c[..], layout!((2,2):(1,2))).unwrap();
/// gemm(&ta, &tb, &mut tc).unwrap();
/// assert_eq!(c, a);
/// ```
///
/// # Errors
///
/// When the extents disagree (A's M and C's M, B's N and C's N, A's K and B's K).
#[inline(always)]
pub fn gemm<T, EA, SA, DA, EB, SB, DB, EC, SC, DC>(
    a: &Tensor<EA, Layout<SA, DA>>,
    b: &Tensor<EB, Layout<SB, DB>>,
    c: &mut Tensor<EC, Layout<SC, DC>>,
) -> Result<(), LayoutError>
where
    T: Copy + core::ops::Mul<Output = T> + core::ops::Add<Output = T>,
    EA: Engine<Elem = T>,
    EB: Engine<Elem = T>,
    EC: EngineMut<Elem = T>,
    SA: Congruent<DA> + crate::print::Rank2,
    DA: IntTuple,
    SB: Congruent<DB> + crate::print::Rank2,
    DB: IntTuple,
    SC: Congruent<DC> + crate::print::Rank2,
    DC: IntTuple,
{
    let (sa, sb, sc) = (a.layout().shape(), b.layout().shape(), c.layout().shape());
    let (am, ak) = (sa.mode_size(0), sa.mode_size(1));
    let (bn, bk) = (sb.mode_size(0), sb.mode_size(1));
    let (cm, cn) = (sc.mode_size(0), sc.mode_size(1));
    if am != cm || bn != cn || ak != bk {
        return Err(sizes_differ("gemm", am * ak, bn * bk));
    }
    let (a_l, b_l, c_l) = (a.layout(), b.layout(), c.layout());
    let al = window(a.storage(), a.data_offset(), &a_l);
    let bl = window(b.storage(), b.data_offset(), &b_l);
    let co = c.data_offset();
    let cl = window_mut(c.storage_mut(), co, &c_l);
    // The innermost loop runs along C's smaller stride (for a static C this
    // is decided at compile time), so that it walks contiguous elements.
    let n_inner = cm > 1 && cn > 1 && c_l.call(cm) < c_l.call(1);
    for k in 0..ak {
        if n_inner {
            for m in 0..cm {
                let av = al[a_l.call(m + am * k)];
                for n in 0..cn {
                    let ci = c_l.call(m + cm * n);
                    cl[ci] = cl[ci] + av * bl[b_l.call(n + bn * k)];
                }
            }
        } else {
            for n in 0..cn {
                let bv = bl[b_l.call(n + bn * k)];
                for m in 0..cm {
                    let ci = c_l.call(m + cm * n);
                    cl[ci] = cl[ci] + al[a_l.call(m + am * k)] * bv;
                }
            }
        }
    }
    Ok(())
}
