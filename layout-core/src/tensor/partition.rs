//! Partitioning tensors: CuTe's `local_tile`, `inner_partition`,
//! `outer_partition` and `local_partition`.
//!
//! A partition is a view of the same storage: the layout changes, the first
//! element moves, the storage and its lifetime stay (a function can return
//! a tile of the tensor it was given). Every access still checks the
//! storage's bounds, so a partition never reads outside a slice-backed
//! tensor, whatever the tiler. Coordinates (tile, thread) are checked
//! against the shape they index: out of range is refused, never wrapped.
//!
//! Each function works for static and mixed layouts alike; the tile or
//! thread coordinate is a run-time value (`usize`, tuples of `usize`, with
//! `_` to keep a mode).

use crate::algebra::admits::{Holds, TileOp};
use crate::algebra::by_mode::Splice;
use crate::algebra::tile::ProductEach;
use crate::algebra::{
    DivideOnto, LayoutParts, StaticResult, Unpack, ZipDivideOnto, ZipDivideParts,
};
use crate::error::{LayoutError, Note, NoteText, Refusal};
use crate::layout::coord::Underscore;
use crate::layout::coord::{Crd2Crd, CrdOf, Unchecked};
use crate::layout::slice::SliceCoord;
use crate::layout::ModesToLayout;
use crate::layout::{Congruent, Layout};
use crate::tensor::tile_coord::TileCoordIn;
use crate::tensor::{IdentityShape, Tensor, Within};
use crate::typelevel::list::ZipModes;
use crate::typelevel::tuple::{AsModes, Concat, IntTuple, IntoTuple, List};

/// `op`'s refusal of a coordinate (a thread index) outside the shape.
pub(crate) fn refused(op: &'static str) -> LayoutError {
    LayoutError::Refused {
        op,
        why: Refusal::OutOfShape,
    }
}

/// `op`'s refusal of a coordinate outside what it indexes.
#[cold]
pub(crate) fn outside(
    op: &'static str,
    kind: crate::error::Outside,
    coord: Note,
    shape: Note,
) -> LayoutError {
    LayoutError::Refused {
        op,
        why: Refusal::Outside { kind, coord, shape },
    }
}

/// `op`'s refusal of thread `idx` of a thread layout (`layout`, of `count`
/// threads): plain data, formatted only when printed.
#[cold]
#[inline(always)]
pub(crate) fn thread_outside(
    op: &'static str,
    idx: usize,
    of: crate::error::Threads,
    layout: Option<Note>,
    count: Option<usize>,
) -> LayoutError {
    LayoutError::Refused {
        op,
        why: Refusal::ThreadOutside {
            idx,
            of,
            layout,
            count,
        },
    }
}

/// `Err` unless a partition's tile extent `block` divides the tensor's
/// mode `mode` of size `target` (where it does not, CuTe partitions past
/// the tensor).
pub(crate) fn check_divides(block: usize, target: usize, mode: usize) -> Result<(), LayoutError> {
    if block != 0 && target % block == 0 {
        return Ok(());
    }
    Err(LayoutError::Refused {
        op: "partition",
        why: Refusal::NotDividing {
            mode,
            block,
            target,
        },
    })
}

/// A coordinate with `_` applied to a layout `S:D`: the kept modes as a
/// list of `(shape, stride)` pairs and the offset of the fixed part;
/// `None` when the coordinate lies outside the shape.
#[doc(hidden)]
pub trait SliceModes<S, D> {
    type Modes: List;
    /// `Err` with the coordinate and the shape in CuTe notation.
    fn slice_modes(self, s: S, d: D) -> Result<(Self::Modes, usize), (Note, Note)>;
}
impl<C, S: Congruent<D> + NoteText, D: IntTuple> SliceModes<S, D> for C
where
    C: SliceCoord<S> + SliceCoord<D> + CrdOf<S, D, Unchecked> + NoteText,
    <C as SliceCoord<S>>::Sliced: AsModes,
    <C as SliceCoord<D>>::Sliced: AsModes,
    <<C as SliceCoord<S>>::Sliced as AsModes>::Modes:
        ZipModes<<<C as SliceCoord<D>>::Sliced as AsModes>::Modes>,
{
    type Modes = <<<C as SliceCoord<S>>::Sliced as AsModes>::Modes as ZipModes<
        <<C as SliceCoord<D>>::Sliced as AsModes>::Modes,
    >>::Out;
    #[inline(always)]
    fn slice_modes(self, s: S, d: D) -> Result<(Self::Modes, usize), (Note, Note)> {
        if !self.inside_of(s) {
            return Err((Note::value(&self), Note::value(&s)));
        }
        let ks = <C as SliceCoord<S>>::slice_of(s).as_modes();
        let kd = <C as SliceCoord<D>>::slice_of(d).as_modes();
        Ok((ks.zip_modes(kd), self.offset_of(s, d)))
    }
}

