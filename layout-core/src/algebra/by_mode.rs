//! What the divides and products share: a tuple tiler applied mode by mode
//! (with the zipped form), the functions' common shape, and the run-time
//! values of their results.

macro_rules! tiler_fn {
    ($T:ident; $(#[$m:meta])* $name:ident, $try:ident, $out:ty, $dynop:path $(, $($bound:tt)*)?) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name<A: LayoutParts, T>(a: A, t: T) -> $out
        where
            T: $T<A> + ToDynTiler,
            $($($bound)*)?
            $out: $crate::algebra::FromDyn,
            A::Shape: Congruent<A::Stride>,
        {
            $crate::algebra::values::or_panic($try(a, t))
        }
        #[doc = concat!("[`", stringify!($name), "`], returning the reason instead of panicking at run time.")]
        #[inline(always)]
        pub fn $try<A: LayoutParts, T>(a: A, t: T) -> Result<$out, LayoutError>
        where
            T: $T<A> + ToDynTiler,
            $($($bound)*)?
            $out: $crate::algebra::FromDyn,
            A::Shape: Congruent<A::Stride>,
        {
            const {
                if let Some(e) = T::ERROR {
                    panic!("{}", e.as_str())
                }
            }
            let _ = (&a, &t);
            $crate::algebra::values::typed_result!({
                let (s, d) = a.parts();
                $dynop(
                    &$crate::DynLayout::from_typed(&Layout::new(s, d)),
                    &t.to_dyn_tiler(),
                )
            })
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
        }
        /// The zipped form of a tuple tiler: `((firsts), (seconds, rest of A))`.
        impl<AS: Congruent<AD> + AsModes, AD: IntTuple + AsModes, $($t,)+> $Z<Layout<AS, AD>> for ($($t,)+)
        where
            ($($t,)+): $T<Layout<AS, AD>>,
            $(
                Layout<AS, AD>: crate::ops::Mode<$i>,
                $t: $Z<ModeOf<Layout<AS, AD>, $i>>,
                <$t as $Z<ModeOf<Layout<AS, AD>, $i>>>::Zipped: crate::ops::Mode<0> + crate::ops::Mode<1>,
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
        }
    };
}
pub(crate) use tuple_tiler;
