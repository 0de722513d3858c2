//! CuTe's `TiledCopy`: a copy atom (one instruction's thread-value layouts
//! in bits, [`crate::atom::CopyAtom`], read in units of the value type it
//! moves) repeated over threads and values. It partitions a tile among the
//! threads that copy it: [`ThrCopy::partition_s`] gives a thread the
//! elements it reads, [`ThrCopy::partition_d`] those it writes, each as
//! `(CPY, CPY_M, CPY_N, ...)`: the values of one copy, then the copies.
//!
//! Everything here is static (the atom, the thread-value layout and the
//! tile are types); the tensors partitioned may be static or mixed.
//!
//! ```
//! use layout_core::atom::UniversalCopy;
//! use layout_core::atom::tiled_copy::{make_tiled_copy, Copy_Atom};
//! use layout_core::{layout, Tensor};
//! // CuTe's sgemm_2 (NT): 32 x 8 threads, each copying 4 x 1 floats by
//! // one 16-byte access, over a 128 x 8 tile.
//! let copy = make_tiled_copy(Copy_Atom::<UniversalCopy<u128>, f32>::default(),
//!                            layout!((32,8)), layout!((4,1)));
//! assert_eq!(copy.get_layout_s_tv().to_string(), "(_256,(_4,_1)):(_4,(_1,_0))");
//! let data = [0f32; 128 * 8];
//! let tile = Tensor::new(&data[..], layout!((128,8))).unwrap();
//! // Thread 37 copies rows 20..24 of column 1 (CuTe prints the same).
//! let mine = copy.get_slice(37).partition_s(tile);
//! assert_eq!(mine.layout().to_string(), "((_4,_1),_1,_1):((_1,_0),_0,_0)");
//! assert_eq!(mine.data_offset(), 148);
//! ```

use crate::algebra::cast::{MapPairs, UpcastBy};
use crate::algebra::composition::CompositionOut;
use crate::algebra::product::ZipOf;
use crate::algebra::profile::{ByProfile, CoalesceOp};
use crate::algebra::tile::ProductEach;
use crate::algebra::{Composition, LayoutParts, RightInverse, ZipDivideParts};
use crate::atom::mma::{OperandA, OperandB, OperandC, OperandTv};
use crate::atom::{CopyAtom, CopyValue};
use crate::layout::compact::Compact;
use crate::layout::coord::Underscore;
use crate::layout::ops::Mode;
use crate::layout::{Congruent, Layout};
use crate::tensor::partition::{check_divides, refused};
use crate::tensor::Tensor;
use crate::typelevel::arith::MulT;
use crate::typelevel::int::C;
use crate::typelevel::list::{SizeList, SizeT};
use crate::typelevel::tuple::{AsModes, IntTuple, IntoTuple};
use core::marker::PhantomData;

/// CuTe's `Copy_Atom<Op, T>`: the copy operation `Op` moving values of
/// type `T`; its bit layouts are read in units of `T`.
///
/// ```
/// use layout_core::atom::SM75_U32x4_LDSM_N;
/// use layout_core::atom::tiled_copy::{Copy_Atom, CopyAtomValues};
/// // ldmatrix.x4 moving f16 (16-bit) values: each thread receives 8.
/// type A = Copy_Atom<SM75_U32x4_LDSM_N, u16>;
/// assert_eq!(<A as CopyAtomValues>::ValDst::default().to_string(), "(_32,(_2,_4)):(_2,(_1,_64))");
/// ```
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct Copy_Atom<Op, T>(PhantomData<(Op, T)>);
impl<Op, T> Clone for Copy_Atom<Op, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Op, T> Copy for Copy_Atom<Op, T> {}
impl<Op, T> Default for Copy_Atom<Op, T> {
    fn default() -> Self {
        Copy_Atom(PhantomData)
    }
}

/// A bit layout read in units of `T` (CuTe's `recast_layout<uint1_t, T>`).
type Recast<L, T> = Layout<
    <<L as LayoutParts>::Shape as MapPairs<<L as LayoutParts>::Stride, UpcastOf<T>>>::OS,
    <<L as LayoutParts>::Shape as MapPairs<<L as LayoutParts>::Stride, UpcastOf<T>>>::OD,
>;
type UpcastOf<T> = UpcastBy<<T as CopyValue>::Bits>;

/// A copy atom's layouts in units of its value type (CuTe's `Copy_Atom`
/// members).
pub trait CopyAtomValues: Copy + Default {
    /// The instruction.
    type Op: CopyAtom;
    /// Thread ids of the participating threads.
    type ThrID: Copy + Default;
    /// `(source thread, value) -> value of the copied block`.
    type ValSrc: Copy + Default;
    /// `(destination thread, value) -> value of the copied block`.
    type ValDst: Copy + Default;
    /// The reference order of a tiled copy's thread-value layout.
    type ValRef: Copy + Default;
    /// Threads of one instruction.
    type NumThr: IntTuple;
    /// Values of one instruction, per thread, in the reference order.
    type NumVal: IntTuple;
    /// `(source thread, value) -> (reference thread, value)`.
    type RefToSrc: Copy + Default;
    /// `(destination thread, value) -> (reference thread, value)`.
    type RefToDst: Copy + Default;
    /// The value type's width in bits.
    const BITS: usize;
}

/// Mode 0 (1) of a layout's shape.
type Shape0<L> = <<L as LayoutParts>::Shape as Mode<0>>::Output;
type Shape1<L> = <<L as LayoutParts>::Shape as Mode<1>>::Output;

type RefTo<R, X> = <<R as RightInverse>::Output as CompositionOut<X>>::Output;

