//! Structural operations on int tuples and layouts: `get`, `flatten`,
//! `group`, `select`, `take`, `append`, `prepend`, `replace`.
//!
//! Each is a trait implemented once for tuples (through their cons lists),
//! for integers where CuTe defines it, and for layouts (shape and stride
//! alike), with a free function of CuTe's name.

use crate::layout::{Congruent, Layout};
use crate::typelevel::int::for_each_leaf;
use crate::typelevel::int::C;
use crate::typelevel::tuple::{
    AsModes, Concat, Cons, GetAt, IntTuple, IntoTuple, List, Nil, PopFront, SplitAt, Tuple,
};

macro_rules! layout_lift {
    ($tr:ident < $(const $c:ident : usize),* ; $($x:ident),* > :: $m:ident ( $($arg:ident : $argt:ty),* ) ) => {
        impl<S, D, $(const $c: usize,)* $($x),*> $tr<$($c,)* $($x),*> for Layout<S, D>
        where
            S: Congruent<D> + $tr<$($c,)* $($x),*>,
            D: IntTuple + $tr<$($c,)* $($x),*>,
            <S as $tr<$($c,)* $($x),*>>::Output: Congruent<<D as $tr<$($c,)* $($x),*>>::Output>,
            <D as $tr<$($c,)* $($x),*>>::Output: IntTuple,
        {
            type Output = Layout<<S as $tr<$($c,)* $($x),*>>::Output, <D as $tr<$($c,)* $($x),*>>::Output>;
            #[inline(always)]
            fn $m(self $(, $arg: $argt)*) -> Self::Output {
                Layout::new(self.shape().$m($($arg),*), self.stride().$m($($arg),*))
            }
        }
    };
}

/// Mode `I` (CuTe's `get<I>`): of a tuple, of an integer (`I == 0` only), or
/// of a layout (its `I`-th sub-layout). Chain calls for paths: `get<1,0>`.
///
/// ```
/// use layout_core::{layout, get, C};
/// let h = layout!((2,(2,2)):(4,(2,1)));
/// assert_eq!(get::<1, _>(h).to_string(), "(_2,_2):(_2,_1)");
/// assert_eq!(get::<0, _>(get::<1, _>((C::<2>, (C::<3>, 4usize)))), C::<3>);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no mode {I}",
    label = "mode index out of range"
)]
pub trait Mode<const I: usize> {
    /// The mode.
    type Output;
    /// Mode `I`.
    fn get(self) -> Self::Output;
}
impl<T: Tuple, const I: usize> Mode<I> for T
where
    T::List: GetAt<I>,
{
    type Output = <T::List as GetAt<I>>::Out;
    #[inline(always)]
    fn get(self) -> Self::Output {
        self.into_list().get_at()
    }
}
macro_rules! leaf_mode {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> Mode<0> for $t {
            type Output = Self;
            #[inline(always)]
            fn get(self) -> Self {
                self
            }
        }
    };
}
for_each_leaf!(leaf_mode);
layout_lift!(Mode<const I: usize;>::get());

/// CuTe's `get<I>(t)`: mode `I` of a tuple, a shape or a layout (of a
/// layout, a layout: CuTe's `layout<I>(l)`). Nest for paths:
/// `get::<0, _>(get::<1, _>(l))` is CuTe's `layout<1,0>(l)`.
///
/// ```
/// use layout_core::{get, layout, C};
/// let h = layout!((2,(2,2)):(4,(2,1)));
/// assert_eq!(get::<1, _>(h).to_string(), "(_2,_2):(_2,_1)");
/// assert_eq!(get::<0, _>(get::<1, _>(h)).to_string(), "_2:_2");
/// assert_eq!(get::<1, _>((C::<3>, 4usize)), 4);
/// ```
#[inline(always)]
pub fn get<const I: usize, T: Mode<I>>(t: T) -> T::Output {
    t.get()
}

