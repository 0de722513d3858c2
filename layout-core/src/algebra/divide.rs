//! Typed divides: `logical_divide(A, T) = A o (T, complement(T, shape(coalesce(A))))`
//! for a layout tiler, by mode for a tuple tiler (modes of A beyond the
//! tiler are kept), and the zipped, tiled and flat rearrangements of it.
//!
//! Result types are computed from the typed composition and complement;
//! run-time leaves take their values from the run-time algebra.

use super::coalesce::Coalesce;
use super::complement::{ComplementOf, FilteredModes};
use super::composition::{first_error, ComposeOnto, LayoutParts};
use crate::coord::Underscore;
use crate::ctext::Text;
use crate::error::LayoutError;
use crate::int::C;
use crate::layout::{Congruent, Layout};
use crate::make::Compact;
use crate::tuple::{AsModes, Concat, Cons, IntTuple, IntoTuple, Nil, SplitAt, Tuple};
use typenum::{B0, B1};

/// A tiler as the run-time algebra's [`crate::Tiler`].
pub trait ToDynTiler {
    /// The run-time tiler.
    #[cfg(feature = "alloc")]
    fn to_dyn_tiler(&self) -> crate::Tiler;
}
impl<S: Congruent<D>, D: IntTuple> ToDynTiler for Layout<S, D> {
    #[cfg(feature = "alloc")]
    fn to_dyn_tiler(&self) -> crate::Tiler {
        crate::Tiler::Layout(crate::DynLayout::from_typed(self))
    }
}
impl ToDynTiler for Underscore {
    #[cfg(feature = "alloc")]
    fn to_dyn_tiler(&self) -> crate::Tiler {
        crate::Tiler::Under
    }
}
macro_rules! int_dyn_tiler {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> ToDynTiler for $t {
            #[cfg(feature = "alloc")]
            fn to_dyn_tiler(&self) -> crate::Tiler {
                use crate::int::Int;
                crate::Tiler::Int(crate::DInt {
                    v: self.value() as i64,
                    st: <$t as Int>::STATIC.is_some(),
                })
            }
        }
    };
}
crate::tuple::for_each_leaf!(int_dyn_tiler);

/// A tiler for the divides: `Self` divides `A`.
pub trait DivideOnto<A> {
    /// The type of `logical_divide(A, Self)`.
    type Logical;
    /// Why the divide is inadmissible for static inputs, if it is.
    const ERROR: Option<Text>;
}

/// The zipped form: `((tile modes), (rest modes))` by the tiler's modes.
pub trait ZipDivideOnto<A>: DivideOnto<A> {
    /// The type of `zipped_divide(A, Self)`.
    type Zipped;
}

/// `(T, complement(T, shape(coalesce(A))))`, the layout A is composed with.
pub type DivisorOf<AS, AD, BS, BD> = Layout<
    (
        BS,
        <<Layout<BS, BD> as FilteredModes>::Triples as ComplementOf<
            <<Layout<AS, AD> as Coalesce>::Output as LayoutParts>::Shape,
        >>::Shape,
    ),
    (
        BD,
        <<Layout<BS, BD> as FilteredModes>::Triples as ComplementOf<
            <<Layout<AS, AD> as Coalesce>::Output as LayoutParts>::Shape,
        >>::Stride,
    ),
>;

impl<AS: Congruent<AD>, AD: IntTuple, BS: Congruent<BD>, BD: IntTuple> DivideOnto<Layout<AS, AD>>
    for Layout<BS, BD>