impl<Op: CopyAtom, T: CopyValue> CopyAtomValues for Copy_Atom<Op, T>
where
    Op::SrcLayout: LayoutParts,
    Op::DstLayout: LayoutParts,
    Op::RefLayout: LayoutParts,
    <Op::SrcLayout as LayoutParts>::Shape:
        MapPairs<<Op::SrcLayout as LayoutParts>::Stride, UpcastOf<T>>,
    <Op::DstLayout as LayoutParts>::Shape:
        MapPairs<<Op::DstLayout as LayoutParts>::Stride, UpcastOf<T>>,
    <Op::RefLayout as LayoutParts>::Shape:
        MapPairs<<Op::RefLayout as LayoutParts>::Stride, UpcastOf<T>>,
    Recast<Op::SrcLayout, T>: Copy + Default,
    Recast<Op::DstLayout, T>: Copy + Default,
    Recast<Op::RefLayout, T>: Copy + Default + LayoutParts + RightInverse,
    <Recast<Op::RefLayout, T> as LayoutParts>::Shape: Mode<0> + Mode<1>,
    Shape0<Recast<Op::RefLayout, T>>: IntTuple<Leaves: SizeList<C<1>>>,
    Shape1<Recast<Op::RefLayout, T>>: IntTuple<Leaves: SizeList<C<1>>>,
    SizeT<Shape0<Recast<Op::RefLayout, T>>>: IntTuple,
    SizeT<Shape1<Recast<Op::RefLayout, T>>>: IntTuple,
    <Recast<Op::RefLayout, T> as RightInverse>::Output:
        Composition<Recast<Op::SrcLayout, T>> + Composition<Recast<Op::DstLayout, T>>,
    RefTo<Recast<Op::RefLayout, T>, Recast<Op::SrcLayout, T>>: Copy + Default,
    RefTo<Recast<Op::RefLayout, T>, Recast<Op::DstLayout, T>>: Copy + Default,
{
    type Op = Op;
    type ThrID = Op::ThrID;
    type ValSrc = Recast<Op::SrcLayout, T>;
    type ValDst = Recast<Op::DstLayout, T>;
    type ValRef = Recast<Op::RefLayout, T>;
    type NumThr = SizeT<Shape0<Recast<Op::RefLayout, T>>>;
    type NumVal = SizeT<Shape1<Recast<Op::RefLayout, T>>>;
    type RefToSrc = RefTo<Recast<Op::RefLayout, T>, Recast<Op::SrcLayout, T>>;
    type RefToDst = RefTo<Recast<Op::RefLayout, T>, Recast<Op::DstLayout, T>>;
    const BITS: usize = match <T::Bits as crate::typelevel::int::Int>::STATIC {
        Some(n) => n,
        None => panic!("a value's width is static"),
    };
}

/// CuTe's `TiledCopy<Copy_Atom, LayoutCopy_TV, ShapeTiler_MN>`: the atom
/// `A`, the thread-value layout `Tv` (`(thread, value) -> coordinate` in
/// the tile, as a column-major index) and the tile `Tiler` (its extents).
pub struct TiledCopy<A, Tv, Tiler>(PhantomData<(A, Tv, Tiler)>);
impl<A, Tv, Tiler> Clone for TiledCopy<A, Tv, Tiler> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A, Tv, Tiler> Copy for TiledCopy<A, Tv, Tiler> {}
impl<A, Tv, Tiler> Default for TiledCopy<A, Tv, Tiler> {
    fn default() -> Self {
        TiledCopy(PhantomData)
    }
}
impl<A, Tv, Tiler> core::fmt::Debug for TiledCopy<A, Tv, Tiler> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("TiledCopy")
    }
}

/// Swaps the inner modes of `((a, b), (c, d))`: `((a, c), (b, d))` (CuTe's
/// `zip` of a rank-2 layout of rank-2 modes).
#[doc(hidden)]
pub trait Zip2 {
    type Out: Copy + Default;
}
impl<A0, A1, B0, B1, E0, E1, F0, F1> Zip2 for Layout<((A0, A1), (B0, B1)), ((E0, E1), (F0, F1))>
where
    ((A0, B0), (A1, B1)): Congruent<((E0, F0), (E1, F1))>,
    ((E0, F0), (E1, F1)): IntTuple,
    Layout<((A0, B0), (A1, B1)), ((E0, F0), (E1, F1))>: Copy + Default,
{
    type Out = Layout<((A0, B0), (A1, B1)), ((E0, F0), (E1, F1))>;
}

/// `(thread, value) -> coordinate` in the tile through an atom's target
/// order `R` (CuTe's `tile2thrfrg` before the tensor): the TV layout split
/// into atoms, each atom's `(thread, value)` made the target's, threads
/// and values zipped and coalesced, `(thread, (value, atom))`.
type AtomTv<Tv, NT, NV> = <(NT, NV) as ZipDivideParts<Tv>>::Zipped;
type TrgTv<Tv, NT, NV, R> = <AtomTv<Tv, NT, NV> as CompositionOut<(R, Underscore)>>::Output;
/// The thread-value map of a tiled copy seen from its source (`R` =
/// [`CopyAtomValues::RefToSrc`]) or destination.
pub type ThrValToMn<Tv, NT, NV, R> =
    <<TrgTv<Tv, NT, NV, R> as Zip2>::Out as ByProfile<(C<1>, (C<1>, C<1>)), CoalesceOp>>::Out;

