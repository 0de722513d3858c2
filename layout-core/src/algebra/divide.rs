//! Typed divides: `logical_divide(A, T) = A o (T, complement(T, shape(coalesce(A))))`
//! for a layout tiler, by mode for a tuple tiler (modes of A beyond the
//! tiler are kept), and the zipped, tiled and flat rearrangements of it.
//!
//! Result types and the values of run-time leaves both come from the typed
//! composition and complement (no allocation). An integer tiler on a leaf
//! mode, the common case of `zipped_divide`/`local_tile` by a tile shape,
//! skips the general complement ([`IntDivideCase`]): the same result for
//! about half the compile time.

use super::admits::{
    AnyZeroLeaf, CompositionVerdict, CotargetOr, DivideOp, Holds, OverlapOr, ZeroOr,
};
use super::by_mode::{Admits, ByDivide, ByZipDivide, Unpack};
use super::coalesce::Coalesce;
use super::complement::{
    Admits as ComplementAdmits, ComplementOf, ComplementShape, ComplementStride, FilteredModes,
    NotStacking,
};
use super::composition::{first_error, CoalesceX, CompLayout, ComposeOnto};
use crate::error::LayoutError;
use crate::layout::compact::Compact;
use crate::layout::coord::Underscore;
use crate::layout::LayoutParts;
use crate::layout::{Congruent, Layout};
use crate::typelevel::arith::{CeilDivT, LCeilDiv, LMul, Leaf, MulT};
use crate::typelevel::const_text::Text;
use crate::typelevel::int::C;
use crate::typelevel::list::{SizeList, SizeT};
use crate::typelevel::tuple::AllStatic2;
use crate::typelevel::tuple::IntTuple;
use typenum::{B0, B1};

/// A tiler for the divides: `Self` divides `A`.
#[diagnostic::on_unimplemented(
    message = "logical_divide: `{Self}` is not a tiler of this layout",
    label = "not a tiler of this layout",
    note = "a tiler is a layout, an integer, `_` (on a rank-2 mode for the zipped forms) or a tuple of those with at most as many modes as the layout (CuTe: \"Mismatched Ranks\")"
)]
pub trait DivideParts<A> {
    /// The type of `logical_divide(A, Self)`.
    type Logical;
    /// The type checker's verdict on static inputs ([`crate::algebra::admits`]):
    /// `Admitted`, or the refusal the checked trait reports.
    #[doc(hidden)]
    type Verdict;
    /// Why the divide is inadmissible for static inputs, if it is.
    const ERROR: Option<Text>;
    /// `logical_divide(A, Self)`, or why its run-time leaves make it inadmissible.
    fn try_logical(self, a: A) -> Result<Self::Logical, LayoutError>;
}

/// The zipped form: `((tile modes), (rest modes))` by the tiler's modes.
/// (Not a subtrait of [`DivideParts`]: proving it does not need the logical
/// form's type, which rustc would otherwise normalize as well.)
#[diagnostic::on_unimplemented(
    message = "zipped_divide: `{Self}` is not a tiler of this layout",
    label = "not a tiler of this layout",
    note = "a tiler is a layout, an integer, `_` (on a rank-2 mode for the zipped forms) or a tuple of those with at most as many modes as the layout (CuTe: \"Mismatched Ranks\")"
)]
pub trait ZipDivideParts<A> {
    /// The type of `zipped_divide(A, Self)`.
    type Zipped;
    /// The type checker's verdict on static inputs ([`crate::algebra::admits`]):
    /// `Admitted`, or the refusal the checked trait reports.
    #[doc(hidden)]
    type Verdict;
    /// Why the divide is inadmissible for static inputs, if it is.
    const ERROR: Option<Text>;
    /// `zipped_divide(A, Self)`.
    fn try_zipped(self, a: A) -> Result<Self::Zipped, LayoutError>;
}