/// A coordinate into a tuple of modes `S` with `_` appended for the modes
/// it leaves out (CuTe's `append<rank(S)>(coord, _)`): a tile coordinate
/// with fewer modes than the grid keeps the grid's other modes. An integer
/// coordinate stays a 1-D index.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the coordinate `{Self}` has more modes than the grid (or the tile) it indexes",
    label = "one entry per mode of the grid of tiles (local_tile) or of the tile (local_partition), or fewer: the modes left out are kept"
)]
pub trait AppendUnder<S> {
    type Out: Copy;
    fn append_under(self) -> Self::Out;
}
macro_rules! leaf_append_under {
    ($t:ty; $($g:tt)*) => {
        impl<Sh, $($g)*> AppendUnder<Sh> for $t {
            type Out = $t;
            #[inline(always)]
            fn append_under(self) -> $t {
                self
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(leaf_append_under);
macro_rules! append_under {
    // The coordinate's entries against the first modes, `_` for the rest.
    ([$($v:ident $c:ident $s:ident),*], [$($pad:ident),*]) => {
        impl<$($c: Copy,)* $($s,)* $($pad),*> AppendUnder<($($s,)* $($pad,)*)> for ($($c,)*) {
            type Out = ($($c,)* $(under!($pad),)*);
            #[inline(always)]
            fn append_under(self) -> Self::Out {
                let ($($v,)*) = self;
                ($($v,)* $(under!($pad),)*)
            }
        }
    };
}
/// `_` in place of a mode the coordinate leaves out.
macro_rules! under {
    ($pad:ident) => {
        Underscore
    };
}
append_under!([c0 C0 S0], []);
append_under!([c0 C0 S0], [S1]);
append_under!([c0 C0 S0], [S1, S2]);
append_under!([c0 C0 S0], [S1, S2, S3]);
append_under!([c0 C0 S0], [S1, S2, S3, S4]);
append_under!([c0 C0 S0, c1 C1 S1], []);
append_under!([c0 C0 S0, c1 C1 S1], [S2]);
append_under!([c0 C0 S0, c1 C1 S1], [S2, S3]);
append_under!([c0 C0 S0, c1 C1 S1], [S2, S3, S4]);
append_under!([c0 C0 S0, c1 C1 S1, c2 C2 S2], []);
append_under!([c0 C0 S0, c1 C1 S1, c2 C2 S2], [S3]);
append_under!([c0 C0 S0, c1 C1 S1, c2 C2 S2], [S3, S4]);
append_under!([c0 C0 S0, c1 C1 S1, c2 C2 S2, c3 C3 S3], []);
append_under!([c0 C0 S0, c1 C1 S1, c2 C2 S2, c3 C3 S3], [S4]);
append_under!([c0 C0 S0, c1 C1 S1, c2 C2 S2, c3 C3 S3, c4 C4 S4], []);

/// A shape's modes with their extents left out (`((), ())` for a rank-2
/// tuple, [`LeafShape`] for an integer): what [`AppendUnder`] reads of the
/// grid, so that its notes show no computed extents.
#[doc(hidden)]
pub trait ModesOf {
    type Out;
}
/// [`ModesOf`] an integer shape.
#[doc(hidden)]
pub struct LeafShape;
macro_rules! leaf_modes_of {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> ModesOf for $t {
            type Out = LeafShape;
        }
    };
}
crate::typelevel::int::for_each_leaf!(leaf_modes_of);
macro_rules! tuple_modes_of {
    ($($s:ident),*) => {
        impl<$($s),*> ModesOf for ($($s,)*) {
            type Out = ($(unit!($s),)*);
        }
    };
}
/// `()` in place of a mode's extent.
macro_rules! unit {
    ($s:ident) => {
        ()
    };
}
tuple_modes_of!(S0);
tuple_modes_of!(S0, S1);
tuple_modes_of!(S0, S1, S2);
tuple_modes_of!(S0, S1, S2, S3);
tuple_modes_of!(S0, S1, S2, S3, S4);

/// A tuple tile coordinate of `K` modes for a grid (or tile) of `R < K`
/// modes: never holds, so that the error names both ranks.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the tile coordinate has {K} modes, the grid of tiles (or the tile) it indexes has {R}",
    label = "one entry per mode of the grid of tiles (local_tile) or of the tile (local_partition), or fewer: the modes left out are kept"
)]
pub trait TooManyTileModes<const K: usize, const R: usize, Crd> {
    /// No value: such a coordinate selects no tile.
    const NEVER: core::convert::Infallible;
}
/// A coordinate of more modes than the grid: the impl exists, so that the
/// partition's types are still computed (its first `R` entries), and its
/// bound never holds, so that the rank mismatch is the one error.
macro_rules! append_over {
    ($k:literal, $r:literal: [$($c:ident),*], [$($s:ident),*], [$($kept:ident),*]) => {
        impl<$($c: Copy,)* $($s),*> AppendUnder<($($s,)*)> for ($($c,)*)
        where
            (): TooManyTileModes<$k, $r, ($($c,)*)>,
        {
            type Out = ($($kept,)*);
            fn append_under(self) -> Self::Out {
                match <() as TooManyTileModes<$k, $r, ($($c,)*)>>::NEVER {}
            }
        }
    };
}
append_over!(2, 1: [C0, C1], [S0], [C0]);
append_over!(3, 1: [C0, C1, C2], [S0], [C0]);
append_over!(3, 2: [C0, C1, C2], [S0, S1], [C0, C1]);
append_over!(4, 1: [C0, C1, C2, C3], [S0], [C0]);
append_over!(4, 2: [C0, C1, C2, C3], [S0, S1], [C0, C1]);
append_over!(4, 3: [C0, C1, C2, C3], [S0, S1, S2], [C0, C1, C2]);
append_over!(5, 1: [C0, C1, C2, C3, C4], [S0], [C0]);
append_over!(5, 2: [C0, C1, C2, C3, C4], [S0, S1], [C0, C1]);
append_over!(5, 3: [C0, C1, C2, C3, C4], [S0, S1, S2], [C0, C1, C2]);
append_over!(5, 4: [C0, C1, C2, C3, C4], [S0, S1, S2, S3], [C0, C1, C2, C3]);

/// The modes of a zipped layout `((tile), (rest))`, their extents left
/// out ([`ModesOf`]): what the partitions' rank checks read.
#[doc(hidden)]
pub trait ModesOfZipped {
    type Tile;
    type Rest;
}
impl<TS: ModesOf, RS: ModesOf, TD, RD> ModesOfZipped for Layout<(TS, RS), (TD, RD)> {
    type Tile = TS::Out;
    type Rest = RS::Out;
}

/// `((tile), (rest))` sliced at `(repeat(_), coord)`: the tile's modes, then
/// the rest modes the coordinate keeps.
#[doc(hidden)]
pub trait InnerOf<C> {
    type Out;
    fn inner_of(self, c: C) -> Result<(Self::Out, usize), (Note, Note)>;
}
impl<TS, RS, TD, RD, C> InnerOf<C> for Layout<(TS, RS), (TD, RD)>
where
    (TS, RS): Congruent<(TD, RD)>,
    (TD, RD): IntTuple,
    (TS, TD): Splice,
    RS: ModesOf,
    C: AppendUnder<RS::Out>,
    C::Out: SliceModes<RS, RD>,
    <(TS, TD) as Splice>::Modes: Concat<<C::Out as SliceModes<RS, RD>>::Modes>,
    <<(TS, TD) as Splice>::Modes as Concat<<C::Out as SliceModes<RS, RD>>::Modes>>::Out:
        ModesToLayout,
{
    type Out = <<<(TS, TD) as Splice>::Modes as Concat<
        <C::Out as SliceModes<RS, RD>>::Modes,
    >>::Out as ModesToLayout>::Out;
    #[inline(always)]
    fn inner_of(self, c: C) -> Result<(Self::Out, usize), (Note, Note)> {
        let ((ts, rs), (td, rd)) = (self.shape(), self.stride());
        let (kept, off) = c.append_under().slice_modes(rs, rd)?;
        Ok(((ts, td).splice().concat(kept).to_layout(), off))
    }
}

/// `((tile), (rest))` sliced at `(coord, repeat(_))`: the tile modes the
/// coordinate keeps, then the rest's modes.
#[doc(hidden)]
pub trait OuterOf<C> {
    type Out;
    fn outer_of(self, c: C) -> Result<(Self::Out, usize), (Note, Note)>;
}
impl<TS, RS, TD, RD, C> OuterOf<C> for Layout<(TS, RS), (TD, RD)>
where
    (TS, RS): Congruent<(TD, RD)>,
    (TD, RD): IntTuple,
    (RS, RD): Splice,
    TS: ModesOf,
    C: AppendUnder<TS::Out>,
    C::Out: SliceModes<TS, TD>,
    <C::Out as SliceModes<TS, TD>>::Modes: Concat<<(RS, RD) as Splice>::Modes>,
    <<C::Out as SliceModes<TS, TD>>::Modes as Concat<<(RS, RD) as Splice>::Modes>>::Out:
        ModesToLayout,
{
    type Out = <<<C::Out as SliceModes<TS, TD>>::Modes as Concat<
        <(RS, RD) as Splice>::Modes,
    >>::Out as ModesToLayout>::Out;
    #[inline(always)]
    fn outer_of(self, c: C) -> Result<(Self::Out, usize), (Note, Note)> {
        let ((ts, rs), (td, rd)) = (self.shape(), self.stride());
        let (kept, off) = c.append_under().slice_modes(ts, td)?;
        Ok((kept.concat((rs, rd).splice()).to_layout(), off))
    }
}

/// The zipped_divide of a layout `A` by tiler `T`.
type ZippedOf<A, T> = <T as ZipDivideParts<A>>::Zipped;

/// A layout that `T` tiles and whose grid of tiles `C` indexes: the bound
/// of code generic over its tiles that calls [`local_tile`] or
/// [`inner_partition`] (`L: Partition<T, C>`), whatever the tiler and
/// coordinate are. (A kernel generic over constant tile sizes needs no
/// bound at all: see [`crate::instantiate`].) With static leaves, a tile
/// that does not divide the layout and a tile coordinate outside the grid
/// are type errors; [`PartitionParts`] is the same without those checks.
pub trait Partition<T, C>: PartitionParts<T, C> {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
}
impl<A: LayoutParts + PartitionParts<T, C>, T, C> Partition<T, C> for A
where
    C: TileCoordIn<A::Shape, T>,
    T: ZipDivideParts<A>,
    // A static tile that does not divide is a type error (`cargo check`
    // sees it), not only a refusal once constants are evaluated.
    <T as ZipDivideParts<A>>::Verdict: Holds<TileOp>,
{
    type Checked = ();
}

/// [`Partition`] without its static checks: the inner partition's layout
/// type and how to make it (its refusals at run time, or once constants
/// are evaluated). A return type names `<L as PartitionParts<T, C>>::Inner`
/// (or `L::Inner`), so that a refused tile is reported once, at the bound.
pub trait PartitionParts<T, C>: Sized + Copy {
    /// The layout of `inner_partition(A, T, C)` (and `local_tile`).
    type Inner;
    /// The inner partition's layout and the offset of its first element.
    fn try_inner(self, t: T, c: C) -> Result<(Self::Inner, usize), LayoutError> {
        self.try_inner_as("inner_partition", t, c)
    }
    /// [`PartitionParts::try_inner`], its refusal naming `op`.
    #[doc(hidden)]
    fn try_inner_as(
        self,
        op: &'static str,
        t: T,
        c: C,
    ) -> Result<(Self::Inner, usize), LayoutError>;
    /// The number of elements the tiles cover (the tensor's size when the
    /// tiler divides it, more when the last tiles reach past it).
    #[doc(hidden)]
    fn tiled_size(self, t: T) -> Result<usize, LayoutError>;
}
impl<A: LayoutParts + Copy, T, C> PartitionParts<T, C> for A
where
    A::Shape: Congruent<A::Stride>,
    T: ZipDivideParts<A>,
    ZippedOf<A, T>: ModesOfZipped,
    // The rank first, against the grid's modes without their extents, so
    // that a coordinate of too many modes is refused with no computed
    // layout in its notes.
    C: AppendUnder<<ZippedOf<A, T> as ModesOfZipped>::Rest>,
    ZippedOf<A, T>: StaticResult + InnerOf<C> + LayoutParts,
{
    type Inner = <ZippedOf<A, T> as InnerOf<C>>::Out;
    fn tiled_size(self, t: T) -> Result<usize, LayoutError> {
        let z = crate::algebra::divide::zipped_parts(self, t)?;
        z.parts().0.checked_size().ok_or(LayoutError::SizeOverflow)
    }
    #[inline(always)]
    fn try_inner_as(
        self,
        op: &'static str,
        t: T,
        c: C,
    ) -> Result<(Self::Inner, usize), LayoutError> {
        let z = crate::algebra::divide::zipped_parts(self, t).map_err(|e| renamed(e, op))?;
        z.inner_of(c)
            .map_err(|(c, s)| outside(op, crate::error::Outside::Tile, c, s))
    }
}

/// A layout that `T` tiles and whose tiles `C` indexes: the bound of code
/// generic over its tiles that calls [`outer_partition`] or
/// [`local_partition`] (`L: OuterPartition<T, C>`). With static leaves, a
/// tile that does not divide the layout is a type error;
/// [`OuterPartitionParts`] is the same without that check.
pub trait OuterPartition<T, C>: OuterPartitionParts<T, C> {}
impl<A: OuterPartitionParts<T, C>, T: ZipDivideParts<A>, C> OuterPartition<T, C> for A where
    <T as ZipDivideParts<A>>::Verdict: Holds<TileOp>
{
}

/// [`OuterPartition`] without its static check (see [`PartitionParts`]).
pub trait OuterPartitionParts<T, C>: Sized + Copy {
    /// The layout of `outer_partition(A, T, C)`.
    type Outer;
    /// The outer partition's layout and the offset of its first element.
    fn try_outer(self, t: T, c: C) -> Result<(Self::Outer, usize), LayoutError> {
        self.try_outer_as("outer_partition", t, c)
    }
    /// [`OuterPartitionParts::try_outer`], its refusal naming `op`.
    #[doc(hidden)]
    fn try_outer_as(
        self,
        op: &'static str,
        t: T,
        c: C,
    ) -> Result<(Self::Outer, usize), LayoutError>;
}
impl<A: LayoutParts + Copy, T, C> OuterPartitionParts<T, C> for A
where
    A::Shape: Congruent<A::Stride>,
    T: ZipDivideParts<A>,
    ZippedOf<A, T>: ModesOfZipped,
    C: AppendUnder<<ZippedOf<A, T> as ModesOfZipped>::Tile>,
    ZippedOf<A, T>: StaticResult + OuterOf<C>,
{
    type Outer = <ZippedOf<A, T> as OuterOf<C>>::Out;
    #[inline(always)]
    fn try_outer_as(
        self,
        op: &'static str,
        t: T,
        c: C,
    ) -> Result<(Self::Outer, usize), LayoutError> {
        let z = crate::algebra::divide::zipped_parts(self, t).map_err(|e| renamed(e, op))?;
        z.outer_of(c)
            .map_err(|(c, s)| outside(op, crate::error::Outside::Coordinate, c, s))
    }
}

/// An algebra refusal reported under the name of the function the user
/// called (`local_tile`, not the `zipped_divide` inside it).
#[cold]
pub(crate) fn renamed(e: LayoutError, op: &'static str) -> LayoutError {
    match e {
        LayoutError::Refused { why, .. } => LayoutError::Refused { op, why },
        LayoutError::Overflow { .. } => LayoutError::Overflow { op },
        e => e,
    }
}

/// CuTe's `inner_partition(tensor, tiler, coord)`: tile the tensor by
/// `tiler` (its `zipped_divide`) and take the tile at `coord` in the grid of
/// tiles (the rest mode): a tuple with one entry per rest mode, one
/// `usize` (a 1-D index over the grid), or a tuple with `_` where a grid mode
/// is kept (appended to the tile's modes).
///
/// ```
/// use layout_core::{layout, tensor::partition::inner_partition, Tensor, C};
/// let data = [0u8; 64 * 48];
/// let t = Tensor::new(&data[..], layout!((64,48):(48,1))).unwrap();
/// let tile = inner_partition(t, (C::<32>, C::<8>), (0usize, 1usize));
/// assert_eq!(tile.layout().to_string(), "(_32,_8):(_48,_1)");
/// assert_eq!(tile.data_offset(), 8);
/// ```
///
/// # Panics
///
/// When the coordinate lies outside the grid, or run-time leaves make the
/// division inadmissible (the message of [`try_inner_partition`]'s error).
#[inline(always)]
#[track_caller]
pub fn inner_partition<E, L: Partition<T, C>, T, C>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
) -> Tensor<E, L::Inner>
where
    <L as Partition<T, C>>::Checked: Copy,
{
    crate::algebra::values::or_panic(try_inner_partition(t, tiler, coord))
}