/// The types a tiled copy is made of, computed once.
pub trait CopyTiling: Copy + Default {
    /// The atom.
    type Atom: CopyAtomValues;
    /// `(thread, value) -> tile coordinate`, CuTe's `TiledLayout_TV`.
    type LayoutTv: Copy + Default;
    /// The tile's extents, CuTe's `Tiler_MN`.
    type Tiler: Copy + Default + IntTuple;
    /// `(thread, (value, atom)) -> tile coordinate` for the source.
    type ThrValS: Copy + Default;
    /// The same for the destination.
    type ThrValD: Copy + Default;
    /// Threads of the tiled copy.
    const THREADS: usize;
}
type NumThrOf<A> = <A as CopyAtomValues>::NumThr;
type NumValOf<A> = <A as CopyAtomValues>::NumVal;
impl<A: CopyAtomValues, Tv, Tiler: Copy + Default + IntTuple> CopyTiling for TiledCopy<A, Tv, Tiler>
where
    Tv: Copy + Default + LayoutParts,
    <Tv as LayoutParts>::Shape: Mode<0>,
    Shape0<Tv>: IntTuple,
    (NumThrOf<A>, NumValOf<A>): ZipDivideParts<Tv>,
    AtomTv<Tv, NumThrOf<A>, NumValOf<A>>:
        Composition<(A::RefToSrc, Underscore)> + Composition<(A::RefToDst, Underscore)>,
    TrgTv<Tv, NumThrOf<A>, NumValOf<A>, A::RefToSrc>: Zip2,
    TrgTv<Tv, NumThrOf<A>, NumValOf<A>, A::RefToDst>: Zip2,
    <TrgTv<Tv, NumThrOf<A>, NumValOf<A>, A::RefToSrc> as Zip2>::Out:
        ByProfile<(C<1>, (C<1>, C<1>)), CoalesceOp>,
    <TrgTv<Tv, NumThrOf<A>, NumValOf<A>, A::RefToDst> as Zip2>::Out:
        ByProfile<(C<1>, (C<1>, C<1>)), CoalesceOp>,
    ThrValToMn<Tv, NumThrOf<A>, NumValOf<A>, A::RefToSrc>: Copy + Default,
    ThrValToMn<Tv, NumThrOf<A>, NumValOf<A>, A::RefToDst>: Copy + Default,
{
    type Atom = A;
    type LayoutTv = Tv;
    type Tiler = Tiler;
    type ThrValS = ThrValToMn<Tv, NumThrOf<A>, NumValOf<A>, A::RefToSrc>;
    type ThrValD = ThrValToMn<Tv, NumThrOf<A>, NumValOf<A>, A::RefToDst>;
    const THREADS: usize = match Shape0::<Tv>::STATIC_SIZE {
        Some(n) => n,
        None => panic!("a tiled copy's threads are static"),
    };
}

/// `raked_product(thr, val)`: `(m, n) -> (thread, value)`.
type LayoutMn<Thr, Val> = <Val as ZipOf<Thr>>::Raked;
/// The tile of `make_tiled_copy`: the extent of each mode of the raked
/// product.
pub type TilerOf<Thr, Val> = <<<<LayoutMn<Thr, Val> as LayoutParts>::Shape as AsModes>::Modes as ProductEach>::Out as IntoTuple>::Tuple;
/// `(thread, value) -> (m, n)` of `make_tiled_copy`: the right inverse of
/// the raked product, shaped `(threads, values)`.
pub type TvOf<Thr, Val> = <<LayoutMn<Thr, Val> as RightInverse>::Output as CompositionOut<
    ColMajor<SizeT<<Thr as LayoutParts>::Shape>, SizeT<<Val as LayoutParts>::Shape>>,
>>::Output;
/// The column-major layout of an `(X, Y)` shape.
type ColMajor<X, Y> = Layout<(X, Y), <(X, Y) as Compact<C<1>>>::Left>;

/// CuTe's `make_tiled_copy(copy_atom, thr_layout, val_layout)`: threads
/// laid out by `thr` (`(m, n) -> thread`), each copying the block of
/// values `val` (`(m, n) -> value`), the blocks raked over a tile of
/// `thr` x `val` elements per mode.
///
/// ```
/// use layout_core::atom::UniversalCopy;
/// use layout_core::atom::tiled_copy::{make_tiled_copy, Copy_Atom};
/// use layout_core::layout;
/// // CuTe's sgemm_2 (TN): 32 x 8 threads k-major, one float each.
/// let copy = make_tiled_copy(Copy_Atom::<UniversalCopy<f32>, f32>::default(),
///                            layout!((32,8):(8,1)), layout!((1,1)));
/// assert_eq!(copy.layout_tv().to_string(), "((_8,_32),_1):((_32,_1),_0)");
/// assert_eq!(layout_core::to_cute_string(&copy.tile_size()), "(_32,_8)");
/// ```
pub fn make_tiled_copy<A, Thr, Val>(
    _atom: A,
    _thr: Thr,
    _val: Val,
) -> TiledCopy<A, TvOf<Thr, Val>, TilerOf<Thr, Val>>
where
    Thr: LayoutParts,
    Val: LayoutParts + ZipOf<Thr>,
    <Thr as LayoutParts>::Shape: IntTuple<Leaves: SizeList<C<1>>>,
    <Val as LayoutParts>::Shape: IntTuple<Leaves: SizeList<C<1>>>,
    LayoutMn<Thr, Val>: LayoutParts + RightInverse,
    <LayoutMn<Thr, Val> as LayoutParts>::Shape: AsModes<Modes: ProductEach>,
    <<<LayoutMn<Thr, Val> as LayoutParts>::Shape as AsModes>::Modes as ProductEach>::Out: IntoTuple,
    (
        SizeT<<Thr as LayoutParts>::Shape>,
        SizeT<<Val as LayoutParts>::Shape>,
    ): Compact<C<1>>,
    <LayoutMn<Thr, Val> as RightInverse>::Output: Composition<
        ColMajor<SizeT<<Thr as LayoutParts>::Shape>, SizeT<<Val as LayoutParts>::Shape>>,
    >,
{
    TiledCopy(PhantomData)
}

