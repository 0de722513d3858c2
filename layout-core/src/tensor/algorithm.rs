//! Whole-tensor operations (CuTe's `copy`, `copy_if`, `fill`, `clear`,
//! `axpby`, `gemm`): element `i` of one tensor goes with element `i` of the
//! other, `i` running over the 1-D (colexicographic) index, so the two
//! tensors may have any layouts of the same size. Sizes are checked once,
//! before the loop; each access is a layout offset into a slice (bounds
//! checked by the slice, which the compiler drops where the layout is
//! static and the range visible).

use crate::error::{LayoutError, Refusal};
use crate::layout::compact::TypedSize;
use crate::layout::ops::Rank2;
use crate::layout::{Congruent, Layout};
use crate::tensor::{Engine, EngineMut, IdentityShape, Tensor, Within};
use crate::typelevel::check::{Comparable, MayEqual, Refuse, SizesOr, TwoSizes};
use crate::typelevel::tuple::IntTuple;

/// The static sizes of two shapes agree: `copy`, `copy_if` and `axpby`
/// pair element `i` of one tensor with element `i` of the other. Decided by
/// the type checker where both sizes are static; a run-time size agrees
/// with any here, and the operation compares the values (`Err`).
///
/// ```
/// use layout_core::{layout, tensor::algorithm::copy, tensor::fragment::Fragment};
/// let a = Fragment::<f32, _>::new(layout!((4,2)));
/// let mut b = Fragment::<f32, _>::new(layout!((2,4)));
/// assert_eq!(b.layout().to_string(), "(_2,_4):(_1,_2)");
/// copy(&a.view(), &mut b.view_mut()).unwrap(); // 8 elements each
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{layout, tensor::algorithm::copy, tensor::fragment::Fragment};
/// let a = Fragment::<f32, _>::new(layout!((4,2)));
/// let mut b = Fragment::<f32, _>::new(layout!((4,4)));
/// // error: tensors of different sizes: _8 elements against _16 (shapes
/// // `(C<4>, C<2>)` and `(C<4>, C<4>)`)
/// copy(&a.view(), &mut b.view_mut()).unwrap();
/// ```
pub trait SameSize<Other> {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    type Checked: Copy;
}
impl<A: TypedSize, B: TypedSize> SameSize<B> for A
where
    A::Size: Comparable + MayEqual<B::Size>,
    B::Size: Comparable,
    <A::Size as MayEqual<B::Size>>::Out: SizesOr<Paired<A, B>>,
{
    type Checked = ();
}
/// The refusal of [`SameSize`]: tensors of shapes `A` and `B`.
#[doc(hidden)]
pub struct Paired<A, B>(core::marker::PhantomData<(A, B)>);
impl<A: TypedSize, B: TypedSize> TwoSizes for Paired<A, B> {
    type X = A::Size;
    type Y = B::Size;
}
impl<A, B, const X: usize, const Y: usize> Refuse<X, Y> for Paired<A, B> where
    (): SizesAgree<X, Y, A, B>
{
}
/// [`SameSize`]'s refusal, the trait its error names.
#[diagnostic::on_unimplemented(
    message = "tensors of different sizes: _{X} elements against _{Y}",
    label = "the two tensors' static sizes differ",
    note = "copy, copy_if and axpby pair element i of one tensor with element i of the other: the products of the two shapes must be equal"
)]
pub trait SizesAgree<const X: usize, const Y: usize, A, B> {}

