//! Typed products: `logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B)`,
//! by mode for a tuple tiler, its zipped, tiled and flat rearrangements,
//! and `blocked_product` / `raked_product` for layouts of equal rank.
//!
//! Result types and the values of run-time leaves both come from the typed
//! composition and complement (no allocation).

use crate::typelevel::arith::{LMul, Leaf, MulT};
use crate::typelevel::form::{Known, StaticForm};
use crate::typelevel::list::CosizeList;
use crate::typelevel::list::CosizeT;
use crate::typelevel::list::PlusOne;
use crate::typelevel::list::SizeList;
use crate::typelevel::list::SizeT;
use crate::typelevel::list::ZipModes;
use crate::typelevel::tuple::AllStatic2;

use super::admits::{Both2, CompositionVerdict, Holds, OverlapOr, ProductOp, ZeroOr};
use super::by_mode::{Admits, ByProduct, ByZipProduct, Unpack};
use super::complement::{ComplementOf, ComplementShape, ComplementT, FilteredModes};
use super::composition::{first_error, ComposeOnto};
use crate::error::LayoutError;
use crate::layout::compact::Compact;
use crate::layout::coord::Underscore;
use crate::layout::LayoutParts;
use crate::layout::{Congruent, Layout};
use crate::typelevel::const_text::Text;
use crate::typelevel::int::C;
use crate::typelevel::tuple::{AsModes, Cons, IntTuple, IntoTuple as _, Nil, Tuple};
use core::ops::BitAnd;
use typenum::{And, Bit, B0, B1};

/// A tiler for the products: `A` times `Self`.
#[diagnostic::on_unimplemented(
    message = "logical_product: `{Self}` is not a tiler of this layout",
    label = "not a tiler of this layout",
    note = "a tiler is a layout, an integer, `_` (on a rank-2 mode for the zipped forms) or a tuple of those with at most as many modes as the layout (CuTe: \"Mismatched Ranks\")"
)]
pub trait ProductParts<A> {
    /// The type of `logical_product(A, Self)`.
    type Logical;
    /// The type checker's verdict on static inputs ([`crate::algebra::admits`]):
    /// `Admitted`, or the refusal the checked trait reports.
    #[doc(hidden)]
    type Verdict;
    /// Why the product is inadmissible for static inputs, if it is.
    const ERROR: Option<Text>;
    /// `logical_product(A, Self)`, or why its run-time leaves make it inadmissible.
    fn try_logical(self, a: A) -> Result<Self::Logical, LayoutError>;
}

/// The zipped form: `((tile modes), (rest modes))` by the tiler's modes.
/// (Not a subtrait of [`ProductParts`]: proving it does not need the logical
/// form's type, which rustc would otherwise normalize as well.)
#[diagnostic::on_unimplemented(
    message = "zipped_product: `{Self}` is not a tiler of this layout",
    label = "not a tiler of this layout",
    note = "a tiler is a layout, an integer, `_` (on a rank-2 mode for the zipped forms) or a tuple of those with at most as many modes as the layout (CuTe: \"Mismatched Ranks\")"
)]
pub trait ZipProductParts<A> {
    /// The type of `zipped_product(A, Self)`.
    type Zipped;
    /// The type checker's verdict on static inputs ([`crate::algebra::admits`]):
    /// `Admitted`, or the refusal the checked trait reports.
    #[doc(hidden)]
    type Verdict;
    /// Why the product is inadmissible for static inputs, if it is.
    const ERROR: Option<Text>;
    /// `zipped_product(A, Self)`.
    fn try_zipped(self, a: A) -> Result<Self::Zipped, LayoutError>;
}

/// A tiler for the products, checked: `A` times `Self` and, where every
/// leaf involved is static, the type checker admits the product
/// (`logical_product`, `blocked_product`, `raked_product` require it).
///
/// ```
/// use layout_core::{algebra::logical_product, layout};
/// let r = logical_product(layout!((2,2):(1,2)), layout!(3:1));
/// assert_eq!(r.to_string(), "((_2,_2),_3):((_1,_2),_4)");
/// ```
pub trait ProductOnto<A>: ProductParts<A> {}
impl<A, T: ProductParts<A>> ProductOnto<A> for T where T::Verdict: Holds<ProductOp> {}

/// [`ZipProductParts`], checked as [`ProductOnto`] is (`zipped_product`,
/// `tiled_product` and `flat_product` require it).
///
/// ```
/// use layout_core::{algebra::zipped_product, layout};
/// let r = zipped_product(layout!((2,2):(1,2)), layout!(3:1));
/// assert_eq!(r.to_string(), "((_2,_2),_3):((_1,_2),_4)");
/// ```
pub trait ZipProductOnto<A>: ZipProductParts<A> {}
impl<A, T: ZipProductParts<A>> ZipProductOnto<A> for T where T::Verdict: Holds<ProductOp> {}

/// The product's check of `B` on `A`: A's complement `complement(A,
/// size(A) * cosize(B))` composed with B, decided when asked (the
/// complement computed here, so that a refusal's notes name only the
/// user's layouts).
#[doc(hidden)]
pub struct ProductCheck<B, A>(core::marker::PhantomData<(B, A)>);
// A's modes first (they must not overlap for A to have a complement), then
// the composition onto the complement.
impl<BS: Congruent<BD>, BD: IntTuple, AS: Congruent<AD>, AD: IntTuple> Holds<ProductOp>
    for ProductCheck<Layout<BS, BD>, Layout<AS, AD>>
