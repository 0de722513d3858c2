//! The composition's admissibility as the type checker decides it, for
//! static inputs: [`crate::algebra::admissible::check_composition`] written
//! as a type-level computation whose result is a verdict type
//! ([`Admitted`], [`NotDividing`], [`NotMultiple`] or [`Overlap`]).
//!
//! Each unchecked trait of a tiler (`ComposeOnto`, `DivideParts`,
//! `ProductParts` and the zipped forms) names its check as an associated
//! type, `Verdict` (the composition's, a divide's or a product's check,
//! [`Modes`] for a tuple tiler); the checked traits (`Composition`,
//! `DivideOnto`, `ProductOnto`, ...) require it to [`Holds`] for their
//! operation, so that `cargo check` refuses an inadmissible static input at
//! the user's call with the values in CuTe notation. The library's own
//! uses of the unchecked traits never ask, and cost nothing.
//!
//! The verdict is computed by normalizing associated types, not by
//! nested bounds: a refusal is then one unmet bound on the verdict type,
//! and the compiler's message carries no chain of intermediate steps.
//! Inputs with run-time leaves are admitted here and checked at run time;
//! the post-monomorphisation check stays as the second line for what the
//! type checker leaves open (a size 0, offsets past `usize`).
//!
//! The boundary check uses the closed form of each leaf's residue. A leaf
//! that walks A' cleanly reaches a boundary `p` of A' in one of three ways:
//! its stride is a multiple of `p` (residue 0), a divisor of `p` (residue
//! `d * (min(p / d, s) - 1)`), or it ends inside a mode before `p`
//! (residue `(s - 1) * d < p`). The const check's `max_residue` has
//! other cases, which do not arise once every leaf has walked; where they would,
//! the residue is taken as 0 here (never a refusal the const check does
//! not make), and the const check decides.
//!
//! ```
//! use layout_core::{algebra::composition_verdict, error::CompositionError, layout_type};
//! // B's strides 4 and 2 reach 4 + 2*2 = 8, past A's first mode (size 8).
//! type A = layout_type!((8,5):(5,1));
//! type B = layout_type!((2,3):(4,2));
//! assert_eq!(composition_verdict::<A, B>(), Some(CompositionError::Overlap { i: 0, p: 8 }));
//! assert_eq!(composition_verdict::<layout_type!((6,2):(8,2)), layout_type!((4,3):(3,1))>(), None);
//! ```

use crate::error::CompositionError;
use crate::typelevel::arith::DivRem;
use crate::typelevel::form::{Both, Either, StTag, StaticForm};
use crate::typelevel::int::{ConstForm, StaticInt, C};
use crate::typelevel::list::{Sorted, ZipModes};
use crate::typelevel::tuple::{Cons, IntTuple, Nil, StaticBit};
use core::marker::PhantomData;
use core::ops::{Add, Mul, Not, Sub};
use typenum::{
    Add1, IsEqual, IsGreaterOrEqual, IsLess, IsLessOrEqual, Minimum, Prod, Sub1, Sum, B0, B1, U0,
    U1,
};

/// The composition is admissible (or decided at run time).
#[doc(hidden)]
pub struct Admitted;
/// B's leaf `S:D` neither divides nor is divided by A''s mode `I` of size `Cc`.
#[doc(hidden)]
pub struct NotDividing<S, D, I, Cc>(PhantomData<(S, D, I, Cc)>);
/// B's leaf `S:D` covers `N` elements of A''s mode `I` (size `Cc`), and `S`
/// is not a multiple of `N`.
#[doc(hidden)]
pub struct NotMultiple<S, D, N, I, Cc>(PhantomData<(S, D, N, I, Cc)>);
/// B's leaves carry past A''s mode `I` (boundary `P`).
#[doc(hidden)]
pub struct Overlap<I, P>(PhantomData<(I, P)>);

/// The refusal a verdict stands for, as the const check's error (its
/// values are `C<N>`: a refusal's verdict is built with [`ConstForm`]).
#[doc(hidden)]
pub trait VerdictValue {
    /// `None` for [`Admitted`].
    const ERROR: Option<CompositionError>;
}
impl VerdictValue for Admitted {
    const ERROR: Option<CompositionError> = None;
}
impl<const S: usize, const D: usize, const I: usize, const CC: usize> VerdictValue
    for NotDividing<C<S>, C<D>, C<I>, C<CC>>
{
    const ERROR: Option<CompositionError> = Some(CompositionError::NotDividing {
        s: S,
        d: D,
        i: I,
        c: CC,
    });
}
impl<const S: usize, const D: usize, const N: usize, const I: usize, const CC: usize> VerdictValue
    for NotMultiple<C<S>, C<D>, C<N>, C<I>, C<CC>>
{
    const ERROR: Option<CompositionError> = Some(CompositionError::NotMultiple {
        s: S,
        d: D,
        n: N,
        i: I,
        c: CC,
    });
}
impl<const I: usize, const P: usize> VerdictValue for Overlap<C<I>, C<P>> {
    const ERROR: Option<CompositionError> = Some(CompositionError::Overlap { i: I, p: P });
}

/// A value as the `C<N>` a refusal prints.
pub(crate) type Cf<X> = <X as ConstForm>::C;

/// The verdict on `A' o B`, B given as `(shape, stride)` and A' as its
/// modes `AL` (`(shape, stride)` pairs, the composition's `CoalesceX`).
/// A' of fewer than two modes has no boundary to cross: admitted at the
/// cost of one impl selection.
#[doc(hidden)]
pub trait CompositionVerdict<AL> {
    /// The verdict type.
    type Out;
}
impl<BS, BD> CompositionVerdict<Nil> for (BS, BD) {
    type Out = Admitted;
}
impl<BS, BD, X> CompositionVerdict<Cons<X, Nil>> for (BS, BD) {
    type Out = Admitted;
}
impl<BS: IntTuple, BD: IntTuple, X, Y, T> CompositionVerdict<Cons<X, Cons<Y, T>>> for (BS, BD)
where
    Cons<X, Cons<Y, T>>: SizesStatic,
    StaticAll<BS, BD, Cons<X, Cons<Y, T>>>: StaticVerdict<BS, BD, Cons<X, Cons<Y, T>>>,
{
    type Out =
        <StaticAll<BS, BD, Cons<X, Cons<Y, T>>> as StaticVerdict<BS, BD, Cons<X, Cons<Y, T>>>>::Out;
}
type StaticAll<BS, BD, AL> = <<<BS as IntTuple>::AllStatic as StaticBit>::And<
    <BD as IntTuple>::AllStatic,
