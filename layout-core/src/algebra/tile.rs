//! Typed `tile_to_shape`: repeat a block until it covers a shape.
//!
//! CuTe 4.7 computes `blocked_product(append<R>(block), make_ordered_layout(reps, order))`
//! with `R = rank(shape)` and `reps = ceil_div(product_each(shape),
//! product_each(shape(append<R>(block))))`, and coalesces nothing: each mode of the
//! result is `(block mode, repeat)`.

use super::product::{PadTo, ProductParts, SingleMode, ZipProduct};
use crate::error::LayoutError;
use crate::layout::compact::TypedSize;
use crate::layout::compact::{Compact, OrderPairs, OrderedStride};
use crate::layout::{layout_text, LayoutParts};
use crate::layout::{Congruent, Layout};
use crate::typelevel::arith::{CeilDivT, LCeilDiv};
use crate::typelevel::check::DividesU;
use crate::typelevel::const_text::{Leaves, Text};
use crate::typelevel::int::{ConstForm, TypenumForm, C, S};
use crate::typelevel::list::{SizeList, SizeT};
use crate::typelevel::tuple::{AsModes, Cons, IntTuple, IntoTuple, List, Nil};
use core::ops::BitAnd;
use typenum::{And, B0, B1};

/// The default mode order of `tile_to_shape`: the repeats are laid out
/// column-major, as CuTe's `LayoutLeft`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ColMajor;

/// How the repeats `Reps` are ordered: [`ColMajor`], or a tuple of static
/// ranks as `make_ordered_layout` takes.
pub trait TileOrder<Reps> {
    /// The strides of the repeat layout.
    type Stride: IntTuple;
    /// The strides for the repeats `reps`; `None` when a run-time product
    /// does not fit `usize`.
    fn stride(self, reps: Reps) -> Option<Self::Stride>;
}
impl<Reps: Compact<C<1>>> TileOrder<Reps> for ColMajor {
    type Stride = <Reps as Compact<C<1>>>::Left;
    #[inline(always)]
    fn stride(self, reps: Reps) -> Option<Self::Stride> {
        Some(reps.left(C)?.0)
    }
}
impl<
        Reps: Copy,
        O: OrderPairs<Reps> + OrderedStride<Reps, <O as OrderPairs<Reps>>::Pairs> + IntTuple,
    > TileOrder<Reps> for O
where
    <O as OrderedStride<Reps, <O as OrderPairs<Reps>>::Pairs>>::Stride: IntTuple,
{
    type Stride = <O as OrderedStride<Reps, <O as OrderPairs<Reps>>::Pairs>>::Stride;
    #[inline(always)]
    fn stride(self, reps: Reps) -> Option<Self::Stride> {
        self.ordered_stride(reps, self.pairs(reps))
    }
}

/// CuTe's `product_each` on a list of modes: the size of each mode.
#[doc(hidden)]
pub trait ProductEach {
    type Out: List;
    fn product_each(self) -> Option<Self::Out>;
}
impl ProductEach for Nil {
    type Out = Nil;
    #[inline(always)]
    fn product_each(self) -> Option<Nil> {
        Some(Nil)
    }
}
impl<H: IntTuple, T: ProductEach> ProductEach for Cons<H, T>
where
    H::Leaves: SizeList<C<1>>,
    SizeT<H>: crate::typelevel::arith::Leaf,
{
    type Out = Cons<SizeT<H>, T::Out>;
    #[inline(always)]
    fn product_each(self) -> Option<Self::Out> {
        let h = crate::typelevel::arith::leaf_result(|| self.0.checked_size())?;
        Some(Cons(h, self.1.product_each()?))
    }
}

