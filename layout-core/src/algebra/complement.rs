//! Typed `complement(A, M)`, CuTe 4.7's algorithm at the type level:
//! filter A, sort its modes by stride, take the quotients of consecutive
//! strides as the gaps to fill, then cover the rest of `M` with compact
//! strides from `d_last * s_last`, and coalesce.
//!
//! The result type is computed here; run-time leaves take their values
//! from the run-time algebra. For static inputs the definition is checked
//! at compile time ([`crate::admissible::check_complement`]).

use super::arith::{CeilDivT, DivT, LCeilDiv, LDiv, LMul, Leaf, MulT};
use super::coalesce::{Coalesce, Known, Unknown};
use super::composition::Pack;
use super::filter::FilterZerosShape;
use super::inverse::Push;
use crate::ctext::Text;
use crate::int::StaticInt;
use crate::int::C;
use crate::layout::{Congruent, Layout};
use crate::make::Compact;
use crate::tuple::{Cons, IntTuple, IntoTuple, Nil, Tuple};
use typenum::{Bit, B0, B1};

/// Zip two lists into a list of `(a, b, ())` triples (the sort's input form).
#[doc(hidden)]
pub trait Zip<B> {
    type Out;
}
impl Zip<Nil> for Nil {
    type Out = Nil;
}
impl<AH, AT: Zip<BT>, BH, BT> Zip<Cons<BH, BT>> for Cons<AH, AT> {
    type Out = Cons<(AH, BH, ()), AT::Out>;
}

/// `B1` for a static leaf.
#[doc(hidden)]
pub trait StTag {
    type St: Bit;
}
impl<U> StTag for Known<U> {
    type St = B1;
}
impl StTag for Unknown {
    type St = B0;
}
/// `B1` when two bits are equal.
#[doc(hidden)]
pub trait SameBit {
    type Out: Bit;
}
impl SameBit for (B0, B0) {
    type Out = B1;
}
impl SameBit for (B1, B1) {
    type Out = B1;
}
impl SameBit for (B0, B1) {
    type Out = B0;
}
impl SameBit for (B1, B0) {
    type Out = B0;
}

/// CuTe's `coalesce(shape)`: neighbours that are both static or both
/// run-time multiply together. `Self` is the leaf list, `Acc` the result
/// so far, last leaf first.
#[doc(hidden)]
pub trait CoalesceShapeList<Acc> {
    type Out;
}
impl<Acc: Reverse> CoalesceShapeList<Acc> for Nil {
    type Out = Acc::Out;
}
impl<X, T: CoalesceShapeList<Cons<X, Nil>>> CoalesceShapeList<Nil> for Cons<X, T> {
    type Out = T::Out;
}
impl<X: Leaf, T, P: Leaf, R> CoalesceShapeList<Cons<P, R>> for Cons<X, T>
where
    <X::Form as StTag>::St: Bit,
    X::Form: StTag,
    P::Form: StTag,
    (<X::Form as StTag>::St, <P::Form as StTag>::St): SameBit,
    <(<X::Form as StTag>::St, <P::Form as StTag>::St) as SameBit>::Out: MergeShape<X, T, P, R>,
{
    type Out = <<(<X::Form as StTag>::St, <P::Form as StTag>::St) as SameBit>::Out as MergeShape<
        X,
        T,
        P,
        R,
    >>::Out;
}
#[doc(hidden)]
pub trait MergeShape<X, T, P, R> {
    type Out;
}
impl<X, T, P, R> MergeShape<X, T, P, R> for B1
where
    (P, X): LMul,
    T: CoalesceShapeList<Cons<MulT<P, X>, R>>,
{
    type Out = <T as CoalesceShapeList<Cons<MulT<P, X>, R>>>::Out;
}
impl<X, T, P, R> MergeShape<X, T, P, R> for B0
where
    T: CoalesceShapeList<Cons<X, Cons<P, R>>>,
{
    type Out = <T as CoalesceShapeList<Cons<X, Cons<P, R>>>>::Out;
}
/// Reverse a list.
#[doc(hidden)]
pub trait Reverse {
    type Out;
}
impl Reverse for Nil {
    type Out = Nil;
}
impl<H: Copy + Send + Sync + 'static, T: Reverse> Reverse for Cons<H, T>
where
    T::Out: Push<H>,
{
    type Out = <T::Out as Push<H>>::Out;
}
/// The coalesced shape of a shape type.
pub type CoalesceShape<T> = <<<T as IntTuple>::Leaves as CoalesceShapeList<Nil>>::Out as Pack>::Out;