/// A tiler for the divides, checked: `Self` divides `A` and, where every
/// leaf involved is static, the type checker admits the divide
/// (`logical_divide`, `tiled_divide` and the tensors' divides require it).
/// A tiler that does not divide a static layout is then a compile error
/// that `cargo check` reports at the call.
///
/// ```
/// use layout_core::{algebra::logical_divide, layout};
/// let r = logical_divide(layout!((8,4):(4,1)), layout!(4:1));
/// // 4:1 takes 4 of A's first mode (stride 4); its complement 8:4 takes
/// // the other 2, then A's second mode.
/// assert_eq!(r.to_string(), "(_4,(_2,_4)):(_4,(_16,_1))");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::logical_divide, layout};
/// // error: logical_divide: the tiler does not divide A: stride _3 of the
/// // divisor's mode _11:_3 does not divide, and is not divided by, A's mode 0
/// // of size _8
/// let _ = logical_divide(layout!((8,4):(4,1)), layout!(3:1));
/// ```
pub trait DivideOnto<A>: DivideParts<A> {}
impl<A, T: DivideParts<A>> DivideOnto<A> for T where T::Verdict: Holds<DivideOp> {}

/// [`ZipDivideParts`], checked as [`DivideOnto`] is (`zipped_divide`,
/// `tiled_divide`, `flat_divide` and the tensors' forms require it).
///
/// ```
/// use layout_core::{algebra::zipped_divide, layout, C};
/// let r = zipped_divide(layout!((8,4):(4,1)), (C::<4>, C::<2>));
/// assert_eq!(r.to_string(), "((_4,_2),(_2,_2)):((_4,_1),(_16,_2))");
/// ```
pub trait ZipDivideOnto<A>: ZipDivideParts<A> {}
impl<A, T: ZipDivideParts<A>> ZipDivideOnto<A> for T where T::Verdict: Holds<DivideOp> {}

/// The divide's check of tiler `T` on `A`, decided when asked: the
/// complement's cotarget, `shape(coalesce(A))`, a tuple with a mode of
/// static size 0 (CuTe's complement divides by each mode), then the
/// composition ([`DivideComposition`]); its refusal names `Op` (a divide,
/// or a tensor cut into tiles).
#[doc(hidden)]
pub struct DivideCheck<T, A>(core::marker::PhantomData<(T, A)>);
impl<Op, AS: Congruent<AD>, AD: IntTuple, BS, BD> Holds<Op>
    for DivideCheck<Layout<BS, BD>, Layout<AS, AD>>
where
    Layout<AS, AD>: Coalesce,
    <Layout<AS, AD> as Coalesce>::Output: LayoutParts,
    CoalescedShape<AS, AD>: CotargetOr<DivideComposition<Layout<BS, BD>, Layout<AS, AD>>>,
    <CoalescedShape<AS, AD> as CotargetOr<DivideComposition<Layout<BS, BD>, Layout<AS, AD>>>>::Out:
        Holds<Op>,
{
}
/// The divide's composition of A with the divisor `(T, complement(T,
/// shape(coalesce(A))))`, decided when asked: first the tiler's modes,
/// which must not overlap for it to have a complement
/// ([`OverlapOr`]), then the composition.
#[doc(hidden)]
pub struct DivideComposition<T, A>(core::marker::PhantomData<(T, A)>);
impl<Op, AS: Congruent<AD>, AD: IntTuple, BS: Congruent<BD>, BD: IntTuple> Holds<Op>
    for DivideComposition<Layout<BS, BD>, Layout<AS, AD>>
where
    Layout<AS, AD>: Coalesce + CoalesceX,
    <Layout<AS, AD> as Coalesce>::Output: LayoutParts,
    Layout<BS, BD>: FilteredModes,
    TilerModes<BS, BD>: ComplementOf<CoalescedShape<AS, AD>>,
    DivisorParts<AS, AD, BS, BD>: CompositionVerdict<<Layout<AS, AD> as CoalesceX>::Pairs>,
    <CoalescedShape<AS, AD> as IntTuple>::Leaves: AnyZeroLeaf,
    CoalescedShape<AS, AD>: LeafBit,
    TilerKind<AS, AD, BS, BD>: TilerCheck<
        TilerModes<BS, BD>,
        (CoalescedShape<AS, AD>, BS, BD),
        <DivisorParts<AS, AD, BS, BD> as CompositionVerdict<
            <Layout<AS, AD> as CoalesceX>::Pairs,
        >>::Out,
    >,
    <TilerKind<AS, AD, BS, BD> as TilerCheck<
        TilerModes<BS, BD>,
        (CoalescedShape<AS, AD>, BS, BD),
        <DivisorParts<AS, AD, BS, BD> as CompositionVerdict<
            <Layout<AS, AD> as CoalesceX>::Pairs,
        >>::Out,
    >>::Out: Holds<Op>,
{
}

