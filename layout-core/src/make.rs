//! Compact strides: CuTe's `LayoutLeft` (column-major, the default) and
//! `LayoutRight` (row-major), on nested shapes too.
//!
//! The stride of a leaf is the product of the leaves before it (after it, for
//! `LayoutRight`); a static size-1 leaf gets the static stride `_0`, and a
//! stride stays static as long as every shape it multiplies is static, as in
//! CuTe: `make_layout((3,4))` with dynamic leaves is `(3,4):(_1,3)`.

use crate::int::{Int, IntMul, StaticInt, StaticOneTag, Zero, C, S};
use crate::layout::{Congruent, Layout};
use crate::tuple::{Cons, IntTuple, IntoTuple, List, Nil, Tuple};
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
    /// Column-major strides starting at `cur`, and the next stride.
    fn left(self, cur: Cur) -> (Self::Left, Self::LeftNext);
    /// Row-major strides starting at `cur`, and the next stride.
    fn right(self, cur: Cur) -> (Self::Right, Self::RightNext);
}

impl<Cur: Int + IntMul<usize>> Compact<Cur> for usize {
    type Left = Cur;
    type LeftNext = Cur::Output;
    type Right = Cur;
    type RightNext = Cur::Output;
    #[inline(always)]
    fn left(self, cur: Cur) -> (Cur, Cur::Output) {
        (cur, cur.mul(self))
    }
    #[inline(always)]
    fn right(self, cur: Cur) -> (Cur, Cur::Output) {
        (cur, cur.mul(self))
    }
}

/// The static-leaf case, chosen by whether the leaf is 1 (`B1`) or not (`B0`).
#[doc(hidden)]
pub trait CompactStatic<A, Cur> {
    type Stride: IntTuple;
    type Next: Int;
    fn step(a: A, cur: Cur) -> (Self::Stride, Self::Next);
}
impl<A, Cur: Int> CompactStatic<A, Cur> for B1 {
    type Stride = Zero;
    type Next = Cur;
    #[inline(always)]
    fn step(_a: A, cur: Cur) -> (Zero, Cur) {
        (S::new(), cur)
    }
}
impl<A: Int, Cur: IntMul<A>> CompactStatic<A, Cur> for B0 {
    type Stride = Cur;
    type Next = Cur::Output;
    #[inline(always)]
    fn step(a: A, cur: Cur) -> (Cur, Cur::Output) {
        (cur, cur.mul(a))
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
            fn left(self, cur: Cur) -> (Self::Left, Self::LeftNext) {
                <<<$t as StaticInt>::U as StaticOneTag>::IsOne as CompactStatic<$t, Cur>>::step(self, cur)
            }
            #[inline(always)]
            fn right(self, cur: Cur) -> (Self::Right, Self::RightNext) {
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
    fn left(self, cur: Cur) -> (Self::Left, Self::LeftNext);
    fn right(self, cur: Cur) -> (Self::Right, Self::RightNext);
}
impl<Cur: Int> CompactList<Cur> for Nil {
    type Left = Nil;
    type LeftNext = Cur;
    type Right = Nil;
    type RightNext = Cur;
    fn left(self, cur: Cur) -> (Nil, Cur) {
        (Nil, cur)
    }
    fn right(self, cur: Cur) -> (Nil, Cur) {
        (Nil, cur)
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
    fn left(self, cur: Cur) -> (Self::Left, Self::LeftNext) {
        let (h, next) = Compact::<Cur>::left(self.0, cur);
        let (t, next) = CompactList::<<H as Compact<Cur>>::LeftNext>::left(self.1, next);
        (Cons(h, t), next)
    }
    #[inline(always)]
    fn right(self, cur: Cur) -> (Self::Right, Self::RightNext) {
        let (t, next) = CompactList::<Cur>::right(self.1, cur);
        let (h, next) = Compact::right(self.0, next);
        (Cons(h, t), next)
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
    fn left(self, cur: Cur) -> (Self::Left, Self::LeftNext) {
        let (l, n) = self.into_list().left(cur);
        (l.into_tuple(), n)
    }
    #[inline(always)]
    fn right(self, cur: Cur) -> (Self::Right, Self::RightNext) {
        let (r, n) = self.into_list().right(cur);
        (r.into_tuple(), n)
    }
}

/// CuTe's `compact_col_major(shape)`: LayoutLeft strides.
///
/// ```
/// use layout_core::{compact_col_major, to_cute_string};
/// assert_eq!(to_cute_string(&compact_col_major((3usize, 4usize))), "(_1,3)");
/// ```
#[inline(always)]
pub fn compact_col_major<Sh: Compact<C<1>>>(s: Sh) -> Sh::Left {
    s.left(C).0
}

/// CuTe's `compact_row_major(shape)`: LayoutRight strides.
///
/// ```
/// use layout_core::{compact_row_major, to_cute_string, C};
/// assert_eq!(to_cute_string(&compact_row_major(((C::<5>, C::<3>), C::<4>))), "((_12,_4),_1)");
/// ```
#[inline(always)]
pub fn compact_row_major<Sh: Compact<C<1>>>(s: Sh) -> Sh::Right {
    s.right(C).0
}

/// CuTe's `make_layout(shape)`: LayoutLeft (column-major) strides.
///
/// ```
/// use layout_core::{make_layout_left, C};
/// assert_eq!(make_layout_left((C::<3>, C::<4>)).to_string(), "(_3,_4):(_1,_3)");
/// assert_eq!(make_layout_left((C::<2>, (C::<2>, C::<2>))).to_string(), "(_2,(_2,_2)):(_1,(_2,_4))");
/// ```
#[inline(always)]
pub fn make_layout_left<Sh>(s: Sh) -> Layout<Sh, Sh::Left>
where
    Sh: Compact<C<1>> + Congruent<Sh::Left>,
{
    Layout::new(s, compact_col_major(s))
}

/// CuTe's `make_layout(shape, LayoutRight{})`: row-major strides.
///
/// ```
/// use layout_core::{make_layout_right, C};
/// assert_eq!(make_layout_right((C::<3>, C::<4>)).to_string(), "(_3,_4):(_4,_1)");
/// assert_eq!(make_layout_right((C::<2>, (C::<2>, C::<2>))).to_string(), "(_2,(_2,_2)):(_4,(_2,_1))");
/// ```
#[inline(always)]
pub fn make_layout_right<Sh>(s: Sh) -> Layout<Sh, Sh::Right>
where
    Sh: Compact<C<1>> + Congruent<Sh::Right>,
{
    Layout::new(s, compact_row_major(s))
}