/// `ceil_div(target_i, block_i)` mode by mode, as long as the target has
/// modes (a block with more modes is refused by the rank check).
#[doc(hidden)]
pub trait CeilDivEach<B> {
    type Out: List;
    fn ceil_div_each(self, b: B) -> Option<Self::Out>;
}
impl<B> CeilDivEach<B> for Nil {
    type Out = Nil;
    #[inline(always)]
    fn ceil_div_each(self, _b: B) -> Option<Nil> {
        Some(Nil)
    }
}
impl<H, T> CeilDivEach<Nil> for Cons<H, T> {
    type Out = Nil;
    #[inline(always)]
    fn ceil_div_each(self, _b: Nil) -> Option<Nil> {
        Some(Nil)
    }
}
impl<H, T: CeilDivEach<U>, X, U> CeilDivEach<Cons<X, U>> for Cons<H, T>
where
    (H, X): LCeilDiv,
{
    type Out = Cons<CeilDivT<H, X>, T::Out>;
    #[inline(always)]
    fn ceil_div_each(self, b: Cons<X, U>) -> Option<Self::Out> {
        Some(Cons((self.0, b.0).value()?, self.1.ceil_div_each(b.1)?))
    }
}

/// CuTe's `append<R>(block)`: an integer block stays an integer when `R` is 1
/// (`B1`); otherwise (`B0`) it is padded with `_1:_0` modes up to rank `R`.
#[doc(hidden)]
pub trait AppendTo<BS, BD, M> {
    type Shape: IntTuple;
    type Stride: IntTuple;
    fn append(s: BS, d: BD) -> (Self::Shape, Self::Stride);
}
impl<BS: IntTuple, BD: IntTuple, M> AppendTo<BS, BD, M> for B1 {
    type Shape = BS;
    type Stride = BD;
    #[inline(always)]
    fn append(s: BS, d: BD) -> (BS, BD) {
        (s, d)
    }
}
impl<BS: AsModes, BD: AsModes, M> AppendTo<BS, BD, M> for B0
where
    BS::Modes: PadTo<M, C<1>>,
    BD::Modes: PadTo<M, C<0>>,
    <BS::Modes as PadTo<M, C<1>>>::Out: IntoTuple,
    <BD::Modes as PadTo<M, C<0>>>::Out: IntoTuple,
    <<BS::Modes as PadTo<M, C<1>>>::Out as IntoTuple>::Tuple: IntTuple,
    <<BD::Modes as PadTo<M, C<0>>>::Out as IntoTuple>::Tuple: IntTuple,
{
    type Shape = <<BS::Modes as PadTo<M, C<1>>>::Out as IntoTuple>::Tuple;
    type Stride = <<BD::Modes as PadTo<M, C<0>>>::Out as IntoTuple>::Tuple;
    #[inline(always)]
    fn append(s: BS, d: BD) -> (Self::Shape, Self::Stride) {
        (
            <BS::Modes as PadTo<M, C<1>>>::pad(s.as_modes()).into_tuple(),
            <BD::Modes as PadTo<M, C<0>>>::pad(d.as_modes()).into_tuple(),
        )
    }
}

/// What is wrong with a static tiling, found from the sizes of the padded
/// block's modes and of the shape's modes (one leaf per mode).
enum TileFault {
    /// The block has more modes than the shape.
    Rank,
    /// The block's mode `i` does not divide the shape's.
    Mode(usize),
}

const fn tile_fault(have: Leaves, want: Leaves) -> Option<TileFault> {
    if have.n > want.n {
        return Some(TileFault::Rank);
    }
    let mut i = 0;
    while i < want.n && i < Leaves::CAP {
        if have.st[i] && want.st[i] && (have.v[i] == 0 || want.v[i] % have.v[i] != 0) {
            return Some(TileFault::Mode(i));
        }
        i += 1;
    }
    None
}

/// The message of a fault (built only when there is one).
const fn tile_text(f: TileFault, block: Text, shape: Text, have: Leaves, want: Leaves) -> Text {
    match f {
        TileFault::Rank => Text::EMPTY
            .str("tile_to_shape: block ")
            .text(block)
            .str(" has more modes than the shape ")
            .text(shape),
        TileFault::Mode(i) => Text::EMPTY
            .str("tile_to_shape: mode ")
            .num(i)
            .str(" of block ")
            .text(block)
            .str(" has size ")
            .num(have.v[i])
            .str(", which does not divide ")
            .num(want.v[i])
            .str(", the size of mode ")
            .num(i)
            .str(" of the shape ")
            .text(shape),
    }
}