> as StaticBit>::And<<AL as SizesStatic>::St>;

/// `B1` when every size of A' is static.
#[doc(hidden)]
pub trait SizesStatic {
    type St: StaticBit;
}
impl SizesStatic for Nil {
    type St = B1;
}
impl<Sh: StaticForm, St, T: SizesStatic> SizesStatic for Cons<(Sh, St), T>
where
    Sh::Form: StTag,
    <Sh::Form as StTag>::St: StaticBit,
{
    type St = <<Sh::Form as StTag>::St as StaticBit>::And<T::St>;
}

/// [`CompositionVerdict`] once A' has two or more modes; `Self` whether
/// every value is static (run-time values: decided at run time).
#[doc(hidden)]
pub trait StaticVerdict<BS, BD, AL> {
    type Out;
}
impl<BS, BD, AL> StaticVerdict<BS, BD, AL> for B0 {
    type Out = Admitted;
}
type LeavesOf<BS, BD> = <<BS as IntTuple>::Leaves as ZipModes<<BD as IntTuple>::Leaves>>::Out;
impl<BS: IntTuple, BD: IntTuple, AL> StaticVerdict<BS, BD, AL> for B1
where
    BS::Leaves: ZipModes<BD::Leaves>,
    LeavesOf<BS, BD>: LeavesWalk<AL>,
    <LeavesOf<BS, BD> as LeavesWalk<AL>>::Out: AfterLeaves<LeavesOf<BS, BD>, AL>,
{
    type Out =
        <<LeavesOf<BS, BD> as LeavesWalk<AL>>::Out as AfterLeaves<LeavesOf<BS, BD>, AL>>::Out;
}

/// Whether leaf `S:D` moves: size above 1 and stride not 0 (`B1`).
#[doc(hidden)]
pub trait Moves {
    type Bit;
}
impl<S: StaticForm, D: StaticForm> Moves for (S, D)
where
    (S::IsZero, S::IsOne): Either,
    <(S::IsZero, S::IsOne) as Either>::Out: Not,
    D::IsZero: Not,
    (
        <<(S::IsZero, S::IsOne) as Either>::Out as Not>::Output,
        <D::IsZero as Not>::Output,
    ): Both,
{
    type Bit = <(
        <<(S::IsZero, S::IsOne) as Either>::Out as Not>::Output,
        <D::IsZero as Not>::Output,
    ) as Both>::Out;
}
type Live<S, D> = <(S, D) as Moves>::Bit;
/// The walks of B's leaves `Self` over A' (`AL`), in order: the first
/// refusal, or [`Admitted`].
#[doc(hidden)]
pub trait LeavesWalk<AL> {
    type Out;
}
impl<AL> LeavesWalk<AL> for Nil {
    type Out = Admitted;
}
impl<S, D, T, AL> LeavesWalk<AL> for Cons<(S, D), T>
where
    (S, D): Moves,
    Live<S, D>: LeafStart<S, D, AL>,
    <Live<S, D> as LeafStart<S, D, AL>>::Out: ThenLeaves<T, AL>,
{
    type Out = <<Live<S, D> as LeafStart<S, D, AL>>::Out as ThenLeaves<T, AL>>::Out;
}

/// After one leaf's walk: on to the next leaf when admitted, else stop.
#[doc(hidden)]
pub trait ThenLeaves<T, AL> {
    type Out;
}
impl<T: LeavesWalk<AL>, AL> ThenLeaves<T, AL> for Admitted {
    type Out = T::Out;
}
impl<T, AL, S, D, I, Cc> ThenLeaves<T, AL> for NotDividing<S, D, I, Cc> {
    type Out = Self;
}
impl<T, AL, S, D, N, I, Cc> ThenLeaves<T, AL> for NotMultiple<S, D, N, I, Cc> {
    type Out = Self;
}

/// One leaf's walk, from `Self` = whether it moves.
#[doc(hidden)]
pub trait LeafStart<S, D, AL> {
    type Out;
}
impl<S, D, AL> LeafStart<S, D, AL> for B0 {
    type Out = Admitted;
}
impl<S: StaticInt, D: StaticInt, AL: ModeWalk<S, D, D::U, S::U, U0>> LeafStart<S, D, AL> for B1 {
    type Out = AL::Out;
}

/// [`crate::algebra::admissible::walk_leaf`] over the modes `Self` of A'
/// (all but the last), for leaf `S:D` with rest stride `R`, rest shape `T`
/// (typenum) and mode index `I`.
#[doc(hidden)]
pub trait ModeWalk<S, D, R, T, I> {
    type Out;
}
impl<S, D, R, T, I> ModeWalk<S, D, R, T, I> for Nil {
    type Out = Admitted;
}
impl<X, S, D, R, T, I> ModeWalk<S, D, R, T, I> for Cons<X, Nil> {
    type Out = Admitted;
}
impl<Sh: StaticInt, St, Y, Tl, S, D, R, T, I> ModeWalk<S, D, R, T, I>
    for Cons<(Sh, St), Cons<Y, Tl>>
where
    <Sh as StaticInt>::U: crate::typelevel::int::StaticZeroTag,
    ZeroOf<Sh>: ModeNonZero<S, D, R, T, I, Sh, Cons<Y, Tl>>,
{
    type Out = <ZeroOf<Sh> as ModeNonZero<S, D, R, T, I, Sh, Cons<Y, Tl>>>::Out;
}
type ZeroOf<Sh> = <<Sh as StaticInt>::U as crate::typelevel::int::StaticZeroTag>::IsZero;
type Q<A, B> = <A as DivRem<B>>::Q;
type Rm<A, B> = <A as DivRem<B>>::R;
type IsZeroU<X> = <X as IsEqual<U0>>::Output;