/// A layout's modes.
impl<S: Congruent<D>, D: IntTuple> Layout<S, D> {
    /// The shape of mode `I` (CuTe's `shape<I>(l)`).
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::layout;
    /// let h = layout!((2,(2,2)):(4,(2,1)));
    /// assert_eq!(layout_core::to_cute_string(&h.shape_at::<1>()), "(_2,_2)");
    /// ```
    pub fn shape_at<const I: usize>(&self) -> <S as Mode<I>>::Output
    where
        S: Mode<I>,
    {
        Mode::<I>::get(self.shape)
    }
    /// The stride of mode `I` (CuTe's `stride<I>(l)`).
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::layout;
    /// let h = layout!((2,(2,2)):(4,(2,1)));
    /// assert_eq!(layout_core::to_cute_string(&h.stride_at::<1>()), "(_2,_1)");
    /// ```
    pub fn stride_at<const I: usize>(&self) -> <D as Mode<I>>::Output
    where
        D: Mode<I>,
    {
        Mode::<I>::get(self.stride)
    }
}

/// CuTe's `flatten`: all leaves as one flat tuple (an integer stays an integer).
///
/// ```
/// use layout_core::{layout, flatten};
/// let h = layout!((2,(2,2)):(4,(2,1)));
/// assert_eq!(flatten(h).to_string(), "(_2,_2,_2):(_4,_2,_1)");
/// ```
pub trait Flatten {
    /// The flat result.
    type Output;
    /// Flatten.
    fn flatten(self) -> Self::Output;
}
impl<T: Tuple + IntTuple> Flatten for T
where
    T::Leaves: IntoTuple,
{
    type Output = <T::Leaves as IntoTuple>::Tuple;
    #[inline(always)]
    fn flatten(self) -> Self::Output {
        self.leaves().into_tuple()
    }
}
macro_rules! leaf_flatten {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> Flatten for $t {
            type Output = Self;
            #[inline(always)]
            fn flatten(self) -> Self {
                self
            }
        }
    };
}
for_each_leaf!(leaf_flatten);
impl<S, D> Flatten for Layout<S, D>
where
    S: Congruent<D> + Flatten,
    D: IntTuple + Flatten,
    S::Output: Congruent<D::Output>,
    D::Output: IntTuple,
{
    type Output = Layout<S::Output, D::Output>;
    #[inline(always)]
    fn flatten(self) -> Self::Output {
        Layout::new(self.shape().flatten(), self.stride().flatten())
    }
}
/// CuTe's `flatten`.
///
/// ```
/// use layout_core::{flatten, layout};
/// // CuTe prints (_5,_2,_1):(_2,_1,_1).
/// assert_eq!(flatten(layout!(((5,2),1):((2,1),1))).to_string(), "(_5,_2,_1):(_2,_1,_1)");
/// ```
#[inline(always)]
pub fn flatten<T: Flatten>(t: T) -> T::Output {
    t.flatten()
}