/// [`inner_partition`], returning the reason instead of panicking.
///
/// ```
/// use layout_core::{layout, tensor::partition::try_inner_partition, Tensor, C};
/// let data = [0u8; 64 * 48];
/// let t = Tensor::new(&data[..], layout!((64,48):(48,1))).unwrap();
/// // The grid of 32 x 8 tiles is 2 x 6: (1,5) is its last tile, (2,0) is past it.
/// let tile = try_inner_partition(t.view(), (C::<32>, C::<8>), (1usize, 5usize)).unwrap();
/// assert_eq!(tile.data_offset(), 32 * 48 + 40);
/// assert!(try_inner_partition(t, (C::<32>, C::<8>), (2usize, 0usize)).is_err());
/// ```
#[inline(always)]
pub fn try_inner_partition<E, L: Partition<T, C>, T, C>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
) -> Result<Tensor<E, L::Inner>, LayoutError>
where
    <L as Partition<T, C>>::Checked: Copy,
{
    let (l, off) = (*t.layout_ref()).try_inner(tiler, coord)?;
    Ok(t.rebase(l, off))
}

/// CuTe's `local_tile(tensor, tiler, coord)`: the tile at `coord`, that is
/// [`inner_partition`].
///
/// ```
/// use layout_core::{layout, tensor::partition::local_tile, Tensor, C, Underscore};
/// let m = 64; // a run-time extent
/// let data = vec![0f32; m * 48];
/// let t = Tensor::new(&data[..], layout!((m,48):(48,1))).unwrap();
/// // The column of tiles at n = 1: the tile modes, then the kept grid mode
/// // (m/32 tiles, 32 rows of 48 apart: a static stride).
/// let col = local_tile(t, (C::<32>, C::<8>), (Underscore, 1usize));
/// assert_eq!(col.layout().to_string(), "(_32,_8,2):(_48,_1,_1536)");
/// assert_eq!(col.data_offset(), 8);
/// ```
///
/// # Panics
///
/// As [`inner_partition`].
#[inline(always)]
#[track_caller]
pub fn local_tile<E, L: Partition<T, C>, T, C>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
) -> Tensor<E, L::Inner>
where
    <L as Partition<T, C>>::Checked: Copy,
{
    crate::algebra::values::or_panic(try_local_tile(t, tiler, coord))
}