/// What decides the tiler's modes before the composition: (whether the
/// tiler is static, whether A's coalesced shape has a static 0, whether
/// that shape is one integer).
type TilerKind<AS, AD, BS, BD> = (
    AllStatic2<BS, BD>,
    <<CoalescedShape<AS, AD> as IntTuple>::Leaves as AnyZeroLeaf>::Out,
    <CoalescedShape<AS, AD> as LeafBit>::Out,
);

/// `B1` for a leaf (an integer shape), `B0` for a tuple.
#[doc(hidden)]
pub trait LeafBit {
    type Out;
}
impl LeafBit for usize {
    type Out = B1;
}
impl<const N: usize> LeafBit for C<N> {
    type Out = B1;
}
impl<U> LeafBit for crate::typelevel::int::S<U> {
    type Out = B1;
}
macro_rules! leaf_bit_tuple {
    ($($t:ident),*) => {
        impl<$($t),*> LeafBit for ($($t,)*) {
            type Out = B0;
        }
    };
}
crate::typelevel::tuple::for_each_tuple!(leaf_bit_tuple);

/// The tiler's modes `T` against the cotarget (`X` = (cotarget, tiler
/// shape, tiler stride)), then the composition's verdict `V`, by
/// [`TilerKind`] `Self`: a static tiler against a cotarget without a 0
/// must not overlap ([`OverlapOr`]); against the integer 0 it must stack
/// (the complement's walk: its rest is then ceil(0 / n), nothing to
/// cover); a tuple cotarget with a 0 is refused as such, a run-time
/// tiler at run time.
#[doc(hidden)]
pub trait TilerCheck<T, X, V> {
    type Out;
}
impl<T, X, V, L> TilerCheck<T, X, V> for (B1, B0, L)
where
    B1: OverlapOr<T, V>,
{
    type Out = <B1 as OverlapOr<T, V>>::Out;
}
impl<T, Cot, BS, BD, V> TilerCheck<T, (Cot, BS, BD), V> for (B1, B1, B1)
where
    T: ComplementAdmits<Cot, BS, BD>,
    <T as ComplementAdmits<Cot, BS, BD>>::Out: StacksThen<V>,
{
    type Out = <<T as ComplementAdmits<Cot, BS, BD>>::Out as StacksThen<V>>::Out;
}
impl<T, X, V> TilerCheck<T, X, V> for (B1, B1, B0) {
    type Out = V;
}
impl<T, X, V, Z, L> TilerCheck<T, X, V> for (B0, Z, L) {
    type Out = V;
}
/// The stacking walk's verdict, then `V`: a mode that does not stack is
/// the divide's refusal.
#[doc(hidden)]
pub trait StacksThen<V> {
    type Out;
}
impl<V> StacksThen<V> for super::admits::Admitted {
    type Out = V;
}
impl<S, D, V> StacksThen<V> for NotStacking<S, D> {
    type Out = TilerNotStacking<S, D>;
}
/// A divide's tiler (or a tensor's tile) whose mode `S:D`, sorted by
/// stride, does not stack on the modes below it, against an A of size 0.
#[doc(hidden)]
pub struct TilerNotStacking<S, D>(core::marker::PhantomData<(S, D)>);
/// A divide of an A of size 0 by a tiler whose modes do not stack (never
/// holds: the refusal's message).
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::logical_divide, layout};
/// // error: logical_divide: the tiler's mode _2:_1 does not stack on its
/// // modes with smaller strides, so it has no complement
/// let _ = logical_divide(layout!((0,4):(1,0)), layout!((2,2):(1,1)));
/// ```
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "logical_divide: the tiler's mode _{S}:_{D} does not stack on its modes with smaller strides, so it has no complement",
    label = "a tiler whose modes do not stack",
    note = "A has size 0, so the tiler's complement is only asked to exist: sorted by stride, each stride must pass every offset of the modes below it"
)]
pub trait DivideTilerNotStacking<const S: usize, const D: usize> {}
/// A tensor of size 0 cut by a tile whose modes do not stack (never
/// holds: the refusal's message).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the tile's mode _{S}:_{D} does not stack on its modes with smaller strides, so it has no complement and cannot cut the tensor's layout",
    label = "a tile whose modes do not stack"
)]
pub trait TileNotStacking<const S: usize, const D: usize> {}
impl<const S: usize, const D: usize> Holds<DivideOp> for TilerNotStacking<C<S>, C<D>> where
    (): DivideTilerNotStacking<S, D>
{
}
impl<const S: usize, const D: usize> Holds<super::admits::TileOp> for TilerNotStacking<C<S>, C<D>> where
    (): TileNotStacking<S, D>
{
}