/// CuTe's `group<B,E>`: modes `[B, E)` become one mode.
///
/// ```
/// use layout_core::{layout, group};
/// let flat = layout!((2,2,2):(4,2,1));
/// assert_eq!(group::<1, 3, _>(flat).to_string(), "(_2,(_2,_2)):(_4,(_2,_1))");
/// ```
#[diagnostic::on_unimplemented(message = "cannot group modes [{B}, {E}) of `{Self}`")]
pub trait Group<const B: usize, const E: usize> {
    /// The grouped result.
    type Output;
    /// Group modes `[B, E)`.
    fn group(self) -> Self::Output;
}
type Front<L, const I: usize> = <L as SplitAt<I>>::Front;
type Back<L, const I: usize> = <L as SplitAt<I>>::Back;
impl<T: Tuple, const B: usize, const E: usize> Group<B, E> for T
where
    T::List: SplitAt<E>,
    Front<T::List, E>: SplitAt<B>,
    Front<Front<T::List, E>, B>:
        Concat<Cons<<Back<Front<T::List, E>, B> as IntoTuple>::Tuple, Back<T::List, E>>>,
    Cons<<Back<Front<T::List, E>, B> as IntoTuple>::Tuple, Back<T::List, E>>: List,
    Back<Front<T::List, E>, B>: IntoTuple,
    <Front<Front<T::List, E>, B> as Concat<
        Cons<<Back<Front<T::List, E>, B> as IntoTuple>::Tuple, Back<T::List, E>>,
    >>::Out: IntoTuple,
{
    type Output = <<Front<Front<T::List, E>, B> as Concat<
        Cons<<Back<Front<T::List, E>, B> as IntoTuple>::Tuple, Back<T::List, E>>,
    >>::Out as IntoTuple>::Tuple;
    #[inline(always)]
    fn group(self) -> Self::Output {
        let (upto_e, back) = SplitAt::<E>::split_at(self.into_list());
        let (front, mid) = SplitAt::<B>::split_at(upto_e);
        front.concat(Cons(mid.into_tuple(), back)).into_tuple()
    }
}
layout_lift!(Group<const B: usize, const E: usize;>::group());
/// CuTe's `group<B,E>`.
///
/// ```
/// use layout_core::{group, layout};
/// // CuTe prints (_3,_2,(_4)):(_1,_12,(_3)).
/// assert_eq!(group::<2, 3, _>(layout!((3,2,4):(1,12,3))).to_string(), "(_3,_2,(_4)):(_1,_12,(_3))");
/// ```
#[inline(always)]
pub fn group<const B: usize, const E: usize, T: Group<B, E>>(t: T) -> T::Output {
    t.group()
}

/// CuTe's `take<B,E>`: modes `[B, E)` as a tuple.
///
/// ```
/// use layout_core::{layout, take};
/// assert_eq!(take::<1, 3, _>(layout!((2,3,4):(1,2,6))).to_string(), "(_3,_4):(_2,_6)");
/// ```
pub trait Take<const B: usize, const E: usize> {
    /// The taken modes.
    type Output;
    /// Take modes `[B, E)`.
    fn take(self) -> Self::Output;
}
impl<T: Tuple, const B: usize, const E: usize> Take<B, E> for T
where
    T::List: SplitAt<E>,
    Front<T::List, E>: SplitAt<B>,
    Back<Front<T::List, E>, B>: IntoTuple,
{
    type Output = <Back<Front<T::List, E>, B> as IntoTuple>::Tuple;
    #[inline(always)]
    fn take(self) -> Self::Output {
        let (upto_e, _) = SplitAt::<E>::split_at(self.into_list());
        SplitAt::<B>::split_at(upto_e).1.into_tuple()
    }
}
layout_lift!(Take<const B: usize, const E: usize;>::take());
/// CuTe's `take<B,E>`.
///
/// ```
/// use layout_core::{layout, take};
/// // Modes 1 and 2 of (2,3,4):(1,2,6).
/// assert_eq!(take::<1, 3, _>(layout!((2,3,4):(1,2,6))).to_string(), "(_3,_4):(_2,_6)");
/// ```
#[inline(always)]
pub fn take<const B: usize, const E: usize, T: Take<B, E>>(t: T) -> T::Output {
    t.take()
}

