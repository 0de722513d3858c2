//! Compact strides: CuTe's `LayoutLeft` (column-major, the default) and
//! `LayoutRight` (row-major), on nested shapes too.
//!
//! The stride of a leaf is the product of the leaves before it (after it, for
//! `LayoutRight`); a static size-1 leaf gets the static stride `_0`, and a
//! stride stays static as long as every shape it multiplies is static, as in
//! CuTe: `make_layout((3,4))` with dynamic leaves is `(3,4):(_1,3)`.

use crate::layout::{Congruent, Layout};
use crate::typelevel::int::{Int, IntMul, StaticInt, StaticOneTag, C, S};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil, Tuple};
use crate::LayoutError;
use typenum::{B0, B1};

/// Compact strides of a shape, given the stride of its first element.
#[diagnostic::on_unimplemented(
    message = "no compact stride for shape `{Self}` starting at `{Cur}`"
)]
pub trait Compact<Cur: Int>: IntTuple {
    /// Column-major (LayoutLeft) strides.
    type Left: IntTuple;
    /// The product after the shape, column-major.
    type LeftNext: Int;
    /// Row-major (LayoutRight) strides.
    type Right: IntTuple;
    /// The product after the shape, row-major.
    type RightNext: Int;
    /// Column-major strides starting at `cur`, and the next stride; `None`
    /// when a run-time product does not fit `usize` (never for static
    /// leaves: the check folds away).
    fn left(self, cur: Cur) -> Option<(Self::Left, Self::LeftNext)>;
    /// Row-major strides starting at `cur`, and the next stride; `None` on
    /// overflow, as [`Compact::left`].
    fn right(self, cur: Cur) -> Option<(Self::Right, Self::RightNext)>;
}

impl<Cur: Int + IntMul<usize>> Compact<Cur> for usize {
    type Left = Cur;
    type LeftNext = Cur::Output;
    type Right = Cur;
    type RightNext = Cur::Output;
    #[inline(always)]
    fn left(self, cur: Cur) -> Option<(Cur, Cur::Output)> {
        Some((cur, cur.checked_mul(self)?))
    }
    #[inline(always)]
    fn right(self, cur: Cur) -> Option<(Cur, Cur::Output)> {
        Some((cur, cur.checked_mul(self)?))
    }
}

/// The static-leaf case, chosen by whether the leaf is 1 (`B1`) or not (`B0`).
#[doc(hidden)]
pub trait CompactStatic<A, Cur> {
    type Stride: IntTuple;
    type Next: Int;
    fn step(a: A, cur: Cur) -> Option<(Self::Stride, Self::Next)>;
}
impl<A, Cur: Int> CompactStatic<A, Cur> for B1 {
    type Stride = C<0>;
    type Next = Cur;
    #[inline(always)]
    fn step(_a: A, cur: Cur) -> Option<(C<0>, Cur)> {
        Some((C, cur))
    }
}
impl<A: Int, Cur: IntMul<A>> CompactStatic<A, Cur> for B0 {
    type Stride = Cur;
    type Next = Cur::Output;
    #[inline(always)]
    fn step(a: A, cur: Cur) -> Option<(Cur, Cur::Output)> {
        Some((cur, cur.checked_mul(a)?))
    }
}