/// The divisor as `(shape, stride)`.
type DivisorParts<AS, AD, BS, BD> = (
    (
        BS,
        ComplementShape<TilerModes<BS, BD>, CoalescedShape<AS, AD>>,
    ),
    (
        BD,
        ComplementStride<TilerModes<BS, BD>, CoalescedShape<AS, AD>>,
    ),
);

/// `(T, complement(T, shape(coalesce(A))))`, the layout A is composed with.
pub type DivisorOf<AS, AD, BS, BD> = Layout<
    (
        BS,
        ComplementShape<TilerModes<BS, BD>, CoalescedShape<AS, AD>>,
    ),
    (
        BD,
        ComplementStride<TilerModes<BS, BD>, CoalescedShape<AS, AD>>,
    ),
>;
/// The tiler's filtered modes.
type TilerModes<BS, BD> = <Layout<BS, BD> as FilteredModes>::Triples;
/// `shape(coalesce(A))`, the complement's cotarget.
type CoalescedShape<AS, AD> = <<Layout<AS, AD> as Coalesce>::Output as LayoutParts>::Shape;

impl<AS: Congruent<AD>, AD: IntTuple, BS: Congruent<BD>, BD: IntTuple> DivideParts<Layout<AS, AD>>
    for Layout<BS, BD>
where
    Layout<AS, AD>: Coalesce,
    <Layout<AS, AD> as Coalesce>::Output: LayoutParts,
    Layout<BS, BD>: FilteredModes,
    <Layout<BS, BD> as FilteredModes>::Triples:
        ComplementOf<<<Layout<AS, AD> as Coalesce>::Output as LayoutParts>::Shape>,
    DivisorOf<AS, AD, BS, BD>: ComposeOnto<Layout<AS, AD>>,
    BS::Leaves: SizeList<C<1>>,
    SizeT<BS>: ZeroOr<DivideCheck<Layout<BS, BD>, Layout<AS, AD>>>,
{
    type Logical = <DivisorOf<AS, AD, BS, BD> as ComposeOnto<Layout<AS, AD>>>::Output;
    // A tiler of static size 0 first: its complement (and so the check
    // of the composition) divides by that size.
    type Verdict = <SizeT<BS> as ZeroOr<DivideCheck<Layout<BS, BD>, Layout<AS, AD>>>>::Out;
    #[inline(always)]
    fn try_logical(self, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
        super::complement::nonempty(
            &self,
            "logical_divide",
            "the tiler",
            crate::algebra::admissible::size_zero::TILER,
        )?;
        let cot = a.try_coalesce()?.parts().0;
        let (cs, cd) = super::complement::complement_values(self.triples(), cot, false)?.parts();
        Layout::raw((self.shape(), cs), (self.stride(), cd)).compose_values(a)
    }
    // A static 0 in the complement's shape is a gap of 0 (the tiler's
    // modes overlap) unless the cotarget, A's coalesced shape, is a static
    // integer 0: then it is the rest, ceil(0 / n) (CuTe divides that), and
    // only a tiler that does not stack is refused. A static size 0 CuTe's
    // formula divides by (the tiler's, a mode of a tuple cotarget) is
    // refused as at run time.
    const ERROR: Option<Text> = if super::complement::has_static_zero(BS::LEAF_VALUES) {
        Some(
            Text::EMPTY
                .str("logical_divide: the tiler ")
                .text(crate::layout::layout_text::<BS, BD>())
                .str(" has size 0: ")
                .str(crate::algebra::admissible::size_zero::TILER),
        )
    } else if super::complement::has_static_zero(<CoalescedShape<AS, AD> as IntTuple>::LEAF_VALUES)
        && !<CoalescedShape<AS, AD> as IntTuple>::IS_INT
    {
        Some(
            Text::EMPTY
                .str("logical_divide: the cotarget ")
                .text(<CoalescedShape<AS, AD> as IntTuple>::TEXT)
                .str(" has size 0: ")
                .str(crate::algebra::admissible::size_zero::COTARGET),
        )
    } else if if super::complement::has_static_zero(
        <CoalescedShape<AS, AD> as IntTuple>::LEAF_VALUES,
    ) {
        matches!(
            super::complement::Reach::<TilerModes<BS, BD>>::REACH,
            Some(Err(_))
        )
    } else {
        super::complement::has_static_zero(
            <ComplementShape<TilerModes<BS, BD>, CoalescedShape<AS, AD>> as IntTuple>::LEAF_VALUES,
        )
    } {
        Some(
            Text::EMPTY
                .str("logical_divide: the tiler ")
                .text(crate::layout::layout_text::<BS, BD>())
                .str(" has overlapping modes (a stride is not above the modes below it), so it has no complement"),
        )
    } else {
        match <DivisorOf<AS, AD, BS, BD> as ComposeOnto<Layout<AS, AD>>>::ERROR {
            Some(t) => Some(Text::EMPTY.str("logical_divide: ").text(t)),
            None => None,
        }
    };
}