macro_rules! tiled_copy_of_mma {
    ($(#[$m:meta])* $name:ident, $x:ident) => {
        $(#[$m])*
        pub fn $name<A, M: OperandTv<$x>>(
            _atom: A,
            _mma: M,
        ) -> TiledCopy<A, <M as OperandTv<$x>>::Tv, <M as OperandTv<$x>>::Tile> {
            TiledCopy(PhantomData)
        }
    };
}
tiled_copy_of_mma!(
    /// CuTe's `make_tiled_copy_A(copy_atom, tiled_mma)`: the copy whose
    /// threads and values are the TiledMMA's A partition (its
    /// `get_layoutA_TV` over the `(M, K)` tile), so that each thread loads
    /// exactly its A fragment (`ldmatrix`, say).
    ///
    /// ```
    /// use layout_core::atom::{SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN as Mma};
    /// use layout_core::atom::tiled_copy::{make_tiled_copy_a, Copy_Atom};
    /// use layout_core::{layout, atom::mma::make_tiled_mma, C};
    /// let mma = make_tiled_mma(Mma, layout!((2,2,1)), (C::<32>, C::<32>, C::<16>));
    /// let copy = make_tiled_copy_a(Copy_Atom::<SM75_U32x4_LDSM_N, u16>::default(), mma);
    /// // CuTe: each lane gives the address of 8 halves of one row.
    /// assert_eq!(copy.get_layout_s_tv().to_string(), "((_16,_2,_2,_2),(_8,_1)):((_1,_256,_16,_0),(_32,_0))");
    /// ```
    make_tiled_copy_a, OperandA
);
tiled_copy_of_mma!(
    /// CuTe's `make_tiled_copy_B(copy_atom, tiled_mma)`: the copy of the
    /// TiledMMA's B partition over the `(N, K)` tile.
    ///
    /// ```
    /// use layout_core::atom::{SM75_U32x2_LDSM_N, SM80_16x8x16_F16F16F16F16_TN as Mma};
    /// use layout_core::atom::tiled_copy::{make_tiled_copy_b, Copy_Atom};
    /// use layout_core::{layout, atom::mma::make_tiled_mma, C};
    /// let mma = make_tiled_mma(Mma, layout!((2,2,1)), (C::<32>, C::<32>, C::<16>));
    /// let copy = make_tiled_copy_b(Copy_Atom::<SM75_U32x2_LDSM_N, u16>::default(), mma);
    /// assert_eq!(copy.get_layout_d_tv().to_string(), "((_4,_8,_2,_2),((_2,_2),_2)):((_64,_1,_0,_8),((_32,_256),_16))");
    /// ```
    make_tiled_copy_b, OperandB
);
tiled_copy_of_mma!(
    /// CuTe's `make_tiled_copy_C(copy_atom, tiled_mma)`: the copy of the
    /// TiledMMA's C partition over the `(M, N)` tile.
    ///
    /// ```
    /// use layout_core::atom::{UniversalCopy, SM80_16x8x16_F16F16F16F16_TN as Mma};
    /// use layout_core::atom::tiled_copy::{make_tiled_copy_c, Copy_Atom};
    /// use layout_core::{layout, atom::mma::make_tiled_mma, C};
    /// let mma = make_tiled_mma(Mma, layout!((2,2,1)), (C::<32>, C::<32>, C::<16>));
    /// let copy = make_tiled_copy_c(Copy_Atom::<UniversalCopy<u32>, u16>::default(), mma);
    /// assert_eq!(copy.get_layout_s_tv().to_string(), "((_4,_8,_2,_2),(_2,(_2,_2))):((_64,_1,_16,_256),(_32,(_8,_512)))");
    /// ```
    make_tiled_copy_c, OperandC
);

type TilerOfCopy<T> = <T as CopyTiling>::Tiler;
type TilerLayout<T> = Layout<TilerOfCopy<T>, <TilerOfCopy<T> as Compact<C<1>>>::Left>;
/// `get_layoutS_TV`'s type: `(thread, value) -> (m, n)` as a column-major
/// index of the tile.
pub type LayoutSTv<T> = <TilerLayout<T> as CompositionOut<<T as CopyTiling>::ThrValS>>::Output;
/// `get_layoutD_TV`'s type.
pub type LayoutDTv<T> = <TilerLayout<T> as CompositionOut<<T as CopyTiling>::ThrValD>>::Output;

impl<A, Tv, Tiler> TiledCopy<A, Tv, Tiler>
where
    Self: CopyTiling,
{
    /// CuTe's `TiledLayout_TV`: `(thread, value) -> (m, n)` as a
    /// column-major index of the tile, in the atom's reference order.
    pub fn layout_tv(self) -> <Self as CopyTiling>::LayoutTv {
        Default::default()
    }
    /// CuTe's `tile_size(tiled_copy)`: the tile's extents (`Tiler_MN`).
    pub fn tile_size(self) -> <Self as CopyTiling>::Tiler {
        Default::default()
    }
    /// CuTe's `size(tiled_copy)`: the number of threads.
    pub fn size(self) -> usize {
        <Self as CopyTiling>::THREADS
    }
    /// CuTe's `get_layoutS_TV()`: `(thread, value) -> (m, n)` of the
    /// elements each thread reads, as a column-major index of the tile.
    pub fn get_layout_s_tv(self) -> LayoutSTv<Self>
    where
        TilerOfCopy<Self>: Compact<C<1>> + Congruent<<TilerOfCopy<Self> as Compact<C<1>>>::Left>,
        TilerLayout<Self>: Composition<<Self as CopyTiling>::ThrValS>,
        LayoutSTv<Self>: Default,
    {
        Default::default()
    }
    /// CuTe's `get_layoutD_TV()`: the same for the elements each thread
    /// writes.
    pub fn get_layout_d_tv(self) -> LayoutDTv<Self>
    where
        TilerOfCopy<Self>: Compact<C<1>> + Congruent<<TilerOfCopy<Self> as Compact<C<1>>>::Left>,
        TilerLayout<Self>: Composition<<Self as CopyTiling>::ThrValD>,
        LayoutDTv<Self>: Default,
    {
        Default::default()
    }
    /// CuTe's `get_slice(thr_idx)`: thread `thr_idx` of the copy.
    ///
    /// # Panics
    ///
    /// When `thr_idx` is not below the thread count
    /// ([`TiledCopy::try_get_slice`] returns the error instead).
    #[track_caller]
    pub fn get_slice(self, thr_idx: usize) -> ThrCopy<Self> {
        crate::algebra::values::or_panic(self.try_get_slice(thr_idx))
    }
    /// [`TiledCopy::get_slice`], or the error when `thr_idx` is not below
    /// the thread count.
    ///
    /// ```
    /// use layout_core::atom::UniversalCopy;
    /// use layout_core::atom::tiled_copy::{make_tiled_copy, Copy_Atom};
    /// use layout_core::layout;
    /// let copy = make_tiled_copy(Copy_Atom::<UniversalCopy<u128>, f32>::default(),
    ///                            layout!((32,8)), layout!((4,1)));
    /// assert_eq!(copy.size(), 256);
    /// assert!(copy.try_get_slice(255).is_ok());
    /// assert!(copy.try_get_slice(256).is_err());
    /// ```
    pub fn try_get_slice(self, thr_idx: usize) -> Result<ThrCopy<Self>, crate::LayoutError> {
        if thr_idx >= <Self as CopyTiling>::THREADS {
            let n = <Self as CopyTiling>::THREADS;
            return Err(crate::tensor::partition::thread_outside(
                "get_slice",
                thr_idx,
                crate::error::Threads::TiledCopy,
                None,
                Some(n),
            ));
        }
        Ok(ThrCopy {
            copy: PhantomData,
            thr_idx,
        })
    }
}

/// Thread `thr_idx` of a tiled copy (CuTe's `ThrCopy`): partitions a tile's
/// source and destination tensors into the elements this thread copies.
#[derive(Clone, Copy, Debug)]
pub struct ThrCopy<T> {
    copy: PhantomData<T>,
    thr_idx: usize,
}

impl<T> ThrCopy<T> {
    /// The thread's index.
    pub fn thr_idx(&self) -> usize {
        self.thr_idx
    }
}

impl<T: CopyTiling> ThrCopy<T> {
    /// CuTe's `retile_D(tensor)`: a thread's register fragment (from a
    /// TiledMMA's `partition_fragment_*`, say) seen in the copy's value
    /// order, `(CPY, CPY_M, CPY_N, ...)`, so that it is the destination of
    /// [`ThrCopy::partition_s`]'s source element by element.
    ///
    /// ```
    /// use layout_core::atom::{SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN as Mma};
    /// use layout_core::atom::tiled_copy::{make_tiled_copy_a, Copy_Atom};
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Tensor, C};
    /// let mma = make_tiled_mma(Mma, layout!((2,2,1)), (C::<32>, C::<32>, C::<16>));
    /// let copy = make_tiled_copy_a(Copy_Atom::<SM75_U32x4_LDSM_N, u16>::default(), mma);
    /// let smem = [0u16; 128 * 32];
    /// let sa = Tensor::new(&smem[..], layout!((128,32):(32,1))).unwrap();
    /// let mut frag = mma.get_slice(5).partition_fragment_a::<u16, _, _>(sa);
    /// assert_eq!(frag.layout().to_string(), "((_2,_2,_2),_4,_2):((_1,_2,_4),_16,_8)");
    /// // CuTe: each ldmatrix.x4 fills 8 consecutive registers.
    /// let regs = copy.get_slice(5).retile_d(frag.view_mut());
    /// assert_eq!(regs.layout().to_string(), "((_8,_1),_4,_2):((_1,_0),_16,_8)");
    /// ```
    ///
    /// # Panics
    ///
    /// When run-time leaves make the division inadmissible
    /// ([`ThrCopy::try_retile_d`] returns the error instead).
    #[inline(always)]
    #[track_caller]
    pub fn retile_d<E, L: Retile<T> + Copy>(self, t: Tensor<E, L>) -> Tensor<E, L::Out> {
        crate::algebra::values::or_panic(self.try_retile_d(t))
    }
    /// [`ThrCopy::retile_d`], returning the reason instead of panicking.
    #[inline(always)]
    pub fn try_retile_d<E, L: Retile<T> + Copy>(
        self,
        t: Tensor<E, L>,
    ) -> Result<Tensor<E, L::Out>, crate::LayoutError> {
        let l = t.layout_ref().retile()?;
        Ok(t.rebase(l, 0))
    }
    /// CuTe's `retile_S(tensor)`: the same view for a fragment that is the
    /// source of a copy (CuTe's `retile_S` and `retile_D` are one function).
    #[inline(always)]
    #[track_caller]
    pub fn retile_s<E, L: Retile<T> + Copy>(self, t: Tensor<E, L>) -> Tensor<E, L::Out> {
        self.retile_d(t)
    }
    /// [`ThrCopy::retile_s`], returning the reason instead of panicking.
    #[inline(always)]
    pub fn try_retile_s<E, L: Retile<T> + Copy>(
        self,
        t: Tensor<E, L>,
    ) -> Result<Tensor<E, L::Out>, crate::LayoutError> {
        self.try_retile_d(t)
    }
}

/// A tensor's layout tiled by the copy: `((thread, value), (rest modes))`.
type TvTensor<L, Tiler, M> =
    <<Tiler as ZipDivideParts<L>>::Zipped as CompositionOut<(M, Underscore)>>::Output;
/// The layout of `partition_S` of a tensor of layout `L`: `(CPY, CPY_M,
/// CPY_N, ...)`.
pub type PartS<T, L> =
    <TvTensor<L, <T as CopyTiling>::Tiler, <T as CopyTiling>::ThrValS> as CopySlice>::Out;
/// The layout of `partition_D` of a tensor of layout `L`.
pub type PartD<T, L> =
    <TvTensor<L, <T as CopyTiling>::Tiler, <T as CopyTiling>::ThrValD> as CopySlice>::Out;

/// A `((thread, value), (rest...))` layout sliced at one thread: `(value,
/// rest...)` and the offset.
#[doc(hidden)]
pub trait CopySlice {
    type Out: Copy;
    fn thr_slice(self, t: usize) -> Option<(Self::Out, usize)>;
}
type CopyCrd<R> = (
    (usize, Underscore),
    <R as crate::layout::slice::RepeatUnder>::Out,
);
impl<T0, V0, R, D0, E0, RD> CopySlice for Layout<((T0, V0), R), ((D0, E0), RD)>
where
    ((T0, V0), R): Congruent<((D0, E0), RD)>,
    ((D0, E0), RD): IntTuple,
    R: crate::layout::slice::RepeatUnder,
    CopyCrd<R>: crate::layout::slice::SliceCoord<((T0, V0), R)>
        + crate::layout::slice::SliceCoord<((D0, E0), RD)>
        + crate::layout::coord::Crd2Idx<((T0, V0), R), ((D0, E0), RD)>,
    <CopyCrd<R> as crate::layout::slice::SliceCoord<((T0, V0), R)>>::Sliced:
        Congruent<<CopyCrd<R> as crate::layout::slice::SliceCoord<((D0, E0), RD)>>::Sliced>,
    <CopyCrd<R> as crate::layout::slice::SliceCoord<((D0, E0), RD)>>::Sliced: IntTuple,
{
    type Out = Layout<
        <CopyCrd<R> as crate::layout::slice::SliceCoord<((T0, V0), R)>>::Sliced,
        <CopyCrd<R> as crate::layout::slice::SliceCoord<((D0, E0), RD)>>::Sliced,
    >;
    #[inline(always)]
    fn thr_slice(self, t: usize) -> Option<(Self::Out, usize)> {
        use crate::layout::coord::Crd2Idx;
        let c: CopyCrd<R> = ((t, Underscore), Default::default());
        if !c.in_shape(self.shape()) {
            return None;
        }
        Some(crate::layout::slice::slice_and_offset(c, self))
    }
}

macro_rules! partition_fn {
    ($name:ident, $try:ident, $part:ident, $thrval:ident, $op:literal, $what:literal) => {
        impl<T: CopyTiling> ThrCopy<T> {
            #[doc = concat!("CuTe's `", $op, "(tensor)`: the elements of an `(M, N, ...)` tensor this thread ", $what, ", as `(CPY, CPY_M, CPY_N, ...)`: the values of one copy, then one mode per tile of the copy in each mode of the tensor.")]
            ///
            /// # Panics
            ///
            /// When the copy's tile does not divide the tensor (CuTe would
            /// address elements past it), or run-time leaves make the
            /// division inadmissible.
            #[inline(always)]
            #[track_caller]
            pub fn $name<E, Lt>(self, t: Tensor<E, Lt>) -> Tensor<E, $part<T, Lt>>
            where
                Lt: Copy + LayoutParts,
                Lt::Shape: Congruent<Lt::Stride>,
                T::Tiler: ZipDivideParts<Lt>,
                <T::Tiler as ZipDivideParts<Lt>>::Zipped:
                    crate::algebra::StaticResult + Composition<(T::$thrval, Underscore)>,
                TvTensor<Lt, T::Tiler, T::$thrval>: CopySlice,
            {
                crate::algebra::values::or_panic(self.$try(t))
            }
            #[doc = concat!("[`ThrCopy::", stringify!($name), "`], returning the reason instead of panicking.")]
            #[inline(always)]
            pub fn $try<E, Lt>(
                self,
                t: Tensor<E, Lt>,
            ) -> Result<Tensor<E, $part<T, Lt>>, crate::LayoutError>
            where
                Lt: Copy + LayoutParts,
                Lt::Shape: Congruent<Lt::Stride>,
                T::Tiler: ZipDivideParts<Lt>,
                <T::Tiler as ZipDivideParts<Lt>>::Zipped:
                    crate::algebra::StaticResult + Composition<(T::$thrval, Underscore)>,
                TvTensor<Lt, T::Tiler, T::$thrval>: CopySlice,
            {
                let l = *t.layout_ref();
                check_tile::<T, Lt>(&l)?;
                let tiled = crate::algebra::divide::zipped_parts(l, T::Tiler::default())?;
                let tv = crate::algebra::try_composition(tiled, (T::$thrval::default(), Underscore))?;
                let (l, off) = tv.thr_slice(self.thr_idx).ok_or(refused($op))?;
                Ok(t.rebase(l, off))
            }
        }
    };
}
partition_fn!(
    partition_s,
    try_partition_s,
    PartS,
    ThrValS,
    "partition_S",
    "reads"
);
partition_fn!(
    partition_d,
    try_partition_d,
    PartD,
    ThrValD,
    "partition_D",
    "writes"
);

/// `Err` unless each extent of the copy's tile divides the tensor's mode.
fn check_tile<T: CopyTiling, Lt: LayoutParts + Copy>(l: &Lt) -> Result<(), crate::LayoutError> {
    let mut tile = [0usize; 8];
    let mut n = 0;
    T::Tiler::default().for_each_mode_size(&mut |s| {
        if n < tile.len() {
            tile[n] = s;
        }
        n += 1;
    });
    let mut mode = 0;
    let mut res = Ok(());
    l.parts().0.for_each_mode_size(&mut |target| {
        if mode < n.min(tile.len()) && res.is_ok() {
            res = check_divides(tile[mode], target, mode);
        }
        mode += 1;
    });
    res
}

/// CuTe's `print(copy_atom)`.
///
/// ```
/// use layout_core::atom::SM75_U32x4_LDSM_N;
/// use layout_core::atom::tiled_copy::Copy_Atom;
/// let a = Copy_Atom::<SM75_U32x4_LDSM_N, u16>::default();
/// assert!(a.to_string().contains("ValLayoutSrc: (_32,_8):(_8,_1)\n"));
/// assert!(a.to_string().ends_with("ValueType:    16b\n"));
/// ```
impl<Op, T> core::fmt::Display for Copy_Atom<Op, T>
where
    Self: CopyAtomValues,
    <Self as CopyAtomValues>::ThrID: core::fmt::Display,
    <Self as CopyAtomValues>::ValSrc: core::fmt::Display,
    <Self as CopyAtomValues>::ValDst: core::fmt::Display,
    <Self as CopyAtomValues>::ValRef: core::fmt::Display,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "Copy_Atom")?;
        writeln!(
            f,
            "  ThrID:        {}",
            <Self as CopyAtomValues>::ThrID::default()
        )?;
        writeln!(
            f,
            "  ValLayoutSrc: {}",
            <Self as CopyAtomValues>::ValSrc::default()
        )?;
        writeln!(
            f,
            "  ValLayoutDst: {}",
            <Self as CopyAtomValues>::ValDst::default()
        )?;
        writeln!(
            f,
            "  ValLayoutRef: {}",
            <Self as CopyAtomValues>::ValRef::default()
        )?;
        writeln!(f, "  ValueType:    {}b", <Self as CopyAtomValues>::BITS)
    }
}

