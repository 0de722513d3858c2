//! What the divides and products share: a tuple tiler applied mode by mode
//! (with the zipped form) and the functions' common shape. Results with
//! run-time leaves are computed by the typed composition and complement the
//! operations are defined by (no allocation).

use super::typelevel::ModesToLayout;
use super::typelevel::ZipModes;
use crate::layout::{Congruent, Layout};
use crate::tuple::Concat;
use crate::tuple::Cons;
use crate::tuple::IntTuple;
use crate::tuple::Nil;
use crate::tuple::Tuple;
use crate::tuple::{AsModes, SplitAt};
use typenum::B0;
use typenum::B1;

macro_rules! tiler_fn {
    ($T:ident; $(#[$m:meta])* $name:ident, $try:ident, $out:ty, |$a:ident, $t:ident| $body:expr $(, $($bound:tt)*)?) => {
        $(#[$m])*
        ///
        /// # Panics
        ///
        /// When run-time leaves make the operation inadmissible (the message
        #[doc = concat!("of [`", stringify!($try), "`]'s error).")]
        #[inline(always)]
        pub fn $name<A: LayoutParts, T>(a: A, t: T) -> $out
        where
            T: $T<A>,
            $($($bound)*)?
            $out: $crate::algebra::StaticResult,
            A::Shape: Congruent<A::Stride>,
        {
            $crate::algebra::values::or_panic($try(a, t))
        }
        #[doc = concat!("[`", stringify!($name), "`], returning the reason instead of panicking at run time.")]
        #[inline(always)]
        pub fn $try<A: LayoutParts, T>(a: A, t: T) -> Result<$out, LayoutError>
        where
            T: $T<A>,
            $($($bound)*)?
            $out: $crate::algebra::StaticResult,
            A::Shape: Congruent<A::Stride>,
        {
            const {
                if let Some(e) = T::ERROR {
                    panic!("{}", e.as_str())
                }
            }
            let ($a, $t) = (a, t);
            $crate::algebra::values::run::<
                $crate::algebra::values::Tag<A::Shape, A::Stride, C<1>, C<1>, $out>,
                _,
            >(move || $body)
        }
    };
}

pub(crate) use tiler_fn;

macro_rules! tuple_tiler {
    ($T:ident, $Z:ident; $n:literal; $($t:ident $i:tt),+) => {
        /// A tuple tiler works mode by mode; A's modes beyond it are kept.
        impl<AS: Congruent<AD> + AsModes, AD: IntTuple + AsModes, $($t,)+> $T<Layout<AS, AD>> for ($($t,)+)
        where
            $(
                Layout<AS, AD>: crate::ops::Mode<$i>,
                $t: $T<ModeOf<Layout<AS, AD>, $i>>,
                <$t as $T<ModeOf<Layout<AS, AD>, $i>>>::Logical: LayoutParts,
            )+
            AS::Modes: SplitAt<$n>,
            AD::Modes: SplitAt<$n>,
            <AS::Modes as SplitAt<$n>>::Back: ZipModes<<AD::Modes as SplitAt<$n>>::Back>,
            ($(PairOf<<$t as $T<ModeOf<Layout<AS, AD>, $i>>>::Logical>,)+): Tuple,
            <($(PairOf<<$t as $T<ModeOf<Layout<AS, AD>, $i>>>::Logical>,)+) as Tuple>::List:
                Concat<super::by_mode::RestModes<AS, AD, $n>>,
            <<($(PairOf<<$t as $T<ModeOf<Layout<AS, AD>, $i>>>::Logical>,)+) as Tuple>::List as Concat<super::by_mode::RestModes<AS, AD, $n>>>::Out: ModesToLayout,
        {
            type Logical = <<<($(PairOf<<$t as $T<ModeOf<Layout<AS, AD>, $i>>>::Logical>,)+) as Tuple>::List as Concat<super::by_mode::RestModes<AS, AD, $n>>>::Out as ModesToLayout>::Out;
            const ERROR: Option<Text> = first_error(&[$(<$t as $T<ModeOf<Layout<AS, AD>, $i>>>::ERROR,)+]);
            #[inline(always)]
            fn try_logical(self, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
                let modes = ($(
                    self.$i.try_logical(<Layout<AS, AD> as crate::ops::Mode<$i>>::get(a))?.parts(),
                )+);
                Ok(modes.into_list().concat(super::by_mode::rest_modes::<AS, AD, $n>(a)).to_layout())
            }
        }
        /// The zipped form of a tuple tiler: `((firsts), (seconds, rest of A))`.
        impl<AS: Congruent<AD> + AsModes, AD: IntTuple + AsModes, $($t,)+> $Z<Layout<AS, AD>> for ($($t,)+)
        where
            $(
                Layout<AS, AD>: crate::ops::Mode<$i>,
                $t: $Z<ModeOf<Layout<AS, AD>, $i>>,
                <$t as $Z<ModeOf<Layout<AS, AD>, $i>>>::Zipped: crate::ops::Mode<0> + crate::ops::Mode<1> + Copy,
                ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>: LayoutParts,
                ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>: LayoutParts,
            )+
            AS::Modes: SplitAt<$n>,
            AD::Modes: SplitAt<$n>,
            <AS::Modes as SplitAt<$n>>::Back: ZipModes<<AD::Modes as SplitAt<$n>>::Back>,
            ($(PairOf<ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>>,)+): Tuple,
            <($(PairOf<ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List: ModesToLayout,
            ($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+): Tuple,
            <($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List: Concat<super::by_mode::RestModes<AS, AD, $n>>,
            <<($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as Concat<super::by_mode::RestModes<AS, AD, $n>>>::Out: ModesToLayout,
            <<($(PairOf<ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as ModesToLayout>::Out: LayoutParts,
            <<<($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as Concat<super::by_mode::RestModes<AS, AD, $n>>>::Out as ModesToLayout>::Out: LayoutParts,
            Cons<
                PairOf<<<($(PairOf<ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as ModesToLayout>::Out>,
                Cons<
                    PairOf<<<<($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as Concat<super::by_mode::RestModes<AS, AD, $n>>>::Out as ModesToLayout>::Out>,
                    Nil,
                >,
            >: ModesToLayout,
        {
            type Zipped = <Cons<
                PairOf<<<($(PairOf<ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as ModesToLayout>::Out>,
                Cons<
                    PairOf<<<<($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as Concat<super::by_mode::RestModes<AS, AD, $n>>>::Out as ModesToLayout>::Out>,
                    Nil,
                >,
            > as ModesToLayout>::Out;
            const ERROR: Option<Text> = first_error(&[$(<$t as $Z<ModeOf<Layout<AS, AD>, $i>>>::ERROR,)+]);
            #[inline(always)]
            fn try_zipped(self, a: Layout<AS, AD>) -> Result<Self::Zipped, LayoutError> {
                let z = ($(
                    self.$i.try_zipped(<Layout<AS, AD> as crate::ops::Mode<$i>>::get(a))?,
                )+);
                let firsts = ($(crate::ops::Mode::<0>::get(z.$i).parts(),)+).into_list().to_layout();
                let seconds = ($(crate::ops::Mode::<1>::get(z.$i).parts(),)+)
                    .into_list()
                    .concat(super::by_mode::rest_modes::<AS, AD, $n>(a))
                    .to_layout();
                Ok(Cons(firsts.parts(), Cons(seconds.parts(), Nil)).to_layout())
            }
        }
    };
}
pub(crate) use tuple_tiler;

/// The modes of A from `N` on, as pairs.
#[inline(always)]
pub(crate) fn rest_modes<AS: AsModes + Congruent<AD>, AD: AsModes, const N: usize>(
    a: Layout<AS, AD>,
) -> RestModes<AS, AD, N>
where
    AS::Modes: SplitAt<N>,
    AD::Modes: SplitAt<N>,
    <AS::Modes as SplitAt<N>>::Back: ZipModes<<AD::Modes as SplitAt<N>>::Back>,
{
    let (s, d) = (a.shape().as_modes(), a.stride().as_modes());
    let (sb, db) = (SplitAt::<N>::split_at(s).1, SplitAt::<N>::split_at(d).1);
    sb.zip_modes(db)
}
pub(crate) type RestModes<AS, AD, const N: usize> =
    <<<AS as AsModes>::Modes as SplitAt<N>>::Back as ZipModes<
        <<AD as AsModes>::Modes as SplitAt<N>>::Back,
    >>::Out;

/// Mode `m` of a layout spliced into its own modes when it is a tuple of
/// rank 2 or more (CuTe slices with `repeat<rank>(_)`), else kept whole:
/// the mode's pairs as a list.
#[doc(hidden)]
pub trait Splice {
    type Modes: crate::tuple::List;
    fn splice(self) -> Self::Modes;
}
impl<S: IntTuple, D> Splice for (S, D)
where
    S::IsLeaf: SpliceCase<S, D>,
{
    type Modes = <S::IsLeaf as SpliceCase<S, D>>::Modes;
    #[inline(always)]
    fn splice(self) -> Self::Modes {
        <S::IsLeaf as SpliceCase<S, D>>::go(self.0, self.1)
    }
}
#[doc(hidden)]
pub trait SpliceCase<S, D> {
    type Modes: crate::tuple::List;
    fn go(s: S, d: D) -> Self::Modes;
}
impl<S: Copy + Send + Sync + 'static, D: Copy + Send + Sync + 'static> SpliceCase<S, D> for B1 {
    type Modes = Cons<(S, D), Nil>;
    #[inline(always)]
    fn go(s: S, d: D) -> Self::Modes {
        Cons((s, d), Nil)
    }
}
impl<S: Tuple, D: Tuple> SpliceCase<S, D> for B0
where
    S::List: SpliceList<D::List, S, D>,
{
    type Modes = <S::List as SpliceList<D::List, S, D>>::Modes;
    #[inline(always)]
    fn go(s: S, d: D) -> Self::Modes {
        <S::List as SpliceList<D::List, S, D>>::go(s, d)
    }
}
#[doc(hidden)]
pub trait SpliceList<DL, S, D> {
    type Modes: crate::tuple::List;
    fn go(s: S, d: D) -> Self::Modes;
}
impl<H, DL, S: Copy + Send + Sync + 'static, D: Copy + Send + Sync + 'static> SpliceList<DL, S, D>
    for Cons<H, Nil>
{
    type Modes = Cons<(S, D), Nil>;
    #[inline(always)]
    fn go(s: S, d: D) -> Self::Modes {
        Cons((s, d), Nil)
    }
}
impl<H, H2, T, DL, S: Tuple<List = Cons<H, Cons<H2, T>>>, D: Tuple<List = DL>> SpliceList<DL, S, D>
    for Cons<H, Cons<H2, T>>
where
    Cons<H, Cons<H2, T>>: ZipModes<DL>,
{
    type Modes = <Cons<H, Cons<H2, T>> as ZipModes<DL>>::Out;
    #[inline(always)]
    fn go(s: S, d: D) -> Self::Modes {
        s.into_list().zip_modes(d.into_list())
    }
}
/// Splice the first mode (`FIRST`) and the second of a rank-2 layout.
#[doc(hidden)]
pub trait Unpack {
    /// `(m0, splice(m1))`: tiled.
    type Tiled;
    /// `(splice(m0), splice(m1))`: flat.
    type Flat;
    /// The tiled form.
    fn tiled(self) -> Self::Tiled;
    /// The flat form.
    fn flat(self) -> Self::Flat;
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
    #[inline(always)]
    fn tiled(self) -> Self::Tiled {
        let ((s0, s1), (d0, d1)) = (self.shape(), self.stride());
        Cons((s0, d0), (s1, d1).splice()).to_layout()
    }
    #[inline(always)]
    fn flat(self) -> Self::Flat {
        let ((s0, s1), (d0, d1)) = (self.shape(), self.stride());
        (s0, d0).splice().concat((s1, d1).splice()).to_layout()
    }
}