impl<AS, AD, BS, BD> ZipDivideParts<Layout<AS, AD>> for Layout<BS, BD>
where
    Layout<BS, BD>: DivideParts<Layout<AS, AD>>,
{
    type Zipped = <Layout<BS, BD> as DivideParts<Layout<AS, AD>>>::Logical;
    type Verdict = <Layout<BS, BD> as DivideParts<Layout<AS, AD>>>::Verdict;
    const ERROR: Option<Text> = <Layout<BS, BD> as DivideParts<Layout<AS, AD>>>::ERROR;
    #[inline(always)]
    fn try_zipped(self, a: Layout<AS, AD>) -> Result<Self::Zipped, LayoutError> {
        self.try_logical(a)
    }
}

/// `_` keeps a mode, which is zipped as its two halves: only a rank-2
/// mode has two (any other rank would lose or lack modes).
impl<S0, S1, D0, D1> ZipDivideParts<Layout<(S0, S1), (D0, D1)>> for Underscore
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

impl<AS: Congruent<AD>, AD: IntTuple> DivideParts<Layout<AS, AD>> for Underscore {
    type Logical = Layout<AS, AD>;
    type Verdict = super::admits::Admitted;
    const ERROR: Option<Text> = None;
    #[inline(always)]
    fn try_logical(self, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
        Ok(a)
    }
}