where
    AS::Leaves: SizeList<C<1>>,
    BS::Leaves: ZipModes<BD::Leaves>,
    <BS::Leaves as ZipModes<BD::Leaves>>::Out: CosizeList<Known<typenum::U0>>,
    <<BS::Leaves as ZipModes<BD::Leaves>>::Out as CosizeList<Known<typenum::U0>>>::Out: PlusOne,
    (SizeT<AS>, CosizeT<BS, BD>): LMul,
    <Layout<AS, AD> as FilteredModes>::Triples: ComplementOf<MulT<SizeT<AS>, CosizeT<BS, BD>>>,
    ProductComplement<AS, AD, BS, BD>: super::composition::CoalesceX,
    (BS, BD): CompositionVerdict<ComplementPairs<AS, AD, BS, BD>>,
    Layout<AS, AD>: FilteredModes,
    BS::Leaves: SizeList<C<1>>,
    SizeT<BS>: StaticForm,
    AllStatic2<AS, AD>: Both2<<SizeT<BS> as StaticForm>::IsZero>,
    Decided<AS, AD, BS>: OverlapOr<
        <Layout<AS, AD> as FilteredModes>::Triples,
        <(BS, BD) as CompositionVerdict<ComplementPairs<AS, AD, BS, BD>>>::Out,
    >,
    ProductVerdict<BS, BD, AS, AD, ComplementPairs<AS, AD, BS, BD>>: Holds<ProductOp>,
{
}
/// A's complement's modes after coalescing.
type ComplementPairs<AS, AD, BS, BD> =
    <ProductComplement<AS, AD, BS, BD> as super::composition::CoalesceX>::Pairs;
/// `B1` when A's overlap is decided here: A static, and B not of static
/// size 0 (the cotarget would be 0, and the complement's rest with it).
type Decided<AS, AD, BS> = <AllStatic2<AS, AD> as Both2<<SizeT<BS> as StaticForm>::IsZero>>::Out;
/// A's overlap, then the composition's verdict.
type ProductVerdict<BS, BD, AS, AD, CL> = <Decided<AS, AD, BS> as OverlapOr<
    <Layout<AS, AD> as FilteredModes>::Triples,
    <(BS, BD) as CompositionVerdict<CL>>::Out,
>>::Out;

/// A leaf of type `T` with value `f()`: a static `T` is its constant (`f`
/// is not called); `None` when `f` overflows.
#[inline(always)]
fn leaf_of<T: Leaf>(f: impl FnOnce() -> Option<usize>) -> Option<T> {
    crate::typelevel::arith::leaf_result(f)
}

/// `size(A) * cosize(B)` with CuTe's static rules, as a leaf (`None` on overflow).
#[inline(always)]
fn product_cotarget<AS: IntTuple, BS: IntTuple, BD: IntTuple, Out: Leaf>(
    a: &AS,
    bs: &BS,
    bd: &BD,
) -> Option<Out> {
    leaf_of(|| {
        let mut cosize = 1usize;
        let mut i = 0;
        while i < BS::LEAF_COUNT {
            let (s, d) = (bs.leaf(i), bd.leaf(i));
            if s == 0 {
                return Some(0);
            }
            cosize = cosize.checked_add((s - 1).checked_mul(d)?)?;
            i += 1;
        }
        a.checked_size()?.checked_mul(cosize)
    })
}

/// `complement(A, size(A) * cosize(B))`.
pub type ProductComplement<AS, AD, BS, BD> =
    ComplementT<Layout<AS, AD>, MulT<SizeT<AS>, CosizeT<BS, BD>>>;

impl<AS: Congruent<AD>, AD: IntTuple, BS: Congruent<BD>, BD: IntTuple> ProductParts<Layout<AS, AD>>
    for Layout<BS, BD>
