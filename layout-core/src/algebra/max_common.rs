//! Typed `max_common_layout` and `max_common_vector` of static layouts:
//! `common = coalesce(A o right_inverse(B))`; when its first mode has a
//! static stride 1, that many elements are contiguous in both A and B.

use super::coalesce::Coalesce;
use super::composition::ComposeOnto;
use super::inverse::RightInverse;
use crate::layout::ops::Mode;
use crate::layout::LayoutParts;
use crate::layout::{Congruent, Layout};
use crate::typelevel::form::StaticForm;
use crate::typelevel::int::C;
use crate::typelevel::tuple::IntTuple;
use typenum::{Bit, B0, B1};

/// `B1` for a static shape with a static stride 1.
#[doc(hidden)]
pub trait Contiguous {
    type Tag: Bit;
}
impl<S: StaticForm, D: StaticForm> Contiguous for (S, D)
where
    (<S::Form as crate::typelevel::form::StTag>::St, D::IsOne): crate::typelevel::form::Both,
    S::Form: crate::typelevel::form::StTag,
{
    type Tag =
        <(<S::Form as crate::typelevel::form::StTag>::St, D::IsOne) as crate::typelevel::form::Both>::Out;
}

/// The two results by tag.
#[doc(hidden)]
pub trait CommonCase<Inv, S, D> {
    type Layout;
    type Vector;
}
impl<Inv, S, D> CommonCase<Inv, S, D> for B0 {
    type Layout = Layout<C<1>, C<0>>;
    type Vector = C<1>;
}
impl<Inv, S, D> CommonCase<Inv, S, D> for B1
where
    Layout<S, D>: ComposeOnto<Inv>,
{
    type Layout = <Layout<S, D> as ComposeOnto<Inv>>::Output;
    type Vector = S;
}

/// The types of `max_common_layout(Self, B)` and `max_common_vector(Self, B)`.
pub trait MaxCommon<B> {
    /// The common layout.
    type Layout;
    /// The number of contiguous common elements (a static leaf).
    type Vector;
}
type Inv<B> = <B as RightInverse>::Output;
type Common<A, B> = <<Inv<B> as ComposeOnto<A>>::Output as Coalesce>::Output;
type First<A, B> = <Common<A, B> as Mode<0>>::Output;
impl<AS: Congruent<AD>, AD: IntTuple, BS: Congruent<BD>, BD: IntTuple> MaxCommon<Layout<BS, BD>>
    for Layout<AS, AD>
where
    Layout<BS, BD>: RightInverse,
    Inv<Layout<BS, BD>>: ComposeOnto<Layout<AS, AD>>,
    <Inv<Layout<BS, BD>> as ComposeOnto<Layout<AS, AD>>>::Output: Coalesce,
    Common<Layout<AS, AD>, Layout<BS, BD>>: Mode<0>,
    First<Layout<AS, AD>, Layout<BS, BD>>: LayoutParts,
    (
        <First<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape,
        <First<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Stride,
    ): Contiguous,
    <(
        <First<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape,
        <First<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Stride,
    ) as Contiguous>::Tag: CommonCase<
        Inv<Layout<BS, BD>>,
        <First<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape,
        <First<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Stride,
    >,
{
    type Layout = <CaseOf<Layout<AS, AD>, Layout<BS, BD>> as CommonCase<
        Inv<Layout<BS, BD>>,
        FirstShape<Layout<AS, AD>, Layout<BS, BD>>,
        FirstStride<Layout<AS, AD>, Layout<BS, BD>>,
    >>::Layout;
    type Vector = <CaseOf<Layout<AS, AD>, Layout<BS, BD>> as CommonCase<
        Inv<Layout<BS, BD>>,
        FirstShape<Layout<AS, AD>, Layout<BS, BD>>,
        FirstStride<Layout<AS, AD>, Layout<BS, BD>>,
    >>::Vector;
}
type FirstShape<A, B> = <First<A, B> as LayoutParts>::Shape;
type FirstStride<A, B> = <First<A, B> as LayoutParts>::Stride;
/// `B1` when the common layout's first mode is contiguous.
type CaseOf<A, B> = <(FirstShape<A, B>, FirstStride<A, B>) as Contiguous>::Tag;

/// CuTe's `max_common_vector(A, B)` of static layouts: how many elements
/// are contiguous in both, as a static leaf.
///
/// ```
/// use layout_core::{algebra::max_common_vector, layout};
/// let v = max_common_vector(layout!((128,64):(64,1)), layout!((128,64):(1,128)));
/// assert_eq!(v.to_string(), "_1");
/// let v = max_common_vector(layout!((4,8):(1,4)), layout!((4,8):(1,4)));
/// assert_eq!(v.to_string(), "_32");
/// ```
#[inline(always)]
pub fn max_common_vector<A: MaxCommon<B>, B>(_a: A, _b: B) -> A::Vector
where
    A::Vector: Default + crate::typelevel::int::Int,
{
    const {
        assert!(
            <A::Vector as crate::typelevel::int::Int>::STATIC.is_some(),
            "max_common_vector: the typed form computes a static count only; with run-time leaves use DynLayout's"
        )
    };
    Default::default()
}

/// CuTe's `max_common_layout(A, B)` of static layouts: the largest layout
/// R with `A(R(i)) == B(R(i))` contiguous from 0.
///
/// ```
/// use layout_core::{algebra::max_common_layout, layout};
/// let r = max_common_layout(layout!((4,8):(1,4)), layout!((4,8):(1,4)));
/// assert_eq!(r.to_string(), "_32:_1");
/// ```
#[inline(always)]
pub fn max_common_layout<A: MaxCommon<B>, B>(_a: A, _b: B) -> A::Layout
where
    A::Layout: super::StaticResult,
{
    const {
        assert!(
            <A::Layout as super::StaticResult>::IS_STATIC,
            "max_common_layout: the typed form computes static results only; with run-time leaves use DynLayout's"
        )
    };
    <A::Layout as super::StaticResult>::make_static()
}