/// A mode of size 0 ends the walk (`B1`); otherwise (`B0`) the stride
/// either steps over the mode (`R % c == 0`) or is resolved in it.
#[doc(hidden)]
pub trait ModeNonZero<S, D, R, T, I, Sh, Rest> {
    type Out;
}
impl<S, D, R, T, I, Sh, Rest> ModeNonZero<S, D, R, T, I, Sh, Rest> for B1 {
    type Out = Admitted;
}
impl<S, D, R, T, I, Sh: StaticInt, Rest> ModeNonZero<S, D, R, T, I, Sh, Rest> for B0
where
    R: DivRem<Sh::U>,
    Rm<R, Sh::U>: IsEqual<U0>,
    IsZeroU<Rm<R, Sh::U>>: StepOver<S, D, R, T, I, Sh, Rest>,
{
    type Out = <IsZeroU<Rm<R, Sh::U>> as StepOver<S, D, R, T, I, Sh, Rest>>::Out;
}

/// `R % c == 0` (`B1`): the leaf steps over the mode with stride `R / c`.
#[doc(hidden)]
pub trait StepOver<S, D, R, T, I, Sh, Rest> {
    type Out;
}
impl<S, D, R, T, I: Add<B1>, Sh: StaticInt, Rest> StepOver<S, D, R, T, I, Sh, Rest> for B1
where
    R: DivRem<Sh::U>,
    Rest: ModeWalk<S, D, Q<R, Sh::U>, T, Add1<I>>,
{
    type Out = <Rest as ModeWalk<S, D, Q<R, Sh::U>, T, Add1<I>>>::Out;
}
impl<S, D, R, T, I, Sh: StaticInt, Rest> StepOver<S, D, R, T, I, Sh, Rest> for B0
where
    Sh::U: DivRem<R>,
    Rm<Sh::U, R>: IsEqual<U0>,
    IsZeroU<Rm<Sh::U, R>>: InMode<S, D, R, T, I, Sh, Rest>,
{
    type Out = <IsZeroU<Rm<Sh::U, R>> as InMode<S, D, R, T, I, Sh, Rest>>::Out;
}

/// The stride does not step over the mode: `c % R != 0` (`B0`) ends the
/// walk inside the mode when `(T - 1) * R < c`, else refuses; `c % R == 0`
/// (`B1`) takes `n = c / R` elements of the mode.
#[doc(hidden)]
pub trait InMode<S, D, R, T, I, Sh, Rest> {
    type Out;
}
type EndsIn<R, T, Sh> = <Prod<Sub1<T>, R> as IsLess<<Sh as StaticInt>::U>>::Output;
impl<S, D, R, T, I, Sh: StaticInt, Rest> InMode<S, D, R, T, I, Sh, Rest> for B0
where
    T: Sub<B1>,
    Sub1<T>: Mul<R>,
    Prod<Sub1<T>, R>: IsLess<Sh::U>,
    EndsIn<R, T, Sh>: EndsOr<S, D, I, Sh>,
{
    type Out = <EndsIn<R, T, Sh> as EndsOr<S, D, I, Sh>>::Out;
}
type NOf<R, Sh> = Q<<Sh as StaticInt>::U, R>;
impl<S, D, R, T, I, Sh: StaticInt, Rest> InMode<S, D, R, T, I, Sh, Rest> for B1
where
    Sh::U: DivRem<R>,
    T: IsLessOrEqual<NOf<R, Sh>>,
    <T as IsLessOrEqual<NOf<R, Sh>>>::Output: Takes<S, D, R, T, I, Sh, Rest>,
{
    type Out = <<T as IsLessOrEqual<NOf<R, Sh>>>::Output as Takes<S, D, R, T, I, Sh, Rest>>::Out;
}

/// `B1`: the walk ends inside the mode (admitted); `B0`: refused.
#[doc(hidden)]
pub trait EndsOr<S, D, I, Sh> {
    type Out;
}
impl<S, D, I, Sh> EndsOr<S, D, I, Sh> for B1 {
    type Out = Admitted;
}
impl<S: ConstForm, D: ConstForm, I: ConstForm, Sh: ConstForm> EndsOr<S, D, I, Sh> for B0 {
    type Out = NotDividing<Cf<S>, Cf<D>, Cf<I>, Cf<Sh>>;
}

/// `T <= n` (`B1`): the walk ends in the mode; otherwise `n` must divide
/// `T`, and the walk goes on with stride 1 and rest shape `T / n`.
#[doc(hidden)]
pub trait Takes<S, D, R, T, I, Sh, Rest> {
    type Out;
}
impl<S, D, R, T, I, Sh, Rest> Takes<S, D, R, T, I, Sh, Rest> for B1 {
    type Out = Admitted;
}
impl<S, D, R, T, I, Sh: StaticInt, Rest> Takes<S, D, R, T, I, Sh, Rest> for B0
where
    Sh::U: DivRem<R>,
    T: DivRem<NOf<R, Sh>>,
    Rm<T, NOf<R, Sh>>: IsEqual<U0>,
    IsZeroU<Rm<T, NOf<R, Sh>>>: Divides<S, D, R, T, I, Sh, Rest>,
{
    type Out = <IsZeroU<Rm<T, NOf<R, Sh>>> as Divides<S, D, R, T, I, Sh, Rest>>::Out;
}
/// `n` divides `T` (`B1`, go on) or not (`B0`, refuse).
#[doc(hidden)]
pub trait Divides<S, D, R, T, I, Sh, Rest> {
    type Out;
}
impl<S: ConstForm, D: ConstForm, R, T, I: ConstForm, Sh: StaticInt + ConstForm, Rest>
    Divides<S, D, R, T, I, Sh, Rest> for B0