/// CuTe's `print(tiled_copy)`.
///
/// ```
/// use layout_core::atom::UniversalCopy;
/// use layout_core::atom::tiled_copy::{make_tiled_copy, Copy_Atom};
/// use layout_core::layout;
/// let copy = make_tiled_copy(Copy_Atom::<UniversalCopy<u128>, f32>::default(),
///                            layout!((32,8)), layout!((4,1)));
/// assert!(copy.to_string().starts_with(
///     "TiledCopy\n  Tiler_MN:       (_128,_8)\n  TiledLayout_TV: (_256,_4):(_4,_1)\nCopy_Atom\n"));
/// ```
impl<A, Tv, Tiler> core::fmt::Display for TiledCopy<A, Tv, Tiler>
where
    Self: CopyTiling,
    A: core::fmt::Display + Default,
    Tv: core::fmt::Display + Default,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "TiledCopy")?;
        f.write_str("  Tiler_MN:       ")?;
        <Self as CopyTiling>::Tiler::default().write_cute(f)?;
        writeln!(f)?;
        writeln!(f, "  TiledLayout_TV: {}", Tv::default())?;
        write!(f, "{}", A::default())
    }
}

/// A rest coordinate `(0, _, _, ...)` for a shape of the rank of `Self`
/// (CuTe's `append<R>(Int<0>{}, _)`).
#[doc(hidden)]
pub trait FirstFixed {
    type Crd: Copy + Default;
}
impl<T: crate::typelevel::tuple::Tuple> FirstFixed for T
where
    T::List: crate::typelevel::tuple::PopFront,
    <T::List as crate::typelevel::tuple::PopFront>::Rest: crate::layout::slice::RepeatUnderList,
    crate::typelevel::tuple::Cons<
        usize,
        <<T::List as crate::typelevel::tuple::PopFront>::Rest as crate::layout::slice::RepeatUnderList>::Out,
    >: IntoTuple,
    <crate::typelevel::tuple::Cons<
        usize,
        <<T::List as crate::typelevel::tuple::PopFront>::Rest as crate::layout::slice::RepeatUnderList>::Out,
    > as IntoTuple>::Tuple: Copy + Default,
{
    type Crd = <crate::typelevel::tuple::Cons<
        usize,
        <<T::List as crate::typelevel::tuple::PopFront>::Rest as crate::layout::slice::RepeatUnderList>::Out,
    > as IntoTuple>::Tuple;
}