/// CuTe's `ceil_div(shape, n)`: divide the modes in order, carrying the rest.
#[doc(hidden)]
pub trait CeilDivList<B> {
    type Out;
}
impl<B> CeilDivList<B> for Nil {
    type Out = Nil;
}
impl<X, T, B> CeilDivList<B> for Cons<X, T>
where
    (X, B): LCeilDiv,
    (B, X): LCeilDiv,
    T: CeilDivList<CeilDivT<B, X>>,
{
    type Out = Cons<CeilDivT<X, B>, <T as CeilDivList<CeilDivT<B, X>>>::Out>;
}
/// `ceil_div` of a cotarget (an integer or a flat tuple) by `B`.
#[doc(hidden)]
pub trait CeilDivShape<B> {
    type Out: IntTuple;
}
impl<T: IntTuple, B> CeilDivShape<B> for T
where
    T::IsLeaf: CeilDivCase<T, B>,
{
    type Out = <T::IsLeaf as CeilDivCase<T, B>>::Out;
}
#[doc(hidden)]
pub trait CeilDivCase<T, B> {
    type Out: IntTuple;
}
impl<T, B> CeilDivCase<T, B> for B1
where
    (T, B): LCeilDiv,
{
    type Out = CeilDivT<T, B>;
}
impl<T: Tuple, B> CeilDivCase<T, B> for B0
where
    T::List: CeilDivList<B>,
    <T::List as CeilDivList<B>>::Out: IntoTuple,
    <<T::List as CeilDivList<B>>::Out as IntoTuple>::Tuple: IntTuple,
{
    type Out = <<T::List as CeilDivList<B>>::Out as IntoTuple>::Tuple;
}

/// The fold over the modes sorted by stride: quotients of consecutive
/// strides become shapes, `d * s` the next stride.
#[doc(hidden)]
pub trait Gaps<Last, Shs, Sts> {
    /// Shapes.
    type Shapes;
    /// Strides (starting with `_1`).
    type Strides;
    /// `d * s` of the last mode.
    type Next;
}
impl<S0, D0, Last, Shs: Push<DivT<D0, Last>>, Sts> Gaps<Last, Shs, Sts> for Cons<(S0, D0, ()), Nil>
where
    (D0, Last): LDiv,
    (D0, S0): LMul,
{
    type Shapes = Shs::Out;
    type Strides = Sts;
    type Next = MulT<D0, S0>;
}
impl<S0, D0, X, R, Last, Shs: Push<DivT<D0, Last>>, Sts: Push<MulT<D0, S0>>> Gaps<Last, Shs, Sts>
    for Cons<(S0, D0, ()), Cons<X, R>>
where
    (D0, Last): LDiv,
    (D0, S0): LMul,
    Cons<X, R>: Gaps<MulT<D0, S0>, Shs::Out, Sts::Out>,
{
    type Shapes = <Cons<X, R> as Gaps<MulT<D0, S0>, Shs::Out, Sts::Out>>::Shapes;
    type Strides = <Cons<X, R> as Gaps<MulT<D0, S0>, Shs::Out, Sts::Out>>::Strides;
    type Next = <Cons<X, R> as Gaps<MulT<D0, S0>, Shs::Out, Sts::Out>>::Next;
}

/// One mode needs no sort (its stride may be a run-time value); more are
/// sorted by static stride.
#[doc(hidden)]
pub trait Sorted {
    type Out;
}
impl<P> Sorted for Cons<P, Nil> {
    type Out = Cons<P, Nil>;
}
impl<P, Q, R> Sorted for Cons<P, Cons<Q, R>>
where
    Cons<P, Cons<Q, R>>: InsertAll<Nil>,
{
    type Out = <Cons<P, Cons<Q, R>> as InsertAll<Nil>>::Out;
}