/// [`local_tile`], returning the reason instead of panicking.
///
/// ```
/// use layout_core::{layout, tensor::partition::try_local_tile, Tensor, C, Underscore};
/// let m = 64;
/// let data = vec![0f32; m * 48];
/// let t = Tensor::new(&data[..], layout!((m,48):(48,1))).unwrap();
/// // As local_tile's example: the column of tiles at n = 1.
/// let col = try_local_tile(t.view(), (C::<32>, C::<8>), (Underscore, 1usize)).unwrap();
/// assert_eq!(col.layout().to_string(), "(_32,_8,2):(_48,_1,_1536)");
/// // Tile n = 6 starts at column 48, past the tensor: refused.
/// assert!(try_local_tile(t, (C::<32>, C::<8>), (Underscore, 6usize)).is_err());
/// ```
#[inline(always)]
pub fn try_local_tile<E, L: Partition<T, C>, T, C>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
) -> Result<Tensor<E, L::Inner>, LayoutError>
where
    <L as Partition<T, C>>::Checked: Copy,
{
    let (l, off) = (*t.layout_ref()).try_inner_as("local_tile", tiler, coord)?;
    Ok(t.rebase(l, off))
}

/// [`try_local_tile`] that refuses a tiler that does not divide the
/// tensor, so that no tile reaches past it. (CuTe's `local_tile` makes the
/// partial tiles at the ends, and so does [`local_tile`]: a tile at the
/// bottom edge reaches past the storage, where accesses are refused, but one
/// at the right edge of a row-major matrix reaches into the next rows, which
/// only a predicate, as with an identity tensor, tells apart.)
///
/// ```
/// use layout_core::{layout, tensor::partition::try_local_tile_exact, Tensor, C};
/// let data = [0f32; 50 * 50];
/// let t = Tensor::new(&data[..], layout!((50,50):(50,1))).unwrap();
/// assert!(try_local_tile_exact(t.view(), (C::<10>, C::<25>), (4usize, 1usize)).is_ok());
/// // 16 does not divide 50: the last tiles would be partial.
/// let e = try_local_tile_exact(t, (C::<16>, C::<16>), (0usize, 0usize)).unwrap_err();
/// assert_eq!(e.to_string(), "local_tile: the elements the tiles cover (4096) differs from the tensor's size (2500)");
/// ```
#[inline(always)]
pub fn try_local_tile_exact<E, L, T: Copy, C>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
) -> Result<Tensor<E, L::Inner>, LayoutError>
where
    <L as Partition<T, C>>::Checked: Copy,
    L: Partition<T, C> + LayoutParts,
{
    let l = *t.layout_ref();
    let size = l
        .parts()
        .0
        .checked_size()
        .ok_or(LayoutError::SizeOverflow)?;
    let tiled = l.tiled_size(tiler)?;
    if tiled != size {
        return Err(LayoutError::Refused {
            op: "local_tile",
            why: Refusal::Differ {
                a_name: "the elements the tiles cover",
                a: tiled,
                b_name: "the tensor's size",
                b: size,
            },
        });
    }
    try_local_tile(t, tiler, coord)
}

