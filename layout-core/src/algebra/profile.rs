//! `coalesce(layout, profile)` and `filter(layout, profile)`: apply the
//! operation at the terminals of the profile, mode by mode, keeping the modes
//! the profile does not reach.

use super::coalesce::Coalesce;
use super::filter::FilterZerosShape;
use crate::layout::{Congruent, Layout};
use crate::typelevel::int::{C, S};
use crate::typelevel::tuple::{Cons, IntTuple, IntoTuple, List, Nil, Tuple};

/// An operation applied to a whole (sub-)layout.
#[doc(hidden)]
pub trait WholeOp<L> {
    type Out: Parts;
    fn apply(l: L) -> Self::Out;
}
/// `coalesce` as a [`WholeOp`].
#[doc(hidden)]
pub struct CoalesceOp;
/// `filter` as a [`WholeOp`].
#[doc(hidden)]
pub struct FilterOp;
impl<L: Coalesce> WholeOp<L> for CoalesceOp
where
    L::Output: Parts,
{
    type Out = L::Output;
    fn apply(l: L) -> Self::Out {
        l.coalesce()
    }
}
impl<Sh, D> WholeOp<Layout<Sh, D>> for FilterOp
where
    Sh: Congruent<D> + FilterZerosShape<D>,
    D: IntTuple,
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
    Layout<<Sh as FilterZerosShape<D>>::Out, D>: Coalesce,
    <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output: Parts,
{
    type Out = <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output;
    fn apply(l: Layout<Sh, D>) -> Self::Out {
        super::filter::filter(l)
    }
}

/// The shape and stride of a layout type.
#[doc(hidden)]
pub trait Parts {
    type Sh: Copy + Send + Sync + 'static;
    type St: Copy + Send + Sync + 'static;
    fn parts(self) -> (Self::Sh, Self::St);
}
impl<Sh: Congruent<D>, D: IntTuple> Parts for Layout<Sh, D> {
    type Sh = Sh;
    type St = D;
    fn parts(self) -> (Sh, D) {
        (self.shape(), self.stride())
    }
}

/// Apply `Op` by profile `P`.
#[doc(hidden)]
pub trait ByProfile<P, Op> {
    type Out: Parts;
    fn by_profile(self) -> Self::Out;
}
macro_rules! leaf_profile {
    ($t:ty; $($g:tt)*) => {
        impl<L, Op: WholeOp<L>, $($g)*> ByProfile<$t, Op> for L {
            type Out = Op::Out;
            #[inline(always)]
            fn by_profile(self) -> Op::Out {
                Op::apply(self)
            }
        }
    };
}
leaf_profile!(usize;);
leaf_profile!(C<N>; const N: usize);
leaf_profile!(S<U>; U: typenum::Unsigned + 'static);

/// The mode-by-mode walk: shape modes `Self`, stride modes `DL`, profile `PL`.
#[doc(hidden)]
pub trait ProfileModes<DL, PL, Op> {
    type OutS: List;
    type OutD: List;
    fn go(self, d: DL) -> (Self::OutS, Self::OutD);
}
impl<SL: List, DL: List, Op> ProfileModes<DL, Nil, Op> for SL {
    type OutS = SL;
    type OutD = DL;
    fn go(self, d: DL) -> (SL, DL) {
        (self, d)
    }
}
impl<SH, ST, DH, DT, PH, PT, Op> ProfileModes<Cons<DH, DT>, Cons<PH, PT>, Op> for Cons<SH, ST>
where
    SH: Congruent<DH>,
    DH: IntTuple,
    Layout<SH, DH>: ByProfile<PH, Op>,
    ST: ProfileModes<DT, PT, Op>,
{
    type OutS = Cons<<<Layout<SH, DH> as ByProfile<PH, Op>>::Out as Parts>::Sh, ST::OutS>;
    type OutD = Cons<<<Layout<SH, DH> as ByProfile<PH, Op>>::Out as Parts>::St, ST::OutD>;
    fn go(self, d: Cons<DH, DT>) -> (Self::OutS, Self::OutD) {
        let (s, st) = ByProfile::<PH, Op>::by_profile(Layout::new(self.0, d.0)).parts();
        let (rs, rd) = self.1.go(d.1);
        (Cons(s, rs), Cons(st, rd))
    }
}
impl<Sh: Tuple + Congruent<D>, D: Tuple + IntTuple, P: Tuple, Op> ByProfile<P, Op> for Layout<Sh, D>
where
    Sh::List: ProfileModes<D::List, P::List, Op>,
    <Sh::List as ProfileModes<D::List, P::List, Op>>::OutS: IntoTuple,
    <Sh::List as ProfileModes<D::List, P::List, Op>>::OutD: IntoTuple,
    <<Sh::List as ProfileModes<D::List, P::List, Op>>::OutD as IntoTuple>::Tuple: IntTuple,
    <<Sh::List as ProfileModes<D::List, P::List, Op>>::OutS as IntoTuple>::Tuple:
        Congruent<<<Sh::List as ProfileModes<D::List, P::List, Op>>::OutD as IntoTuple>::Tuple>,
{
    type Out = Layout<
        <<Sh::List as ProfileModes<D::List, P::List, Op>>::OutS as IntoTuple>::Tuple,
        <<Sh::List as ProfileModes<D::List, P::List, Op>>::OutD as IntoTuple>::Tuple,
    >;
    fn by_profile(self) -> Self::Out {
        let (s, d) = self.shape().into_list().go(self.stride().into_list());
        Layout::new(s.into_tuple(), d.into_tuple())
    }
}

/// CuTe's `coalesce(layout, profile)`: coalesce each mode the profile
/// reaches (an integer in the profile coalesces that whole mode).
///
/// ```
/// use layout_core::{algebra::coalesce_by, layout, C};
/// let l = layout!(((1,2,8),(8)):((128,64,1),(8)));
/// assert_eq!(coalesce_by(l, (C::<1>,)).to_string(), "((_2,_8),(_8)):((_64,_1),(_8))");
/// ```
#[inline(always)]
pub fn coalesce_by<L: ByProfile<P, CoalesceOp>, P>(l: L, _profile: P) -> L::Out {
    l.by_profile()
}

/// CuTe's `filter(layout, profile)`.
///
/// ```
/// use layout_core::{filter_by, layout, C};
/// // Mode by mode: (_2,_3):(_0,_1) -> _3:_1, and _4:_3 stays.
/// let l = layout!(((2,3),4):((0,1),3));
/// assert_eq!(filter_by(l, (C::<1>, C::<1>)).to_string(), "(_3,_4):(_1,_3)");
/// ```
#[inline(always)]
pub fn filter_by<L: ByProfile<P, FilterOp>, P>(l: L, _profile: P) -> L::Out {
    l.by_profile()
}