/// Insertion sort by static stride, stable (equal strides keep their order,
/// as CuTe's repeated pick of the first smallest stride does).
#[doc(hidden)]
pub trait InsertAll<Acc> {
    type Out;
}
impl<Acc> InsertAll<Acc> for Nil {
    type Out = Acc;
}
impl<X, T, Acc: Insert<X>> InsertAll<Acc> for Cons<X, T>
where
    T: InsertAll<Acc::Out>,
{
    type Out = <T as InsertAll<Acc::Out>>::Out;
}
/// Insert a mode before the first mode with a larger stride.
#[doc(hidden)]
pub trait Insert<X> {
    type Out;
}
impl<X> Insert<X> for Nil {
    type Out = Cons<X, Nil>;
}
impl<SX, DX: StaticInt, SH, DH: StaticInt, T> Insert<(SX, DX, ())> for Cons<(SH, DH, ()), T>
where
    DX::U: typenum::IsLess<DH::U>,
    <DX::U as typenum::IsLess<DH::U>>::Output: InsertHere<(SX, DX, ()), (SH, DH, ()), T>,
{
    type Out = <<DX::U as typenum::IsLess<DH::U>>::Output as InsertHere<
        (SX, DX, ()),
        (SH, DH, ()),
        T,
    >>::Out;
}
/// `B1`: the new mode goes first; `B0`: after the head.
#[doc(hidden)]
pub trait InsertHere<X, H, T> {
    type Out;
}
impl<X, H, T> InsertHere<X, H, T> for B1 {
    type Out = Cons<X, Cons<H, T>>;
}
impl<X, H, T: Insert<X>> InsertHere<X, H, T> for B0 {
    type Out = Cons<H, T::Out>;
}

/// The modes of `filter(A)` as sort triples.
#[doc(hidden)]
pub trait FilteredModes {
    type Triples;
}
impl<Sh: Congruent<D> + FilterZerosShape<D>, D: IntTuple> FilteredModes for Layout<Sh, D>
where
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
    Layout<<Sh as FilterZerosShape<D>>::Out, D>: Coalesce,
    <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output: super::LayoutParts,
    <<<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::LayoutParts>::Shape as IntTuple>::Leaves:
        Zip<<<<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::LayoutParts>::Stride as IntTuple>::Leaves>,
{
    type Triples = <<<<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::LayoutParts>::Shape as IntTuple>::Leaves as Zip<
        <<<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::LayoutParts>::Stride as IntTuple>::Leaves,
    >>::Out;
}

