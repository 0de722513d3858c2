//! Typed `filter_zeros` and `filter`: a static 0 stride makes its mode size
//! `_1`; `filter` then coalesces.

use super::coalesce::Coalesce;
use crate::layout::{Congruent, Layout};
use crate::typelevel::form::StaticForm;
use crate::typelevel::int::C;
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil, Tuple};
use typenum::{Bit, B0, B1};

/// Whether a stride leaf is the static 0.
#[doc(hidden)]
pub trait StrideZero {
    type IsZero: Bit;
}
impl StrideZero for usize {
    type IsZero = B0;
}
impl<T: StaticForm> StrideZero for T
where
    T: crate::typelevel::int::StaticInt,
{
    type IsZero = <<T as crate::typelevel::int::StaticInt>::U as crate::typelevel::int::StaticZeroTag>::IsZero;
}

/// Pick `_1` (tag `B1`) or keep the shape (tag `B0`).
#[doc(hidden)]
pub trait OneOrKeep<Sh> {
    type Out: IntTuple;
    fn go(s: Sh) -> Self::Out;
}
impl<Sh> OneOrKeep<Sh> for B1 {
    type Out = C<1>;
    fn go(_s: Sh) -> C<1> {
        C
    }
}
impl<Sh: IntTuple> OneOrKeep<Sh> for B0 {
    type Out = Sh;
    fn go(s: Sh) -> Sh {
        s
    }
}

/// The shape of `filter_zeros`, for a shape `Self` with stride `D`.
#[doc(hidden)]
pub trait FilterZerosShape<D> {
    type Out: IntTuple;
    fn filter_zeros_shape(self) -> Self::Out;
}
macro_rules! leaf_filter_zeros {
    ($t:ty; $($g:tt)*) => {
        impl<D: StrideZero, $($g)*> FilterZerosShape<D> for $t
        where
            D::IsZero: OneOrKeep<$t>,
        {
            type Out = <D::IsZero as OneOrKeep<$t>>::Out;
            #[inline(always)]
            fn filter_zeros_shape(self) -> Self::Out {
                <D::IsZero as OneOrKeep<$t>>::go(self)
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(leaf_filter_zeros);
#[doc(hidden)]
pub trait FilterZerosList<D> {
    type Out: List;
    fn filter_zeros_list(self) -> Self::Out;
}
impl FilterZerosList<Nil> for Nil {
    type Out = Nil;
    fn filter_zeros_list(self) -> Nil {
        Nil
    }
}
impl<SH: FilterZerosShape<DH>, ST: FilterZerosList<DT>, DH, DT> FilterZerosList<Cons<DH, DT>>
    for Cons<SH, ST>
{
    type Out = Cons<SH::Out, ST::Out>;
    #[inline(always)]
    fn filter_zeros_list(self) -> Self::Out {
        Cons(self.0.filter_zeros_shape(), self.1.filter_zeros_list())
    }
}
impl<S: Tuple, D: Tuple> FilterZerosShape<D> for S
where
    S::List: FilterZerosList<D::List>,
    <S::List as FilterZerosList<D::List>>::Out: IntoTuple,
    <<S::List as FilterZerosList<D::List>>::Out as IntoTuple>::Tuple: IntTuple,
{
    type Out = <<S::List as FilterZerosList<D::List>>::Out as IntoTuple>::Tuple;
    #[inline(always)]
    fn filter_zeros_shape(self) -> Self::Out {
        self.into_list().filter_zeros_list().into_tuple()
    }
}

/// CuTe's `filter_zeros(layout)`: modes with a static 0 stride get size `_1`.
///
/// ```
/// use layout_core::{algebra::filter_zeros, layout};
/// assert_eq!(filter_zeros(layout!((4,(3,2)):(0,(1,6)))).to_string(), "(_1,(_3,_2)):(_0,(_1,_6))");
/// ```
#[inline(always)]
pub fn filter_zeros<Sh, D>(l: Layout<Sh, D>) -> Layout<<Sh as FilterZerosShape<D>>::Out, D>
where
    Sh: Congruent<D> + FilterZerosShape<D>,
    D: IntTuple,
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
{
    Layout::new(l.shape().filter_zeros_shape(), l.stride())
}

/// CuTe's `filter(layout)`: drop stride-0 and size-1 modes, then coalesce.
///
/// ```
/// use layout_core::{algebra::filter, layout};
/// assert_eq!(filter(layout!((4,(3,2)):(0,(1,3)))).to_string(), "_6:_1");
/// assert_eq!(core::mem::size_of_val(&filter(layout!((4,1):(0,3)))), 0);
/// ```
#[inline(always)]
pub fn filter<Sh, D>(
    l: Layout<Sh, D>,
) -> <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output
where
    Sh: Congruent<D> + FilterZerosShape<D>,
    D: IntTuple,
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
    Layout<<Sh as FilterZerosShape<D>>::Out, D>: Coalesce,
{
    filter_zeros(l).coalesce()
}