type Single<BS, Sh> = And<<BS as IntTuple>::IsLeaf, <<Sh as AsModes>::Modes as SingleMode>::Out>;
type PadShape<BS, BD, Sh> = <Single<BS, Sh> as AppendTo<BS, BD, <Sh as AsModes>::Modes>>::Shape;
type PadStride<BS, BD, Sh> = <Single<BS, Sh> as AppendTo<BS, BD, <Sh as AsModes>::Modes>>::Stride;
type BlockSizes<BS, BD, Sh> = <<PadShape<BS, BD, Sh> as AsModes>::Modes as ProductEach>::Out;
type ShapeSizes<Sh> = <<Sh as AsModes>::Modes as ProductEach>::Out;
/// The repeat counts, one per mode of the shape (always a tuple, as CuTe's
/// `product_each` wraps an integer).
pub type TileReps<BS, BD, Sh> =
    <<ShapeSizes<Sh> as CeilDivEach<BlockSizes<BS, BD, Sh>>>::Out as IntoTuple>::Tuple;
type Padded<BS, BD, Sh> = Layout<PadShape<BS, BD, Sh>, PadStride<BS, BD, Sh>>;
type RepLayout<BS, BD, Sh, O> =
    Layout<TileReps<BS, BD, Sh>, <O as TileOrder<TileReps<BS, BD, Sh>>>::Stride>;

/// `tile_to_shape(Self, Sh, O)` at the type level.
pub trait TileToShape<Sh, O> {
    /// The result's type.
    type Output;
    /// Why the tiling is inadmissible for static inputs, if it is.
    const ERROR: Option<Text>;
    /// The tiling, or why its run-time leaves make it inadmissible.
    fn try_tile(self, shape: Sh, order: O) -> Result<Self::Output, LayoutError>;
}
impl<BS, BD, Sh, O> TileToShape<Sh, O> for Layout<BS, BD>
where
    BS: Congruent<BD> + AsModes,
    BD: IntTuple + AsModes,
    Sh: AsModes,
    Sh::Modes: SingleMode + ProductEach,
    BS::IsLeaf: BitAnd<<Sh::Modes as SingleMode>::Out>,
    Single<BS, Sh>: AppendTo<BS, BD, Sh::Modes>,
    PadShape<BS, BD, Sh>: AsModes + Congruent<PadStride<BS, BD, Sh>>,
    <PadShape<BS, BD, Sh> as AsModes>::Modes: ProductEach,
    BlockSizes<BS, BD, Sh>: IntoTuple,
    <BlockSizes<BS, BD, Sh> as IntoTuple>::Tuple: IntTuple,
    ShapeSizes<Sh>: IntoTuple + CeilDivEach<BlockSizes<BS, BD, Sh>>,
    <ShapeSizes<Sh> as IntoTuple>::Tuple: IntTuple,
    <ShapeSizes<Sh> as CeilDivEach<BlockSizes<BS, BD, Sh>>>::Out: IntoTuple,
    TileReps<BS, BD, Sh>: Congruent<O::Stride>,
    O: TileOrder<TileReps<BS, BD, Sh>>,
    RepLayout<BS, BD, Sh, O>: ProductParts<Padded<BS, BD, Sh>>,
    Padded<BS, BD, Sh>: ZipProduct<RepLayout<BS, BD, Sh, O>>,
{
    type Output = <Padded<BS, BD, Sh> as ZipProduct<RepLayout<BS, BD, Sh, O>>>::Blocked;
    #[inline(always)]
    fn try_tile(self, shape: Sh, order: O) -> Result<Self::Output, LayoutError> {
        let fail = super::values::step_failed("tile_to_shape");
        let (ps, pd) =
            <Single<BS, Sh> as AppendTo<BS, BD, Sh::Modes>>::append(self.shape(), self.stride());
        let have = ps.as_modes().product_each().ok_or(fail.clone())?;
        let want = shape.as_modes().product_each().ok_or(fail.clone())?;
        // A run-time size the block does not divide is refused, as CuTe
        // asserts for static ones (rounding up would tile past the shape).
        let (hv, wv) = (have.into_tuple(), want.into_tuple());
        let mut i = 0;
        while i < <ShapeSizes<Sh> as List>::LEN {
            let (b, t) = (hv.leaf(i), wv.leaf(i));
            if i < <BlockSizes<BS, BD, Sh> as List>::LEN && (b == 0 || t % b != 0) {
                return Err(LayoutError::Refused {
                    op: "tile_to_shape",
                    why: crate::Refusal::NotDividing {
                        mode: i,
                        block: b,
                        target: t,
                    },
                });
            }
            i += 1;
        }
        let reps: TileReps<BS, BD, Sh> = want.ceil_div_each(have).ok_or(fail.clone())?.into_tuple();
        let rep = Layout::raw(reps, order.stride(reps).ok_or(fail)?);
        Layout::raw(ps, pd).try_blocked(rep)
    }
    const ERROR: Option<Text> = {
        let have = <<BlockSizes<BS, BD, Sh> as IntoTuple>::Tuple as IntTuple>::LEAF_VALUES;
        let want = <<ShapeSizes<Sh> as IntoTuple>::Tuple as IntTuple>::LEAF_VALUES;
        match tile_fault(have, want) {
            Some(f) => Some(tile_text(f, layout_text::<BS, BD>(), Sh::TEXT, have, want)),
            None => match <RepLayout<BS, BD, Sh, O> as ProductParts<Padded<BS, BD, Sh>>>::ERROR {
                Some(t) => Some(Text::EMPTY.str("tile_to_shape: ").text(t)),
                None => None,
            },
        }
    };
}