where
    Layout<AS, AD>: Coalesce,
    <Layout<AS, AD> as Coalesce>::Output: LayoutParts,
    Layout<BS, BD>: FilteredModes,
    <Layout<BS, BD> as FilteredModes>::Triples:
        ComplementOf<<<Layout<AS, AD> as Coalesce>::Output as LayoutParts>::Shape>,
    DivisorOf<AS, AD, BS, BD>: ComposeOnto<Layout<AS, AD>>,
{
    type Logical = <DivisorOf<AS, AD, BS, BD> as ComposeOnto<Layout<AS, AD>>>::Output;
    const ERROR: Option<Text> = if super::complement::has_static_zero(
        <<<Layout<BS, BD> as FilteredModes>::Triples as ComplementOf<
            <<Layout<AS, AD> as Coalesce>::Output as LayoutParts>::Shape,
        >>::Shape as IntTuple>::LEAF_VALUES,
    ) {
        Some(
            Text::EMPTY
                .str("logical_divide: the tiler ")
                .text(super::composition::layout_text::<BS, BD>())
                .str(" has overlapping modes (a stride is not above the modes below it), so it has no complement"),
        )
    } else {
        match <DivisorOf<AS, AD, BS, BD> as ComposeOnto<Layout<AS, AD>>>::ERROR {
            Some(t) => Some(Text::EMPTY.str("logical_divide: ").text(t)),
            None => None,
        }
    };
}

impl<AS, AD, BS, BD> ZipDivideOnto<Layout<AS, AD>> for Layout<BS, BD>
where
    Layout<BS, BD>: DivideOnto<Layout<AS, AD>>,
{
    type Zipped = <Layout<BS, BD> as DivideOnto<Layout<AS, AD>>>::Logical;
}

impl<AS: Congruent<AD>, AD: IntTuple> ZipDivideOnto<Layout<AS, AD>> for Underscore {
    type Zipped = Layout<AS, AD>;
}

impl<AS: Congruent<AD>, AD: IntTuple> DivideOnto<Layout<AS, AD>> for Underscore {
    type Logical = Layout<AS, AD>;
    const ERROR: Option<Text> = None;
}

macro_rules! int_divide {
    ($t:ty; $($g:tt)*) => {
        /// An integer tiler `n` is the layout `make_layout(n)`.
        impl<AS: Congruent<AD>, AD: IntTuple, $($g)*> DivideOnto<Layout<AS, AD>> for $t
        where
            $t: Compact<C<1>>,
            Layout<$t, <$t as Compact<C<1>>>::Left>: DivideOnto<Layout<AS, AD>>,
            $t: Congruent<<$t as Compact<C<1>>>::Left>,
        {
            type Logical = <Layout<$t, <$t as Compact<C<1>>>::Left> as DivideOnto<Layout<AS, AD>>>::Logical;
            const ERROR: Option<Text> = <Layout<$t, <$t as Compact<C<1>>>::Left> as DivideOnto<Layout<AS, AD>>>::ERROR;
        }
    };
}
crate::tuple::for_each_leaf!(int_divide);
macro_rules! int_zip_divide {
    ($t:ty; $($g:tt)*) => {
        impl<AS: Congruent<AD>, AD: IntTuple, $($g)*> ZipDivideOnto<Layout<AS, AD>> for $t
        where
            $t: Compact<C<1>> + DivideOnto<Layout<AS, AD>>,
            Layout<$t, <$t as Compact<C<1>>>::Left>: ZipDivideOnto<Layout<AS, AD>>,
        {
            type Zipped = <Layout<$t, <$t as Compact<C<1>>>::Left> as ZipDivideOnto<Layout<AS, AD>>>::Zipped;
        }
    };
}
crate::tuple::for_each_leaf!(int_zip_divide);

/// Shape and stride of a layout as a `(shape, stride)` pair type.
type PairOf<L> = (<L as LayoutParts>::Shape, <L as LayoutParts>::Stride);

/// Turn a list of `(shape, stride)` pairs into a layout.
#[doc(hidden)]
pub trait ModesToLayout {
    type Out;
}
impl<L: super::coalesce::Unzip> ModesToLayout for L
where
    L::A: IntoTuple,
    L::B: IntoTuple,
    <L::A as IntoTuple>::Tuple: Congruent<<L::B as IntoTuple>::Tuple>,
    <L::B as IntoTuple>::Tuple: IntTuple,
{
    type Out = Layout<<L::A as IntoTuple>::Tuple, <L::B as IntoTuple>::Tuple>;
}