where
    AS::Leaves: SizeList<C<1>>,
    BS::Leaves: ZipModes<BD::Leaves>,
    <BS::Leaves as ZipModes<BD::Leaves>>::Out: CosizeList<Known<typenum::U0>>,
    <<BS::Leaves as ZipModes<BD::Leaves>>::Out as CosizeList<Known<typenum::U0>>>::Out: PlusOne,
    (SizeT<AS>, CosizeT<BS, BD>): LMul,
    Layout<AS, AD>: FilteredModes,
    <Layout<AS, AD> as FilteredModes>::Triples: ComplementOf<MulT<SizeT<AS>, CosizeT<BS, BD>>>,
    ProductComplement<AS, AD, BS, BD>: super::composition::CoalesceX,
    Layout<BS, BD>: ComposeOnto<ProductComplement<AS, AD, BS, BD>>,
    <Layout<BS, BD> as ComposeOnto<ProductComplement<AS, AD, BS, BD>>>::Output: LayoutParts,
    MulT<SizeT<AS>, CosizeT<BS, BD>>: IntTuple,
    SizeT<AS>: ZeroOr<ProductCheck<Layout<BS, BD>, Layout<AS, AD>>>,
{
    #[inline(always)]
    fn try_logical(self, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
        super::complement::nonempty(
            &a,
            "logical_product",
            "A",
            crate::algebra::admissible::size_zero::PRODUCT,
        )?;
        let cot: MulT<SizeT<AS>, CosizeT<BS, BD>> =
            product_cotarget(&a.shape(), &self.shape(), &self.stride()).ok_or(
                LayoutError::Overflow {
                    op: "logical_product",
                },
            )?;
        let c = super::complement::complement_values(a.triples(), cot, false)?;
        let (rs, rd) = self.compose_values(c)?.parts();
        Ok(Layout::raw((a.shape(), rs), (a.stride(), rd)))
    }
    // A of static size 0 first (its complement divides by the size), then
    // B's checks.
    type Verdict = <SizeT<AS> as ZeroOr<ProductCheck<Layout<BS, BD>, Layout<AS, AD>>>>::Out;
    type Logical = Layout<
        (
            AS,
            <<Layout<BS, BD> as ComposeOnto<ProductComplement<AS, AD, BS, BD>>>::Output as LayoutParts>::Shape,
        ),
        (
            AD,
            <<Layout<BS, BD> as ComposeOnto<ProductComplement<AS, AD, BS, BD>>>::Output as LayoutParts>::Stride,
        ),
    >;
    const ERROR: Option<Text> = if super::complement::has_static_zero(AS::LEAF_VALUES) {
        Some(
            Text::EMPTY
                .str("logical_product: A = ")
                .text(crate::layout::layout_text::<AS, AD>())
                .str(" has size 0: ")
                .str(crate::algebra::admissible::size_zero::PRODUCT),
        )
    } else if if matches!(
        <MulT<SizeT<AS>, CosizeT<BS, BD>> as IntTuple>::STATIC_SIZE,
        Some(0)
    ) {
        // A cotarget of 0 (B of size 0, cosize 0): the complement's rest is
        // ceil(0 / n) = 0, and only an A that does not stack is refused,
        // as at run time.
        matches!(
            super::complement::Reach::<<Layout<AS, AD> as FilteredModes>::Triples>::REACH,
            Some(Err(_))
        )
    } else {
        super::complement::has_static_zero(
            <ComplementShape<
                <Layout<AS, AD> as FilteredModes>::Triples,
                MulT<SizeT<AS>, CosizeT<BS, BD>>,
            > as IntTuple>::LEAF_VALUES,
        )
    } {
        Some(
            Text::EMPTY
                .str("logical_product: ")
                .text(crate::layout::layout_text::<AS, AD>())
                .str(": its modes overlap (a stride is not above the modes below it), so it has no complement"),
        )
    } else {
        match <Layout<BS, BD> as ComposeOnto<ProductComplement<AS, AD, BS, BD>>>::ERROR {
            Some(t) => Some(Text::EMPTY.str("logical_product: ").text(t)),
            None => None,
        }
    };
}

impl<AS, AD, BS, BD> ZipProductParts<Layout<AS, AD>> for Layout<BS, BD>
where
    Layout<BS, BD>: ProductParts<Layout<AS, AD>>,
{
    type Zipped = <Layout<BS, BD> as ProductParts<Layout<AS, AD>>>::Logical;
    type Verdict = <Layout<BS, BD> as ProductParts<Layout<AS, AD>>>::Verdict;
    const ERROR: Option<Text> = <Layout<BS, BD> as ProductParts<Layout<AS, AD>>>::ERROR;
    #[inline(always)]
    fn try_zipped(self, a: Layout<AS, AD>) -> Result<Self::Zipped, LayoutError> {
        self.try_logical(a)
    }
}

/// `_` keeps a mode, which is zipped as its two halves: only a rank-2
/// mode has two (any other rank would lose or lack modes).
impl<S0, S1, D0, D1> ZipProductParts<Layout<(S0, S1), (D0, D1)>> for Underscore
where
    (S0, S1): Congruent<(D0, D1)>,
    (D0, D1): IntTuple,
{
    type Zipped = Layout<(S0, S1), (D0, D1)>;
    type Verdict = super::admits::Admitted;
    const ERROR: Option<Text> = None;
    #[inline(always)]
    fn try_zipped(self, a: Layout<(S0, S1), (D0, D1)>) -> Result<Self::Zipped, LayoutError> {
        Ok(a)
    }
}

impl<AS: Congruent<AD>, AD: IntTuple> ProductParts<Layout<AS, AD>> for Underscore {
    type Logical = Layout<AS, AD>;
    type Verdict = super::admits::Admitted;
    const ERROR: Option<Text> = None;
    #[inline(always)]
    fn try_logical(self, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
        Ok(a)
    }
}