where
    Sh::U: DivRem<R>,
    NOf<R, Sh>: ConstForm,
{
    type Out = NotMultiple<Cf<S>, Cf<D>, Cf<NOf<R, Sh>>, Cf<I>, Cf<Sh>>;
}
impl<S, D, R, T, I: Add<B1>, Sh: StaticInt, Rest> Divides<S, D, R, T, I, Sh, Rest> for B1
where
    Sh::U: DivRem<R>,
    T: DivRem<NOf<R, Sh>>,
    Rest: ModeWalk<S, D, U1, Q<T, NOf<R, Sh>>, Add1<I>>,
{
    type Out = <Rest as ModeWalk<S, D, U1, Q<T, NOf<R, Sh>>, Add1<I>>>::Out;
}

/// After every leaf walked: the boundary check when B has two leaves or
/// more, or the leaves' refusal.
#[doc(hidden)]
pub trait AfterLeaves<L, AL> {
    type Out;
}
impl<AL> AfterLeaves<Nil, AL> for Admitted {
    type Out = Admitted;
}
impl<X, AL> AfterLeaves<Cons<X, Nil>, AL> for Admitted {
    type Out = Admitted;
}
impl<X, Y, T, AL: BoundaryWalk<Cons<X, Cons<Y, T>>, U1, U0>> AfterLeaves<Cons<X, Cons<Y, T>>, AL>
    for Admitted
{
    type Out = AL::Out;
}
impl<L, AL, S, D, I, Cc> AfterLeaves<L, AL> for NotDividing<S, D, I, Cc> {
    type Out = Self;
}
impl<L, AL, S, D, N, I, Cc> AfterLeaves<L, AL> for NotMultiple<S, D, N, I, Cc> {
    type Out = Self;
}

/// The boundaries of A' (the products of its sizes, all but the last mode,
/// up to a size 0) from `P` at mode `I`: at each, B's leaves' residues must
/// add up to less than the boundary.
#[doc(hidden)]
pub trait BoundaryWalk<L, P, I> {
    type Out;
}
impl<L, P, I> BoundaryWalk<L, P, I> for Nil {
    type Out = Admitted;
}
impl<X, L, P, I> BoundaryWalk<L, P, I> for Cons<X, Nil> {
    type Out = Admitted;
}
impl<Sh: StaticInt, St, Y, Tl, L, P, I> BoundaryWalk<L, P, I> for Cons<(Sh, St), Cons<Y, Tl>>
where
    <Sh as StaticInt>::U: crate::typelevel::int::StaticZeroTag,
    ZeroOf<Sh>: Boundary<L, P, I, Sh, Cons<Y, Tl>>,
{
    type Out = <ZeroOf<Sh> as Boundary<L, P, I, Sh, Cons<Y, Tl>>>::Out;
}
/// One boundary, `P * c` (`Self`: whether `c` is 0, which ends the walk).
#[doc(hidden)]
pub trait Boundary<L, P, I, Sh, Rest> {
    type Out;
}
impl<L, P, I, Sh, Rest> Boundary<L, P, I, Sh, Rest> for B1 {
    type Out = Admitted;
}
type Bnd<P, Sh> = Prod<P, <Sh as StaticInt>::U>;
type Past<L, P, Sh> = <<L as Residues<Bnd<P, Sh>>>::Out as IsGreaterOrEqual<Bnd<P, Sh>>>::Output;
impl<L, P, I, Sh: StaticInt, Rest> Boundary<L, P, I, Sh, Rest> for B0
where
    P: Mul<Sh::U>,
    L: Residues<Bnd<P, Sh>>,
    <L as Residues<Bnd<P, Sh>>>::Out: IsGreaterOrEqual<Bnd<P, Sh>>,
    Past<L, P, Sh>: Carries<L, Bnd<P, Sh>, I, Rest>,
{
    type Out = <Past<L, P, Sh> as Carries<L, Bnd<P, Sh>, I, Rest>>::Out;
}
/// The residues reach the boundary `P` (`B1`: refused) or not (`B0`: on).
#[doc(hidden)]
pub trait Carries<L, P, I, Rest> {
    type Out;
}
impl<L, P: ConstForm, I: ConstForm, Rest> Carries<L, P, I, Rest> for B1 {
    type Out = Overlap<Cf<I>, Cf<P>>;
}
impl<L, P, I: Add<B1>, Rest: BoundaryWalk<L, P, Add1<I>>> Carries<L, P, I, Rest> for B0 {
    type Out = Rest::Out;
}