/// Zip shape and stride mode lists into a list of pairs.
#[doc(hidden)]
pub trait ZipModes<D> {
    type Out: crate::tuple::List;
}
impl ZipModes<Nil> for Nil {
    type Out = Nil;
}
impl<SH: Copy + Send + Sync + 'static, ST: ZipModes<DT>, DH: Copy + Send + Sync + 'static, DT>
    ZipModes<Cons<DH, DT>> for Cons<SH, ST>
{
    type Out = Cons<(SH, DH), ST::Out>;
}
/// The modes of A from `N` on, as pairs.
type ModeOf<L, const I: usize> = super::composition::ModeOf<L, I>;
type RestModes<AS, AD, const N: usize> =
    <<<AS as AsModes>::Modes as SplitAt<N>>::Back as ZipModes<
        <<AD as AsModes>::Modes as SplitAt<N>>::Back,
    >>::Out;

/// Mode 0 and mode 1 of a zipped result.
type ZFirst<T, M> = <<T as ZipDivideOnto<M>>::Zipped as crate::ops::Mode<0>>::Output;
type ZSecond<T, M> = <<T as ZipDivideOnto<M>>::Zipped as crate::ops::Mode<1>>::Output;
super::by_mode::tuple_tiler!(DivideOnto, ZipDivideOnto; 1; T0 0);
super::by_mode::tuple_tiler!(DivideOnto, ZipDivideOnto; 2; T0 0, T1 1);
super::by_mode::tuple_tiler!(DivideOnto, ZipDivideOnto; 3; T0 0, T1 1, T2 2);
super::by_mode::tuple_tiler!(DivideOnto, ZipDivideOnto; 4; T0 0, T1 1, T2 2, T3 3);
macro_rules! tuple_dyn_tiler {
    ($($t:ident $i:tt),+) => {
        impl<$($t: ToDynTiler,)+> ToDynTiler for ($($t,)+) {
            #[cfg(feature = "alloc")]
            fn to_dyn_tiler(&self) -> crate::Tiler {
                crate::Tiler::Tup(alloc::vec![$(self.$i.to_dyn_tiler(),)+])
            }
        }
    };
}
tuple_dyn_tiler!(T0 0);
tuple_dyn_tiler!(T0 0, T1 1);
tuple_dyn_tiler!(T0 0, T1 1, T2 2);
tuple_dyn_tiler!(T0 0, T1 1, T2 2, T3 3);

/// Mode `m` of a layout spliced into its own modes when it is a tuple of
/// rank 2 or more (CuTe slices with `repeat<rank>(_)`), else kept whole:
/// the mode's pairs as a list.
#[doc(hidden)]
pub trait Splice {
    type Modes: crate::tuple::List;
}
impl<S: IntTuple, D> Splice for (S, D)
where
    S::IsLeaf: SpliceCase<S, D>,
{
    type Modes = <S::IsLeaf as SpliceCase<S, D>>::Modes;
}
#[doc(hidden)]
pub trait SpliceCase<S, D> {
    type Modes: crate::tuple::List;
}
impl<S: Copy + Send + Sync + 'static, D: Copy + Send + Sync + 'static> SpliceCase<S, D> for B1 {
    type Modes = Cons<(S, D), Nil>;
}
impl<S: Tuple, D: Tuple> SpliceCase<S, D> for B0
where
    S::List: SpliceList<D::List, S, D>,
{
    type Modes = <S::List as SpliceList<D::List, S, D>>::Modes;
}
#[doc(hidden)]
pub trait SpliceList<DL, S, D> {
    type Modes: crate::tuple::List;
}
impl<H, DL, S: Copy + Send + Sync + 'static, D: Copy + Send + Sync + 'static> SpliceList<DL, S, D>
    for Cons<H, Nil>
{
    type Modes = Cons<(S, D), Nil>;
}
impl<H, H2, T, DL, S, D> SpliceList<DL, S, D> for Cons<H, Cons<H2, T>>
where
    Cons<H, Cons<H2, T>>: ZipModes<DL>,
{
    type Modes = <Cons<H, Cons<H2, T>> as ZipModes<DL>>::Out;
}
/// Splice the first mode (`FIRST`) and the second of a rank-2 layout.
#[doc(hidden)]
pub trait Unpack {
    /// `(m0, splice(m1))`: tiled.
    type Tiled;
    /// `(splice(m0), splice(m1))`: flat.
    type Flat;
}
impl<S0, S1, D0, D1> Unpack for Layout<(S0, S1), (D0, D1)>
where
    (S0, S1): Congruent<(D0, D1)>,
    (D0, D1): IntTuple,
    (S1, D1): Splice,
    (S0, D0): Splice,
    S0: Copy + Send + Sync + 'static,
    D0: Copy + Send + Sync + 'static,
    Cons<(S0, D0), <(S1, D1) as Splice>::Modes>: ModesToLayout,
    <(S0, D0) as Splice>::Modes: Concat<<(S1, D1) as Splice>::Modes>,
    <<(S0, D0) as Splice>::Modes as Concat<<(S1, D1) as Splice>::Modes>>::Out: ModesToLayout,
{
    type Tiled = <Cons<(S0, D0), <(S1, D1) as Splice>::Modes> as ModesToLayout>::Out;
    type Flat =
        <<<(S0, D0) as Splice>::Modes as Concat<<(S1, D1) as Splice>::Modes>>::Out as ModesToLayout>::Out;
}