macro_rules! int_product {
    ($t:ty; $($g:tt)*) => {
        /// An integer tiler `n` is the layout `make_layout(n)`.
        impl<AS: Congruent<AD>, AD: IntTuple, $($g)*> ProductParts<Layout<AS, AD>> for $t
        where
            $t: Compact<C<1>>,
            Layout<$t, <$t as Compact<C<1>>>::Left>: ProductParts<Layout<AS, AD>>,
        {
            type Logical = <Layout<$t, <$t as Compact<C<1>>>::Left> as ProductParts<Layout<AS, AD>>>::Logical;
            type Verdict = <Layout<$t, <$t as Compact<C<1>>>::Left> as ProductParts<Layout<AS, AD>>>::Verdict;
            const ERROR: Option<Text> = <Layout<$t, <$t as Compact<C<1>>>::Left> as ProductParts<Layout<AS, AD>>>::ERROR;
            #[inline(always)]
            fn try_logical(self, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
                Layout::raw(self, crate::layout::compact::try_compact_col_major(self)?).try_logical(a)
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(int_product);
macro_rules! int_zip_product {
    ($t:ty; $($g:tt)*) => {
        impl<AS: Congruent<AD>, AD: IntTuple, $($g)*> ZipProductParts<Layout<AS, AD>> for $t
        where
            $t: Compact<C<1>>,
            Layout<$t, <$t as Compact<C<1>>>::Left>: ZipProductParts<Layout<AS, AD>>,
        {
            type Zipped = <Layout<$t, <$t as Compact<C<1>>>::Left> as ZipProductParts<Layout<AS, AD>>>::Zipped;
            type Verdict = <Layout<$t, <$t as Compact<C<1>>>::Left> as ZipProductParts<Layout<AS, AD>>>::Verdict;
            const ERROR: Option<Text> = <Layout<$t, <$t as Compact<C<1>>>::Left> as ZipProductParts<Layout<AS, AD>>>::ERROR;
            #[inline(always)]
            fn try_zipped(self, a: Layout<AS, AD>) -> Result<Self::Zipped, LayoutError> {
                Layout::raw(self, crate::layout::compact::try_compact_col_major(self)?).try_zipped(a)
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(int_zip_product);

super::by_mode::tuple_tiler!(ProductParts, ZipProductParts);

super::by_mode::tiler_fn!(
    [ByProduct; A: Admits<T, ByProduct>];
    /// CuTe's `logical_product(A, B)`: `(A, complement(A, size(A)*cosize(B)) o B)`.
    ///
    /// ```
    /// use layout_core::{algebra::logical_product, layout};
    /// let r = logical_product(layout!((2,2):(1,2)), layout!((4,4):(1,4)));
    /// assert_eq!(r.to_string(), "((_2,_2),(_4,_4)):((_1,_2),(_4,_16))");
    /// assert_eq!(core::mem::size_of_val(&r), 0);
    /// ```
    logical_product, try_logical_product, <A as Admits<T, ByProduct>>::Out, |a, t| Admits::<T, ByProduct>::admit(a, t)
);
super::by_mode::tiler_fn!(
    [ByZipProduct; A: Admits<T, ByZipProduct>];
    /// CuTe's `zipped_product(A, B)`: `((A modes), (product modes))`.
    ///
    /// ```
    /// use layout_core::{algebra::zipped_product, layout};
    /// let r = zipped_product(layout!((2,2):(1,2)), layout!((4,4):(1,4)));
    /// assert_eq!(r.to_string(), "((_2,_2),(_4,_4)):((_1,_2),(_4,_16))");
    /// ```
    zipped_product, try_zipped_product, <A as Admits<T, ByZipProduct>>::Out, |a, t| Admits::<T, ByZipProduct>::admit(a, t)
);
super::by_mode::tiler_fn!(
    [ByZipProduct; A: Admits<T, ByZipProduct>];
    /// CuTe's `tiled_product(A, B)`: `((A modes), rest0, rest1, ...)`.
    tiled_product, try_tiled_product, <<A as Admits<T, ByZipProduct>>::Out as Unpack>::Tiled, |a, t| Admits::<T, ByZipProduct>::admit(a, t).map(Unpack::tiled), <A as Admits<T, ByZipProduct>>::Out: Unpack,
);
super::by_mode::tiler_fn!(
    [ByZipProduct; A: Admits<T, ByZipProduct>];
    /// CuTe's `flat_product(A, B)`: `(a0, a1, ..., rest0, rest1, ...)`.
    flat_product, try_flat_product, <<A as Admits<T, ByZipProduct>>::Out as Unpack>::Flat, |a, t| Admits::<T, ByZipProduct>::admit(a, t).map(Unpack::flat), <A as Admits<T, ByZipProduct>>::Out: Unpack,
);

/// [`try_zipped_product`] on the unchecked bound, for the operations built
/// on it that name their own refusal (the fragments, the TiledMMA's thread
/// layout): the same post-monomorphisation check of static inputs, and the
/// values, in the form `form` makes of the zipped layout.
#[inline(always)]
pub(crate) fn zipped_product_parts<A: LayoutParts, T: ZipProductParts<A>, O>(
    a: A,
    t: T,
    form: impl FnOnce(T::Zipped) -> O,
) -> Result<O, LayoutError>
where
    O: crate::algebra::StaticResult,
    A::Shape: Congruent<A::Stride>,
{
    const {
        if let Some(e) = T::ERROR {
            panic!("{}", e.as_str())
        }
    }
    super::values::run::<super::values::Tag<A::Shape, A::Stride, C<1>, C<1>, O>, _>(move || {
        t.try_zipped(a).map(form)
    })
}

/// The error of a static product, if any (what the compile-time check evaluates).
///
/// ```
/// use layout_core::{algebra::product_error, layout_type};
/// // (_2,_2):(_1,_2) repeated by _3:_1: admissible, nothing to report.
/// assert_eq!(product_error::<layout_type!((2,2):(1,2)), layout_type!(3:1)>(), None);
/// ```
pub fn product_error<A, T: ProductParts<A>>() -> Option<&'static str> {
    match &T::ERROR {
        Some(t) => Some(t.as_str()),
        None => None,
    }
}

/// `blocked_product` and `raked_product` of two tuple layouts of equal rank:
/// `logical_product(A, B) = (A, R)`, then mode `i` is `(a_i, r_i)` (blocked)
/// or `(r_i, a_i)` (raked).
pub trait ZipProduct<B> {
    /// `((a0,r0),(a1,r1),...)`.
    type Blocked;
    /// `((r0,a0),(r1,a1),...)`.
    type Raked;
    /// The blocked product.
    fn try_blocked(self, b: B) -> Result<Self::Blocked, LayoutError>;
    /// The raked product.
    fn try_raked(self, b: B) -> Result<Self::Raked, LayoutError>;
}
/// Pad a mode list with `P` up to the length of `L` (CuTe's `append<R>`).
#[doc(hidden)]
pub trait PadTo<L, P> {
    type Out: crate::typelevel::tuple::List;
    fn pad(self) -> Self::Out;
}
impl<P> PadTo<Nil, P> for Nil {
    type Out = Nil;
    #[inline(always)]
    fn pad(self) -> Nil {
        Nil
    }
}
impl<H: Copy + Send + Sync + 'static, T: crate::typelevel::tuple::List, P> PadTo<Nil, P>
    for Cons<H, T>
{
    type Out = Cons<H, T>;
    #[inline(always)]
    fn pad(self) -> Self {
        self
    }
}
impl<X, U, P: Copy + Send + Sync + 'static + Default> PadTo<Cons<X, U>, P> for Nil
where
    Nil: PadTo<U, P>,
{
    type Out = Cons<P, <Nil as PadTo<U, P>>::Out>;
    #[inline(always)]
    fn pad(self) -> Self::Out {
        Cons(P::default(), Nil.pad())
    }
}
impl<H: Copy + Send + Sync + 'static, T: PadTo<U, P>, X, U, P> PadTo<Cons<X, U>, P> for Cons<H, T> {
    type Out = Cons<H, T::Out>;
    #[inline(always)]
    fn pad(self) -> Self::Out {
        Cons(self.0, self.1.pad())
    }
}
type Padded<L, M, P> = <<L as PadTo<M, P>>::Out as crate::typelevel::tuple::IntoTuple>::Tuple;

type Pairs<X, Y> = <<X as ZipModes<Y>>::Out as crate::typelevel::tuple::IntoTuple>::Tuple;

/// Blocked and raked products of two layouts, after padding both with
/// `_1:_0` modes to the same rank.
#[doc(hidden)]
pub trait ZipPadded<B> {
    type Blocked;
    type Raked;
    fn blocked(self, b: B) -> Result<Self::Blocked, LayoutError>;
    fn raked(self, b: B) -> Result<Self::Raked, LayoutError>;
}
impl<
        AS: Congruent<AD> + Tuple,
        AD: IntTuple + Tuple,
        BS: Congruent<BD> + Tuple,
        BD: IntTuple + Tuple,
    > ZipPadded<Layout<BS, BD>> for Layout<AS, AD>
where
    Layout<BS, BD>: ProductParts<Layout<AS, AD>>,
    <Layout<BS, BD> as ProductParts<Layout<AS, AD>>>::Logical: crate::layout::ops::Mode<1>,
    LogicalR<Layout<AS, AD>, Layout<BS, BD>>: LayoutParts,
    <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape: AsModes,
    <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Stride: AsModes,
    AS::List: ZipModes<RShapeModes<Layout<AS, AD>, Layout<BS, BD>>>,
    AD::List: ZipModes<RStrideModes<Layout<AS, AD>, Layout<BS, BD>>>,
    RShapeModes<Layout<AS, AD>, Layout<BS, BD>>: ZipModes<AS::List>,
    RStrideModes<Layout<AS, AD>, Layout<BS, BD>>: ZipModes<AD::List>,
    <AS::List as ZipModes<RShapeModes<Layout<AS, AD>, Layout<BS, BD>>>>::Out:
        crate::typelevel::tuple::IntoTuple,
    <AD::List as ZipModes<RStrideModes<Layout<AS, AD>, Layout<BS, BD>>>>::Out:
        crate::typelevel::tuple::IntoTuple,
    <RShapeModes<Layout<AS, AD>, Layout<BS, BD>> as ZipModes<AS::List>>::Out:
        crate::typelevel::tuple::IntoTuple,
    <RStrideModes<Layout<AS, AD>, Layout<BS, BD>> as ZipModes<AD::List>>::Out:
        crate::typelevel::tuple::IntoTuple,
{
    type Blocked = Layout<
        Pairs<AS::List, RShapeModes<Layout<AS, AD>, Layout<BS, BD>>>,
        Pairs<AD::List, RStrideModes<Layout<AS, AD>, Layout<BS, BD>>>,
    >;
    type Raked = Layout<
        Pairs<RShapeModes<Layout<AS, AD>, Layout<BS, BD>>, AS::List>,
        Pairs<RStrideModes<Layout<AS, AD>, Layout<BS, BD>>, AD::List>,
    >;
    #[inline(always)]
    fn blocked(self, b: Layout<BS, BD>) -> Result<Self::Blocked, LayoutError> {
        let (rs, rd) = crate::layout::ops::Mode::<1>::get(b.try_logical(self)?).parts();
        let (s, d) = (self.shape().into_list(), self.stride().into_list());
        Ok(Layout::raw(
            s.zip_modes(rs.as_modes()).into_tuple(),
            d.zip_modes(rd.as_modes()).into_tuple(),
        ))
    }
    #[inline(always)]
    fn raked(self, b: Layout<BS, BD>) -> Result<Self::Raked, LayoutError> {
        let (rs, rd) = crate::layout::ops::Mode::<1>::get(b.try_logical(self)?).parts();
        let (s, d) = (self.shape().into_list(), self.stride().into_list());
        Ok(Layout::raw(
            rs.as_modes().zip_modes(s).into_tuple(),
            rd.as_modes().zip_modes(d).into_tuple(),
        ))
    }
}

type LogicalR<A, B> = <<B as ProductParts<A>>::Logical as crate::layout::ops::Mode<1>>::Output;
type RShapeModes<A, B> = <<LogicalR<A, B> as LayoutParts>::Shape as AsModes>::Modes;
type RStrideModes<A, B> = <<LogicalR<A, B> as LayoutParts>::Stride as AsModes>::Modes;
type PadA<AS, AD, BS> = Layout<
    Padded<<AS as AsModes>::Modes, <BS as AsModes>::Modes, C<1>>,
    Padded<<AD as AsModes>::Modes, <BS as AsModes>::Modes, C<0>>,
>;
type PadB<AS, BS, BD> = Layout<
    Padded<<BS as AsModes>::Modes, <AS as AsModes>::Modes, C<1>>,
    Padded<<BD as AsModes>::Modes, <AS as AsModes>::Modes, C<0>>,
>;

impl<
        AS: Congruent<AD> + AsModes,
        AD: IntTuple + AsModes,
        BS: Congruent<BD> + AsModes,
        BD: IntTuple + AsModes,
    > ZipProduct<Layout<BS, BD>> for Layout<AS, AD>
where
    AS::Modes: SingleMode,
    BS::Modes: SingleMode,
    <AS::Modes as SingleMode>::Out: BitAnd<<BS::Modes as SingleMode>::Out>,
    And<<AS::Modes as SingleMode>::Out, <BS::Modes as SingleMode>::Out>: ByRank<AS, AD, BS, BD>,
{
    type Blocked =
        <And<<AS::Modes as SingleMode>::Out, <BS::Modes as SingleMode>::Out> as ByRank<
            AS,
            AD,
            BS,
            BD,
        >>::Blocked;
    type Raked = <And<<AS::Modes as SingleMode>::Out, <BS::Modes as SingleMode>::Out> as ByRank<
        AS,
        AD,
        BS,
        BD,
    >>::Raked;
    #[inline(always)]
    fn try_blocked(self, b: Layout<BS, BD>) -> Result<Self::Blocked, LayoutError> {
        <And<<AS::Modes as SingleMode>::Out, <BS::Modes as SingleMode>::Out> as ByRank<
            AS,
            AD,
            BS,
            BD,
        >>::blocked(self, b)
    }
    #[inline(always)]
    fn try_raked(self, b: Layout<BS, BD>) -> Result<Self::Raked, LayoutError> {
        <And<<AS::Modes as SingleMode>::Out, <BS::Modes as SingleMode>::Out> as ByRank<
            AS,
            AD,
            BS,
            BD,
        >>::raked(self, b)
    }
}
/// `B1` when a mode list has exactly one mode (an integer, or a rank-1 tuple).
#[doc(hidden)]
pub trait SingleMode {
    type Out: Bit;
}
impl SingleMode for Nil {
    type Out = B0;
}
impl<H> SingleMode for Cons<H, Nil> {
    type Out = B1;
}
impl<H, X, Y> SingleMode for Cons<H, Cons<X, Y>> {
    type Out = B0;
}
/// Both of rank 1 (`B1`): CuTe pads nothing and zips the two parts of the
/// product as they are; otherwise (`B0`) both are padded with `_1:_0` modes to
/// the larger rank and zipped mode by mode.
#[doc(hidden)]
pub trait ByRank<AS, AD, BS, BD> {
    type Blocked;
    type Raked;
    fn blocked(a: Layout<AS, AD>, b: Layout<BS, BD>) -> Result<Self::Blocked, LayoutError>;
    fn raked(a: Layout<AS, AD>, b: Layout<BS, BD>) -> Result<Self::Raked, LayoutError>;
}
impl<AS: AsModes, AD: AsModes, BS: AsModes, BD: AsModes> ByRank<AS, AD, BS, BD> for B0
where
    AS::Modes: PadTo<BS::Modes, C<1>>,
    AD::Modes: PadTo<BS::Modes, C<0>>,
    BS::Modes: PadTo<AS::Modes, C<1>>,
    BD::Modes: PadTo<AS::Modes, C<0>>,
    <AS::Modes as PadTo<BS::Modes, C<1>>>::Out: crate::typelevel::tuple::IntoTuple,
    <AD::Modes as PadTo<BS::Modes, C<0>>>::Out: crate::typelevel::tuple::IntoTuple,
    <BS::Modes as PadTo<AS::Modes, C<1>>>::Out: crate::typelevel::tuple::IntoTuple,
    <BD::Modes as PadTo<AS::Modes, C<0>>>::Out: crate::typelevel::tuple::IntoTuple,
    PadA<AS, AD, BS>: ZipPadded<PadB<AS, BS, BD>>,
{
    type Blocked = <PadA<AS, AD, BS> as ZipPadded<PadB<AS, BS, BD>>>::Blocked;
    type Raked = <PadA<AS, AD, BS> as ZipPadded<PadB<AS, BS, BD>>>::Raked;
    #[inline(always)]
    fn blocked(a: Layout<AS, AD>, b: Layout<BS, BD>) -> Result<Self::Blocked, LayoutError> {
        let (pa, pb) = pad_both(a, b);
        pa.blocked(pb)
    }
    #[inline(always)]
    fn raked(a: Layout<AS, AD>, b: Layout<BS, BD>) -> Result<Self::Raked, LayoutError> {
        let (pa, pb) = pad_both(a, b);
        pa.raked(pb)
    }
}
/// Both layouts padded with `_1:_0` modes to the larger rank.
#[inline(always)]
fn pad_both<AS: AsModes, AD: AsModes, BS: AsModes, BD: AsModes>(
    a: Layout<AS, AD>,
    b: Layout<BS, BD>,
) -> (PadA<AS, AD, BS>, PadB<AS, BS, BD>)
where
    AS::Modes: PadTo<BS::Modes, C<1>>,
    AD::Modes: PadTo<BS::Modes, C<0>>,
    BS::Modes: PadTo<AS::Modes, C<1>>,
    BD::Modes: PadTo<AS::Modes, C<0>>,
    <AS::Modes as PadTo<BS::Modes, C<1>>>::Out: crate::typelevel::tuple::IntoTuple,
    <AD::Modes as PadTo<BS::Modes, C<0>>>::Out: crate::typelevel::tuple::IntoTuple,
    <BS::Modes as PadTo<AS::Modes, C<1>>>::Out: crate::typelevel::tuple::IntoTuple,
    <BD::Modes as PadTo<AS::Modes, C<0>>>::Out: crate::typelevel::tuple::IntoTuple,
{
    let ((s, d), (t, e)) = (a.into_raw(), b.into_raw());
    let (s, d, t, e) = (s.as_modes(), d.as_modes(), t.as_modes(), e.as_modes());
    (
        Layout::raw(
            <AS::Modes as PadTo<BS::Modes, C<1>>>::pad(s).into_tuple(),
            <AD::Modes as PadTo<BS::Modes, C<0>>>::pad(d).into_tuple(),
        ),
        Layout::raw(
            <BS::Modes as PadTo<AS::Modes, C<1>>>::pad(t).into_tuple(),
            <BD::Modes as PadTo<AS::Modes, C<0>>>::pad(e).into_tuple(),
        ),
    )
}
impl<AS: Congruent<AD>, AD: IntTuple, BS: Congruent<BD>, BD: IntTuple> ByRank<AS, AD, BS, BD> for B1
where
    Layout<BS, BD>: ProductParts<Layout<AS, AD>>,
    <Layout<BS, BD> as ProductParts<Layout<AS, AD>>>::Logical: crate::layout::ops::Mode<1>,
    LogicalR<Layout<AS, AD>, Layout<BS, BD>>: LayoutParts,
    AS::IsLeaf: ZipOne<
        AS,
        AD,
        <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape,
        <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Stride,
    >,
    <<LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape as IntTuple>::IsLeaf: ZipOne<
        <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape,
        <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Stride,
        AS,
        AD,
    >,
{
    type Blocked = <AS::IsLeaf as ZipOne<
        AS,
        AD,
        <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape,
        <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Stride,
    >>::Out;
    type Raked = <<<LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape as IntTuple>::IsLeaf as ZipOne<
        <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape,
        <LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Stride,
        AS,
        AD,
    >>::Out;
    #[inline(always)]
    fn blocked(a: Layout<AS, AD>, b: Layout<BS, BD>) -> Result<Self::Blocked, LayoutError> {
        let (rs, rd) = crate::layout::ops::Mode::<1>::get(b.try_logical(a)?).parts();
        Ok(<AS::IsLeaf as ZipOne<AS, AD, _, _>>::zip_one(
            a.shape(),
            a.stride(),
            rs,
            rd,
        ))
    }
    #[inline(always)]
    fn raked(a: Layout<AS, AD>, b: Layout<BS, BD>) -> Result<Self::Raked, LayoutError> {
        let (rs, rd) = crate::layout::ops::Mode::<1>::get(b.try_logical(a)?).parts();
        Ok(<<<LogicalR<Layout<AS, AD>, Layout<BS, BD>> as LayoutParts>::Shape as IntTuple>::IsLeaf as ZipOne<
            _,
            _,
            AS,
            AD,
        >>::zip_one(rs, rd, a.shape(), a.stride()))
    }
}
/// CuTe's `zip(first, second)` of two rank-1 layouts, chosen by whether the
/// first shape is an integer (`B1`): an integer pairs with the whole second
/// part, `((f, s))`; a rank-1 tuple `(f0)` pairs with the second's mode 0,
/// `((f0, s0))`.
#[doc(hidden)]
pub trait ZipOne<FS, FD, SS, SD> {
    type Out;
    fn zip_one(fs: FS, fd: FD, ss: SS, sd: SD) -> Self::Out;
}
impl<FS, FD, SS, SD> ZipOne<FS, FD, SS, SD> for B1 {
    type Out = Layout<((FS, SS),), ((FD, SD),)>;
    #[inline(always)]
    fn zip_one(fs: FS, fd: FD, ss: SS, sd: SD) -> Self::Out {
        Layout::raw(((fs, ss),), ((fd, sd),))
    }
}
impl<FS, FD, SS, SD> ZipOne<FS, FD, SS, SD> for B0
where
    FS: crate::layout::ops::Mode<0>,
    FD: crate::layout::ops::Mode<0>,
    SS: crate::layout::ops::Mode<0>,
    SD: crate::layout::ops::Mode<0>,
{
    type Out = Layout<((Mode0<FS>, Mode0<SS>),), ((Mode0<FD>, Mode0<SD>),)>;
    #[inline(always)]
    fn zip_one(fs: FS, fd: FD, ss: SS, sd: SD) -> Self::Out {
        Layout::raw(((fs.get(), ss.get()),), ((fd.get(), sd.get()),))
    }
}
type Mode0<T> = <T as crate::layout::ops::Mode<0>>::Output;

/// [`ZipProduct`] seen from B: the functions bound their last argument, so
/// that the type-level work starts once both input types are known.
#[doc(hidden)]
pub trait ZipOf<A> {
    type Blocked;
    type Raked;
    fn try_blocked_of(self, a: A) -> Result<Self::Blocked, LayoutError>;
    fn try_raked_of(self, a: A) -> Result<Self::Raked, LayoutError>;
}
impl<A: ZipProduct<B>, B> ZipOf<A> for B {
    type Blocked = A::Blocked;
    type Raked = A::Raked;
    #[inline(always)]
    fn try_blocked_of(self, a: A) -> Result<Self::Blocked, LayoutError> {
        a.try_blocked(self)
    }
    #[inline(always)]
    fn try_raked_of(self, a: A) -> Result<Self::Raked, LayoutError> {
        a.try_raked(self)
    }
}

macro_rules! zip_fn {
    ($(#[$m:meta])* $name:ident, $try:ident, $out:ident, $method:ident) => {
        $(#[$m])*
        ///
        /// # Panics
        ///
        /// When run-time leaves make the product inadmissible (the message
        #[doc = concat!("of [`", stringify!($try), "`]'s error).")]
        #[inline(always)]
        pub fn $name<A: LayoutParts, B: LayoutParts + ProductOnto<A> + ZipOf<A>>(a: A, b: B) -> <B as ZipOf<A>>::$out
        where
            <B as ZipOf<A>>::$out: super::StaticResult,
            A::Shape: Congruent<A::Stride>,
            B::Shape: Congruent<B::Stride>,
        {
            super::values::or_panic($try(a, b))
        }
        #[doc = concat!("[`", stringify!($name), "`], returning the reason instead of panicking at run time.")]
        #[inline(always)]
        pub fn $try<A: LayoutParts, B: LayoutParts + ProductOnto<A> + ZipOf<A>>(a: A, b: B) -> Result<<B as ZipOf<A>>::$out, LayoutError>
        where
            <B as ZipOf<A>>::$out: super::StaticResult,
            A::Shape: Congruent<A::Stride>,
            B::Shape: Congruent<B::Stride>,
        {
            const {
                if let Some(e) = B::ERROR {
                    panic!("{}", e.as_str())
                }
            }
            super::values::run::<
                crate::typelevel::tuple::AllStatic4<A::Shape, A::Stride, B::Shape, B::Stride>,
                _,
            >(move || b.$method(a))
        }
    };
}
zip_fn!(
    /// CuTe's `blocked_product(A, B)` for layouts of equal rank:
    /// mode `i` is `(a_i, b_i)`, A's blocks laid out by B.
    ///
    /// ```
    /// use layout_core::{algebra::blocked_product, layout};
    /// let r = blocked_product(layout!((3,2):(1,3)), layout!((2,5):(1,2)));
    /// assert_eq!(r.to_string(), "((_3,_2),(_2,_5)):((_1,_6),(_3,_12))");
    /// ```
    blocked_product, try_blocked_product, Blocked, try_blocked_of
);
zip_fn!(
    /// CuTe's `raked_product(A, B)` for layouts of equal rank:
    /// mode `i` is `(b_i, a_i)`, A's elements interleaved by B.
    ///
    /// ```
    /// use layout_core::{algebra::raked_product, layout};
    /// let r = raked_product(layout!((4,2):(1,4)), layout!((2,4):(4,1)));
    /// assert_eq!(r.to_string(), "((_2,_4),(_4,_2)):((_32,_1),(_8,_4))");
    /// ```
    raked_product, try_raked_product, Raked, try_raked_of
);