/// CuTe's `select<I...>`: the listed modes, in the listed order. The indices
/// are a tuple of static integers: `select::<(C<2>, C<0>), _>(t)`.
///
/// ```
/// use layout_core::{layout, select, C};
/// let l = layout!(((2,2,5),2):((1,20,4),2));
/// assert_eq!(select::<(C<1>, C<1>), _>(l).to_string(), "(_2,_2):(_2,_2)");
/// ```
pub trait Select<Idx> {
    /// The selected modes.
    type Output;
    /// Select.
    fn select(self) -> Self::Output;
}
#[doc(hidden)]
pub trait SelectList<L> {
    type Out: List;
    fn select_from(l: L) -> Self::Out;
}
impl<L> SelectList<L> for Nil {
    type Out = Nil;
    #[inline(always)]
    fn select_from(_l: L) -> Nil {
        Nil
    }
}
impl<L: GetAt<I> + Copy, const I: usize, R: SelectList<L>> SelectList<L> for Cons<C<I>, R>
where
    Cons<L::Out, R::Out>: List,
{
    type Out = Cons<L::Out, R::Out>;
    #[inline(always)]
    fn select_from(l: L) -> Self::Out {
        Cons(l.get_at(), R::select_from(l))
    }
}
impl<T: Tuple, Idx: Tuple> Select<Idx> for T
where
    Idx::List: SelectList<T::List>,
    <Idx::List as SelectList<T::List>>::Out: IntoTuple,
{
    type Output = <<Idx::List as SelectList<T::List>>::Out as IntoTuple>::Tuple;
    #[inline(always)]
    fn select(self) -> Self::Output {
        <Idx::List as SelectList<T::List>>::select_from(self.into_list()).into_tuple()
    }
}
layout_lift!(Select<; Idx>::select());
/// CuTe's `select<I...>`.
///
/// ```
/// use layout_core::{layout, select, C};
/// // CuTe prints (_2,_4):(_4,_1).
/// assert_eq!(select::<(C<0>, C<1>), _>(layout!((2,4,3):(4,1,8))).to_string(), "(_2,_4):(_4,_1)");
/// ```
#[inline(always)]
pub fn select<Idx, T: Select<Idx>>(t: T) -> T::Output {
    t.select()
}

/// CuTe's `append(t, x)`: `x` becomes a new last mode (an integer `t` is
/// first made a rank-1 tuple).
///
/// ```
/// use layout_core::{layout, append};
/// assert_eq!(append(layout!((2,3):(1,2)), layout!(4:6)).to_string(), "(_2,_3,_4):(_1,_2,_6)");
/// ```
pub trait Append<X> {
    /// The result.
    type Output;
    /// Append `x`.
    fn append(self, x: X) -> Self::Output;
}
impl<T: AsModes, X: Copy + Send + Sync + 'static> Append<X> for T
where
    T::Modes: Concat<Cons<X, Nil>>,
    Cons<X, Nil>: List,
    <T::Modes as Concat<Cons<X, Nil>>>::Out: IntoTuple,
{
    type Output = <<T::Modes as Concat<Cons<X, Nil>>>::Out as IntoTuple>::Tuple;
    #[inline(always)]
    fn append(self, x: X) -> Self::Output {
        self.as_modes().concat(Cons(x, Nil)).into_tuple()
    }
}
/// CuTe's `prepend(t, x)`: `x` becomes a new first mode.
///
/// ```
/// use layout_core::{layout, prepend};
/// assert_eq!(prepend(layout!((2,3):(1,2)), layout!(4:6)).to_string(), "(_4,_2,_3):(_6,_1,_2)");
/// ```
pub trait Prepend<X> {
    /// The result.
    type Output;
    /// Prepend `x`.
    fn prepend(self, x: X) -> Self::Output;
}
impl<T: AsModes, X: Copy + Send + Sync + 'static> Prepend<X> for T
where
    Cons<X, T::Modes>: IntoTuple,
{
    type Output = <Cons<X, T::Modes> as IntoTuple>::Tuple;
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Output {
        Cons(x, self.as_modes()).into_tuple()
    }
}

macro_rules! layout_binary {
    ($tr:ident :: $m:ident) => {
        impl<S, D, XS, XD> $tr<Layout<XS, XD>> for Layout<S, D>
        where
            S: Congruent<D> + $tr<XS>,
            D: IntTuple + $tr<XD>,
            XS: Congruent<XD>,
            XD: IntTuple,
            S::Output: Congruent<D::Output>,
            D::Output: IntTuple,
        {
            type Output = Layout<S::Output, D::Output>;
            #[inline(always)]
            fn $m(self, x: Layout<XS, XD>) -> Self::Output {
                Layout::new(self.shape().$m(x.shape()), self.stride().$m(x.stride()))
            }
        }
    };
}
layout_binary!(Append::append);
layout_binary!(Prepend::prepend);