/// How an integer tiler `n` divides a mode of A, chosen by the mode's form:
/// a leaf mode `s:d` directly (`B1`), any other through the layout
/// `make_layout(n)` (`B0`).
///
/// For a leaf the general chain `s:d o (n:c, complement(n:c, s))` reduces
/// to two leaf compositions: `complement(n:c, s)` is `ceil(s/n) : n` (with
/// CuTe's compact stride, `_0` for a static 1; `c` is `_1`, or `_0` for a
/// static 1 tiler, whose complement is `s:_1`, the same formula). Both modes
/// are composed with A' by the composition's own leaf step, so the result
/// type, the values and the errors are the general chain's (checked against
/// it by `tests/tests/int_divide.rs`) at a fraction of its type-level work.
#[doc(hidden)]
pub trait IntDivideCase<N, AS, AD> {
    /// The type of `logical_divide(A, n)`.
    type Logical;
    /// The type checker's verdict.
    type Verdict;
    /// Why the divide is inadmissible for static inputs, if it is.
    const ERROR: Option<Text>;
    /// `logical_divide(A, n)`.
    fn go(n: N, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError>;
}
impl<N, AS: Congruent<AD>, AD: IntTuple> IntDivideCase<N, AS, AD> for B0
where
    N: Compact<C<1>> + Congruent<<N as Compact<C<1>>>::Left>,
    Layout<N, <N as Compact<C<1>>>::Left>: DivideParts<Layout<AS, AD>>,
{
    type Logical = <Layout<N, <N as Compact<C<1>>>::Left> as DivideParts<Layout<AS, AD>>>::Logical;
    type Verdict = <Layout<N, <N as Compact<C<1>>>::Left> as DivideParts<Layout<AS, AD>>>::Verdict;
    const ERROR: Option<Text> =
        <Layout<N, <N as Compact<C<1>>>::Left> as DivideParts<Layout<AS, AD>>>::ERROR;
    #[inline(always)]
    fn go(n: N, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
        Layout::raw(n, crate::layout::compact::try_compact_col_major(n)?).try_logical(a)
    }
}

/// The tiler's stride, `make_layout(n)`'s: `_1`, `_0` for a static 1.
type TileStride<N> = <N as Compact<C<1>>>::Left;
/// The complement's stride base `n` (as `_1 * n`, the general chain's type).
type Span<N> = MulT<C<1>, N>;
/// The complement's shape, `ceil(s / n)`.
type RestShape<S, N> = CeilDivT<S, Span<N>>;
/// The complement's stride (`_0` when its shape is a static 1).
type RestStride<S, N> = <RestShape<S, N> as Compact<Span<N>>>::Left;
/// A' of the leaf layout `s:d`.
type LeafPairs<S, D> = <Layout<S, D> as CoalesceX>::Pairs;
/// `s:d o n:c`, the tile mode.
type Tile<N, S, D> = <(N, TileStride<N>) as CompLayout<LeafPairs<S, D>>>::Out;
/// `s:d o complement(n:c, s)`, the rest mode.
type Rest<N, S, D> = <(RestShape<S, N>, RestStride<S, N>) as CompLayout<LeafPairs<S, D>>>::Out;
type Shp<L> = <L as LayoutParts>::Shape;
type Std<L> = <L as LayoutParts>::Stride;

impl<N: Leaf, S: Leaf, D: Leaf> IntDivideCase<N, S, D> for B1
where
    S: Congruent<D>,
    N: Compact<C<1>> + ZeroOr<super::admits::Admitted>,
    (C<1>, N): LMul,
    (S, Span<N>): LCeilDiv,
    RestShape<S, N>: Compact<Span<N>>,
    Layout<S, D>: CoalesceX,
    (N, TileStride<N>): CompLayout<LeafPairs<S, D>>,
    (RestShape<S, N>, RestStride<S, N>): CompLayout<LeafPairs<S, D>>,
    (Shp<Tile<N, S, D>>, Shp<Rest<N, S, D>>): Congruent<(Std<Tile<N, S, D>>, Std<Rest<N, S, D>>)>,
    (Std<Tile<N, S, D>>, Std<Rest<N, S, D>>): IntTuple,
{
    type Logical =
        Layout<(Shp<Tile<N, S, D>>, Shp<Rest<N, S, D>>), (Std<Tile<N, S, D>>, Std<Rest<N, S, D>>)>;
    // One mode of A to compose with: nothing for the type checker to refuse.
    type Verdict = <N as ZeroOr<super::admits::Admitted>>::Out;
    // The general chain's only static refusal here: a tiler of static size
    // 0 (its complement divides by it). A of static size 0 is divided as
    // CuTe divides it (a rest of ceil(0 / n) = 0); a single-mode A' has no
    // boundary for the composition to cross.
    const ERROR: Option<Text> = if super::complement::has_static_zero(<N as IntTuple>::LEAF_VALUES)
    {
        Some(
            Text::EMPTY
                .str("logical_divide: the tiler ")
                .text(crate::layout::layout_text::<N, TileStride<N>>())
                .str(" has size 0: ")
                .str(crate::algebra::admissible::size_zero::TILER),
        )
    } else {
        None
    };
    #[inline(always)]
    fn go(n: N, a: Layout<S, D>) -> Result<Self::Logical, LayoutError> {
        // The complement's steps first, failing as the complement does.
        let refused = || super::values::step_failed("complement");
        let (tile_stride, _) = n.left(C).ok_or_else(refused)?;
        if n.value() == 0 {
            return Err(LayoutError::Refused {
                op: "logical_divide",
                why: crate::Refusal::SizeZero {
                    what: "the tiler",
                    why: crate::algebra::admissible::size_zero::TILER,
                },
            });
        }
        let span: Span<N> = (C::<1>, n).value().ok_or_else(refused)?;
        let rest: RestShape<S, N> = (a.shape(), span).value().ok_or_else(refused)?;
        let rest_stride = super::complement::compact_strides(rest, span).ok_or_else(refused)?;
        let al = a
            .pairs_x()
            .ok_or_else(|| super::values::step_failed("composition"))?;
        let failed = |e: super::composition::StepError| LayoutError::Refused {
            op: "composition",
            why: e.refusal(),
        };
        let (s0, d0) = (n, tile_stride).comp_layout(al).map_err(failed)?.parts();
        let (s1, d1) = (rest, rest_stride).comp_layout(al).map_err(failed)?.parts();
        Ok(Layout::raw((s0, s1), (d0, d1)))
    }
}

/// An integer tiler `n` is the layout `make_layout(n)`; its logical and
/// zipped forms are the same layout (one mode of A in, one pair out).
macro_rules! int_divide {
    ($t:ty; $($g:tt)*) => {
        impl<AS: Congruent<AD>, AD: IntTuple, $($g)*> DivideParts<Layout<AS, AD>> for $t
        where
            AS::IsLeaf: IntDivideCase<$t, AS, AD>,
        {
            type Logical = <AS::IsLeaf as IntDivideCase<$t, AS, AD>>::Logical;
            type Verdict = <AS::IsLeaf as IntDivideCase<$t, AS, AD>>::Verdict;
            const ERROR: Option<Text> = <AS::IsLeaf as IntDivideCase<$t, AS, AD>>::ERROR;
            #[inline(always)]
            fn try_logical(self, a: Layout<AS, AD>) -> Result<Self::Logical, LayoutError> {
                <AS::IsLeaf as IntDivideCase<$t, AS, AD>>::go(self, a)
            }
        }
        impl<AS: Congruent<AD>, AD: IntTuple, $($g)*> ZipDivideParts<Layout<AS, AD>> for $t
        where
            AS::IsLeaf: IntDivideCase<$t, AS, AD>,
        {
            type Zipped = <AS::IsLeaf as IntDivideCase<$t, AS, AD>>::Logical;
            type Verdict = <AS::IsLeaf as IntDivideCase<$t, AS, AD>>::Verdict;
            const ERROR: Option<Text> = <AS::IsLeaf as IntDivideCase<$t, AS, AD>>::ERROR;
            #[inline(always)]
            fn try_zipped(self, a: Layout<AS, AD>) -> Result<Self::Zipped, LayoutError> {
                <AS::IsLeaf as IntDivideCase<$t, AS, AD>>::go(self, a)
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(int_divide);

super::by_mode::tuple_tiler!(DivideParts, ZipDivideParts);

super::by_mode::tiler_fn!(
    [ByDivide; A: Admits<T, ByDivide>];
    /// CuTe's `logical_divide(A, T)`: `A o (T, complement(T, shape(coalesce(A))))`,
    /// by mode for a tuple tiler.
    ///
    /// ```
    /// use layout_core::{algebra::logical_divide, layout, C};
    /// let r = logical_divide(layout!((128,64):(64,1)), (layout!(16:2), layout!(8:1)));
    /// assert_eq!(r.to_string(), "((_16,(_2,_4)),(_8,_8)):((_128,(_64,_2048)),(_1,_8))");
    /// assert_eq!(core::mem::size_of_val(&r), 0);
    /// ```
    logical_divide, try_logical_divide, <A as Admits<T, ByDivide>>::Out, |a, t| Admits::<T, ByDivide>::admit(a, t)
);
super::by_mode::tiler_fn!(
    [ByZipDivide; A: Admits<T, ByZipDivide>];
    /// CuTe's `zipped_divide(A, T)`: `((tile modes), (rest modes))`.
    ///
    /// ```
    /// use layout_core::{algebra::zipped_divide, layout, C};
    /// let r = zipped_divide(layout!((128,64):(64,1)), (C::<32>, C::<8>));
    /// assert_eq!(r.to_string(), "((_32,_8),(_4,_8)):((_64,_1),(_2048,_8))");
    /// ```
    zipped_divide, try_zipped_divide, <A as Admits<T, ByZipDivide>>::Out, |a, t| Admits::<T, ByZipDivide>::admit(a, t)
);
super::by_mode::tiler_fn!(
    [ByZipDivide; A: Admits<T, ByZipDivide>];
    /// CuTe's `tiled_divide(A, T)`: `((tile modes), rest0, rest1, ...)`.
    ///
    /// ```
    /// use layout_core::{algebra::tiled_divide, layout, C};
    /// let r = tiled_divide(layout!((128,64):(64,1)), (C::<16>, C::<16>));
    /// assert_eq!(r.to_string(), "((_16,_16),_8,_4):((_64,_1),_1024,_16)");
    /// ```
    tiled_divide, try_tiled_divide, <<A as Admits<T, ByZipDivide>>::Out as Unpack>::Tiled, |a, t| Admits::<T, ByZipDivide>::admit(a, t).map(Unpack::tiled), <A as Admits<T, ByZipDivide>>::Out: Unpack,
);
super::by_mode::tiler_fn!(
    [ByZipDivide; A: Admits<T, ByZipDivide>];
    /// CuTe's `flat_divide(A, T)`: `(tile0, tile1, ..., rest0, rest1, ...)`.
    ///
    /// ```
    /// use layout_core::{algebra::flat_divide, layout, C};
    /// let r = flat_divide(layout!((128,64):(64,1)), (C::<16>, C::<16>));
    /// assert_eq!(r.to_string(), "(_16,_16,_8,_4):(_64,_1,_1024,_16)");
    /// ```
    flat_divide, try_flat_divide, <<A as Admits<T, ByZipDivide>>::Out as Unpack>::Flat, |a, t| Admits::<T, ByZipDivide>::admit(a, t).map(Unpack::flat), <A as Admits<T, ByZipDivide>>::Out: Unpack,
);

/// [`try_logical_divide`] on the unchecked bound (see [`zipped_parts`]).
#[inline(always)]
pub(crate) fn logical_parts<A: LayoutParts, T: DivideParts<A>>(
    a: A,
    t: T,
) -> Result<T::Logical, LayoutError>
where
    T::Logical: crate::algebra::StaticResult,
    A::Shape: Congruent<A::Stride>,
{
    const {
        if let Some(e) = T::ERROR {
            panic!("{}", e.as_str())
        }
    }
    super::values::run::<super::values::Tag<A::Shape, A::Stride, C<1>, C<1>, T::Logical>, _>(
        move || t.try_logical(a),
    )
}

/// [`try_zipped_divide`] on the unchecked bound, for the operations built
/// on it that name their own refusal (the partitions): the same
/// post-monomorphisation check of static inputs, and the values.
#[inline(always)]
pub(crate) fn zipped_parts<A: LayoutParts, T: ZipDivideParts<A>>(
    a: A,
    t: T,
) -> Result<T::Zipped, LayoutError>
where
    T::Zipped: crate::algebra::StaticResult,
    A::Shape: Congruent<A::Stride>,
{
    const {
        if let Some(e) = T::ERROR {
            panic!("{}", e.as_str())
        }
    }
    super::values::run::<super::values::Tag<A::Shape, A::Stride, C<1>, C<1>, T::Zipped>, _>(
        move || t.try_zipped(a),
    )
}

/// The error of a static divide, if any (what the compile-time check evaluates).
///
/// ```
/// use layout_core::{algebra::divide_error, layout_type, C};
/// // (_4,_2):(_1,_4) tiles 8:1 evenly; nothing to report.
/// assert_eq!(divide_error::<layout_type!(8:1), layout_type!((4,2):(1,4))>(), None);
/// ```
pub fn divide_error<A, T: DivideParts<A>>() -> Option<&'static str> {
    match &T::ERROR {
        Some(t) => Some(t.as_str()),
        None => None,
    }
}