/// The complement's type, given the filtered modes (`Self`) and the cotarget.
#[doc(hidden)]
pub trait ComplementOf<Cot> {
    type Shape: IntTuple;
    type Stride: IntTuple;
}
impl<S0, D0: Leaf, R, Cot> ComplementOf<Cot> for Cons<(S0, D0, ()), R>
where
    D0::IsZero: ZeroStrideCase<Cons<(S0, D0, ()), R>, Cot>,
{
    type Shape = <D0::IsZero as ZeroStrideCase<Cons<(S0, D0, ()), R>, Cot>>::Shape;
    type Stride = <D0::IsZero as ZeroStrideCase<Cons<(S0, D0, ()), R>, Cot>>::Stride;
}
/// `filter(A)` is `_1:_0`: the complement is the compact coalesced cotarget.
#[doc(hidden)]
pub trait ZeroStrideCase<M, Cot> {
    type Shape: IntTuple;
    type Stride: IntTuple;
}
impl<M, Cot: IntTuple> ZeroStrideCase<M, Cot> for B1
where
    Cot::Leaves: CoalesceShapeList<Nil>,
    <Cot::Leaves as CoalesceShapeList<Nil>>::Out: Pack,
    CoalesceShape<Cot>: Compact<C<1>>,
{
    type Shape = CoalesceShape<Cot>;
    type Stride = <CoalesceShape<Cot> as Compact<C<1>>>::Left;
}
impl<M: Sorted, Cot> ZeroStrideCase<M, Cot> for B0
where
    G<M>: Gaps<C<1>, Nil, Cons<C<1>, Nil>>,
    GNext<M>: crate::int::Int,
    Cot: CeilDivShape<GNext<M>>,
    <RestOf<M, Cot> as IntTuple>::Leaves: CoalesceShapeList<Nil>,
    <<RestOf<M, Cot> as IntTuple>::Leaves as CoalesceShapeList<Nil>>::Out: Pack,
    RestShape<M, Cot>: Compact<GNext<M>>,
    GShapes<M>: Push<RestShape<M, Cot>>,
    GStrides<M>: Push<RestStride<M, Cot>>,
    PreShape<M, Cot>: IntoTuple,
    PreStride<M, Cot>: IntoTuple,
    <PreShape<M, Cot> as IntoTuple>::Tuple: Congruent<<PreStride<M, Cot> as IntoTuple>::Tuple>,
    <PreStride<M, Cot> as IntoTuple>::Tuple: IntTuple,
    Pre<M, Cot>: Coalesce,
    <Pre<M, Cot> as Coalesce>::Output: super::LayoutParts,
{
    type Shape = <<Pre<M, Cot> as Coalesce>::Output as super::LayoutParts>::Shape;
    type Stride = <<Pre<M, Cot> as Coalesce>::Output as super::LayoutParts>::Stride;
}
type G<M> = <M as Sorted>::Out;
type GNext<M> = <G<M> as Gaps<C<1>, Nil, Cons<C<1>, Nil>>>::Next;
type GShapes<M> = <G<M> as Gaps<C<1>, Nil, Cons<C<1>, Nil>>>::Shapes;
type GStrides<M> = <G<M> as Gaps<C<1>, Nil, Cons<C<1>, Nil>>>::Strides;
type RestOf<M, Cot> = <Cot as CeilDivShape<GNext<M>>>::Out;
type RestShape<M, Cot> = CoalesceShape<RestOf<M, Cot>>;
type RestStride<M, Cot> = <RestShape<M, Cot> as Compact<GNext<M>>>::Left;
type PreShape<M, Cot> = <GShapes<M> as Push<RestShape<M, Cot>>>::Out;
type PreStride<M, Cot> = <GStrides<M> as Push<RestStride<M, Cot>>>::Out;
type Pre<M, Cot> =
    Layout<<PreShape<M, Cot> as IntoTuple>::Tuple, <PreStride<M, Cot> as IntoTuple>::Tuple>;

/// The type of `complement(A, M)`.
pub type ComplementT<A, Cot> = Layout<
    <<A as FilteredModes>::Triples as ComplementOf<Cot>>::Shape,
    <<A as FilteredModes>::Triples as ComplementOf<Cot>>::Stride,
>;

/// The definition of the complement, checked on static inputs: the text of
/// the reason it fails, or `None` (also `None` with run-time leaves, which
/// are checked at run time).
struct ErrText<A, Cot>(core::marker::PhantomData<(A, Cot)>);
impl<A: super::StaticText + FilteredModes, Cot: IntTuple> ErrText<A, Cot>
where
    A::Triples: ComplementOf<Cot>,
    ComplementT<A, Cot>: super::StaticText,
    A: FilteredText,
{
    const TEXT: Option<Text> = {
        let (fs, fd) = (<A as FilteredText>::SHAPE, <A as FilteredText>::STRIDE);
        let (rs, rd) = (
            <ComplementT<A, Cot> as super::StaticText>::SHAPE,
            <ComplementT<A, Cot> as super::StaticText>::STRIDE,
        );
        let cot = Cot::LEAF_VALUES;
        if fs.all_static()
            && fd.all_static()
            && rs.all_static()
            && rd.all_static()
            && cot.all_static()
            && fs.n + rs.n <= 64
        {
            let s = fs.concat(rs);
            let d = fd.concat(rd);
            let mut m = 1usize;
            let mut i = 0;
            while i < cot.n {
                m = m.saturating_mul(cot.v[i]);
                i += 1;
            }
            let (sv, _) = s.v.split_at(s.n);
            let (dv, _) = d.v.split_at(d.n);
            match crate::admissible::check_complement(sv, dv, m) {
                Err(e) => Some(e.text(Text::EMPTY.str("complement: ").text(A::TEXT).str(": "))),
                Ok(()) => None,
            }
        } else {
            None
        }
    };
}