/// `tile_to_shape` seen from its last argument: the function bounds name the
/// trait on the argument rustc infers last, so that the type-level work
/// starts once every input type is known (bounding the block instead makes
/// the solver explore with the other inputs still unknown, ~10x slower).
#[doc(hidden)]
pub trait LastArg<L, K> {
    type Output;
    const ERROR: Option<Text>;
    /// The tiling of `block`; `other` holds the shape when `Self` is the order.
    fn tile(self, block: L, other: K) -> Result<Self::Output, LayoutError>;
}
/// As the shape, for [`tile_to_shape`] (`Self` is the shape, the order column-major).
impl<Sh, L: TileToShape<Sh, ColMajor>> LastArg<L, ()> for Sh {
    type Output = L::Output;
    const ERROR: Option<Text> = L::ERROR;
    #[inline(always)]
    fn tile(self, block: L, _other: ()) -> Result<Self::Output, LayoutError> {
        block.try_tile(self, ColMajor)
    }
}
/// As the order, for [`tile_to_shape_ordered`].
impl<O, L: TileToShape<Sh, O>, Sh> LastArg<L, (Sh,)> for O {
    type Output = L::Output;
    const ERROR: Option<Text> = L::ERROR;
    #[inline(always)]
    fn tile(self, block: L, other: (Sh,)) -> Result<Self::Output, LayoutError> {
        block.try_tile(other.0, self)
    }
}