/// CuTe's `append`.
///
/// ```
/// use layout_core::{append, layout};
/// // CuTe prints (_3,(_2,_1)):(_1,(_1,_1)).
/// assert_eq!(append(layout!(3:1), layout!((2,1):(1,1))).to_string(), "(_3,(_2,_1)):(_1,(_1,_1))");
/// ```
#[inline(always)]
pub fn append<T: Append<X>, X>(t: T, x: X) -> T::Output {
    t.append(x)
}
/// CuTe's `prepend`.
///
/// ```
/// use layout_core::{layout, prepend};
/// // CuTe prints ((_4,_1),_2):((_1,_13),_1).
/// assert_eq!(prepend(layout!((2):(1)), layout!((4,1):(1,13))).to_string(), "((_4,_1),_2):((_1,_13),_1)");
/// ```
#[inline(always)]
pub fn prepend<T: Prepend<X>, X>(t: T, x: X) -> T::Output {
    t.prepend(x)
}

/// CuTe's `replace<I>(t, x)`: mode `I` becomes `x`.
///
/// ```
/// use layout_core::{replace, C};
/// assert_eq!(replace::<1, _, _>((C::<2>, C::<3>, C::<4>), 7usize), (C::<2>, 7, C::<4>));
/// ```
pub trait Replace<const I: usize, X> {
    /// The result.
    type Output;
    /// Replace mode `I` with `x`.
    fn replace(self, x: X) -> Self::Output;
}
impl<T: Tuple, X: Copy + Send + Sync + 'static, const I: usize> Replace<I, X> for T
where
    T::List: SplitAt<I>,
    Back<T::List, I>: PopFront,
    Front<T::List, I>: Concat<Cons<X, <Back<T::List, I> as PopFront>::Rest>>,
    Cons<X, <Back<T::List, I> as PopFront>::Rest>: List,
    <Front<T::List, I> as Concat<Cons<X, <Back<T::List, I> as PopFront>::Rest>>>::Out: IntoTuple,
{
    type Output = <<Front<T::List, I> as Concat<Cons<X, <Back<T::List, I> as PopFront>::Rest>>>::Out as IntoTuple>::Tuple;
    #[inline(always)]
    fn replace(self, x: X) -> Self::Output {
        let (front, back) = SplitAt::<I>::split_at(self.into_list());
        front.concat(Cons(x, back.pop_front())).into_tuple()
    }
}
/// CuTe's `replace<I>`.
///
/// ```
/// use layout_core::{replace, to_cute_string, C};
/// let t = replace::<1, _, _>((C::<2>, C::<3>, C::<4>), 7usize);
/// assert_eq!(to_cute_string(&t), "(_2,7,_4)");
/// ```
#[inline(always)]
pub fn replace<const I: usize, T: Replace<I, X>, X>(t: T, x: X) -> T::Output {
    t.replace(x)
}

/// The sizes of the two modes of a rank-2 shape.
pub(crate) fn mode_sizes_2<S: IntTuple>(s: &S) -> (usize, usize) {
    let mut sizes = [1usize; 2];
    let mut k = 0;
    s.for_each_mode_size(&mut |n| {
        if k < 2 {
            sizes[k] = n;
        }
        k += 1;
    });
    (sizes[0], sizes[1])
}

/// A rank-2 shape: what `print_layout` draws as a table and `gemm`
/// multiplies.
#[diagnostic::on_unimplemented(
    message = "print_layout needs a rank-2 layout; shape `{Self}` is not rank 2",
    label = "not a rank-2 shape"
)]
pub trait Rank2 {
    /// The first mode.
    type M0;
    /// The second mode.
    type M1;
}
impl<A, B> Rank2 for (A, B) {
    type M0 = A;
    type M1 = B;
}