/// `(m, n) -> index of the value` of a tiled copy for fragments of `V`
/// values per thread (CuTe's `retile`: `upcast<threads * V>` of the TV
/// layout's inverse over the tile).
type FrgMn<T, V> = Layout<
    <<WithShape<T> as LayoutParts>::Shape as MapPairs<
        <WithShape<T> as LayoutParts>::Stride,
        UpcastBy<MulT<ThreadsOf<T>, V>>,
    >>::OS,
    <<WithShape<T> as LayoutParts>::Shape as MapPairs<
        <WithShape<T> as LayoutParts>::Stride,
        UpcastBy<MulT<ThreadsOf<T>, V>>,
    >>::OD,
>;
type WithShape<T> = <<<T as CopyTiling>::LayoutTv as RightInverse>::Output as CompositionOut<
    TilerLayout<T>,
>>::Output;
type ThreadsOf<T> = SizeT<Shape0<<T as CopyTiling>::LayoutTv>>;
/// `V:_1` (CuTe's `make_layout(V)`).
type Line<V> = Layout<V, <V as Compact<C<1>>>::Left>;
/// `(atom values, rest values) -> (v, m, n)`.
type FrgV<T, V> = <Line<NumValOf<<T as CopyTiling>::Atom>> as ZipDivideParts<
    <<FrgMn<T, V> as RightInverse>::Output as crate::algebra::ProductParts<Line<V>>>::Logical,
