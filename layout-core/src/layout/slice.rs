//! Slicing with `_`: `slice` keeps the modes marked `_`, `dice` keeps the
//! others, and `slice_and_offset` also returns the offset that the fixed
//! coordinates contribute (what a tensor slice adds to its data pointer).

use crate::layout::coord::{Crd2Idx, Underscore};
use crate::layout::{Congruent, Layout};
use crate::typelevel::int::for_each_leaf;
use crate::typelevel::tuple::{Concat, Cons, IntTuple, IntoTuple, List, Nil, Tuple};

/// The modes of `T` a slicing coordinate keeps, as a flat list (CuTe's `lift_slice`).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "slicing coordinate `{Self}` does not fit the shape `{T}`",
    label = "the coordinate needs one entry per mode"
)]
pub trait LiftSlice<T> {
    type Kept: List;
    type Diced: List;
    fn lift_slice(t: T) -> Self::Kept;
    fn lift_dice(t: T) -> Self::Diced;
}
impl<T: Copy + Send + Sync + 'static> LiftSlice<T> for Underscore {
    type Kept = Cons<T, Nil>;
    type Diced = Nil;
    #[inline(always)]
    fn lift_slice(t: T) -> Self::Kept {
        Cons(t, Nil)
    }
    #[inline(always)]
    fn lift_dice(_t: T) -> Nil {
        Nil
    }
}
macro_rules! leaf_lift_slice {
    ($t:ty; $($g:tt)*) => {
        impl<T: Copy + Send + Sync + 'static, $($g)*> LiftSlice<T> for $t {
            type Kept = Nil;
            type Diced = Cons<T, Nil>;
            #[inline(always)]
            fn lift_slice(_t: T) -> Nil {
                Nil
            }
            #[inline(always)]
            fn lift_dice(t: T) -> Self::Diced {
                Cons(t, Nil)
            }
        }
    };
}
for_each_leaf!(leaf_lift_slice);

#[doc(hidden)]
pub trait LiftSliceList<T> {
    type Kept: List;
    type Diced: List;
    fn lift_slice(t: T) -> Self::Kept;
    fn lift_dice(t: T) -> Self::Diced;
}
impl LiftSliceList<Nil> for Nil {
    type Kept = Nil;
    type Diced = Nil;
    fn lift_slice(_t: Nil) -> Nil {
        Nil
    }
    fn lift_dice(_t: Nil) -> Nil {
        Nil
    }
}
impl<CH: LiftSlice<TH>, CT: LiftSliceList<TT>, TH, TT> LiftSliceList<Cons<TH, TT>> for Cons<CH, CT>
where
    CH::Kept: Concat<CT::Kept>,
    CH::Diced: Concat<CT::Diced>,
{
    type Kept = <CH::Kept as Concat<CT::Kept>>::Out;
    type Diced = <CH::Diced as Concat<CT::Diced>>::Out;
    #[inline(always)]
    fn lift_slice(t: Cons<TH, TT>) -> Self::Kept {
        CH::lift_slice(t.0).concat(CT::lift_slice(t.1))
    }
    #[inline(always)]
    fn lift_dice(t: Cons<TH, TT>) -> Self::Diced {
        CH::lift_dice(t.0).concat(CT::lift_dice(t.1))
    }
}
impl<Cc: Tuple, T: Tuple> LiftSlice<T> for Cc
where
    Cc::List: LiftSliceList<T::List>,
{
    type Kept = <Cc::List as LiftSliceList<T::List>>::Kept;
    type Diced = <Cc::List as LiftSliceList<T::List>>::Diced;
    #[inline(always)]
    fn lift_slice(t: T) -> Self::Kept {
        <Cc::List as LiftSliceList<T::List>>::lift_slice(t.into_list())
    }
    #[inline(always)]
    fn lift_dice(t: T) -> Self::Diced {
        <Cc::List as LiftSliceList<T::List>>::lift_dice(t.into_list())
    }
}