/// The sum of B's leaves' residues modulo `P`.
#[doc(hidden)]
pub trait Residues<P> {
    type Out;
}
impl<P> Residues<P> for Nil {
    type Out = U0;
}
impl<S, D, T: Residues<P>, P> Residues<P> for Cons<(S, D), T>
where
    (S, D): Moves,
    Live<S, D>: Residue<S, D, P>,
    <Live<S, D> as Residue<S, D, P>>::Out: Add<T::Out>,
{
    type Out = Sum<<Live<S, D> as Residue<S, D, P>>::Out, T::Out>;
}
/// One leaf's residue modulo `P` (`Self`: whether it moves).
#[doc(hidden)]
pub trait Residue<S, D, P> {
    type Out;
}
impl<S, D, P> Residue<S, D, P> for B0 {
    type Out = U0;
}
type DU<D> = <D as StaticInt>::U;
impl<S, D: StaticInt, P> Residue<S, D, P> for B1
where
    DU<D>: DivRem<P>,
    Rm<DU<D>, P>: IsEqual<U0>,
    IsZeroU<Rm<DU<D>, P>>: ResidueOf<S, D, P>,
{
    type Out = <IsZeroU<Rm<DU<D>, P>> as ResidueOf<S, D, P>>::Out;
}
/// `d % p == 0` (`B1`): residue 0; otherwise by whether `d` divides `p`.
#[doc(hidden)]
pub trait ResidueOf<S, D, P> {
    type Out;
}
impl<S, D, P> ResidueOf<S, D, P> for B1 {
    type Out = U0;
}
impl<S, D: StaticInt, P> ResidueOf<S, D, P> for B0
where
    P: DivRem<DU<D>>,
    Rm<P, DU<D>>: IsEqual<U0>,
    IsZeroU<Rm<P, DU<D>>>: ResidueSplit<S, D, P>,
{
    type Out = <IsZeroU<Rm<P, DU<D>>> as ResidueSplit<S, D, P>>::Out;
}
/// `d` divides `p` (`B1`): `d * (min(p / d, s) - 1)`; otherwise
/// `(s - 1) * d` when it is below `p` (the leaf ended inside a mode before
/// the boundary), else 0 (left to the const check).
#[doc(hidden)]
pub trait ResidueSplit<S, D, P> {
    type Out;
}
type Reach<S, D> = Prod<Sub1<<S as StaticInt>::U>, DU<D>>;
impl<S: StaticInt, D: StaticInt, P> ResidueSplit<S, D, P> for B1
where
    P: DivRem<DU<D>>,
    Q<P, DU<D>>: typenum::Min<S::U>,
    Minimum<Q<P, DU<D>>, S::U>: Sub<B1>,
    DU<D>: Mul<Sub1<Minimum<Q<P, DU<D>>, S::U>>>,
{
    type Out = Prod<DU<D>, Sub1<Minimum<Q<P, DU<D>>, S::U>>>;
}
impl<S: StaticInt, D: StaticInt, P> ResidueSplit<S, D, P> for B0
where
    S::U: Sub<B1>,
    Sub1<S::U>: Mul<DU<D>>,
    Reach<S, D>: IsLess<P>,
    <Reach<S, D> as IsLess<P>>::Output: KeepIf<Reach<S, D>>,
{
    type Out = <<Reach<S, D> as IsLess<P>>::Output as KeepIf<Reach<S, D>>>::Out;
}
/// `X` when `B1`, 0 when `B0`.
#[doc(hidden)]
pub trait KeepIf<X> {
    type Out;
}
impl<X> KeepIf<X> for B1 {
    type Out = X;
}
impl<X> KeepIf<X> for B0 {
    type Out = U0;
}

/// The operation a refusal names: `composition(A, B)`.
#[doc(hidden)]
pub struct ComposeOp;
/// The operation a refusal names: a divide, `A o (T, complement(T, A))`.
#[doc(hidden)]
pub struct DivideOp;
/// The operation a refusal names: a product, `complement(A, ...) o B`.
#[doc(hidden)]
pub struct ProductOp;
/// The operation a refusal names: a tensor cut into tiles
/// (`local_tile`, `inner_partition`, `local_partition`,
/// `outer_partition`: a zipped divide).
#[doc(hidden)]
pub struct TileOp;

/// The verdict holds for the operation `Op`: [`Admitted`], or an unmet
/// bound whose message states the refusal in CuTe notation.
#[doc(hidden)]
pub trait Holds<Op> {}
impl<Op> Holds<Op> for Admitted {}

/// The verdict when a divide's tiler, or a product's A, has a static size
/// 0 (`Z`, its size's type): refused before anything else (CuTe's
/// complement divides by that size).
#[doc(hidden)]
pub struct ZeroTiler<Z>(PhantomData<Z>);

/// `V`, or [`ZeroTiler`] when `Self`, a tiler's size (`usize`, or a static
/// `S<U>` or `C<N>`), is a static 0.
#[doc(hidden)]
pub trait ZeroOr<V> {
    type Out;
}
impl<V> ZeroOr<V> for usize {
    type Out = V;
}
impl<V, U: crate::typelevel::int::StaticZeroTag> ZeroOr<V> for crate::typelevel::int::S<U>
where
    U::IsZero: Pick<ZeroTiler<C<0>>, V>,
{
    type Out = <U::IsZero as Pick<ZeroTiler<C<0>>, V>>::Out;
}
impl<V, const N: usize> ZeroOr<V> for C<N>
where
    C<N>: crate::typelevel::int::TypenumForm,
    <<C<N> as crate::typelevel::int::TypenumForm>::U as crate::typelevel::int::StaticZeroTag>::IsZero:
        Pick<ZeroTiler<C<0>>, V>,
{
    type Out = <<<C<N> as crate::typelevel::int::TypenumForm>::U as crate::typelevel::int::StaticZeroTag>::IsZero as Pick<ZeroTiler<C<0>>, V>>::Out;
}
/// The refusal `R` for `B1`, the verdict `V` for `B0`.
#[doc(hidden)]
pub trait Pick<R, V> {
    type Out;
}
impl<R, V> Pick<R, V> for B1 {
    type Out = R;
}
impl<R, V> Pick<R, V> for B0 {
    type Out = V;
}

/// A divide by a tiler of static size 0 (never holds: the refusal's
/// message).
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::logical_divide, layout, C};
/// // error: logical_divide: the tiler has size _0: ...
/// let _ = logical_divide(layout!(8:1), C::<0>);
/// ```
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "logical_divide: the tiler has size _0: a tiler of size 0 has no complement (CuTe's complement divides by its size)",
    label = "a tiler of size _0"
)]
pub trait DivideTilerSizeZero<Z> {}
/// A tensor cut into tiles of static size 0 (never holds: the refusal's
/// message).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the tile has size _0: a tile of size 0 has no complement, so it cannot cut the tensor's layout (CuTe's complement divides by its size)",
    label = "a tile of size _0"
)]
pub trait TileSizeZero<Z> {}
/// A product whose A has static size 0 (never holds: the refusal's
/// message).
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::logical_product, layout};
/// // error: logical_product: A has size _0: ...
/// let _ = logical_product(layout!((2,0):(1,2)), layout!(3:1));
/// ```
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "logical_product: A has size _0: it reaches no offset, so it has no complement to lay copies of it out with (CuTe's complement divides by its size)",
    label = "a product of A of size _0"
)]
pub trait ProductSizeZero<Z> {}
impl<Z> Holds<DivideOp> for ZeroTiler<Z> where (): DivideTilerSizeZero<Z> {}
impl<Z> Holds<TileOp> for ZeroTiler<Z> where (): TileSizeZero<Z> {}
impl<Z> Holds<ProductOp> for ZeroTiler<Z> where (): ProductSizeZero<Z> {}