>>::Zipped;
/// The fragment's tiler `(V, M', N')`: V, then each mode of [`FrgMn`].
type FrgTiler<T, V> = <crate::typelevel::tuple::Cons<
    V,
    <<<FrgMn<T, V> as LayoutParts>::Shape as AsModes>::Modes as ProductEach>::Out,
> as IntoTuple>::Tuple;
type Retiled<L, T, V> = <<FrgTiler<T, V> as ZipDivideParts<L>>::Zipped as CompositionOut<(
    FrgV<T, V>,
    Underscore,
)>>::Output;
/// The first mode's size of a layout.
type Mode0Size<L> = SizeT<Shape0<L>>;

/// A fragment layout `L` seen in a tiled copy `T`'s value order (CuTe's
/// `retile`): `((atom values, rest values), rest modes...)`.
#[doc(hidden)]
pub trait Retile<T> {
    type Out: Copy;
    fn retile(self) -> Result<Self::Out, crate::LayoutError>;
}
impl<L, T> Retile<T> for L
where
    T: CopyTiling,
    L: Copy + LayoutParts,
    L::Shape: Congruent<L::Stride> + Mode<0>,
    Shape0<L>: IntTuple<Leaves: SizeList<C<1>>>,
    Mode0Size<L>: IntTuple + Compact<C<1>> + Congruent<<Mode0Size<L> as Compact<C<1>>>::Left>,
    NumValOf<T::Atom>: Compact<C<1>> + Congruent<<NumValOf<T::Atom> as Compact<C<1>>>::Left>,
    <T::LayoutTv as LayoutParts>::Shape: Mode<0>,
    T::LayoutTv: LayoutParts + RightInverse,
    Shape0<T::LayoutTv>: IntTuple<Leaves: SizeList<C<1>>>,
    TilerOfCopy<T>: Compact<C<1>> + Congruent<<TilerOfCopy<T> as Compact<C<1>>>::Left>,
    <T::LayoutTv as RightInverse>::Output: Composition<TilerLayout<T>>,
    WithShape<T>: LayoutParts,
    (ThreadsOf<T>, Mode0Size<L>): crate::typelevel::arith::LMul,
    <WithShape<T> as LayoutParts>::Shape:
        MapPairs<<WithShape<T> as LayoutParts>::Stride, UpcastBy<MulT<ThreadsOf<T>, Mode0Size<L>>>>,
    FrgMn<T, Mode0Size<L>>: LayoutParts + RightInverse,
    <FrgMn<T, Mode0Size<L>> as RightInverse>::Output:
        crate::algebra::ProductParts<Line<Mode0Size<L>>>,
    Line<NumValOf<T::Atom>>: ZipDivideParts<
        <<FrgMn<T, Mode0Size<L>> as RightInverse>::Output as crate::algebra::ProductParts<
            Line<Mode0Size<L>>,
        >>::Logical,
    >,
    FrgV<T, Mode0Size<L>>: Copy + Default,
    <FrgMn<T, Mode0Size<L>> as LayoutParts>::Shape: AsModes<Modes: ProductEach>,
    crate::typelevel::tuple::Cons<
        Mode0Size<L>,
        <<<FrgMn<T, Mode0Size<L>> as LayoutParts>::Shape as AsModes>::Modes as ProductEach>::Out,
    >: IntoTuple,
    FrgTiler<T, Mode0Size<L>>: ZipDivideParts<L> + Default,
    <FrgTiler<T, Mode0Size<L>> as ZipDivideParts<L>>::Zipped:
        crate::algebra::StaticResult + Composition<(FrgV<T, Mode0Size<L>>, Underscore)>,
    Retiled<L, T, Mode0Size<L>>: RestSlice,
{
    type Out = <Retiled<L, T, Mode0Size<L>> as RestSlice>::Out;
    #[inline(always)]
    fn retile(self) -> Result<Self::Out, crate::LayoutError> {
        let tiled =
            crate::algebra::divide::zipped_parts(self, FrgTiler::<T, Mode0Size<L>>::default())?;
        let v = crate::algebra::try_composition(
            tiled,
            (FrgV::<T, Mode0Size<L>>::default(), Underscore),
        )?;
        Ok(v.rest_slice())
    }
}