/// `gemm`'s operands agree in one of M, N and K: A is M x K, B is N x K
/// and C is M x N. Decided by the type checker where both modes' sizes are
/// static; a run-time size is compared by `gemm` (`Err`).
///
/// ```compile_fail,E0277
/// use layout_core::{layout, tensor::algorithm::gemm, tensor::fragment::Fragment};
/// let a = Fragment::<f32, _>::new(layout!((4,2)));
/// let b = Fragment::<f32, _>::new(layout!((4,4)));
/// let mut c = Fragment::<f32, _>::new(layout!((4,4)));
/// // error: gemm: A's K mode has _2 entries and B's K mode _4
/// gemm(&a.view(), &b.view(), &mut c.view_mut()).unwrap();
/// ```
macro_rules! gemm_modes {
    ($(#[$doc:meta])* $name:ident, $agree:ident, $refusal:ident, $what:literal, $mine:ident, $other:ident) => {
        $(#[$doc])*
        pub trait $name<Other> {}
        // One impl over every type (not one per tuple), so that a refusal
        // lists no impls.
        impl<X: Rank2, Y: Rank2> $name<Y> for X
        where
            X::$mine: TypedSize,
            Y::$other: TypedSize,
            <X::$mine as TypedSize>::Size: Comparable + MayEqual<<Y::$other as TypedSize>::Size>,
            <Y::$other as TypedSize>::Size: Comparable,
            <<X::$mine as TypedSize>::Size as MayEqual<<Y::$other as TypedSize>::Size>>::Out:
                SizesOr<$refusal<X, Y>>,
        {
        }
        #[doc = concat!("The refusal of [`", stringify!($name), "`]: operands of shapes `X` and `Y`.")]
        #[doc(hidden)]
        pub struct $refusal<X, Y>(core::marker::PhantomData<(X, Y)>);
        impl<X: Rank2, Y: Rank2> TwoSizes for $refusal<X, Y>
        where
            X::$mine: TypedSize,
            Y::$other: TypedSize,
        {
            type X = <X::$mine as TypedSize>::Size;
            type Y = <Y::$other as TypedSize>::Size;
        }
        impl<X, Y, const SX: usize, const SY: usize> Refuse<SX, SY> for $refusal<X, Y> where
            (): $agree<SX, SY, X, Y>
        {
        }
        #[doc = concat!("[`", stringify!($name), "`]'s refusal, the trait its error names.")]
        #[diagnostic::on_unimplemented(
            message = $what,
            label = "the operands' static mode sizes differ",
            note = "gemm takes A as M x K, B as N x K and C as M x N"
        )]
        pub trait $agree<const SX: usize, const SY: usize, X, Y> {}
    };
}
gemm_modes!(
    /// A's and C's M modes have one size.
    GemmM, GemmMAgree, GemmMRefused, "gemm: A's M mode has _{SX} rows and C's M mode _{SY}", M0, M0
);
gemm_modes!(
    /// B's and C's N modes have one size.
    GemmN, GemmNAgree, GemmNRefused, "gemm: B's N mode has _{SX} columns and C's N mode _{SY}", M0, M1
);
gemm_modes!(
    /// A's and B's K modes have one size.
    GemmK, GemmKAgree, GemmKRefused, "gemm: A's K mode has _{SX} entries and B's K mode _{SY}", M1, M1
);

/// `gemm`'s three static checks ([`GemmM`], [`GemmN`], [`GemmK`]) of A's
/// shape `Self` against B's and C's, as one bound whose `Checked` type
/// `gemm`'s where-clause reads.
pub trait GemmModes<B, C> {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    type Checked: Copy;
}
impl<A: GemmM<C> + GemmK<B>, B: GemmN<C>, C> GemmModes<B, C> for A {
    type Checked = ();
}

fn sizes_differ(
    op: &'static str,
    a_name: &'static str,
    a: usize,
    b_name: &'static str,
    b: usize,
) -> LayoutError {
    LayoutError::Refused {
        op,
        why: Refusal::Differ {
            a_name,
            a,
            b_name,
            b,
        },
    }
}