/// A slicing coordinate for `T` (an int tuple): the top level of CuTe's
/// `slice` and `dice`.
#[diagnostic::on_unimplemented(
    message = "slicing coordinate `{Self}` does not fit the shape `{T}`",
    label = "the coordinate needs one entry per mode"
)]
pub trait SliceCoord<T> {
    /// What `slice` keeps.
    type Sliced;
    /// What `dice` keeps.
    type Diced;
    /// CuTe's `slice(c, t)`.
    fn slice_of(t: T) -> Self::Sliced;
    /// CuTe's `dice(c, t)`.
    fn dice_of(t: T) -> Self::Diced;
}
/// A slicing coordinate with one entry per mode of `T`.
#[diagnostic::on_unimplemented(
    message = "slicing coordinate `{Self}` does not have one entry per mode of the shape",
    label = "wrong number of modes"
)]
pub trait SameRank<T> {}
macro_rules! same_rank {
    ($(($a:ident, $b:ident)),*) => {
        impl<$($a, $b),*> SameRank<($($b,)*)> for ($($a,)*) {}
    };
}
same_rank!();
same_rank!((A0, B0));
same_rank!((A0, B0), (A1, B1));
same_rank!((A0, B0), (A1, B1), (A2, B2));
same_rank!((A0, B0), (A1, B1), (A2, B2), (A3, B3));
same_rank!((A0, B0), (A1, B1), (A2, B2), (A3, B3), (A4, B4));
same_rank!((A0, B0), (A1, B1), (A2, B2), (A3, B3), (A4, B4), (A5, B5));
same_rank!(
    (A0, B0),
    (A1, B1),
    (A2, B2),
    (A3, B3),
    (A4, B4),
    (A5, B5),
    (A6, B6)
);
same_rank!(
    (A0, B0),
    (A1, B1),
    (A2, B2),
    (A3, B3),
    (A4, B4),
    (A5, B5),
    (A6, B6),
    (A7, B7)
);

impl<Cc: Tuple + SameRank<T> + LiftSlice<T>, T: Tuple> SliceCoord<T> for Cc
where
    Cc::Kept: IntoTuple,
    Cc::Diced: IntoTuple,
{
    type Sliced = <Cc::Kept as IntoTuple>::Tuple;
    type Diced = <Cc::Diced as IntoTuple>::Tuple;
    #[inline(always)]
    fn slice_of(t: T) -> Self::Sliced {
        Cc::lift_slice(t).into_tuple()
    }
    #[inline(always)]
    fn dice_of(t: T) -> Self::Diced {
        Cc::lift_dice(t).into_tuple()
    }
}
impl<T> SliceCoord<T> for Underscore {
    type Sliced = T;
    type Diced = ();
    #[inline(always)]
    fn slice_of(t: T) -> T {
        t
    }
    #[inline(always)]
    fn dice_of(_t: T) {}
}
macro_rules! leaf_slice_coord {
    ($t:ty; $($g:tt)*) => {
        impl<T, $($g)*> SliceCoord<T> for $t {
            type Sliced = ();
            type Diced = T;
            #[inline(always)]
            fn slice_of(_t: T) {}
            #[inline(always)]
            fn dice_of(t: T) -> T {
                t
            }
        }
    };
}
for_each_leaf!(leaf_slice_coord);

/// CuTe's `slice(coord, layout)`: the sub-layout of the modes marked `_`.
///
/// ```
/// use layout_core::{crd, layout, slice};
/// let padded = layout!((3,4):(6,1));
/// assert_eq!(slice(crd!(_, 2), padded).to_string(), "(_3):(_6)");
/// ```
#[inline(always)]
pub fn slice<Crd, S, D>(
    c: Crd,
    l: Layout<S, D>,
) -> Layout<<Crd as SliceCoord<S>>::Sliced, <Crd as SliceCoord<D>>::Sliced>
where
    S: Congruent<D>,
    D: IntTuple,
    Crd: SliceCoord<S> + SliceCoord<D>,
    <Crd as SliceCoord<S>>::Sliced: Congruent<<Crd as SliceCoord<D>>::Sliced>,
    <Crd as SliceCoord<D>>::Sliced: IntTuple,
{
    let _ = c;
    Layout::new(
        <Crd as SliceCoord<S>>::slice_of(l.shape()),
        <Crd as SliceCoord<D>>::slice_of(l.stride()),
    )
}