/// The leaves of `filter(A)` as constants.
#[doc(hidden)]
pub trait FilteredText {
    const SHAPE: crate::ctext::Leaves;
    const STRIDE: crate::ctext::Leaves;
}
impl<Sh: Congruent<D> + FilterZerosShape<D>, D: IntTuple> FilteredText for Layout<Sh, D>
where
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
    Layout<<Sh as FilterZerosShape<D>>::Out, D>: Coalesce,
    <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output: super::StaticText,
{
    const SHAPE: crate::ctext::Leaves =
        <<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::StaticText>::SHAPE;
    const STRIDE: crate::ctext::Leaves =
        <<Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output as super::StaticText>::STRIDE;
}

/// Typed complement.
pub trait Complement<Cot> {
    /// The result layout.
    type Output;
    /// Why the complement does not exist, for static inputs.
    const ERROR: Option<Text>;
    /// `complement(Self, cot)`, or the reason it is inadmissible.
    fn try_complement(self, cot: Cot) -> Result<Self::Output, crate::LayoutError>;
}
impl<Sh: Congruent<D>, D: IntTuple, Cot: IntTuple> Complement<Cot> for Layout<Sh, D>
where
    Layout<Sh, D>: FilteredModes + FilteredText,
    <Layout<Sh, D> as FilteredModes>::Triples: ComplementOf<Cot>,
    <<Layout<Sh, D> as FilteredModes>::Triples as ComplementOf<Cot>>::Shape:
        Congruent<<<Layout<Sh, D> as FilteredModes>::Triples as ComplementOf<Cot>>::Stride>,
{
    type Output = ComplementT<Layout<Sh, D>, Cot>;
    const ERROR: Option<Text> = ErrText::<Layout<Sh, D>, Cot>::TEXT;
    #[inline(always)]
    #[cfg_attr(not(feature = "alloc"), allow(unused_variables))]
    fn try_complement(self, cot: Cot) -> Result<Self::Output, crate::LayoutError> {
        const {
            if let Some(t) = Self::ERROR {
                panic!("{}", t.as_str())
            }
        }
        super::values::typed_result!({
            crate::dynamic::complement(
                &crate::DynLayout::from_typed(&self),
                &crate::DTuple::from_typed(&cot),
            )
        })
    }
}

/// CuTe's `complement(A, M)`: the layout R, ordered by stride, such that
/// `(A, R)` maps onto `[0, M)` one to one (rounded up to whole copies of A).
/// Inadmissible static inputs are compile errors; with run-time leaves it
/// panics with the run-time algebra's message ([`try_complement`] returns it).
///
/// ```
/// use layout_core::{algebra::complement, layout, C};
/// let r = complement(layout!((4,8):(32,1)), C::<1024>);
/// assert_eq!(r.to_string(), "(_4,_8):(_8,_128)");
/// assert_eq!(core::mem::size_of_val(&r), 0);
/// assert_eq!(complement(layout!(4:2), 16usize).to_string(), "(_2,2):(_1,_8)");
/// ```
#[inline(always)]
pub fn complement<A, Cot: CotargetOf<A>>(a: A, cot: Cot) -> Cot::Output {
    super::values::or_panic(cot.try_complement_of(a))
}

/// [`complement`], returning the reason instead of panicking at run time.
#[inline(always)]
pub fn try_complement<A, Cot: CotargetOf<A>>(
    a: A,
    cot: Cot,
) -> Result<Cot::Output, crate::LayoutError> {
    cot.try_complement_of(a)
}

/// [`Complement`] seen from the cotarget: the functions bound their last
/// argument, so that the type-level work starts once both input types are
/// known (with A's bound first, the solver explores while `Cot` is unknown).
#[doc(hidden)]
pub trait CotargetOf<A> {
    type Output;
    fn try_complement_of(self, a: A) -> Result<Self::Output, crate::LayoutError>;
}
impl<A: Complement<Cot>, Cot> CotargetOf<A> for Cot {
    type Output = A::Output;
    #[inline(always)]
    fn try_complement_of(self, a: A) -> Result<A::Output, crate::LayoutError> {
        a.try_complement(self)
    }
}

/// The error of a static complement, if any (what the compile-time check evaluates).
///
/// ```
/// use layout_core::{algebra::complement_error, layout_type, C};
/// assert!(complement_error::<layout_type!((2,2):(2,3)), C<16>>().is_some());
/// assert!(complement_error::<layout_type!((4,8):(32,1)), C<1024>>().is_none());
/// ```
pub fn complement_error<A: Complement<Cot>, Cot>() -> Option<&'static str> {
    match &A::ERROR {
        Some(t) => Some(t.as_str()),
        None => None,
    }
}