/// The elements a tensor reaches, `storage[offset .. offset + cosize]`,
/// taken once before the loop: `Some` of exactly that window when the
/// storage holds it (indices into it are below the cosize, which the
/// compiler sees for static layouts: no check per element then), `None`
/// when a tile reaches past the storage (or its cosize overflows `usize`).
#[inline(always)]
fn window<'a, T, S: Congruent<D>, D: IntTuple>(
    data: &'a [T],
    off: usize,
    l: &Layout<S, D>,
) -> Option<&'a [T]> {
    // `len - cosize` does not depend on the offset (a loop over tiles
    // computes it once): one compare per call.
    let c = l.checked_cosize()?;
    if off > data.len().checked_sub(c)? {
        return None;
    }
    data.get(off..off + c)
}
#[inline(always)]
fn window_mut<'a, T, S: Congruent<D>, D: IntTuple>(
    data: &'a mut [T],
    off: usize,
    l: &Layout<S, D>,
) -> Option<&'a mut [T]> {
    let c = l.checked_cosize()?;
    if off > data.len().checked_sub(c)? {
        return None;
    }
    data.get_mut(off..off + c)
}

/// The refusal of a tensor whose window is partial (its largest offset
/// lies past the storage): values the check had at hand, made inline (a
/// call, or a computation, on this path costs the SGEMM micro-kernel its
/// registers: measured).
#[inline(always)]
fn reaches(op: &'static str, tensor: &'static str, (off, len): (usize, usize)) -> LayoutError {
    LayoutError::PastStorage {
        op,
        tensor,
        offset: off,
        len,
        element: None,
    }
}

/// A walk over the 1-D indices `0..size` of the layouts an algorithm visits
/// together, as rows: element `q` of row `o` is index `o * outer + q * inner`.
///
/// Rows are where the checks go. With `m` the extent of mode 0, a layout's
/// offset of index `i + m * j` (`i < m`) is `call(i) + call(m * j)`, so a row
/// is a window of the tensor's window, taken once (one check per row); its
/// elements are offsets into that row. For a mode of static shape and
/// stride, those are constants below the row's constant length, and the
/// compiler drops their checks: the inner loop carries none.
///
/// The rows run down mode 0 (column-major), or along mode 1 when the layout
/// is rank 2 and its mode 1 has the smaller stride (row-major): the inner
/// loop then walks consecutive elements, which the compiler vectorizes. A
/// static layout decides this at compile time.
#[derive(Clone, Copy)]
struct Rows {
    count: usize,
    len: usize,
    outer: usize,
    inner: usize,
    /// The extent of mode 0, where every layout of the walk splits.
    m: usize,
}

impl Rows {
    /// The rows of `l`; `None` when it has no element.
    #[inline(always)]
    fn of<S: Congruent<D>, D: IntTuple>(l: &Layout<S, D>) -> Option<Rows> {
        let sh = l.shape();
        let (m, n) = (sh.mode_size(0), sh.mode_size(1));
        if m == 0 || n == 0 {
            return None;
        }
        if S::RANK == 2 && m > 1 && n > 1 && l.call(m) < l.call(1) {
            return Some(Rows {
                count: m,
                len: n,
                outer: 1,
                inner: m,
                m,
            });
        }
        // Rank 2: mode 1's extent; otherwise the modes after 0 together.
        let count = if S::RANK == 2 { n } else { sh.size() / m };
        Some(Rows {
            count,
            len: m,
            outer: m,
            inner: 1,
            m,
        })
    }
    /// The rows of `a`, or of `b` when only `b` has static strides (an order
    /// fixed at compile time keeps one loop); `None` when `b` does not split
    /// at the same mode-0 extent, or there is no element.
    #[inline(always)]
    fn of2<S1: Congruent<D1>, D1: IntTuple, S2: Congruent<D2>, D2: IntTuple>(
        a: &Layout<S1, D1>,
        b: &Layout<S2, D2>,
    ) -> Option<Rows> {
        let r = if !D1::ALL_STATIC && D2::ALL_STATIC {
            Rows::of(b)?
        } else {
            Rows::of(a)?
        };
        (a.shape().mode_size(0) == r.m && b.shape().mode_size(0) == r.m).then_some(r)
    }
    /// The 1-D index of element `q` of row `o`.
    #[inline(always)]
    fn index(&self, o: usize, q: usize) -> usize {
        o * self.outer + q * self.inner
    }
    /// The offset of row `o`'s first element.
    #[inline(always)]
    fn base<S: Congruent<D>, D: IntTuple>(&self, l: &Layout<S, D>, o: usize) -> usize {
        l.call(o * self.outer)
    }
    /// The offset of element `q` from its row's first.
    #[inline(always)]
    fn at<S: Congruent<D>, D: IntTuple>(&self, l: &Layout<S, D>, q: usize) -> usize {
        l.call(q * self.inner)
    }
    /// The elements a row spans in the storage: its last element's offset
    /// from its first (the largest, as strides are not negative), plus one.
    #[inline(always)]
    fn span<S: Congruent<D>, D: IntTuple>(&self, l: &Layout<S, D>) -> usize {
        l.call((self.len - 1) * self.inner) + 1
    }
}