/// CuTe's `local_tile(tensor, tiler, coord, proj)`: the modes where `proj`
/// is `_` (CuTe's `X`) are left out of both the tiler and the coordinate,
/// as in `local_tile(gA, (BM, BN, BK), (m, n, _), (C::<1>, Underscore, C::<1>))`.
///
/// ```
/// use layout_core::{layout, tensor::partition::local_tile_proj, Tensor, C, Underscore as X};
/// let data = [0f32; 64 * 32];
/// // A is (M,K) = (64,32), row-major; the CTA tiler is (BM,BN,BK) = (16,8,8).
/// let a = Tensor::new(&data[..], layout!((64,32):(32,1))).unwrap();
/// let ga = local_tile_proj(a, (C::<16>, C::<8>, C::<8>), (2usize, 3usize, X), (C::<1>, X, C::<1>));
/// // The (BM,BK) tile of row block 2, for every k block.
/// assert_eq!(ga.layout().to_string(), "(_16,_8,_4):(_32,_1,_8)");
/// assert_eq!(ga.data_offset(), 2 * 16 * 32);
/// ```
///
/// # Panics
///
/// As [`inner_partition`].
#[inline(always)]
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn local_tile_proj<E, L, T, C, P>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
    proj: P,
) -> Tensor<E, <L as PartitionParts<<P as SliceCoord<T>>::Diced, <P as SliceCoord<C>>::Diced>>::Inner>
where
    <L as Partition<<P as SliceCoord<T>>::Diced, <P as SliceCoord<C>>::Diced>>::Checked: Copy,
    P: SliceCoord<T> + SliceCoord<C>,
    L: Partition<<P as SliceCoord<T>>::Diced, <P as SliceCoord<C>>::Diced>,
{
    crate::algebra::values::or_panic(try_local_tile_proj(t, tiler, coord, proj))
}

/// [`local_tile_proj`], returning the reason instead of panicking. A
/// coordinate with fewer modes than the grid keeps the grid's other modes
/// (CuTe appends `_`).
///
/// ```
/// use layout_core::{layout, tensor::partition::try_local_tile_proj, Tensor, C, Underscore as X};
/// let data = [0f32; 64 * 32];
/// let b = Tensor::new(&data[..], layout!((64,32):(32,1))).unwrap(); // (N,K)
/// // B's tiles of (BN,BK) = (8,8) at n = 3, every k block.
/// let gb = try_local_tile_proj(b.view(), (C::<16>, C::<8>, C::<8>), (2usize, 3usize, X), (X, C::<1>, C::<1>)).unwrap();
/// assert_eq!(gb.layout().to_string(), "(_8,_8,_4):(_32,_1,_8)");
/// assert_eq!(gb.data_offset(), 3 * 8 * 32);
/// // There are 8 blocks of 8 rows: n = 8 is past them.
/// let e = try_local_tile_proj(b, (C::<16>, C::<8>, C::<8>), (0usize, 8usize, X), (X, C::<1>, C::<1>));
/// assert_eq!(e.unwrap_err().to_string(), "local_tile: tile (8,_) is outside the grid of tiles (_8,_4)");
/// ```
#[inline(always)]
#[allow(clippy::type_complexity)]
pub fn try_local_tile_proj<E, L, T, C, P>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
    proj: P,
) -> Result<
    Tensor<
        E,
        <L as PartitionParts<<P as SliceCoord<T>>::Diced, <P as SliceCoord<C>>::Diced>>::Inner,
    >,
    LayoutError,
>
where
    <L as Partition<<P as SliceCoord<T>>::Diced, <P as SliceCoord<C>>::Diced>>::Checked: Copy,
    P: SliceCoord<T> + SliceCoord<C>,
    L: Partition<<P as SliceCoord<T>>::Diced, <P as SliceCoord<C>>::Diced>,
{
    let _ = proj;
    try_local_tile(
        t,
        <P as SliceCoord<T>>::dice_of(tiler),
        <P as SliceCoord<C>>::dice_of(coord),
    )
}

/// CuTe's `outer_partition(tensor, tiler, coord)`: tile the tensor by
/// `tiler` and take, in every tile, the element at `coord` inside the tile
/// (one entry per tile mode, `_` to keep one): the result spans the grid of
/// tiles.
///
/// ```
/// use layout_core::{layout, tensor::partition::outer_partition, Tensor, C};
/// let data = [0u8; 32 * 16];
/// let t = Tensor::new(&data[..], layout!((32,16):(16,1))).unwrap();
/// let p = outer_partition(t, (C::<8>, C::<8>), (2usize, 3usize));
/// assert_eq!(p.layout().to_string(), "(_4,_2):(_128,_8)");
/// assert_eq!(p.data_offset(), 2 * 16 + 3);
/// ```
///
/// # Panics
///
/// When the coordinate lies outside the tile, or run-time leaves make the
/// division inadmissible (the message of [`try_outer_partition`]'s error).
#[inline(always)]
#[track_caller]
pub fn outer_partition<E, L: OuterPartition<T, C>, T, C>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
) -> Tensor<E, L::Outer> {
    crate::algebra::values::or_panic(try_outer_partition(t, tiler, coord))
}

/// [`outer_partition`], returning the reason instead of panicking.
///
/// ```
/// use layout_core::{layout, tensor::partition::try_outer_partition, Tensor, C};
/// let data = [0u8; 64 * 48];
/// let t = Tensor::new(&data[..], layout!((64,48):(48,1))).unwrap();
/// // Element (1,2) of every 32 x 8 tile: the 2 x 6 grid, tiles 32*48 and 8 apart.
/// let p = try_outer_partition(t.view(), (C::<32>, C::<8>), (1usize, 2usize)).unwrap();
/// assert_eq!(p.layout().to_string(), "(_2,_6):(_1536,_8)");
/// assert_eq!(p.data_offset(), 48 + 2);
/// assert!(try_outer_partition(t, (C::<32>, C::<8>), (32usize, 0usize)).is_err());
/// ```
#[inline(always)]
pub fn try_outer_partition<E, L: OuterPartition<T, C>, T, C>(
    t: Tensor<E, L>,
    tiler: T,
    coord: C,
) -> Result<Tensor<E, L::Outer>, LayoutError> {
    let (l, off) = (*t.layout_ref()).try_outer(tiler, coord)?;
    Ok(t.rebase(l, off))
}