/// CuTe's `tile_to_shape(block, shape)`: `block` repeated column-major until
/// it covers `shape`; each mode of the result is `(block mode, repeats)`.
/// A static block whose modes do not divide the shape's is a compile error.
///
/// ```
/// use layout_core::{algebra::tile_to_shape, layout, C};
/// let r = tile_to_shape(layout!((4,4):(8,1)), (C::<16>, C::<4>));
/// assert_eq!(r.to_string(), "((_4,(_2,_2)),(_4,_1)):((_8,(_4,_32)),(_1,_0))");
/// assert_eq!(core::mem::size_of_val(&r), 0);
/// ```
///
/// # Panics
///
/// When a run-time size of the shape is not a multiple of the block's, or
/// the repeats' strides pass `usize`, with the reason ([`try_tile_to_shape`]
/// returns it); never for static inputs.
#[inline(always)]
pub fn tile_to_shape<L, Sh>(block: L, shape: Sh) -> <Sh as LastArg<L, ()>>::Output
where
    <<L::Shape as AsModes>::Modes as BlockFits<Sh::Modes>>::Checked: Copy,
    L: LayoutParts,
    L::Shape: Congruent<L::Stride>,
    Sh: IntTuple + LastArg<L, ()> + AsModes,
    L::Shape: AsModes,
    <L::Shape as AsModes>::Modes: BlockFits<Sh::Modes>,
    <Sh as LastArg<L, ()>>::Output: super::StaticResult,
{
    super::values::or_panic(try_tile_to_shape(block, shape))
}

/// `tile_to_shape`'s precondition on a static mode: the block's mode of
/// size `_A` divides the shape's mode of size `_B`, decided by the type
/// checker.
///
/// ```
/// use layout_core::{algebra::tile_to_shape, layout, C};
/// let r = tile_to_shape(layout!((2,4):(1,2)), (C::<8>, C::<8>));
/// assert_eq!(r.to_string(), "((_2,_4),(_4,_2)):((_1,_8),(_2,_32))");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{algebra::tile_to_shape, layout, C};
/// // error: tile_to_shape: a mode of the block of size _3 does not divide the shape's mode of size _8
/// let _ = tile_to_shape(layout!((3,4):(1,3)), (C::<8>, C::<8>));
/// ```
#[diagnostic::on_unimplemented(
    message = "tile_to_shape: a mode of the block of size _{A} does not divide the shape's mode of size _{B}",
    label = "each mode of the block must divide the shape's mode"
)]
pub trait BlockDivides<const A: usize, const B: usize> {}
#[diagnostic::do_not_recommend]
impl<const A: usize, const B: usize> BlockDivides<A, B> for ()
where
    C<A>: TypenumForm,
    C<B>: TypenumForm,
    <C<A> as TypenumForm>::U: DividesU<<C<B> as TypenumForm>::U, Out = B1>,
{
}

/// [`BlockModes`] through one blanket impl: `tile_to_shape`'s bound, so
/// that a refusal lists no impls of the recursion.
#[doc(hidden)]
pub trait BlockFits<Sm> {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
}
impl<Sm, X: BlockModes<Sm>> BlockFits<Sm> for X {
    type Checked = ();
}

/// The block's modes against the shape's, mode by mode: static sizes are
/// checked here (`C<N>` as values, a computed `S<U>` as a typenum whose
/// value is printed only when refused), a run-time one at run time.
#[doc(hidden)]
pub trait BlockModes<Sm> {}
#[diagnostic::do_not_recommend]
impl<Sm> BlockModes<Sm> for Nil {}
#[diagnostic::do_not_recommend]
impl<B, BT> BlockModes<Nil> for Cons<B, BT> {}
impl<B: TypedSize, BT: BlockModes<ST>, M: TypedSize, ST> BlockModes<Cons<M, ST>> for Cons<B, BT> where
    B::Size: SizeDivides<M::Size>
{
}
#[doc(hidden)]
pub trait SizeDivides<Sz> {}
impl<Sz> SizeDivides<Sz> for usize {}
impl<Sz: DividedByU<U>, U> SizeDivides<Sz> for S<U> {}
impl<const A: usize, Sz: DividedBy<A>> SizeDivides<Sz> for C<A> {}
#[doc(hidden)]
pub trait DividedBy<const A: usize> {}
impl<const A: usize> DividedBy<A> for usize {}
impl<const A: usize, U> DividedBy<A> for S<U>
where
    C<A>: TypenumForm,
    <C<A> as TypenumForm>::U: DividesU<U>,
    <<C<A> as TypenumForm>::U as DividesU<U>>::Out: BlockOr<<C<A> as TypenumForm>::U, U>,
{
}
/// The shape's mode `Self` against a computed block mode (typenum `UA`).
#[doc(hidden)]
pub trait DividedByU<UA> {}
impl<UA> DividedByU<UA> for usize {}
impl<UA: DividesU<U>, U> DividedByU<UA> for S<U> where <UA as DividesU<U>>::Out: BlockOr<UA, U> {}
impl<UA, const B: usize> DividedByU<UA> for C<B>
where
    C<B>: TypenumForm,
    UA: DividesU<<C<B> as TypenumForm>::U>,
    <UA as DividesU<<C<B> as TypenumForm>::U>>::Out: BlockOr<UA, <C<B> as TypenumForm>::U>,
{
}
/// `B1`: the block mode (typenum `UA`) divides the shape's (`UB`); `B0`:
/// [`BlockDivides`]'s refusal, the values printed.
#[doc(hidden)]
pub trait BlockOr<UA, UB> {}
impl<UA, UB> BlockOr<UA, UB> for B1 {}
impl<UA: ConstForm<C = C<A>>, UB: ConstForm<C = C<B>>, const A: usize, const B: usize>
    BlockOr<UA, UB> for B0