/// Row `o` of a window: its elements, checked once (a single row is the
/// window itself).
#[inline(always)]
fn row<'a, T, S: Congruent<D>, D: IntTuple>(
    w: &'a [T],
    r: &Rows,
    l: &Layout<S, D>,
    o: usize,
) -> &'a [T] {
    if r.count == 1 {
        return w;
    }
    &w[r.base(l, o)..][..r.span(l)]
}
#[inline(always)]
fn row_mut<'a, T, S: Congruent<D>, D: IntTuple>(
    w: &'a mut [T],
    r: &Rows,
    l: &Layout<S, D>,
    o: usize,
) -> &'a mut [T] {
    if r.count == 1 {
        return w;
    }
    &mut w[r.base(l, o)..][..r.span(l)]
}

/// `f(i, &x[i], &mut y[i])` for every 1-D index `i` of two layouts of the
/// same size over their windows, row by row ([`Rows::of2`]); index by index
/// when the layouts split differently.
#[inline(always)]
fn zip<T, U, S1: Congruent<D1>, D1: IntTuple, S2: Congruent<D2>, D2: IntTuple>(
    (xl, x): (&[T], &Layout<S1, D1>),
    (yl, y): (&mut [U], &Layout<S2, D2>),
    mut f: impl FnMut(usize, &T, &mut U),
) {
    match Rows::of2(y, x) {
        Some(r) => {
            for o in 0..r.count {
                let (xr, yr) = (row(xl, &r, x, o), row_mut(yl, &r, y, o));
                for q in 0..r.len {
                    f(r.index(o, q), &xr[r.at(x, q)], &mut yr[r.at(y, q)]);
                }
            }
        }
        None => {
            for i in 0..x.size() {
                f(i, &xl[x.call(i)], &mut yl[y.call(i)]);
            }
        }
    }
}

/// A source and a destination of the same size, and their windows.
#[allow(clippy::type_complexity)]
#[inline(always)]
fn pair<'a, T, E1, S1, D1, E2, S2, D2>(
    op: &'static str,
    (a_name, b_name): (&'static str, &'static str),
    src: &'a Tensor<E1, Layout<S1, D1>>,
    dst: &'a mut Tensor<E2, Layout<S2, D2>>,
) -> Result<(usize, Option<&'a [T]>, Option<&'a mut [T]>), LayoutError>
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
        return Err(sizes_differ(op, a_name, n, b_name, dst.size()));
    }
    let (d_layout, do_) = (dst.layout(), dst.data_offset());
    let sw = window(src.storage(), src.data_offset(), &src.layout());
    Ok((n, sw, window_mut(dst.storage_mut(), do_, &d_layout)))
}

/// A tensor's first offset and its storage's length (for refusals).
#[inline(always)]
fn at<E: Engine, S: Congruent<D>, D: IntTuple>(t: &Tensor<E, Layout<S, D>>) -> (usize, usize) {
    (t.data_offset(), t.storage().len())
}