/// A thread layout for [`local_partition`]: its tiler (the size of each
/// mode, CuTe's `product_each(shape)`) and a thread's coordinate in it
/// (CuTe's `get_flat_coord`: one index per mode, found by inverting the
/// strides, so `(4,8):(8,1)` puts thread 5 at `(0,5)`).
pub trait ThreadLayout: Copy {
    /// One static or run-time size per mode.
    type Tiler: Copy;
    /// One `usize` per mode.
    type Coord: Copy;
    /// The tiler.
    fn tiler(self) -> Option<Self::Tiler>;
    /// Thread `idx`'s coordinate; `None` past the thread count.
    fn thread_coord(self, idx: usize) -> Option<Self::Coord>;
    /// Thread `idx`'s coordinate as CuTe decodes it, whatever the count:
    /// each leaf `(idx / stride) % extent` (a leaf of stride 0 is at 0).
    /// A projected thread layout decodes the index of the whole layout so.
    fn thread_coord_any(self, idx: usize) -> Option<Self::Coord>;
    /// The number of threads; `None` when it overflows `usize`.
    fn thread_count(self) -> Option<usize>;
}
impl<S: Congruent<D> + AsModes, D: IntTuple> ThreadLayout for Layout<S, D>
where
    S::Modes: ProductEach,
    <S::Modes as ProductEach>::Out: IntoTuple,
    <<S::Modes as ProductEach>::Out as IntoTuple>::Tuple: Copy,
    S::Dyn: Crd2Crd<S, <<S::Modes as ProductEach>::Out as IntoTuple>::Tuple>,
    <S::Dyn as Crd2Crd<S, <<S::Modes as ProductEach>::Out as IntoTuple>::Tuple>>::Out: Copy,
{
    type Tiler = <<S::Modes as ProductEach>::Out as IntoTuple>::Tuple;
    type Coord = <S::Dyn as Crd2Crd<S, Self::Tiler>>::Out;
    #[inline(always)]
    fn tiler(self) -> Option<Self::Tiler> {
        Some(self.shape().as_modes().product_each()?.into_tuple())
    }
    #[inline(always)]
    fn thread_coord(self, idx: usize) -> Option<Self::Coord> {
        if idx >= self.shape().checked_size()? {
            return None;
        }
        self.thread_coord_any(idx)
    }
    #[inline(always)]
    fn thread_coord_any(self, idx: usize) -> Option<Self::Coord> {
        let hier = self.get_hier_coord(idx);
        Some(hier.crd2crd(self.shape(), self.tiler()?))
    }
    #[inline(always)]
    fn thread_count(self) -> Option<usize> {
        self.shape().checked_size()
    }
}

/// The layout of thread `Thr`'s partition of a tensor of layout `L`.
pub type ThreadPartition<L, Thr> =
    <L as OuterPartitionParts<<Thr as ThreadLayout>::Tiler, <Thr as ThreadLayout>::Coord>>::Outer;

impl<S: IdentityShape, L> Within<S, L> {
    /// Thread `thr_idx`'s part of the predicate, as [`local_partition`] of
    /// its identity tile: a predicate made once for a whole tile (CuTe's
    /// `tApA` computed before the thread loop), whose answer "the tile lies
    /// wholly inside" every thread's part inherits, so a full tile costs one
    /// check, not one per thread.
    ///
    /// ```
    /// use layout_core::{layout, tensor::algorithm::copy_if, tensor::partition::{local_partition, local_tile}};
    /// use layout_core::{tensor::make_identity_tensor, Tensor, C};
    /// let src: Vec<i32> = (0..100).collect();
    /// let a = Tensor::new(&src[..], layout!((10,10):(10,1))).unwrap();
    /// let id = make_identity_tensor((10usize, 10usize));
    /// let thr = layout!((2,2):(1,2));
    /// // Rows 8..12 of a 10-row matrix, 2x2 threads of 2x2 elements each.
    /// let tile = local_tile(a, (C::<4>, C::<4>), (2usize, 0usize));
    /// let inside = local_tile(id, (C::<4>, C::<4>), (2usize, 0usize)).within((10, 10));
    /// let mut out = [-1i32; 16];
    /// let mut o = Tensor::new(&mut out[..], layout!((4,4):(4,1))).unwrap();
    /// for t in 0..4 {
    ///     let p = inside.local_partition(thr, t);
    ///     println!("thread {t}: {}", p.layout());
    ///     copy_if(p, &local_partition(tile, thr, t), &mut local_partition(o.view_mut(), thr, t)).unwrap();
    /// }
    /// assert_eq!(out[..8], [80, 81, 82, 83, 90, 91, 92, 93]);
    /// assert_eq!(out[8..], [-1; 8]);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`local_partition`].
    #[inline(always)]
    #[track_caller]
    pub fn local_partition<Thr>(
        self,
        thr_layout: Thr,
        thr_idx: usize,
    ) -> Within<S, ThreadPartition<L, Thr>>
    where
        Thr: ThreadLayout + NoteText,
        L: OuterPartition<Thr::Tiler, Thr::Coord>,
    {
        Within {
            tile: local_partition(self.tile, thr_layout, thr_idx),
            bound: self.bound,
            all: self.all,
        }
    }
}

impl<S: IdentityShape, LS: Congruent<LD>, LD: IntTuple> Within<S, Layout<LS, LD>> {
    /// The layout of the identity view the predicate asks.
    pub fn layout(&self) -> Layout<LS, LD> {
        self.tile.layout()
    }
}

/// CuTe's `local_partition(tensor, thr_layout, thr_idx)`: the elements
/// thread `thr_idx` of `thr_layout` owns when the threads tile the tensor,
/// that is `outer_partition(tensor, product_each(shape(thr_layout)),
/// thr_layout.get_flat_coord(thr_idx))`. The thread layout may have fewer
/// modes than the tensor: the tensor's other modes are kept whole.
///
/// ```
/// use layout_core::{layout, tensor::partition::local_partition, Tensor};
/// let data = [0f32; 32 * 32];
/// let tile = Tensor::new(&data[..], layout!((32,32):(1,32))).unwrap();
/// // 8x4 threads, column-major: thread 9 is at (1,1), so it owns every
/// // 8th row from row 1 and every 4th column from column 1.
/// let mine = local_partition(tile, layout!((8,4):(1,8)), 9);
/// assert_eq!(mine.layout().to_string(), "(_4,_8):(_8,_128)");
/// assert_eq!(mine.data_offset(), 1 + 32);
/// ```
///
/// # Panics
///
/// When `thr_idx` is not below the thread count (the message names the
/// thread and the thread layout, at the caller's line), or as
/// [`outer_partition`].
#[inline(always)]
#[track_caller]
pub fn local_partition<E, L, Thr>(
    t: Tensor<E, L>,
    thr_layout: Thr,
    thr_idx: usize,
) -> Tensor<E, ThreadPartition<L, Thr>>
where
    Thr: ThreadLayout + NoteText,
    L: OuterPartition<Thr::Tiler, Thr::Coord>,
{
    crate::algebra::values::or_panic(try_local_partition(t, thr_layout, thr_idx))
}