super::by_mode::tiler_fn!(
    DivideOnto;
    /// CuTe's `logical_divide(A, T)`: `A o (T, complement(T, shape(coalesce(A))))`,
    /// by mode for a tuple tiler.
    ///
    /// ```
    /// use layout_core::{algebra::logical_divide, layout, C};
    /// let r = logical_divide(layout!((128,64):(64,1)), (layout!(16:2), layout!(8:1)));
    /// assert_eq!(r.to_string(), "((_16,(_2,_4)),(_8,_8)):((_128,(_64,_2048)),(_1,_8))");
    /// assert_eq!(core::mem::size_of_val(&r), 0);
    /// ```
    logical_divide, try_logical_divide, T::Logical, crate::dynamic::logical_divide
);
super::by_mode::tiler_fn!(
    DivideOnto;
    /// CuTe's `zipped_divide(A, T)`: `((tile modes), (rest modes))`.
    ///
    /// ```
    /// use layout_core::{algebra::zipped_divide, layout, C};
    /// let r = zipped_divide(layout!((128,64):(64,1)), (C::<32>, C::<8>));
    /// assert_eq!(r.to_string(), "((_32,_8),(_4,_8)):((_64,_1),(_2048,_8))");
    /// ```
    zipped_divide, try_zipped_divide, <T as ZipDivideOnto<A>>::Zipped, crate::dynamic::zipped_divide, T: ZipDivideOnto<A>,
);
super::by_mode::tiler_fn!(
    DivideOnto;
    /// CuTe's `tiled_divide(A, T)`: `((tile modes), rest0, rest1, ...)`.
    ///
    /// ```
    /// use layout_core::{algebra::tiled_divide, layout, C};
    /// let r = tiled_divide(layout!((128,64):(64,1)), (C::<16>, C::<16>));
    /// assert_eq!(r.to_string(), "((_16,_16),_8,_4):((_64,_1),_1024,_16)");
    /// ```
    tiled_divide, try_tiled_divide, <<T as ZipDivideOnto<A>>::Zipped as Unpack>::Tiled, crate::dynamic::tiled_divide, T: ZipDivideOnto<A>, <T as ZipDivideOnto<A>>::Zipped: Unpack,
);
super::by_mode::tiler_fn!(
    DivideOnto;
    /// CuTe's `flat_divide(A, T)`: `(tile0, tile1, ..., rest0, rest1, ...)`.
    ///
    /// ```
    /// use layout_core::{algebra::flat_divide, layout, C};
    /// let r = flat_divide(layout!((128,64):(64,1)), (C::<16>, C::<16>));
    /// assert_eq!(r.to_string(), "(_16,_16,_8,_4):(_64,_1,_1024,_16)");
    /// ```
    flat_divide, try_flat_divide, <<T as ZipDivideOnto<A>>::Zipped as Unpack>::Flat, crate::dynamic::flat_divide, T: ZipDivideOnto<A>, <T as ZipDivideOnto<A>>::Zipped: Unpack,
);

/// The error of a static divide, if any (what the compile-time check evaluates).
pub fn divide_error<A, T: DivideOnto<A>>() -> Option<&'static str> {
    match &T::ERROR {
        Some(t) => Some(t.as_str()),
        None => None,
    }
}