/// A divide's tiler (or a tensor's tile), or a product's A, whose modes
/// overlap: sorted by stride, its mode `S:D` spans `P` = `S * D` and the
/// next mode's stride `E` is below that, so it has no complement.
#[doc(hidden)]
pub struct ModesOverlap<S, D, P, E>(PhantomData<(S, D, P, E)>);
/// A divide by a tiler whose modes overlap (never holds: the refusal's
/// message).
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::logical_divide, layout};
/// // error: logical_divide: the tiler has overlapping modes: sorted by
/// // stride, its mode _2:_1 spans _2 and the next mode's stride is _1, ...
/// let _ = logical_divide(layout!(8:1), layout!((2,2):(1,1)));
/// ```
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "logical_divide: the tiler has overlapping modes: sorted by stride, its mode _{S}:_{D} spans _{P} and the next mode's stride is _{E}, so the tiler has no complement",
    label = "a tiler with overlapping modes",
    note = "the tiler's modes are counted after filtering its stride-0 modes and coalescing it"
)]
pub trait DivideModesOverlap<const S: usize, const D: usize, const P: usize, const E: usize> {}
/// A tensor cut into tiles whose modes overlap (never holds: the
/// refusal's message).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the tile has overlapping modes: sorted by stride, its mode _{S}:_{D} spans _{P} and the next mode's stride is _{E}, so it has no complement and cannot cut the tensor's layout",
    label = "a tile with overlapping modes",
    note = "the tile's modes are counted after filtering its stride-0 modes and coalescing it"
)]
pub trait TileOverlappingModes<const S: usize, const D: usize, const P: usize, const E: usize> {}
impl<const S: usize, const D: usize, const P: usize, const E: usize> Holds<DivideOp>
    for ModesOverlap<C<S>, C<D>, C<P>, C<E>>
where
    (): DivideModesOverlap<S, D, P, E>,
{
}
impl<const S: usize, const D: usize, const P: usize, const E: usize> Holds<TileOp>
    for ModesOverlap<C<S>, C<D>, C<P>, C<E>>
where
    (): TileOverlappingModes<S, D, P, E>,
{
}

/// `V`, or the first overlap ([`ModesOverlap`]) of the filtered modes `T`
/// of a divide's tiler or a product's A, when `Self` is `B1` (decided: a
/// static layout).
#[doc(hidden)]
pub trait OverlapOr<T, V> {
    type Out;
}
impl<T, V> OverlapOr<T, V> for B0 {
    type Out = V;
}
impl<T: SortedModes, V> OverlapOr<T, V> for B1
where
    T::Out: FirstOverlap<V>,
{
    type Out = <T::Out as FirstOverlap<V>>::Out;
}
/// The filtered modes sorted by stride (none or one: as they are).
#[doc(hidden)]
pub trait SortedModes {
    type Out;
}
impl SortedModes for Nil {
    type Out = Nil;
}
impl<P> SortedModes for Cons<P, Nil> {
    type Out = Cons<P, Nil>;
}
impl<P, Q, R> SortedModes for Cons<P, Cons<Q, R>>
where
    Cons<P, Cons<Q, R>>: Sorted,
{
    type Out = <Cons<P, Cons<Q, R>> as Sorted>::Out;
}
/// Over modes sorted by stride, the first mode `S:D` whose next mode's
/// stride `E` is below its span `S * D` (the complement's shape there
/// would be `E / (S * D)` = 0), else `V`.
#[doc(hidden)]
pub trait FirstOverlap<V> {
    type Out;
}
impl<V> FirstOverlap<V> for Nil {
    type Out = V;
}
impl<P, V> FirstOverlap<V> for Cons<P, Nil> {
    type Out = V;
}
impl<S: StaticInt, D: StaticInt, X, S2, D2: StaticInt, X2, T, V> FirstOverlap<V>
    for Cons<(S, D, X), Cons<(S2, D2, X2), T>>
where
    S::U: Mul<D::U>,
    D2::U: IsLess<Prod<S::U, D::U>>,
    Le<D2::U, Prod<S::U, D::U>>: OverlapHere<S, D, D2, Cons<(S2, D2, X2), T>, V>,
{
    type Out =
        <Le<D2::U, Prod<S::U, D::U>> as OverlapHere<S, D, D2, Cons<(S2, D2, X2), T>, V>>::Out;
}
type Le<A, B> = <A as IsLess<B>>::Output;
/// `B1`: the refusal at mode `S:D` (next stride `E`); `B0`: the walk goes
/// on over `Rest`.
#[doc(hidden)]
pub trait OverlapHere<S, D, E, Rest, V> {
    type Out;
}
impl<S: StaticInt, D: StaticInt, E: StaticInt, Rest, V> OverlapHere<S, D, E, Rest, V> for B1
where
    S::U: Mul<D::U> + ConstForm,
    D::U: ConstForm,
    E::U: ConstForm,
    Prod<S::U, D::U>: ConstForm,
{
    type Out = ModesOverlap<Cf<S::U>, Cf<D::U>, Cf<Prod<S::U, D::U>>, Cf<E::U>>;
}
impl<S, D, E, Rest: FirstOverlap<V>, V> OverlapHere<S, D, E, Rest, V> for B0 {
    type Out = Rest::Out;
}
/// `Self` (the layout whose modes are walked is static) and not `Z` (the
/// complement's cotarget is a static 0: then the complement's rest is 0,
/// and the post-monomorphisation check decides).
#[doc(hidden)]
pub trait Both2<Z> {
    type Out;
}
impl<Z> Both2<Z> for B0 {
    type Out = B0;
}
impl Both2<B0> for B1 {
    type Out = B1;
}
impl Both2<B1> for B1 {
    type Out = B0;
}
/// A product whose A has overlapping modes (never holds: the refusal's
/// message).
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::logical_product, layout};
/// // error: logical_product: A has overlapping modes: sorted by stride,
/// // its mode _2:_2 spans _4 and the next mode's stride is _3, ...
/// let _ = logical_product(layout!((2,2):(2,3)), layout!(2:1));
/// ```
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "logical_product: A has overlapping modes: sorted by stride, its mode _{S}:_{D} spans _{P} and the next mode's stride is _{E}, so A has no complement",
    label = "a product of an A with overlapping modes",
    note = "A's modes are counted after filtering its stride-0 modes and coalescing it"
)]
pub trait ProductOverlappingA<const S: usize, const D: usize, const P: usize, const E: usize> {}
impl<const S: usize, const D: usize, const P: usize, const E: usize> Holds<ProductOp>
    for ModesOverlap<C<S>, C<D>, C<P>, C<E>>