/// CuTe's `copy(src, dst)`: `dst(i) = src(i)` for every 1-D index `i`.
///
/// ```
/// use layout_core::{tensor::algorithm::copy, layout, Tensor};
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
/// When the sizes differ, or a tensor reaches past its storage (a tile past
/// its matrix: predicate it with [`copy_if`]); then nothing is written.
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
    S1: SameSize<S2>,
    // Implied by the trait, and stated so that rustc reports a refusal
    // once, while it normalises this projection, at the call.
    <S1 as SameSize<S2>>::Checked: Copy,
{
    copy_as("copy", src, dst)
}

/// [`copy`], its errors naming `op`.
#[inline(always)]
fn copy_as<E1, S1, D1, E2, S2, D2>(
    op: &'static str,
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
    let (s_at, d_at) = (at(src), at(dst));
    let (n, sw, dw) = pair(
        op,
        ("the source's size", "the destination's size"),
        src,
        dst,
    )?;
    // One exit for both refusals: a distinct error built at each check
    // splits the code around the loop (measured: the SGEMM micro-kernel's
    // accumulators leave the registers).
    let src_ok = sw.is_some();
    let (Some(sl), Some(dl)) = (sw, dw) else {
        return Err(if src_ok {
            reaches(op, "destination", d_at)
        } else {
            reaches(op, "source", s_at)
        });
    };
    // Static strides decide contiguity at compile time (no run-time branch
    // between a block copy and a loop, which would split the code after).
    if D1::ALL_STATIC
        && D2::ALL_STATIC
        && s_layout.is_contiguous()
        && d_layout.is_contiguous()
        && sl.len() >= n
        && dl.len() >= n
    {
        // Both run through consecutive elements: one block copy.
        dl[..n].copy_from_slice(&sl[..n]);
    } else {
        zip((sl, &s_layout), (dl, &d_layout), |_, s, d| *d = *s);
    }
    Ok(())
}

/// A predicate over a tensor's 1-D index (CuTe's predicate tensor): a
/// closure `FnMut(usize) -> bool`, or a tensor or fragment of `bool` whose
/// element `i` says whether element `i` is copied.
pub trait Predicate {
    /// Whether element `i` is kept.
    fn keep(&mut self, i: usize) -> bool;
    /// The number of elements, when the predicate is a tensor (its size must
    /// equal the tensors'); `None` for a closure.
    fn size(&self) -> Option<usize> {
        None
    }
    /// Whether every element is kept, when that is known before the loop (a
    /// tile of an identity tensor wholly inside its bound): `copy_if` then
    /// copies without asking element by element. `false` when not known.
    fn keeps_all(&self) -> bool {
        false
    }
}
impl<S: IdentityShape, LS: Congruent<LD>, LD: IntTuple> Predicate for Within<S, Layout<LS, LD>> {
    #[inline(always)]
    fn keep(&mut self, i: usize) -> bool {
        self.tile.is_within(i, self.bound)
    }
    fn size(&self) -> Option<usize> {
        Some(self.tile.size())
    }
    /// Known when the predicate was made, or inherited from the tile it
    /// partitions (one check per tile, none per thread); otherwise the
    /// view's last coordinate decides, as in [`Tensor::within`].
    #[inline(always)]
    fn keeps_all(&self) -> bool {
        self.all || self.tile.all_within(self.bound)
    }
}
impl<F: FnMut(usize) -> bool> Predicate for F {
    #[inline(always)]
    fn keep(&mut self, i: usize) -> bool {
        self(i)
    }
}
impl<E: Engine<Elem = bool>, S: Congruent<D>, D: IntTuple> Predicate for &Tensor<E, Layout<S, D>> {
    #[inline(always)]
    fn keep(&mut self, i: usize) -> bool {
        self.get(i).copied().unwrap_or(false)
    }
    fn size(&self) -> Option<usize> {
        Some(Tensor::size(self))
    }
}
impl<S: Congruent<D>, D: IntTuple> Predicate
    for &crate::tensor::fragment::Fragment<bool, Layout<S, D>>