/// Whether a constant leaf list has a static 0: the complement's shape of
/// modes that overlap (CuTe's "not stacking" case), an inadmissible input.
pub(crate) const fn has_static_zero(l: crate::ctext::Leaves) -> bool {
    let mut i = 0;
    while i < l.n && i < crate::ctext::Leaves::CAP {
        if l.st[i] && l.v[i] == 0 {
            return true;
        }
        i += 1;
    }
    false
}

/// The type of `cosize(filter(A))`, CuTe's default cotarget of `complement(A)`.
pub trait DefaultCotarget {
    /// The cotarget's leaf type (static when every leaf of A is).
    type Cot: crate::int::FromValue;
    /// Its value.
    fn cotarget(&self) -> usize;
}
impl<Sh: Congruent<D> + FilterZerosShape<D>, D: IntTuple> DefaultCotarget for Layout<Sh, D>
where
    <Sh as FilterZerosShape<D>>::Out: Congruent<D>,
    Layout<<Sh as FilterZerosShape<D>>::Out, D>: Coalesce,
    <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output: super::LayoutParts,
    <<FilteredParts<Sh, D> as super::LayoutParts>::Shape as IntTuple>::Leaves: super::divide::ZipModes<
        <<FilteredParts<Sh, D> as super::LayoutParts>::Stride as IntTuple>::Leaves,
    >,
    <<<FilteredParts<Sh, D> as super::LayoutParts>::Shape as IntTuple>::Leaves as super::divide::ZipModes<
        <<FilteredParts<Sh, D> as super::LayoutParts>::Stride as IntTuple>::Leaves,
    >>::Out: super::product::CosizeList<Known<typenum::U0>>,
    <<<<FilteredParts<Sh, D> as super::LayoutParts>::Shape as IntTuple>::Leaves as super::divide::ZipModes<
        <<FilteredParts<Sh, D> as super::LayoutParts>::Stride as IntTuple>::Leaves,
    >>::Out as super::product::CosizeList<Known<typenum::U0>>>::Out: super::product::PlusOne,
    FilteredCosize<Sh, D>: crate::int::FromValue,
{
    type Cot = FilteredCosize<Sh, D>;
    fn cotarget(&self) -> usize {
        // cosize(filter(A)) = 1 + sum of (s - 1) * d over the modes with d != 0.
        let mut shapes = [0usize; 64];
        let mut n = 0;
        self.shape().for_each_leaf(&mut |v, _| {
            if n < 64 {
                shapes[n] = v;
            }
            n += 1;
        });
        let mut k = 0;
        let mut total = 1usize;
        self.stride().for_each_leaf(&mut |d, _| {
            if k < 64 {
                total = total.saturating_add(shapes[k].saturating_sub(1).saturating_mul(d));
            }
            k += 1;
        });
        total
    }
}
type FilteredParts<Sh, D> = <Layout<<Sh as FilterZerosShape<D>>::Out, D> as Coalesce>::Output;
type FilteredCosize<Sh, D> = super::product::CosizeT<
    <FilteredParts<Sh, D> as super::LayoutParts>::Shape,
    <FilteredParts<Sh, D> as super::LayoutParts>::Stride,
>;

/// CuTe's `complement(A)`: the complement up to `cosize(filter(A))`.
///
/// ```
/// use layout_core::{algebra::complement_default, layout};
/// assert_eq!(complement_default(layout!((4,6):(1,8))).to_string(), "_2:_4");
/// ```
#[inline(always)]
pub fn complement_default<A: DefaultCotarget + Complement<A::Cot>>(a: A) -> A::Output {
    let cot = <A::Cot as crate::int::FromValue>::from_value(a.cotarget());
    complement(a, cot)
}

/// [`complement_default`], returning the reason instead of panicking at run time.
#[inline(always)]
pub fn try_complement_default<A: DefaultCotarget + Complement<A::Cot>>(
    a: A,
) -> Result<A::Output, crate::LayoutError> {
    let cot = <A::Cot as crate::int::FromValue>::from_value(a.cotarget());
    a.try_complement(cot)
}