where
    (): BlockDivides<A, B>,
{
}
// The table's forms outside the `do_not_recommend` impl: a value without
// one is reported as such.
impl<const A: usize, const B: usize> DividedBy<A> for C<B>
where
    C<A>: TypenumForm,
    C<B>: TypenumForm,
    (): BlockDivides<A, B>,
{
}

/// [`tile_to_shape`], returning the reason instead of panicking at run time.
///
/// ```
/// use layout_core::{algebra::try_tile_to_shape, layout, C};
/// // A 4x4 block to a run-time 16 x 4 shape: (16/4 = 4 repeats down, 1 across).
/// let m = 16;
/// let r = try_tile_to_shape(layout!((4,4):(8,1)), (m, C::<4>)).unwrap();
/// assert_eq!(r.size(), 64);
/// // 18 is not a multiple of the block's 4: refused at run time.
/// assert!(try_tile_to_shape(layout!((4,4):(8,1)), (18usize, C::<4>)).is_err());
/// ```
#[inline(always)]
pub fn try_tile_to_shape<L, Sh>(
    block: L,
    shape: Sh,
) -> Result<<Sh as LastArg<L, ()>>::Output, LayoutError>
where
    <<L::Shape as AsModes>::Modes as BlockFits<Sh::Modes>>::Checked: Copy,
    L: LayoutParts,
    L::Shape: Congruent<L::Stride>,
    Sh: IntTuple + LastArg<L, ()> + AsModes,
    L::Shape: AsModes,
    <L::Shape as AsModes>::Modes: BlockFits<Sh::Modes>,
    <Sh as LastArg<L, ()>>::Output: super::StaticResult,
{
    const {
        if let Some(e) = <Sh as LastArg<L, ()>>::ERROR {
            panic!("{}", e.as_str())
        }
    }
    super::values::run::<
        super::values::Tag<L::Shape, L::Stride, Sh, C<1>, <Sh as LastArg<L, ()>>::Output>,
        _,
    >(move || shape.tile(block, ()))
}

/// CuTe's `tile_to_shape(block, shape, order)`: the repeats are laid out in
/// the order of the static ranks `order` (as `make_ordered_layout`).
///
/// ```
/// use layout_core::{algebra::tile_to_shape_ordered, layout, C};
/// let shape = ((C::<16>, C::<2>), C::<3>, C::<2>);
/// let r = tile_to_shape_ordered(layout!(8:1), shape, (C::<2>, C::<0>, C::<1>));
/// assert_eq!(r.to_string(), "((_8,_4),(_1,_3),(_1,_2)):((_1,_48),(_0,_8),(_0,_24))");
/// ```
///
/// # Panics
///
/// As [`tile_to_shape`] ([`try_tile_to_shape_ordered`] returns the reason).
#[inline(always)]
pub fn tile_to_shape_ordered<L, Sh, O>(
    block: L,
    shape: Sh,
    order: O,
) -> <O as LastArg<L, (Sh,)>>::Output
where
    L: LayoutParts,
    L::Shape: Congruent<L::Stride>,
    Sh: IntTuple,
    O: LastArg<L, (Sh,)>,
    <O as LastArg<L, (Sh,)>>::Output: super::StaticResult,
{
    super::values::or_panic(try_tile_to_shape_ordered(block, shape, order))
}

