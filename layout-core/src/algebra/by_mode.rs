//! What the divides and products share: a tuple tiler applied mode by mode
//! (with the zipped form) and the functions' common shape. Results with
//! run-time leaves are computed by the typed composition and complement the
//! operations are defined by (no allocation).

use crate::layout::ModesToLayout;
use crate::layout::{Congruent, Layout};
use crate::typelevel::const_text::Text;
use crate::typelevel::list::ZipModes;
use crate::typelevel::tuple::Concat;
use crate::typelevel::tuple::Cons;
use crate::typelevel::tuple::IntTuple;
use crate::typelevel::tuple::Nil;
use crate::typelevel::tuple::Tuple;
use crate::LayoutError;
use typenum::B0;
use typenum::B1;

macro_rules! tiler_fn {
    ([$K:ident; $($chk:tt)+]; $(#[$m:meta])* $name:ident, $try:ident, $out:ty, |$a:ident, $t:ident| $body:expr $(, $($bound:tt)*)?) => {
        $(#[$m])*
        ///
        /// # Panics
        ///
        /// When run-time leaves make the operation inadmissible (the message
        #[doc = concat!("of [`", stringify!($try), "`]'s error).")]
        #[inline(always)]
        #[track_caller]
        pub fn $name<A, T>(a: A, t: T) -> $out
        where
            A: LayoutParts,
            // The check on A (not on the tiler), written at the call of
            // this macro: a refusal names A's argument, rustc offers no
            // `(tiler,)` instead, and its note shows the operation's line.
            $($chk)+,
            $($($bound)*)?
            $out: $crate::algebra::StaticResult,
            A::Shape: Congruent<A::Stride>,
        {
            // The static check here too, not only in the `try_` form: a
            // refusal then names the caller's line (the instantiation note
            // points at the call of this function).
            const {
                if let Some(e) = <A as $crate::algebra::by_mode::Admits<T, $crate::algebra::by_mode::$K>>::ERROR {
                    panic!("{}", e.as_str())
                }
            }
            let ($a, $t) = (a, t);
            $crate::algebra::values::or_panic($crate::algebra::values::run::<
                $crate::algebra::values::Tag<A::Shape, A::Stride, C<1>, C<1>, $out>,
                _,
            >(move || $body))
        }
        #[doc = concat!("[`", stringify!($name), "`], returning the reason instead of panicking at run time.")]
        #[inline(always)]
        pub fn $try<A, T>(a: A, t: T) -> Result<$out, LayoutError>
        where
            A: LayoutParts,
            // The check on A (not on the tiler), written at the call of
            // this macro: a refusal names A's argument, rustc offers no
            // `(tiler,)` instead, and its note shows the operation's line.
            $($chk)+,
            $($($bound)*)?
            $out: $crate::algebra::StaticResult,
            A::Shape: Congruent<A::Stride>,
        {
            const {
                if let Some(e) = <A as $crate::algebra::by_mode::Admits<T, $crate::algebra::by_mode::$K>>::ERROR {
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

/// The layout `Self` admits the tiler `T` in the operation `Op`
/// ([`ByDivide`], [`ByZipDivide`], [`ByProduct`], [`ByZipProduct`]): the
/// divides' and the products' bound, `T`'s checked trait read from A's
/// side (a refusal's span is A's argument). Code generic over a tiler
/// states the checked trait itself, which implies this:
///
/// ```
/// use layout_core::algebra::{logical_divide, DivideOnto, LayoutParts, StaticResult};
/// use layout_core::{layout, Congruent};
/// fn split<A: LayoutParts, T: DivideOnto<A>>(a: A, t: T) -> T::Logical
/// where
///     A::Shape: Congruent<A::Stride>,
///     T::Logical: StaticResult,
/// {
///     logical_divide(a, t)
/// }
/// let r = split(layout!((8,4):(4,1)), layout!(4:1));
/// assert_eq!(r.to_string(), "(_4,(_2,_4)):(_4,(_16,_1))");
/// ```
pub trait Admits<T, Op>: Sized {
    /// The operation's result.
    type Out;
    /// The static refusal, if any (the tiler's `ERROR`).
    const ERROR: Option<Text>;
    /// The operation.
    fn admit(self, t: T) -> Result<Self::Out, LayoutError>;
}
/// [`Admits`] of `logical_divide` ([`crate::algebra::DivideOnto`]).
pub struct ByDivide;
/// [`Admits`] of the zipped, tiled and flat divides
/// ([`crate::algebra::ZipDivideOnto`]).
pub struct ByZipDivide;
/// [`Admits`] of `logical_product` ([`crate::algebra::ProductOnto`]).
pub struct ByProduct;
/// [`Admits`] of the zipped, tiled and flat products
/// ([`crate::algebra::ZipProductOnto`]).
pub struct ByZipProduct;
/// One [`Admits`] impl per operation: its checked trait, its result.
macro_rules! admits {
    ($op:ident, $checked:ident, $parts:ident, $out:ident, $run:ident) => {
        impl<A, T: super::$checked<A>> Admits<T, $op> for A {
            type Out = <T as super::$parts<A>>::$out;
            const ERROR: Option<Text> = <T as super::$parts<A>>::ERROR;
            #[inline(always)]
            fn admit(self, t: T) -> Result<Self::Out, LayoutError> {
                <T as super::$parts<A>>::$run(t, self)
            }
        }
    };
}
admits!(ByDivide, DivideOnto, DivideParts, Logical, try_logical);
admits!(
    ByZipDivide,
    ZipDivideOnto,
    ZipDivideParts,
    Zipped,
    try_zipped
);
admits!(ByProduct, ProductOnto, ProductParts, Logical, try_logical);
admits!(
    ByZipProduct,
    ZipProductOnto,
    ZipProductParts,
    Zipped,
    try_zipped
);

/// A per-mode result of a zipped form (always rank 2: tile and rest) as
/// its two modes' types, read off the layout type itself (no `Mode<I>`
/// projections for rustc to normalize).
#[doc(hidden)]
pub trait Halves {
    /// Mode 0's shape.
    type S0;
    /// Mode 1's shape.
    type S1;
    /// Mode 0's stride.
    type D0;
    /// Mode 1's stride.
    type D1;
    /// Both modes as `(shape, stride)` pairs.
    #[allow(clippy::type_complexity)]
    fn halves(self) -> ((Self::S0, Self::D0), (Self::S1, Self::D1));
}
impl<S0, S1, D0, D1> Halves for Layout<(S0, S1), (D0, D1)> {
    type S0 = S0;
    type S1 = S1;
    type D0 = D0;
    type D1 = D1;
    #[inline(always)]
    fn halves(self) -> ((S0, D0), (S1, D1)) {
        let ((s0, s1), (d0, d1)) = self.into_raw();
        ((s0, d0), (s1, d1))
    }
}

/// One impl of a tuple tiler's logical and zipped forms for a tiler of rank
/// n over an A of rank n + (modes `$rs:$rd` kept): the per-mode results are
/// spliced into the result type directly, so rustc proves one bound per
/// mode and nothing else.
macro_rules! tuple_tiler_exact {
    (($T:ident, $Z:ident) [$($t:ident $s:ident $d:ident $i:tt)+]; [$($rs:ident $rd:ident)*]) => {
        impl<$($t, $s, $d,)+ $($rs, $rd,)*> $T<Layout<($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)>> for ($($t,)+)
        where
            $(
                $t: $T<Layout<$s, $d>>,
                <$t as $T<Layout<$s, $d>>>::Logical: LayoutParts,
            )+
        {
            type Logical = Layout<
                ($(<<$t as $T<Layout<$s, $d>>>::Logical as LayoutParts>::Shape,)+ $($rs,)*),
                ($(<<$t as $T<Layout<$s, $d>>>::Logical as LayoutParts>::Stride,)+ $($rd,)*),
            >;
            type Verdict = $crate::algebra::admits::Modes<($(<$t as $T<Layout<$s, $d>>>::Verdict,)+)>;
            const ERROR: Option<Text> = first_error(&[$(<$t as $T<Layout<$s, $d>>>::ERROR,)+]);
            #[inline(always)]
            #[allow(non_snake_case)]
            fn try_logical(
                self,
                a: Layout<($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)>,
            ) -> Result<Self::Logical, LayoutError> {
                let (($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)) = a.into_raw();
                let r = ($(self.$i.try_logical(Layout::raw($s, $d))?.parts(),)+);
                Ok(Layout::raw(($(r.$i.0,)+ $($rs,)*), ($(r.$i.1,)+ $($rd,)*)))
            }
        }
        /// The zipped form: `((tiles), (rests, A's modes beyond the tiler))`.
        impl<$($t, $s, $d,)+ $($rs, $rd,)*> $Z<Layout<($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)>> for ($($t,)+)
        where
            $(
                $t: $Z<Layout<$s, $d>>,
                <$t as $Z<Layout<$s, $d>>>::Zipped: $crate::algebra::by_mode::Halves,
            )+
        {
            type Zipped = Layout<
                (
                    ($(<<$t as $Z<Layout<$s, $d>>>::Zipped as $crate::algebra::by_mode::Halves>::S0,)+),
                    ($(<<$t as $Z<Layout<$s, $d>>>::Zipped as $crate::algebra::by_mode::Halves>::S1,)+ $($rs,)*),
                ),
                (
                    ($(<<$t as $Z<Layout<$s, $d>>>::Zipped as $crate::algebra::by_mode::Halves>::D0,)+),
                    ($(<<$t as $Z<Layout<$s, $d>>>::Zipped as $crate::algebra::by_mode::Halves>::D1,)+ $($rd,)*),
                ),
            >;
            type Verdict = $crate::algebra::admits::Modes<($(<$t as $Z<Layout<$s, $d>>>::Verdict,)+)>;
            const ERROR: Option<Text> = first_error(&[$(<$t as $Z<Layout<$s, $d>>>::ERROR,)+]);
            #[inline(always)]
            #[allow(non_snake_case)]
            fn try_zipped(
                self,
                a: Layout<($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)>,
            ) -> Result<Self::Zipped, LayoutError> {
                let (($($s,)+ $($rs,)*), ($($d,)+ $($rd,)*)) = a.into_raw();
                let h = ($($crate::algebra::by_mode::Halves::halves(self.$i.try_zipped(Layout::raw($s, $d))?),)+);
                Ok(Layout::raw(
                    (($((h.$i.0).0,)+), ($((h.$i.1).0,)+ $($rs,)*)),
                    (($((h.$i.0).1,)+), ($((h.$i.1).1,)+ $($rd,)*)),
                ))
            }
        }
    };
}
pub(crate) use tuple_tiler_exact;

/// A one-mode tuple tiler `(t,)` on a layout whose shape is an integer
/// (one mode): `(r,)`, and zipped `((tile), (rest))`.
macro_rules! tuple_tiler_leaf {
    ($T:ident, $Z:ident; $leaf:ty; $($g:tt)*) => {
        impl<T0, D, $($g)*> $T<Layout<$leaf, D>> for (T0,)
        where
            T0: $T<Layout<$leaf, D>>,
            <T0 as $T<Layout<$leaf, D>>>::Logical: LayoutParts,
        {
            type Logical = Layout<
                (<<T0 as $T<Layout<$leaf, D>>>::Logical as LayoutParts>::Shape,),
                (<<T0 as $T<Layout<$leaf, D>>>::Logical as LayoutParts>::Stride,),
            >;
            type Verdict = <T0 as $T<Layout<$leaf, D>>>::Verdict;
            const ERROR: Option<Text> = <T0 as $T<Layout<$leaf, D>>>::ERROR;
            #[inline(always)]
            fn try_logical(self, a: Layout<$leaf, D>) -> Result<Self::Logical, LayoutError> {
                let (s, d) = self.0.try_logical(a)?.parts();
                Ok(Layout::raw((s,), (d,)))
            }
        }
        impl<T0, D, $($g)*> $Z<Layout<$leaf, D>> for (T0,)
        where
            T0: $Z<Layout<$leaf, D>>,
            <T0 as $Z<Layout<$leaf, D>>>::Zipped: $crate::algebra::by_mode::Halves,
        {
            type Zipped = Layout<
                (
                    (<<T0 as $Z<Layout<$leaf, D>>>::Zipped as $crate::algebra::by_mode::Halves>::S0,),
                    (<<T0 as $Z<Layout<$leaf, D>>>::Zipped as $crate::algebra::by_mode::Halves>::S1,),
                ),
                (
                    (<<T0 as $Z<Layout<$leaf, D>>>::Zipped as $crate::algebra::by_mode::Halves>::D0,),
                    (<<T0 as $Z<Layout<$leaf, D>>>::Zipped as $crate::algebra::by_mode::Halves>::D1,),
                ),
            >;
            type Verdict = <T0 as $Z<Layout<$leaf, D>>>::Verdict;
            const ERROR: Option<Text> = <T0 as $Z<Layout<$leaf, D>>>::ERROR;
            #[inline(always)]
            fn try_zipped(self, a: Layout<$leaf, D>) -> Result<Self::Zipped, LayoutError> {
                let ((s0, d0), (s1, d1)) = $crate::algebra::by_mode::Halves::halves(self.0.try_zipped(a)?);
                Ok(Layout::raw(((s0,), (s1,)), ((d0,), (d1,))))
            }
        }
    };
}
pub(crate) use tuple_tiler_leaf;

/// Tuple tilers of rank 1 to 4 on A of any rank up to 12 (A's modes beyond
/// the tiler are kept), and `(t,)` on a one-mode A.
macro_rules! tuple_tiler {
    ($T:ident, $Z:ident) => {
        $crate::typelevel::list::for_tiler_ranks!(crate::algebra::by_mode::tuple_tiler_exact($T, $Z));
        $crate::algebra::by_mode::tuple_tiler_leaf!($T, $Z; usize;);
        $crate::algebra::by_mode::tuple_tiler_leaf!($T, $Z; $crate::typelevel::int::C<N>; const N: usize);
        $crate::algebra::by_mode::tuple_tiler_leaf!($T, $Z; $crate::typelevel::int::S<U>; U: typenum::Unsigned + 'static);
    };
}
pub(crate) use tuple_tiler;

/// Mode `m` of a layout spliced into its own modes when it is a tuple of
/// rank 2 or more (CuTe slices with `repeat<rank>(_)`), else kept whole:
/// the mode's pairs as a list.
#[doc(hidden)]
pub trait Splice {
    type Modes: crate::typelevel::tuple::List;
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
    type Modes: crate::typelevel::tuple::List;
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
    type Modes: crate::typelevel::tuple::List;
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