/// [`local_partition`], returning the reason instead of panicking.
///
/// ```
/// use layout_core::{layout, tensor::partition::try_local_partition, Tensor};
/// let data = [0f32; 16 * 32];
/// let t = Tensor::new(&data[..], layout!((16,32):(32,1))).unwrap();
/// // 32 threads (4,8):(8,1): thread 5 is at (0,5); there is no thread 32.
/// let mine = try_local_partition(t.view(), layout!((4,8):(8,1)), 5).unwrap();
/// assert_eq!(mine.layout().to_string(), "(_4,_4):(_128,_8)");
/// assert_eq!(mine.data_offset(), 5);
/// let e = try_local_partition(t, layout!((4,8):(8,1)), 32).unwrap_err();
/// assert_eq!(e.to_string(), "local_partition: thread 32 is outside the thread layout (_4,_8):(_8,_1) of 32 threads");
/// ```
#[inline(always)]
pub fn try_local_partition<E, L, Thr>(
    t: Tensor<E, L>,
    thr_layout: Thr,
    thr_idx: usize,
) -> Result<Tensor<E, ThreadPartition<L, Thr>>, LayoutError>
where
    Thr: ThreadLayout + NoteText,
    L: OuterPartition<Thr::Tiler, Thr::Coord>,
{
    let refuse = || thread_of(thr_idx, &thr_layout, thr_layout.thread_count());
    let tiler = thr_layout.tiler().ok_or_else(refuse)?;
    let c = thr_layout.thread_coord(thr_idx).ok_or_else(refuse)?;
    let (l, off) = (*t.layout_ref()).try_outer_as("local_partition", tiler, c)?;
    Ok(t.rebase(l, off))
}

/// `local_partition`'s refusal of thread `idx` of `layout` (`count` threads).
#[inline(always)]
fn thread_of<T: NoteText>(idx: usize, layout: &T, count: Option<usize>) -> LayoutError {
    thread_outside(
        "local_partition",
        idx,
        crate::error::Threads::Layout,
        Some(Note::value(layout)),
        count,
    )
}

/// A thread layout with the modes where `P` is `_` left out.
pub type DicedLayout<P, S, D> = Layout<<P as SliceCoord<S>>::Diced, <P as SliceCoord<D>>::Diced>;

/// CuTe's `local_partition(tensor, thr_layout, thr_idx, proj)`: the modes of
/// the thread layout where `proj` is `_` (CuTe's `X`) are left out. The
/// thread index is one of the whole thread layout: each kept mode decodes
/// it by its own stride, as CuTe does (`(idx / stride) % extent`), so many
/// threads share a partition. CuTe's `sgemm_1` idiom, 16 x 16 threads over
/// a 128 x 8 tile of A and of B:
///
/// ```
/// use layout_core::{layout, tensor::partition::local_partition_proj, Tensor, C, Underscore as X};
/// let data = [0f32; 128 * 8];
/// let s = Tensor::new(&data[..], layout!((128,8):(1,128))).unwrap();
/// let tc = layout!((16,16):(1,16));
/// // A: the threads' m mode tiles the tile's first mode; k is kept whole.
/// let tcsa = local_partition_proj(s.view(), tc, 17, (C::<1>, X));
/// assert_eq!(tcsa.layout().to_string(), "(_8,_8):(_16,_128)");
/// assert_eq!(tcsa.data_offset(), 1); // thread 17 is m = 17 % 16 = 1
/// // B: the n mode (stride 16) decodes thread 17 as n = 17 / 16 = 1.
/// let tcsb = local_partition_proj(s, tc, 17, (X, C::<1>));
/// assert_eq!(tcsb.data_offset(), 1);
/// ```
///
/// # Panics
///
/// When `thr_idx` is not below the whole thread layout's count, or as
/// [`local_partition`].
#[inline(always)]
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn local_partition_proj<E, L, S, D, P>(
    t: Tensor<E, L>,
    thr_layout: Layout<S, D>,
    thr_idx: usize,
    proj: P,
) -> Tensor<E, ThreadPartition<L, DicedLayout<P, S, D>>>
where
    S: Congruent<D> + NoteText,
    D: IntTuple + NoteText,
    P: SliceCoord<S> + SliceCoord<D>,
    <P as SliceCoord<S>>::Diced: Congruent<<P as SliceCoord<D>>::Diced>,
    <P as SliceCoord<D>>::Diced: IntTuple,
    DicedLayout<P, S, D>: ThreadLayout,
    L: OuterPartition<
        <DicedLayout<P, S, D> as ThreadLayout>::Tiler,
        <DicedLayout<P, S, D> as ThreadLayout>::Coord,
    >,
{
    crate::algebra::values::or_panic(try_local_partition_proj(t, thr_layout, thr_idx, proj))
}

/// [`local_partition_proj`], returning the reason instead of panicking.
///
/// ```
/// use layout_core::{layout, tensor::partition::try_local_partition_proj, Tensor, C, Underscore as X};
/// let data = [0f32; 128 * 8];
/// let s = Tensor::new(&data[..], layout!((128,8):(1,128))).unwrap();
/// let tc = layout!((16,16):(1,16));
/// // Thread 255 exists (n = 15); thread 256 does not.
/// assert_eq!(try_local_partition_proj(s.view(), tc, 255, (X, C::<1>)).unwrap().data_offset(), 15);
/// let e = try_local_partition_proj(s, tc, 256, (X, C::<1>)).unwrap_err();
/// assert_eq!(e.to_string(), "local_partition: thread 256 is outside the thread layout (_16,_16):(_1,_16) of 256 threads");
/// ```
#[inline(always)]
#[allow(clippy::type_complexity)]
pub fn try_local_partition_proj<E, L, S, D, P>(
    t: Tensor<E, L>,
    thr_layout: Layout<S, D>,
    thr_idx: usize,
    proj: P,
) -> Result<Tensor<E, ThreadPartition<L, DicedLayout<P, S, D>>>, LayoutError>
where
    S: Congruent<D> + NoteText,
    D: IntTuple + NoteText,
    P: SliceCoord<S> + SliceCoord<D>,
    <P as SliceCoord<S>>::Diced: Congruent<<P as SliceCoord<D>>::Diced>,
    <P as SliceCoord<D>>::Diced: IntTuple,
    DicedLayout<P, S, D>: ThreadLayout,
    L: OuterPartition<
        <DicedLayout<P, S, D> as ThreadLayout>::Tiler,
        <DicedLayout<P, S, D> as ThreadLayout>::Coord,
    >,
{
    // The index counts the whole thread layout's threads; the kept modes
    // decode it, each by its own stride.
    let count = thr_layout.shape().checked_size();
    let refuse = || thread_of(thr_idx, &thr_layout, count);
    if count.is_none_or(|n| thr_idx >= n) {
        return Err(refuse());
    }
    let diced = crate::layout::slice::dice(proj, thr_layout);
    let tiler = diced.tiler().ok_or_else(refuse)?;
    let c = diced.thread_coord_any(thr_idx).ok_or_else(refuse)?;
    let (l, off) = (*t.layout_ref()).try_outer_as("local_partition", tiler, c)?;
    Ok(t.rebase(l, off))
}

