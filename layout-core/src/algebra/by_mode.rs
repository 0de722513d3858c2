//! What the divides and products share: a tuple tiler applied mode by mode
//! (with the zipped form) and the functions' common shape. Results with
//! run-time leaves are computed by the typed composition and complement the
//! operations are defined by (no allocation).

macro_rules! tiler_fn {
    ($T:ident; $(#[$m:meta])* $name:ident, $try:ident, $out:ty, $val:expr $(, $($bound:tt)*)?) => {
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
            if <A::Shape as IntTuple>::ALL_STATIC
                && <A::Stride as IntTuple>::ALL_STATIC
                && <$out as $crate::algebra::StaticResult>::IS_STATIC
            {
                // Checked at compile time; the result is zero-sized.
                return Ok($crate::algebra::StaticResult::make_static());
            }
            ($val)(a, t)
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
                Concat<RestModes<AS, AD, $n>>,
            <<($(PairOf<<$t as $T<ModeOf<Layout<AS, AD>, $i>>>::Logical>,)+) as Tuple>::List as Concat<RestModes<AS, AD, $n>>>::Out: ModesToLayout,
        {
            type Logical = <<<($(PairOf<<$t as $T<ModeOf<Layout<AS, AD>, $i>>>::Logical>,)+) as Tuple>::List as Concat<RestModes<AS, AD, $n>>>::Out as ModesToLayout>::Out;
            const ERROR: Option<Text> = first_error(&[$(<$t as $T<ModeOf<Layout<AS, AD>, $i>>>::ERROR,)+]);
            #[inline(always)]
            fn try_logical(self, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
                let modes = ($(
                    self.$i.try_logical(<Layout<AS, AD> as crate::ops::Mode<$i>>::get(a))?.parts(),
                )+);
                Ok(modes.into_list().concat(super::divide::rest_modes::<AS, AD, $n>(a)).to_layout())
            }
        }
        /// The zipped form of a tuple tiler: `((firsts), (seconds, rest of A))`.
        impl<AS: Congruent<AD> + AsModes, AD: IntTuple + AsModes, $($t,)+> $Z<Layout<AS, AD>> for ($($t,)+)
        where
            ($($t,)+): $T<Layout<AS, AD>>,
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
            <($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List: Concat<RestModes<AS, AD, $n>>,
            <<($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as Concat<RestModes<AS, AD, $n>>>::Out: ModesToLayout,
            <<($(PairOf<ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as ModesToLayout>::Out: LayoutParts,
            <<<($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as Concat<RestModes<AS, AD, $n>>>::Out as ModesToLayout>::Out: LayoutParts,
            Cons<
                PairOf<<<($(PairOf<ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as ModesToLayout>::Out>,
                Cons<
                    PairOf<<<<($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as Concat<RestModes<AS, AD, $n>>>::Out as ModesToLayout>::Out>,
                    Nil,
                >,
            >: ModesToLayout,
        {
            type Zipped = <Cons<
                PairOf<<<($(PairOf<ZFirst<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as ModesToLayout>::Out>,
                Cons<
                    PairOf<<<<($(PairOf<ZSecond<$t, ModeOf<Layout<AS, AD>, $i>>>,)+) as Tuple>::List as Concat<RestModes<AS, AD, $n>>>::Out as ModesToLayout>::Out>,
                    Nil,
                >,
            > as ModesToLayout>::Out;
            #[inline(always)]
            fn try_zipped(self, a: Layout<AS, AD>) -> Result<Self::Zipped, LayoutError> {
                let z = ($(
                    self.$i.try_zipped(<Layout<AS, AD> as crate::ops::Mode<$i>>::get(a))?,
                )+);
                let firsts = ($(crate::ops::Mode::<0>::get(z.$i).parts(),)+).into_list().to_layout();
                let seconds = ($(crate::ops::Mode::<1>::get(z.$i).parts(),)+)
                    .into_list()
                    .concat(super::divide::rest_modes::<AS, AD, $n>(a))
                    .to_layout();
                Ok(Cons(firsts.parts(), Cons(seconds.parts(), Nil)).to_layout())
            }
        }
    };
}
pub(crate) use tuple_tiler;