where
    (): ProductOverlappingA<S, D, P, E>,
{
}

/// A divide's verdict when A coalesces to a tuple with a mode of static
/// size 0 (`Z`, that size's type): CuTe's complement divides by each mode
/// of a tuple cotarget.
#[doc(hidden)]
pub struct ZeroCotarget<Z>(PhantomData<Z>);

/// `V`, or [`ZeroCotarget`] when `Self`, a complement's cotarget (the
/// shape A coalesces to), is a tuple with a leaf of static size 0.
#[doc(hidden)]
pub trait CotargetOr<V> {
    type Out;
}
impl<V, Sh: IntTuple> CotargetOr<V> for Sh
where
    Sh::Leaves: AnyZeroLeaf,
    Sh::IsLeaf: Not,
    (Not1<Sh::IsLeaf>, <Sh::Leaves as AnyZeroLeaf>::Out): Both,
    // The refusal names the size, not the shape's type (typenum's, for a
    // coalesced shape).
    <(Not1<Sh::IsLeaf>, <Sh::Leaves as AnyZeroLeaf>::Out) as Both>::Out:
        Pick<ZeroCotarget<C<0>>, V>,
{
    type Out = <<(Not1<Sh::IsLeaf>, <Sh::Leaves as AnyZeroLeaf>::Out) as Both>::Out as Pick<
        ZeroCotarget<C<0>>,
        V,
    >>::Out;
}
/// `!B` for a bit.
type Not1<B> = <B as Not>::Output;
/// `B1` when a leaf of the list is a static 0.
#[doc(hidden)]
pub trait AnyZeroLeaf {
    type Out: typenum::Bit;
}
impl AnyZeroLeaf for Nil {
    type Out = B0;
}
impl<X: crate::typelevel::form::StaticForm, R: AnyZeroLeaf> AnyZeroLeaf for Cons<X, R>
where
    (X::IsZero, R::Out): Either,
{
    type Out = <(X::IsZero, R::Out) as Either>::Out;
}

/// A divide of an A whose coalesced shape, a tuple, has a mode of static
/// size 0 (never holds: the refusal's message).
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::logical_divide, layout, C};
/// // error: logical_divide: A coalesces to a shape with a mode of size _0: ...
/// let _ = logical_divide(layout!((2,(0,3)):(1,(2,5))), C::<2>);
/// ```
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "logical_divide: A coalesces to a shape with a mode of size _0, the complement's cotarget: CuTe's complement divides by each mode of a tuple cotarget",
    label = "a divide of an A with a mode of size _0"
)]
pub trait DivideCotargetSizeZero<Sh> {}
/// A tensor cut into tiles whose layout coalesces to a shape with a mode
/// of static size 0 (never holds: the refusal's message).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the tensor's layout coalesces to a shape with a mode of size _0, the complement's cotarget: CuTe's complement divides by each mode of a tuple cotarget",
    label = "a tile of a tensor with a mode of size _0"
)]
pub trait TileCotargetSizeZero<Sh> {}
impl<Sh> Holds<DivideOp> for ZeroCotarget<Sh> where (): DivideCotargetSizeZero<Sh> {}
impl<Sh> Holds<TileOp> for ZeroCotarget<Sh> where (): TileCotargetSizeZero<Sh> {}