/// The algebra applied to a tensor's layout: the result is a view of the
/// same storage (CuTe's `composition(tensor, tiler)`, `zipped_divide(tensor,
/// tiler)`, ...), so a helper can return it.
///
/// ```
/// use layout_core::{crd, layout, Tensor, C};
/// let data: Vec<f32> = (0..64).map(|i| i as f32).collect();
/// // The tiled view outlives the tensor it came from: it borrows `data`.
/// let tiled = {
///     let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
///     t.zipped_divide((C::<4>, C::<2>))
/// };
/// assert_eq!(tiled.layout().to_string(), "((_4,_2),(_2,_4)):((_8,_1),(_32,_2))");
/// // Element (1,1) of tile (1,0): row 4 + 1, column 0 + 1.
/// assert_eq!(tiled[crd!((1, 1), (1, 0))], (5 * 8 + 1) as f32);
/// ```
impl<E, L: LayoutParts + Copy> Tensor<E, L>
where
    L::Shape: Congruent<L::Stride>,
{
    /// CuTe's `composition(tensor, tiler)`: the same storage through
    /// `layout o tiler`.
    ///
    /// # Panics
    ///
    /// When run-time leaves make the composition inadmissible.
    ///
    /// ```
    /// use layout_core::{crd, layout, Tensor, C};
    /// let data: Vec<f32> = (0..64).map(|i| i as f32).collect();
    /// let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
    /// // The top-left 4 x 2 block, by mode: (8:8 o 4:1, 8:1 o 2:1).
    /// let top = t.compose((C::<4>, C::<2>));
    /// assert_eq!(top.layout().to_string(), "(_4,_2):(_8,_1)");
    /// assert_eq!(top[crd!(3, 1)], (3 * 8 + 1) as f32);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn compose<B>(
        self,
        tiler: B,
    ) -> Tensor<E, <L as crate::algebra::composition::CompositionOut<B>>::Output>
    where
        L: crate::algebra::Composition<B>,
    {
        let l = crate::algebra::composition(*self.layout_ref(), tiler);
        self.rebase(l, 0)
    }
    /// CuTe's `logical_divide(tensor, tiler)` on the same storage.
    ///
    /// # Panics
    ///
    /// When run-time leaves make the division inadmissible.
    ///
    /// ```
    /// use layout_core::{layout, Tensor, C};
    /// let data = [0f32; 64];
    /// let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
    /// // By mode: 8:8 / 4 = (4,2):(8,32), 8:1 / 2 = (2,4):(1,2).
    /// let d = t.logical_divide((C::<4>, C::<2>));
    /// assert_eq!(d.layout().to_string(), "((_4,_2),(_2,_4)):((_8,_32),(_1,_2))");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn logical_divide<T>(self, tiler: T) -> Tensor<E, T::Logical>
    where
        T: DivideOnto<L>,
        T::Logical: StaticResult,
    {
        let l = crate::algebra::logical_divide(*self.layout_ref(), tiler);
        self.rebase(l, 0)
    }
    /// CuTe's `zipped_divide(tensor, tiler)` on the same storage:
    /// `((tile), (rest))`.
    ///
    /// # Panics
    ///
    /// When run-time leaves make the division inadmissible.
    ///
    /// ```
    /// use layout_core::{layout, Tensor, C};
    /// let data = [0f32; 64];
    /// let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
    /// // Tiles (4:8, 2:1), then the 2 x 4 grid of them (32 and 2 apart).
    /// let z = t.zipped_divide((C::<4>, C::<2>));
    /// assert_eq!(z.layout().to_string(), "((_4,_2),(_2,_4)):((_8,_1),(_32,_2))");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn zipped_divide<T>(self, tiler: T) -> Tensor<E, ZippedOf<L, T>>
    where
        T: ZipDivideOnto<L>,
        ZippedOf<L, T>: StaticResult,
    {
        let l = crate::algebra::zipped_divide(*self.layout_ref(), tiler);
        self.rebase(l, 0)
    }
    /// [`Tensor::zipped_divide`], returning the reason instead of panicking.
    ///
    /// ```
    /// use layout_core::{layout, Tensor, C};
    /// let data = [0f32; 64];
    /// let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
    /// let z = t.try_zipped_divide((C::<4>, C::<2>)).unwrap();
    /// assert_eq!(z.layout().to_string(), "((_4,_2),(_2,_4)):((_8,_1),(_32,_2))");
    /// // A run-time extent of 6 rows with a row stride of 4 cannot be cut into
    /// // tiles of 4 rows of stride 1.
    /// let m = 6;
    /// let u = Tensor::new(&data[..], layout!((m,2):(1,6))).unwrap();
    /// assert!(u.try_zipped_divide(layout!(4:4)).is_err());
    /// ```
    #[inline(always)]
    pub fn try_zipped_divide<T>(self, tiler: T) -> Result<Tensor<E, ZippedOf<L, T>>, LayoutError>
    where
        T: ZipDivideOnto<L>,
        ZippedOf<L, T>: StaticResult,
    {
        let l = crate::algebra::try_zipped_divide(*self.layout_ref(), tiler)?;
        Ok(self.rebase(l, 0))
    }
    /// CuTe's `tiled_divide(tensor, tiler)` on the same storage:
    /// `((tile), rest0, rest1, ...)`.
    ///
    /// # Panics
    ///
    /// When run-time leaves make the division inadmissible.
    ///
    /// ```
    /// use layout_core::{layout, Tensor, C};
    /// let data = [0f32; 64];
    /// let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
    /// let d = t.tiled_divide((C::<4>, C::<2>));
    /// assert_eq!(d.layout().to_string(), "((_4,_2),_2,_4):((_8,_1),_32,_2)");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn tiled_divide<T>(self, tiler: T) -> Tensor<E, <ZippedOf<L, T> as Unpack>::Tiled>
    where
        T: ZipDivideOnto<L>,
        ZippedOf<L, T>: Unpack,
        <ZippedOf<L, T> as Unpack>::Tiled: StaticResult,
    {
        let l = crate::algebra::tiled_divide(*self.layout_ref(), tiler);
        self.rebase(l, 0)
    }
    /// CuTe's `flat_divide(tensor, tiler)` on the same storage:
    /// `(tile0, tile1, ..., rest0, rest1, ...)`.
    ///
    /// # Panics
    ///
    /// When run-time leaves make the division inadmissible.
    ///
    /// ```
    /// use layout_core::{layout, Tensor, C};
    /// let data = [0f32; 64];
    /// let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
    /// let d = t.flat_divide((C::<4>, C::<2>));
    /// assert_eq!(d.layout().to_string(), "(_4,_2,_2,_4):(_8,_1,_32,_2)");
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn flat_divide<T>(self, tiler: T) -> Tensor<E, <ZippedOf<L, T> as Unpack>::Flat>
    where
        T: ZipDivideOnto<L>,
        ZippedOf<L, T>: Unpack,
        <ZippedOf<L, T> as Unpack>::Flat: StaticResult,
    {
        let l = crate::algebra::flat_divide(*self.layout_ref(), tiler);
        self.rebase(l, 0)
    }
}