/// `(values, (rest...))` sliced at rest coordinate `(0, _, ...)`:
/// `(values, rest modes but the first...)`.
#[doc(hidden)]
pub trait RestSlice {
    type Out: Copy;
    fn rest_slice(self) -> Self::Out;
}
type RestCrd<R> = (Underscore, <R as FirstFixed>::Crd);
impl<F, R, FD, RD> RestSlice for Layout<(F, R), (FD, RD)>
where
    (F, R): Congruent<(FD, RD)>,
    (FD, RD): IntTuple,
    R: FirstFixed,
    RestCrd<R>:
        crate::layout::slice::SliceCoord<(F, R)> + crate::layout::slice::SliceCoord<(FD, RD)>,
    <RestCrd<R> as crate::layout::slice::SliceCoord<(F, R)>>::Sliced:
        Congruent<<RestCrd<R> as crate::layout::slice::SliceCoord<(FD, RD)>>::Sliced>,
    <RestCrd<R> as crate::layout::slice::SliceCoord<(FD, RD)>>::Sliced: IntTuple,
{
    type Out = Layout<
        <RestCrd<R> as crate::layout::slice::SliceCoord<(F, R)>>::Sliced,
        <RestCrd<R> as crate::layout::slice::SliceCoord<(FD, RD)>>::Sliced,
    >;
    #[inline(always)]
    fn rest_slice(self) -> Self::Out {
        crate::layout::slice::slice((Underscore, R::Crd::default()), self)
    }
}