where
    Layout<S, D>: crate::tensor::fragment::StaticCosize,
{
    #[inline(always)]
    fn keep(&mut self, i: usize) -> bool {
        self.view().get(i).copied().unwrap_or(false)
    }
    fn size(&self) -> Option<usize> {
        Some(self.layout().size())
    }
}

/// CuTe's `copy_if(pred, src, dst)`: `dst(i) = src(i)` where `pred` keeps
/// `i` (a [`Predicate`]: a closure over the 1-D index, or a `bool` tensor as
/// CuTe's). Elements the predicate drops are not read, so a tile that
/// reaches past its matrix copies exactly the elements inside when the
/// predicate says which they are (an identity tensor tiled the same way).
///
/// ```
/// use layout_core::{tensor::algorithm::copy_if, layout, Tensor};
/// let src = [1i32; 8];
/// let mut dst = [0i32; 8];
/// let s = Tensor::new(&src[..], layout!((4,2):(1,4))).unwrap();
/// let mut d = Tensor::new(&mut dst[..], layout!((4,2):(1,4))).unwrap();
/// // Only the first 3 rows: a partial tile.
/// copy_if(|i| i % 4 < 3, &s, &mut d).unwrap();
/// assert_eq!(dst, [1, 1, 1, 0, 1, 1, 1, 0]);
/// ```
///
/// The bottom-edge tile of a 10 x 10 matrix reaches 2 rows past it:
///
/// ```
/// use layout_core::{tensor::algorithm::copy_if, layout, tensor::partition::local_tile, tensor::make_identity_tensor, Tensor, C};
/// let src: Vec<i32> = (0..100).collect();
/// let a = Tensor::new(&src[..], layout!((10,10):(10,1))).unwrap();
/// let tile = local_tile(a, (C::<4>, C::<4>), (2usize, 0usize)); // rows 8..12
/// let id = local_tile(make_identity_tensor((C::<10>, C::<10>)), (C::<4>, C::<4>), (2usize, 0usize));
/// let mut out = [-1i32; 16];
/// let mut o = Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap();
/// copy_if(|i| id.is_within(i, (10, 10)), &tile, &mut o).unwrap();
/// assert_eq!(out[..8], [80, 81, 82, 83, 90, 91, 92, 93]);
/// assert_eq!(out[8..], [-1; 8]); // rows 10 and 11: not in the matrix
/// ```
///
/// # Errors
///
/// When the sizes differ, or an element the predicate keeps lies past its
/// storage: a predicate known to keep every element (a [`Within`] of a
/// tile wholly inside) then writes nothing, as [`copy`]; another copies the
/// elements before it.
#[inline(always)]
pub fn copy_if<P, E1, S1, D1, E2, S2, D2>(
    mut pred: P,
    src: &Tensor<E1, Layout<S1, D1>>,
    dst: &mut Tensor<E2, Layout<S2, D2>>,
) -> Result<(), LayoutError>
where
    P: Predicate,
    E1: Engine,
    E2: EngineMut<Elem = E1::Elem>,
    E1::Elem: Copy,
    S1: Congruent<D1>,
    D1: IntTuple,
    S2: Congruent<D2>,
    D2: IntTuple,
    S1: SameSize<S2>,
    <S1 as SameSize<S2>>::Checked: Copy,
{
    if let Some(n) = pred.size() {
        if n != src.size() {
            return Err(sizes_differ(
                "copy_if",
                "the predicate's size",
                n,
                "the source's size",
                src.size(),
            ));
        }
    }
    // A predicate known to keep every element (a tile wholly inside its
    // matrix): `copy`'s code, with no per-element path beside it.
    if pred.keeps_all() {
        return copy_as("copy_if", src, dst);
    }
    let (s_layout, d_layout) = (src.layout(), dst.layout());
    let (s_at, d_at) = (at(src), at(dst));
    let (_, sw, dw) = pair(
        "copy_if",
        ("the source's size", "the destination's size"),
        src,
        dst,
    )?;
    if let (Some(sl), Some(dl)) = (sw, dw) {
        zip((sl, &s_layout), (dl, &d_layout), |i, s, d| {
            if pred.keep(i) {
                *d = *s;
            }
        });
        return Ok(());
    }
    // A tile past its storage: the kept elements must be inside it.
    let sl = src.storage().get(s_at.0..).unwrap_or(&[]);
    let dl = dst.storage_mut().get_mut(d_at.0..).unwrap_or(&mut []);
    let mut miss = None;
    for i in 0..s_layout.size() {
        if miss.is_none() && pred.keep(i) {
            let (so, do_) = (s_layout.call(i), d_layout.call(i));
            match (sl.get(so), dl.get_mut(do_)) {
                (Some(s), Some(d)) => *d = *s,
                (None, _) => miss = Some(("source", i, so, s_at)),
                (_, None) => miss = Some(("destination", i, do_, d_at)),
            }
        }
    }
    match miss {
        None => Ok(()),
        Some((t, i, k, (off, len))) => Err(LayoutError::PastStorage {
            op: "copy_if",
            tensor: t,
            offset: off,
            len,
            element: Some((i, off.saturating_add(k))),
        }),
    }
}