macro_rules! static_compact {
    ($t:ty; $($g:tt)*) => {
        impl<Cur: Int, $($g)*> Compact<Cur> for $t
        where
            $t: StaticInt,
            <$t as StaticInt>::U: StaticOneTag,
            <<$t as StaticInt>::U as StaticOneTag>::IsOne: CompactStatic<$t, Cur>,
        {
            type Left = <<<$t as StaticInt>::U as StaticOneTag>::IsOne as CompactStatic<$t, Cur>>::Stride;
            type LeftNext = <<<$t as StaticInt>::U as StaticOneTag>::IsOne as CompactStatic<$t, Cur>>::Next;
            type Right = Self::Left;
            type RightNext = Self::LeftNext;
            #[inline(always)]
            fn left(self, cur: Cur) -> Option<(Self::Left, Self::LeftNext)> {
                <<<$t as StaticInt>::U as StaticOneTag>::IsOne as CompactStatic<$t, Cur>>::step(self, cur)
            }
            #[inline(always)]
            fn right(self, cur: Cur) -> Option<(Self::Right, Self::RightNext)> {
                self.left(cur)
            }
        }
    };
}
static_compact!(C<N>; const N: usize);
static_compact!(S<U>; U: typenum::Unsigned + 'static);

/// The list-level half of [`Compact`].
#[doc(hidden)]
pub trait CompactList<Cur: Int> {
    type Left: List;
    type LeftNext: Int;
    type Right: List;
    type RightNext: Int;
    fn left(self, cur: Cur) -> Option<(Self::Left, Self::LeftNext)>;
    fn right(self, cur: Cur) -> Option<(Self::Right, Self::RightNext)>;
}
impl<Cur: Int> CompactList<Cur> for Nil {
    type Left = Nil;
    type LeftNext = Cur;
    type Right = Nil;
    type RightNext = Cur;
    #[inline(always)]
    fn left(self, cur: Cur) -> Option<(Nil, Cur)> {
        Some((Nil, cur))
    }
    #[inline(always)]
    fn right(self, cur: Cur) -> Option<(Nil, Cur)> {
        Some((Nil, cur))
    }
}
impl<Cur: Int, H: Compact<Cur>, T> CompactList<Cur> for Cons<H, T>
where
    T: CompactList<<H as Compact<Cur>>::LeftNext>,
    T: CompactList<Cur>,
    H: Compact<<T as CompactList<Cur>>::RightNext>,
    Cons<<H as Compact<Cur>>::Left, <T as CompactList<<H as Compact<Cur>>::LeftNext>>::Left>: List,
    Cons<<H as Compact<<T as CompactList<Cur>>::RightNext>>::Right, <T as CompactList<Cur>>::Right>:
        List,
{
    type Left =
        Cons<<H as Compact<Cur>>::Left, <T as CompactList<<H as Compact<Cur>>::LeftNext>>::Left>;
    type LeftNext = <T as CompactList<<H as Compact<Cur>>::LeftNext>>::LeftNext;
    type Right = Cons<
        <H as Compact<<T as CompactList<Cur>>::RightNext>>::Right,
        <T as CompactList<Cur>>::Right,
    >;
    type RightNext = <H as Compact<<T as CompactList<Cur>>::RightNext>>::RightNext;
    #[inline(always)]
    fn left(self, cur: Cur) -> Option<(Self::Left, Self::LeftNext)> {
        let (h, next) = Compact::<Cur>::left(self.0, cur)?;
        let (t, next) = CompactList::<<H as Compact<Cur>>::LeftNext>::left(self.1, next)?;
        Some((Cons(h, t), next))
    }
    #[inline(always)]
    fn right(self, cur: Cur) -> Option<(Self::Right, Self::RightNext)> {
        let (t, next) = CompactList::<Cur>::right(self.1, cur)?;
        let (h, next) = Compact::right(self.0, next)?;
        Some((Cons(h, t), next))
    }
}
impl<Cur: Int, T: Tuple + IntTuple> Compact<Cur> for T
where
    T::List: CompactList<Cur>,
    <T::List as CompactList<Cur>>::Left: IntoTuple,
    <T::List as CompactList<Cur>>::Right: IntoTuple,
    <<T::List as CompactList<Cur>>::Left as IntoTuple>::Tuple: IntTuple,
    <<T::List as CompactList<Cur>>::Right as IntoTuple>::Tuple: IntTuple,
{
    type Left = <<T::List as CompactList<Cur>>::Left as IntoTuple>::Tuple;
    type LeftNext = <T::List as CompactList<Cur>>::LeftNext;
    type Right = <<T::List as CompactList<Cur>>::Right as IntoTuple>::Tuple;
    type RightNext = <T::List as CompactList<Cur>>::RightNext;
    #[inline(always)]
    fn left(self, cur: Cur) -> Option<(Self::Left, Self::LeftNext)> {
        let (l, n) = self.into_list().left(cur)?;
        Some((l.into_tuple(), n))
    }
    #[inline(always)]
    fn right(self, cur: Cur) -> Option<(Self::Right, Self::RightNext)> {
        let (r, n) = self.into_list().right(cur)?;
        Some((r.into_tuple(), n))
    }
}

/// The error of the compact-stride functions: the run-time extents multiply
/// past `usize`. Cold and out of line, so the check costs a compare.
// On the GPU (nvptx64) a panic traps (immediate abort) and nothing can
// print its message; a function of this crate kept out of line would be
// an external call that the kernel's PTX cannot resolve (layout-ptx
// compiles the kernel's crate only). So there it is inline, with a
// constant message (formatting arguments would be built in local memory).
#[cold]
#[cfg_attr(not(target_arch = "nvptx64"), inline(never))]
#[cfg_attr(target_arch = "nvptx64", inline(always))]
#[track_caller]
pub(crate) fn extents_overflow(op: &'static str) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = op;
        panic!("the shape's extents multiply past usize")
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("{op}: the shape's extents multiply past usize")
}

/// CuTe's `compact_col_major(shape)`: LayoutLeft strides.
///
/// ```
/// use layout_core::{compact_col_major, to_cute_string};
/// assert_eq!(to_cute_string(&compact_col_major((3usize, 4usize))), "(_1,3)");
/// ```
///
/// # Panics
///
/// When run-time extents multiply past `usize` ([`try_compact_col_major`]
/// returns the error instead); never for a static shape.
#[inline(always)]
#[track_caller]
pub fn compact_col_major<Sh: Compact<C<1>>>(s: Sh) -> Sh::Left {
    match try_compact_col_major(s) {
        Ok(v) => v,
        // Called here, not in a closure: the panic names the caller.
        Err(_) => extents_overflow("compact_col_major"),
    }
}

/// [`compact_col_major`], or [`LayoutError::Overflow`] when the product of
/// the extents (the stride after the last mode) does not fit `usize`.
///
/// ```
/// use layout_core::{try_compact_col_major, to_cute_string};
/// let d = try_compact_col_major((3usize, 4usize)).unwrap();
/// assert_eq!(to_cute_string(&d), "(_1,3)");
/// assert!(try_compact_col_major((1usize << 40, 1usize << 40)).is_err());
/// ```
#[inline(always)]
pub fn try_compact_col_major<Sh: Compact<C<1>>>(s: Sh) -> Result<Sh::Left, LayoutError> {
    s.left(C).map(|(d, _)| d).ok_or(LayoutError::Overflow {
        op: "compact_col_major",
    })
}

/// CuTe's `compact_row_major(shape)`: LayoutRight strides.
///
/// ```
/// use layout_core::{compact_row_major, to_cute_string, C};
/// assert_eq!(to_cute_string(&compact_row_major(((C::<5>, C::<3>), C::<4>))), "((_12,_4),_1)");
/// ```
///
/// # Panics
///
/// When run-time extents multiply past `usize` ([`try_compact_row_major`]
/// returns the error instead); never for a static shape.
#[inline(always)]
#[track_caller]
pub fn compact_row_major<Sh: Compact<C<1>>>(s: Sh) -> Sh::Right {
    match try_compact_row_major(s) {
        Ok(v) => v,
        // Called here, not in a closure: the panic names the caller.
        Err(_) => extents_overflow("compact_row_major"),
    }
}

/// [`compact_row_major`], or [`LayoutError::Overflow`] when the product of
/// the extents does not fit `usize`.
///
/// ```
/// use layout_core::{try_compact_row_major, to_cute_string};
/// let d = try_compact_row_major((3usize, 4usize)).unwrap();
/// assert_eq!(to_cute_string(&d), "(4,_1)");
/// assert!(try_compact_row_major((1usize << 40, 1usize << 40)).is_err());
/// ```
#[inline(always)]
pub fn try_compact_row_major<Sh: Compact<C<1>>>(s: Sh) -> Result<Sh::Right, LayoutError> {
    s.right(C).map(|(d, _)| d).ok_or(LayoutError::Overflow {
        op: "compact_row_major",
    })
}

/// CuTe's `make_layout(shape)`: LayoutLeft (column-major) strides.
///
/// ```
/// use layout_core::{make_layout_left, C};
/// assert_eq!(make_layout_left((C::<3>, C::<4>)).to_string(), "(_3,_4):(_1,_3)");
/// assert_eq!(make_layout_left((C::<2>, (C::<2>, C::<2>))).to_string(), "(_2,(_2,_2)):(_1,(_2,_4))");
/// ```
///
/// # Panics
///
/// When run-time extents multiply past `usize` ([`try_make_layout_left`]
/// returns the error instead); never for a static shape.
#[inline(always)]
#[track_caller]
pub fn make_layout_left<Sh>(s: Sh) -> Layout<Sh, Sh::Left>
where
    Sh: Compact<C<1>> + Congruent<Sh::Left>,
{
    match try_make_layout_left(s) {
        Ok(v) => v,
        // Called here, not in a closure: the panic names the caller.
        Err(_) => extents_overflow("make_layout_left"),
    }
}

/// [`make_layout_left`], or [`LayoutError::Overflow`] when the product of
/// the extents does not fit `usize` (a layout whose size does not fit is
/// refused, as `DynLayout`'s `make_layout` does).
///
/// ```
/// use layout_core::{try_make_layout_left, C};
/// let m = 3usize;
/// assert_eq!(try_make_layout_left((m, C::<4>)).unwrap().to_string(), "(3,_4):(_1,3)");
/// let big = 1usize << 32;
/// assert!(try_make_layout_left((big, big, C::<2>)).is_err());
/// ```
#[inline(always)]
pub fn try_make_layout_left<Sh>(s: Sh) -> Result<Layout<Sh, Sh::Left>, LayoutError>
where
    Sh: Compact<C<1>> + Congruent<Sh::Left>,
{
    match s.left(C) {
        Some((d, _)) => Ok(Layout::new(s, d)),
        None => Err(LayoutError::Overflow {
            op: "make_layout_left",
        }),
    }
}

/// CuTe's `make_layout(shape, LayoutRight{})`: row-major strides.
///
/// ```
/// use layout_core::{make_layout_right, C};
/// assert_eq!(make_layout_right((C::<3>, C::<4>)).to_string(), "(_3,_4):(_4,_1)");
/// assert_eq!(make_layout_right((C::<2>, (C::<2>, C::<2>))).to_string(), "(_2,(_2,_2)):(_4,(_2,_1))");
/// ```
///
/// # Panics
///
/// When run-time extents multiply past `usize` ([`try_make_layout_right`]
/// returns the error instead); never for a static shape.
#[inline(always)]
#[track_caller]
pub fn make_layout_right<Sh>(s: Sh) -> Layout<Sh, Sh::Right>
where
    Sh: Compact<C<1>> + Congruent<Sh::Right>,
{
    match try_make_layout_right(s) {
        Ok(v) => v,
        // Called here, not in a closure: the panic names the caller.
        Err(_) => extents_overflow("make_layout_right"),
    }
}

/// [`make_layout_right`], or [`LayoutError::Overflow`] when the product of
/// the extents does not fit `usize`.
///
/// ```
/// use layout_core::{try_make_layout_right, C};
/// let m = 3usize;
/// assert_eq!(try_make_layout_right((m, C::<4>)).unwrap().to_string(), "(3,_4):(_4,_1)");
/// let big = 1usize << 32;
/// assert!(try_make_layout_right((C::<2>, big, big)).is_err());
/// ```
#[inline(always)]
pub fn try_make_layout_right<Sh>(s: Sh) -> Result<Layout<Sh, Sh::Right>, LayoutError>
where
    Sh: Compact<C<1>> + Congruent<Sh::Right>,
{
    match s.right(C) {
        Some((d, _)) => Ok(Layout::new(s, d)),
        None => Err(LayoutError::Overflow {
            op: "make_layout_right",
        }),
    }
}

/// The product of a shape as a leaf type: static when every leaf is.
pub trait TypedSize: IntTuple {
    /// The product's leaf type.
    type Size: Int;
    /// The product, or `None` when run-time leaves multiply past `usize`.
    fn typed_size(self) -> Option<Self::Size>;
}
macro_rules! leaf_typed_size {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> TypedSize for $t {
            type Size = Self;
            #[inline(always)]
            fn typed_size(self) -> Option<Self> {
                Some(self)
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(leaf_typed_size);
#[doc(hidden)]
pub trait TypedSizeList {
    type Size: Int;
    fn typed_size(self) -> Option<Self::Size>;
}
impl TypedSizeList for Nil {
    type Size = C<1>;
    #[inline(always)]
    fn typed_size(self) -> Option<C<1>> {
        Some(C)
    }
}
impl<H: TypedSize, T: TypedSizeList> TypedSizeList for Cons<H, T>
where
    H::Size: IntMul<T::Size>,
{
    type Size = <H::Size as IntMul<T::Size>>::Output;
    #[inline(always)]
    fn typed_size(self) -> Option<Self::Size> {
        self.0.typed_size()?.checked_mul(self.1.typed_size()?)
    }
}
impl<T: Tuple + IntTuple> TypedSize for T
where
    T::List: TypedSizeList,
{
    type Size = <T::List as TypedSizeList>::Size;
    #[inline(always)]
    fn typed_size(self) -> Option<Self::Size> {
        self.into_list().typed_size()
    }
}

/// `B1` picks the first, `B0` the second (a type-level if).
#[doc(hidden)]
pub trait Pick<X, Y> {
    type Out: Int;
    fn pick(x: X, y: Y) -> Self::Out;
}
impl<X: Int, Y> Pick<X, Y> for B1 {
    type Out = X;
    #[inline(always)]
    fn pick(x: X, _y: Y) -> X {
        x
    }
}
impl<X, Y: Int> Pick<X, Y> for B0 {
    type Out = Y;
    #[inline(always)]
    fn pick(_x: X, y: Y) -> Y {
        y
    }
}

/// The (order leaf, shape part) pairs of an ordering: an order leaf covers
/// the whole shape mode it meets.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "order `{Self}` does not match shape `{S}`",
    label = "the order must be congruent with the shape, or match it mode by mode"
)]
pub trait OrderPairs<S> {
    type Pairs: List;
    fn pairs(self, s: S) -> Self::Pairs;
}
macro_rules! static_order_pairs {
    ($t:ty; $($g:tt)*) => {
        impl<Sh: Copy + Send + Sync + 'static, $($g)*> OrderPairs<Sh> for $t {
            type Pairs = Cons<(Self, Sh), Nil>;
            #[inline(always)]
            fn pairs(self, s: Sh) -> Self::Pairs {
                Cons((self, s), Nil)
            }
        }
    };
}
static_order_pairs!(C<N>; const N: usize);
static_order_pairs!(S<U>; U: typenum::Unsigned + 'static);
#[doc(hidden)]
pub trait OrderPairsList<S> {
    type Pairs: List;
    fn pairs(self, s: S) -> Self::Pairs;
}
impl OrderPairsList<Nil> for Nil {
    type Pairs = Nil;
    fn pairs(self, _s: Nil) -> Nil {
        Nil
    }
}
impl<OH: OrderPairs<SH>, OT: OrderPairsList<ST>, SH, ST> OrderPairsList<Cons<SH, ST>>
    for Cons<OH, OT>
where
    OH::Pairs: crate::typelevel::tuple::Concat<OT::Pairs>,
{
    type Pairs = <OH::Pairs as crate::typelevel::tuple::Concat<OT::Pairs>>::Out;
    #[inline(always)]
    fn pairs(self, s: Cons<SH, ST>) -> Self::Pairs {
        crate::typelevel::tuple::Concat::concat(self.0.pairs(s.0), self.1.pairs(s.1))
    }
}
impl<O: Tuple, Sh: Tuple> OrderPairs<Sh> for O
where
    O::List: OrderPairsList<Sh::List>,
{
    type Pairs = <O::List as OrderPairsList<Sh::List>>::Pairs;
    #[inline(always)]
    fn pairs(self, s: Sh) -> Self::Pairs {
        self.into_list().pairs(s.into_list())
    }
}

/// The first stride of the shape part an order leaf `O` covers: the product
/// of the parts whose order is below `O` (CuTe's `compact_order`).
#[doc(hidden)]
pub trait OrderD<O> {
    type D: Int;
    fn d(self) -> Option<Self::D>;
}
impl<O> OrderD<O> for Nil {
    type D = C<1>;
    #[inline(always)]
    fn d(self) -> Option<C<1>> {
        Some(C)
    }
}
impl<O: StaticInt, OJ: StaticInt, XJ: TypedSize, R: OrderD<O>> OrderD<O> for Cons<(OJ, XJ), R>
where
    OJ::U: typenum::IsLess<O::U>,
    <OJ::U as typenum::IsLess<O::U>>::Output: Pick<XJ::Size, C<1>>,
    <<OJ::U as typenum::IsLess<O::U>>::Output as Pick<XJ::Size, C<1>>>::Out: IntMul<R::D>,
{
    type D = <<<OJ::U as typenum::IsLess<O::U>>::Output as Pick<XJ::Size, C<1>>>::Out as IntMul<
        R::D,
    >>::Output;
    #[inline(always)]
    fn d(self) -> Option<Self::D> {
        let here = <<OJ::U as typenum::IsLess<O::U>>::Output as Pick<XJ::Size, C<1>>>::pick(
            (self.0).1.typed_size()?,
            C,
        );
        here.checked_mul(self.1.d()?)
    }
}

/// The strides of `make_ordered_layout`, built along the order's nesting.
#[doc(hidden)]
pub trait OrderedStride<S, All> {
    type Stride;
    fn ordered_stride(self, s: S, all: All) -> Option<Self::Stride>;
}
macro_rules! static_ordered_stride {
    ($t:ty; $($g:tt)*) => {
        impl<Sh, All: OrderD<$t> + Copy, $($g)*> OrderedStride<Sh, All> for $t
        where
            Sh: Compact<All::D>,
        {
            type Stride = <Sh as Compact<All::D>>::Left;
            #[inline(always)]
            fn ordered_stride(self, s: Sh, all: All) -> Option<Self::Stride> {
                Some(s.left(all.d()?)?.0)
            }
        }
    };
}
static_ordered_stride!(C<N>; const N: usize);
static_ordered_stride!(S<U>; U: typenum::Unsigned + 'static);
#[doc(hidden)]
pub trait OrderedStrideList<S, All> {
    type Stride: List;
    fn ordered_stride(self, s: S, all: All) -> Option<Self::Stride>;
}
impl<All> OrderedStrideList<Nil, All> for Nil {
    type Stride = Nil;
    #[inline(always)]
    fn ordered_stride(self, _s: Nil, _all: All) -> Option<Nil> {
        Some(Nil)
    }
}
impl<OH: OrderedStride<SH, All>, OT: OrderedStrideList<ST, All>, SH, ST, All: Copy>
    OrderedStrideList<Cons<SH, ST>, All> for Cons<OH, OT>
where
    OH::Stride: Copy + Send + Sync + 'static,
{
    type Stride = Cons<OH::Stride, OT::Stride>;
    #[inline(always)]
    fn ordered_stride(self, s: Cons<SH, ST>, all: All) -> Option<Self::Stride> {
        Some(Cons(
            self.0.ordered_stride(s.0, all)?,
            self.1.ordered_stride(s.1, all)?,
        ))
    }
}
impl<O: Tuple, Sh: Tuple, All> OrderedStride<Sh, All> for O
where
    O::List: OrderedStrideList<Sh::List, All>,
    <O::List as OrderedStrideList<Sh::List, All>>::Stride: IntoTuple,
{
    type Stride = <<O::List as OrderedStrideList<Sh::List, All>>::Stride as IntoTuple>::Tuple;
    #[inline(always)]
    fn ordered_stride(self, s: Sh, all: All) -> Option<Self::Stride> {
        Some(
            self.into_list()
                .ordered_stride(s.into_list(), all)?
                .into_tuple(),
        )
    }
}

/// CuTe's `make_ordered_layout(shape, order)`: compact strides that grow in
/// the order given by static ranks (congruent with the shape, or one per
/// top-level mode).
///
/// ```
/// use layout_core::{make_ordered_layout, C};
/// let l = make_ordered_layout((C::<2>, C::<8>, C::<2>, C::<8>), (C::<0>, C::<3>, C::<1>, C::<2>));
/// assert_eq!(l.to_string(), "(_2,_8,_2,_8):(_1,_32,_2,_4)");
/// ```
///
/// # Panics
///
/// When run-time extents multiply past `usize` ([`try_make_ordered_layout`]
/// returns the error instead); never for a static shape.
#[inline(always)]
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn make_ordered_layout<Sh, O>(
    s: Sh,
    order: O,
) -> Layout<Sh, <O as OrderedStride<Sh, <O as OrderPairs<Sh>>::Pairs>>::Stride>
where
    O: OrderPairs<Sh> + OrderedStride<Sh, <O as OrderPairs<Sh>>::Pairs> + Copy,
    Sh: Congruent<<O as OrderedStride<Sh, <O as OrderPairs<Sh>>::Pairs>>::Stride> + Copy,
    <O as OrderedStride<Sh, <O as OrderPairs<Sh>>::Pairs>>::Stride: IntTuple,
{
    match try_make_ordered_layout(s, order) {
        Ok(v) => v,
        // Called here, not in a closure: the panic names the caller.
        Err(_) => extents_overflow("make_ordered_layout"),
    }
}

/// [`make_ordered_layout`], or [`LayoutError::Overflow`] when a stride (a
/// product of extents ordered before its mode) does not fit `usize`.
///
/// ```
/// use layout_core::{try_make_ordered_layout, C};
/// let m = 5usize;
/// let l = try_make_ordered_layout((m, C::<4>), (C::<1>, C::<0>)).unwrap();
/// assert_eq!(l.to_string(), "(5,_4):(_4,_1)");
/// let big = 1usize << 40;
/// // The first mode's stride is the second mode's size times the third's: 2^80.
/// assert!(try_make_ordered_layout((C::<2>, big, big), (C::<2>, C::<0>, C::<1>)).is_err());
/// ```
#[allow(clippy::type_complexity)]
#[inline(always)]
pub fn try_make_ordered_layout<Sh, O>(
    s: Sh,
    order: O,
) -> Result<Layout<Sh, <O as OrderedStride<Sh, <O as OrderPairs<Sh>>::Pairs>>::Stride>, LayoutError>
where
    O: OrderPairs<Sh> + OrderedStride<Sh, <O as OrderPairs<Sh>>::Pairs> + Copy,
    Sh: Congruent<<O as OrderedStride<Sh, <O as OrderPairs<Sh>>::Pairs>>::Stride> + Copy,
    <O as OrderedStride<Sh, <O as OrderPairs<Sh>>::Pairs>>::Stride: IntTuple,
{
    let all = order.pairs(s);
    match order.ordered_stride(s, all) {
        Some(d) => Ok(Layout::new(s, d)),
        None => Err(LayoutError::Overflow {
            op: "make_ordered_layout",
        }),
    }
}