/// The three refusals of an operation `$op` (never holding: each is its
/// message, with the values as const parameters), and `Holds<$op>` of the
/// three verdicts through them: a leaf that does not divide and is not
/// divided by a mode (`NotDividing`), a leaf that covers part of a mode and
/// goes past it (`NotMultiple`), modes that carry past a boundary
/// (`Overlap`).
macro_rules! refusals {
    ($op:ty,
     $(#[$d1:meta])* $nd:ident: $m1:literal, $l1:literal;
     $(#[$d2:meta])* $nm:ident: $m2:literal, $l2:literal;
     $(#[$d3:meta])* $ov:ident: $m3:literal, $l3:literal;
     note: $note:literal) => {
        $(#[$d1])*
        #[diagnostic::on_unimplemented(message = $m1, label = $l1, note = $note)]
        pub trait $nd<const S: usize, const D: usize, const I: usize, const CC: usize> {}
        $(#[$d2])*
        #[diagnostic::on_unimplemented(message = $m2, label = $l2, note = $note)]
        pub trait $nm<const S: usize, const D: usize, const N: usize, const I: usize, const CC: usize> {}
        $(#[$d3])*
        #[diagnostic::on_unimplemented(message = $m3, label = $l3, note = $note)]
        pub trait $ov<const I: usize, const P: usize> {}
        impl<const S: usize, const D: usize, const I: usize, const CC: usize> Holds<$op>
            for NotDividing<C<S>, C<D>, C<I>, C<CC>>
        where
            (): $nd<S, D, I, CC>,
        {
        }
        impl<const S: usize, const D: usize, const N: usize, const I: usize, const CC: usize>
            Holds<$op> for NotMultiple<C<S>, C<D>, C<N>, C<I>, C<CC>>
        where
            (): $nm<S, D, N, I, CC>,
        {
        }
        impl<const I: usize, const P: usize> Holds<$op> for Overlap<C<I>, C<P>> where (): $ov<I, P> {}
    };
}

refusals!(
    ComposeOp,
    /// `composition(A, B)`: a leaf of B steps across a mode of A unevenly
    /// (never holds: the refusal's message).
    ///
    /// ```compile_fail,E0277
    /// use layout_core::{algebra::composition, layout};
    /// // error: composition: stride _2 of B's mode _3:_2 does not divide, and
    /// // is not divided by, A's mode 0 of size _3
    /// let _ = composition(layout!((3,4):(1,5)), layout!(3:2));
    /// ```
    CompositionNotDividing:
        "composition: stride _{D} of B's mode _{S}:_{D} does not divide, and is not divided by, A's mode {I} of size _{CC}",
        "A o B is not a layout: B's mode steps across a mode of A unevenly";
    /// `composition(A, B)`: a leaf of B covers part of a mode of A and goes on
    /// past it (never holds: the refusal's message).
    CompositionNotMultiple:
        "composition: B's mode _{S}:_{D} covers _{N} of A's mode {I} (size _{CC}) but its size _{S} is not a multiple of _{N}",
        "A o B is not a layout: B's mode steps across a mode of A unevenly";
    /// `composition(A, B)`: B's modes add up past a boundary of A (never
    /// holds: the refusal's message).
    CompositionOverlap:
        "composition: B's modes overlap, so their offsets carry past A's mode {I} (boundary _{P})",
        "A o B is not a layout: CuTe's result would differ from A(B(c))";
    note: "A's modes are counted after coalescing A, from 0"
);
refusals!(
    DivideOp,
    /// A divide `A o (T, complement(T, A))`: a leaf of the divisor steps across
    /// a mode of A unevenly (never holds: the refusal's message).
    DivideNotDividing:
        "logical_divide: the tiler does not divide A: stride _{D} of the divisor's mode _{S}:_{D} does not divide, and is not divided by, A's mode {I} of size _{CC}",
        "the tiler does not divide this layout";
    /// A divide: a leaf of the divisor covers part of a mode of A and goes on
    /// past it (never holds: the refusal's message).
    DivideNotMultiple:
        "logical_divide: the tiler does not divide A: the divisor's mode _{S}:_{D} covers _{N} of A's mode {I} (size _{CC}) but its size _{S} is not a multiple of _{N}",
        "the tiler does not divide this layout";
    /// A divide: the divisor's modes add up past a boundary of A (never
    /// holds: the refusal's message).
    DivideOverlap:
        "logical_divide: the tiler does not divide A: the divisor's modes overlap, so their offsets carry past A's mode {I} (boundary _{P})",
        "the tiler does not divide this layout";
    note: "the divisor is (tiler, complement of the tiler); A's modes are counted after coalescing A, from 0"
);
refusals!(
    ProductOp,
    /// A product `complement(A, ...) o B`: a leaf of B steps across a mode of
    /// A's complement unevenly (never holds: the refusal's message).
    ProductNotDividing:
        "logical_product: stride _{D} of B's mode _{S}:_{D} does not divide, and is not divided by, mode {I} of size _{CC} of A's complement",
        "B cannot be laid out in the complement of this layout";
    /// A product: a leaf of B covers part of a mode of A's complement and goes
    /// on past it (never holds: the refusal's message).
    ProductNotMultiple:
        "logical_product: B's mode _{S}:_{D} covers _{N} of mode {I} (size _{CC}) of A's complement but its size _{S} is not a multiple of _{N}",
        "B cannot be laid out in the complement of this layout";
    /// A product: B's modes add up past a boundary of A's complement (never
    /// holds: the refusal's message).
    ProductOverlap:
        "logical_product: B's modes overlap, so their offsets carry past mode {I} of A's complement (boundary _{P})",
        "B cannot be laid out in the complement of this layout";
    note: "the product composes A's complement with B; its modes are counted after coalescing, from 0"
);
refusals!(
    TileOp,
    /// A tensor cut into tiles: a leaf of the divisor steps across a mode of
    /// the tensor's layout unevenly (never holds: the refusal's message).
    TileNotDividing:
        "the tile does not divide the tensor's layout: stride _{D} of the divisor's mode _{S}:_{D} does not divide, and is not divided by, the layout's mode {I} of size _{CC}",
        "the tile does not divide this tensor's layout";
    /// A tensor cut into tiles: a leaf of the divisor covers part of a mode
    /// of the layout and goes on past it (never holds: the refusal's message).
    TileNotMultiple:
        "the tile does not divide the tensor's layout: the divisor's mode _{S}:_{D} covers _{N} of the layout's mode {I} (size _{CC}) but its size _{S} is not a multiple of _{N}",
        "the tile does not divide this tensor's layout";
    /// A tensor cut into tiles: the divisor's modes add up past a boundary of
    /// the layout (never holds: the refusal's message).
    TileOverlap:
        "the tile does not divide the tensor's layout: the divisor's modes overlap, so their offsets carry past the layout's mode {I} (boundary _{P})",
        "the tile does not divide this tensor's layout";
    note: "local_tile, inner_partition, local_partition and outer_partition divide the layout by (tile, complement of the tile); the layout's modes are counted after coalescing it, from 0"
);

/// The checks of a tuple tiler's modes: each must hold.
#[doc(hidden)]
pub struct Modes<T>(PhantomData<T>);
impl<Op, V0: Holds<Op>> Holds<Op> for Modes<(V0,)> {}
impl<Op, V0: Holds<Op>, V1: Holds<Op>> Holds<Op> for Modes<(V0, V1)> {}
impl<Op, V0: Holds<Op>, V1: Holds<Op>, V2: Holds<Op>> Holds<Op> for Modes<(V0, V1, V2)> {}
impl<Op, V0: Holds<Op>, V1: Holds<Op>, V2: Holds<Op>, V3: Holds<Op>> Holds<Op>
    for Modes<(V0, V1, V2, V3)>
{
}