/// [`tile_to_shape_ordered`], returning the reason instead of panicking at run time.
///
/// ```
/// use layout_core::{algebra::try_tile_to_shape_ordered, layout, C};
/// let shape = ((C::<16>, C::<2>), C::<3>, C::<2>);
/// let r = try_tile_to_shape_ordered(layout!(8:1), shape, (C::<2>, C::<0>, C::<1>)).unwrap();
/// assert_eq!(r.to_string(), "((_8,_4),(_1,_3),(_1,_2)):((_1,_48),(_0,_8),(_0,_24))");
/// // A run-time extent the block does not divide: 20 rows by blocks of 8.
/// let m = 20;
/// assert!(try_tile_to_shape_ordered(layout!(8:1), (m,), (C::<0>,)).is_err());
/// ```
#[inline(always)]
pub fn try_tile_to_shape_ordered<L, Sh, O>(
    block: L,
    shape: Sh,
    order: O,
) -> Result<<O as LastArg<L, (Sh,)>>::Output, LayoutError>
where
    L: LayoutParts,
    L::Shape: Congruent<L::Stride>,
    Sh: IntTuple,
    O: LastArg<L, (Sh,)>,
    <O as LastArg<L, (Sh,)>>::Output: super::StaticResult,
{
    const {
        if let Some(e) = <O as LastArg<L, (Sh,)>>::ERROR {
            panic!("{}", e.as_str())
        }
    }
    super::values::run::<
        super::values::Tag<L::Shape, L::Stride, Sh, C<1>, <O as LastArg<L, (Sh,)>>::Output>,
        _,
    >(move || order.tile(block, (shape,)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{layout, C};
    use alloc::string::ToString;

    /// A run-time shape gives the same map as the static one, with the
    /// leaves that depend on it at run time.
    #[test]
    fn runtime_shape_maps_like_static() {
        let block = layout!((4,4):(8,1));
        let st = tile_to_shape(block, (C::<16>, C::<4>));
        let n: usize = 16;
        let mixed = tile_to_shape(block, (n, C::<4>));
        assert_ne!(core::mem::size_of_val(&mixed), 0);
        assert_eq!(
            crate::to_cute_string(&mixed.shape()).replace('_', ""),
            "((4,(2,2)),(4,1))"
        );
        for i in 0..64 {
            assert_eq!(mixed.call(i), st.call(i), "index {i}");
        }
    }

    /// A run-time shape the block does not divide is an error, not a layout.
    #[test]
    fn runtime_shape_not_divisible_is_err() {
        let n: usize = 10;
        let e = try_tile_to_shape(layout!((4,4):(8,1)), (n, C::<4>)).unwrap_err();
        assert!(e.to_string().contains("tile_to_shape"), "{e}");
        assert!(e.to_string().contains("does not divide"), "{e}");
    }

    /// An explicit order lays the repeats out row-major: the first repeat
    /// of mode 1 comes before the second repeat of mode 0.
    #[test]
    fn ordered_repeats() {
        let r = tile_to_shape_ordered(layout!(2:1), (C::<4>, C::<3>), (C::<1>, C::<0>));
        // block (2,1):(1,0); repeats (2,3) with order (1,0): strides (3,1) in
        // units of the block's cosize 2, so (6,2).
        assert_eq!(r.to_string(), "((_2,_2),(_1,_3)):((_1,_6),(_0,_2))");
    }
}