/// CuTe's `fill(tensor, v)`: every element of the tensor set to `v`.
///
/// ```
/// use layout_core::{tensor::algorithm::fill, layout, Tensor};
/// let mut data = [0u8; 8];
/// let mut t = Tensor::new(&mut data[..], layout!((2,2):(1,4))).unwrap();
/// fill(&mut t, 7).unwrap();
/// assert_eq!(data, [7, 7, 0, 0, 7, 7, 0, 0]);
/// ```
///
/// # Errors
///
/// When the tensor reaches past its storage (a tile past its matrix); then
/// nothing is written.
#[inline(always)]
pub fn fill<E: EngineMut, S: Congruent<D>, D: IntTuple>(
    t: &mut Tensor<E, Layout<S, D>>,
    v: E::Elem,
) -> Result<(), LayoutError>
where
    E::Elem: Copy,
{
    let (o, l) = (t.data_offset(), t.layout());
    let t_at = at(t);
    let Some(data) = window_mut(t.storage_mut(), o, &l) else {
        return Err(reaches("fill", "tensor", t_at));
    };
    if let Some(r) = Rows::of(&l) {
        for o in 0..r.count {
            let dr = row_mut(data, &r, &l, o);
            for q in 0..r.len {
                dr[r.at(&l, q)] = v;
            }
        }
    }
    Ok(())
}

/// CuTe's `axpby(a, x, b, y)`: `y(i) = a * x(i) + b * y(i)`.
///
/// ```
/// use layout_core::{tensor::algorithm::axpby, layout, Tensor};
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
/// When the sizes differ, or a tensor reaches past its storage (a tile past
/// its matrix); then nothing is written.
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
    S1: SameSize<S2>,
    <S1 as SameSize<S2>>::Checked: Copy,
{
    let (x_layout, y_layout) = (x.layout(), y.layout());
    let (x_at, y_at) = (at(x), at(y));
    let (_, xw, yw) = pair("axpby", ("x's size", "y's size"), x, y)?;
    // One exit for both refusals (see `copy`).
    let x_ok = xw.is_some();
    let (Some(xl), Some(yl)) = (xw, yw) else {
        return Err(if x_ok {
            reaches("axpby", "y", y_at)
        } else {
            reaches("axpby", "x", x_at)
        });
    };
    zip((xl, &x_layout), (yl, &y_layout), |_, x, y| {
        *y = a * *x + b * *y
    });
    Ok(())
}

/// The extents of a rank-2 tensor's two modes.
#[inline(always)]
fn extents<S: Congruent<D> + Rank2, D: IntTuple>(l: &Layout<S, D>) -> (usize, usize) {
    let s = l.shape();
    (s.mode_size(0), s.mode_size(1))
}