/// CuTe's `dice(coord, layout)`: the sub-layout of the modes *not* marked `_`.
///
/// ```
/// use layout_core::{crd, dice, layout};
/// assert_eq!(dice(crd!(_, 1), layout!((5,(4,1)):(1,(5,20)))).to_string(), "((_4,_1)):((_5,_20))");
/// ```
#[inline(always)]
pub fn dice<Crd, S, D>(
    c: Crd,
    l: Layout<S, D>,
) -> Layout<<Crd as SliceCoord<S>>::Diced, <Crd as SliceCoord<D>>::Diced>
where
    S: Congruent<D>,
    D: IntTuple,
    Crd: SliceCoord<S> + SliceCoord<D>,
    <Crd as SliceCoord<S>>::Diced: Congruent<<Crd as SliceCoord<D>>::Diced>,
    <Crd as SliceCoord<D>>::Diced: IntTuple,
{
    let _ = c;
    Layout::new(
        <Crd as SliceCoord<S>>::dice_of(l.shape()),
        <Crd as SliceCoord<D>>::dice_of(l.stride()),
    )
}

/// CuTe's `slice_and_offset(coord, layout)`: the slice and the offset of the
/// fixed coordinates (every `_` read as 0).
///
/// ```
/// use layout_core::{crd, layout, slice_and_offset};
/// let (row, offset) = slice_and_offset(crd!(1, _), layout!((3,4):(6,1)));
/// assert_eq!((row.to_string(), offset), ("(_4):(_1)".to_string(), 6));
/// ```
#[inline(always)]
#[allow(clippy::type_complexity)]
pub fn slice_and_offset<Crd, S, D>(
    c: Crd,
    l: Layout<S, D>,
) -> (
    Layout<<Crd as SliceCoord<S>>::Sliced, <Crd as SliceCoord<D>>::Sliced>,
    usize,
)
where
    S: Congruent<D>,
    D: IntTuple,
    Crd: SliceCoord<S> + SliceCoord<D> + Crd2Idx<S, D>,
    <Crd as SliceCoord<S>>::Sliced: Congruent<<Crd as SliceCoord<D>>::Sliced>,
    <Crd as SliceCoord<D>>::Sliced: IntTuple,
{
    (slice(c, l), c.crd2idx(l.shape(), l.stride()))
}

/// CuTe's `repeat<rank(T)>(_)`: `_` for each mode of a tuple (a leaf gets one
/// `_`), the coordinate that keeps every mode of `T` as a separate mode.
#[doc(hidden)]
pub trait RepeatUnder {
    type Out: Copy + Default;
}
macro_rules! leaf_repeat_under {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> RepeatUnder for $t {
            type Out = Underscore;
        }
    };
}
for_each_leaf!(leaf_repeat_under);
#[doc(hidden)]
pub trait RepeatUnderList {
    type Out: List;
}
impl RepeatUnderList for Nil {
    type Out = Nil;
}
impl<H, T: RepeatUnderList> RepeatUnderList for Cons<H, T> {
    type Out = Cons<Underscore, T::Out>;
}
impl<T: Tuple> RepeatUnder for T
where
    T::List: RepeatUnderList,
    <T::List as RepeatUnderList>::Out: IntoTuple,
    <<T::List as RepeatUnderList>::Out as IntoTuple>::Tuple: Default,
{
    type Out = <<T::List as RepeatUnderList>::Out as IntoTuple>::Tuple;
}