/// CuTe's `gemm(a, b, c)` on rank-2 tensors: `c(m,n) += a(m,k) * b(n,k)`
/// (A is M x K, B is N x K, C is M x N, as CuTe's TN convention).
///
/// ```
/// use layout_core::{tensor::algorithm::gemm, layout, Tensor};
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
/// When the extents disagree (A's M and C's M, B's N and C's N, A's K and
/// B's K), or a tensor reaches past its storage (a tile past its matrix);
/// then nothing is written.
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
    SA: Congruent<DA> + Rank2,
    DA: IntTuple,
    SB: Congruent<DB> + Rank2,
    DB: IntTuple,
    SC: Congruent<DC> + Rank2,
    DC: IntTuple,
    SA: GemmModes<SB, SC>,
    <SA as GemmModes<SB, SC>>::Checked: Copy,
{
    let (a_l, b_l, c_l) = (a.layout(), b.layout(), c.layout());
    let ((am, ak), (bn, bk), (cm, cn)) = (extents(&a_l), extents(&b_l), extents(&c_l));
    let differ = |a_name, x, b_name, y| Err(sizes_differ("gemm", a_name, x, b_name, y));
    if am != cm {
        return differ("A's M", am, "C's M", cm);
    }
    if bn != cn {
        return differ("B's N", bn, "C's N", cn);
    }
    if ak != bk {
        return differ("A's K", ak, "B's K", bk);
    }
    let (a_at, b_at, c_at) = (at(a), at(b), at(c));
    let aw = window(a.storage(), a.data_offset(), &a_l);
    let bw = window(b.storage(), b.data_offset(), &b_l);
    let co = c.data_offset();
    let cw = window_mut(c.storage_mut(), co, &c_l);
    // One exit for the three refusals (see `copy`).
    let (a_ok, b_ok) = (aw.is_some(), bw.is_some());
    let (Some(al), Some(bl), Some(cl)) = (aw, bw, cw) else {
        return Err(if !a_ok {
            reaches("gemm", "A", a_at)
        } else if !b_ok {
            reaches("gemm", "B", b_at)
        } else {
            reaches("gemm", "C", c_at)
        });
    };
    if am == 0 || bn == 0 || ak == 0 {
        return Ok(());
    }
    // Each k takes a column of A and of B (one check each), and C is
    // walked in rows along its smaller stride (for a static C this is
    // decided at compile time): the inner loop walks contiguous elements,
    // and indexes rows whose lengths are constants for static modes, so it
    // carries no check.
    // (`..n`, not `..=n - 1`: an inclusive range's index is a call.)
    let (a_span, b_span) = (a_l.call(am - 1) + 1, b_l.call(bn - 1) + 1);
    let n_inner = cm > 1 && cn > 1 && c_l.call(cm) < c_l.call(1);
    for k in 0..ak {
        let acol = &al[a_l.call(am * k)..][..a_span];
        let bcol = &bl[b_l.call(bn * k)..][..b_span];
        if n_inner {
            let c_span = c_l.call(cm * (cn - 1)) + 1;
            for m in 0..cm {
                let crow = &mut cl[c_l.call(m)..][..c_span];
                let av = acol[a_l.call(m)];
                for n in 0..cn {
                    let ci = c_l.call(cm * n);
                    crow[ci] = crow[ci] + av * bcol[b_l.call(n)];
                }
            }
        } else {
            let c_span = c_l.call(cm - 1) + 1;
            for n in 0..cn {
                let ccol = &mut cl[c_l.call(cm * n)..][..c_span];
                let bv = bcol[b_l.call(n)];
                for m in 0..cm {
                    let ci = c_l.call(m);
                    ccol[ci] = ccol[ci] + acol[a_l.call(m)] * bv;
                }
            }
        }
    }
    Ok(())
}
