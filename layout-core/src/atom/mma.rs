//! CuTe's `TiledMMA`: an MMA atom (one instruction's thread-value layouts,
//! [`crate::atom`]) repeated over a layout of atoms (warps, say) and an
//! optional permutation of each of M, N and K. It partitions the A, B and C
//! tiles of a GEMM among the threads: [`TiledMma::get_layout_c_tv`] says which
//! thread holds which element, [`ThrMma::partition_c`] gives a thread its
//! elements of a tensor.
//!
//! Everything here is static: the atom, the atom layout and the permutation
//! are types, and so are the thread-value layouts. The tensors partitioned
//! may be static or mixed (run-time M, N).
//!
//! ```
//! use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN;
//! use layout_core::{layout, atom::mma::make_tiled_mma, to_cute_string, Underscore as X};
//! // 2x2 warps of the 16x8x16 tensor-core atom: a 32x16x16 tile, 128 threads.
//! let mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, layout!((2,2,1):(1,2,0)), (X, X, X));
//! assert_eq!(to_cute_string(&mma.tile_size()), "(_32,_16,_16)");
//! assert_eq!(mma.thr_layout_vmnk().to_string(), "(_32,_2,_2,_1):(_1,_32,_64,_0)");
//! assert_eq!(mma.get_layout_c_tv().to_string(),
//!            "((_4,_8,_2,_2),((_2,_2),(_1,_1))):((_64,_1,_16,_256),((_32,_8),(_0,_0)))");
//! ```

use crate::algebra::composition::CompositionOut;
use crate::algebra::{
    Composition, DivideParts, LayoutParts, ProductParts, RightInverse, StaticResult, Unpack,
    ZipDivideParts, ZipProductParts,
};
use crate::atom::MmaAtom;
use crate::layout::compact::Compact;
use crate::layout::coord::Underscore;
use crate::layout::{Congruent, Layout};
use crate::tensor::partition::{check_divides, refused, ThreadLayout};
use crate::tensor::Tensor;
use crate::typelevel::arith::{LMul, Leaf, MulT};
use crate::typelevel::int::C;
use crate::typelevel::list::{SizeList, SizeT};
use crate::typelevel::tuple::IntTuple;
use core::marker::PhantomData;

/// An MMA atom tiled over an atom layout `L` (rank 3: M, N, K) with a
/// permutation `P` (a 3-tuple of `_`, static integers or static layouts).
pub struct TiledMma<A, L, P>(PhantomData<(A, L, P)>);
impl<A, L, P> Clone for TiledMma<A, L, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A, L, P> Copy for TiledMma<A, L, P> {}
impl<A, L, P> Default for TiledMma<A, L, P> {
    fn default() -> Self {
        TiledMma(PhantomData)
    }
}

/// CuTe's `make_tiled_mma(atom, atom_layout, permutation)`. The atom layout
/// is rank 3 over (M, N, K), each mode a static integer or a static layout
/// of its own (which atom of the mode each block of threads takes: a SIMT
/// GEMM lays a warp's 32 threads out as a 4 x 8 block of its grid so);
/// the permutation has one entry per mode: `_` (the atoms' own extent), a
/// static integer `n` (the layout `n:_1`) or a static layout that reorders
/// the mode before it is tiled.
///
/// ```
/// use layout_core::atom::{SM80_16x8x16_F32F16F16F32_TN as Sm80, UniversalFMA};
/// use layout_core::{layout, atom::mma::make_tiled_mma, C, Underscore as X};
/// // 2 x 2 atoms over (M, N), then a 32 x 32 x 16 tile (CuTe prints these).
/// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (C::<32>, C::<32>, C::<16>));
/// assert_eq!(mma.thr_layout_vmnk().to_string(), "(_32,_2,_2,_1):(_1,_32,_64,_0)");
/// assert_eq!(layout_core::to_cute_string(&mma.tile_size()), "(_32,_32,_16)");
/// let plain = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
/// assert_eq!(plain.size().to_string(), "_128");
/// // 16 x 16 FMA threads, each warp a 4 x 8 block: thread 37 is at
/// // (m, n) = (1 + 4, 1).
/// let warps = make_tiled_mma(UniversalFMA, layout!(((4,4),(8,2),1):((1,32),(4,128),0)), (X, X, X));
/// assert_eq!(warps.thr_layout_vmnk().to_string(),
///            "(_1,(_4,_4),(_8,_2),_1):(_0,(_1,_32),(_4,_128),_0)");
/// assert_eq!(warps.get_slice(37).thr_vmnk(), (0, 5, 1, 0));
/// ```
///
/// A static permutation is checked when a partition divides a static
/// tensor by it: one that does not divide the tensor is a type error at
/// the partition's call (`cargo check` reports it):
///
/// ```compile_fail,E0277
/// use layout_core::atom::{mma::make_tiled_mma, UniversalFMA};
/// use layout_core::{layout, Tensor, Underscore as X};
/// let mma = make_tiled_mma(UniversalFMA, layout!((1,1,1):(0,0,0)), (layout!(3:1), X, X));
/// let data = [0f32; 32];
/// let a = Tensor::new(&data[..], layout!(((4,2),4):((1,16),4))).unwrap();
/// // error: logical_divide: the tiler does not divide A: stride _3 of the
/// // divisor's mode _4:_3 does not divide, and is not divided by, A's mode
/// // 0 of size _4
/// let _ = mma.get_slice(0).partition_a(a);
/// ```
pub fn make_tiled_mma<A: MmaAtom, L: Copy + Default, P: Copy + Default>(
    _atom: A,
    _atom_layout: L,
    _permutation: P,
) -> TiledMma<A, L, P> {
    TiledMma(PhantomData)
}

/// One entry of the permutation, made concrete: `_` becomes the atoms'
/// extent `Dflt` (CuTe's `permutation_mnk<I>()`); its size is the tile size.
#[doc(hidden)]
pub trait PermMode<Dflt> {
    type Out: Copy + Default;
    type Size: Leaf;
}
impl<Dflt: Leaf> PermMode<Dflt> for Underscore {
    type Out = Dflt;
    type Size = Dflt;
}
impl<Dflt, const N: usize> PermMode<Dflt> for C<N>
where
    C<N>: Leaf,
{
    type Out = C<N>;
    type Size = C<N>;
}
impl<Dflt, S: Congruent<D> + Default, D: IntTuple + Default> PermMode<Dflt> for Layout<S, D>
where
    S::Leaves: crate::typelevel::list::SizeList<C<1>>,
    SizeT<S>: Leaf,
{
    type Out = Layout<S, D>;
    type Size = SizeT<S>;
}

/// The sizes of the four modes (V, M, N, K) of the thread layout
/// `tiled_product(ThrID, atom layout)`, as leaf types. A mode may be nested
/// (an atom layout such as `((4,4),(8,2),1)` lays the threads of a warp
/// out as a 4 x 8 block); the tiling uses its size, as CuTe's
/// `size<I>(thr_layout_vmnk)`.
#[doc(hidden)]
pub trait Vmnk {
    type V: Leaf;
    type M: Extent;
    type N: Extent;
    type K: Extent;
}
impl<V: Leaf, M, N, K, D0, D1, D2, D3> Vmnk for Layout<(V, M, N, K), (D0, D1, D2, D3)>
where
    M: IntTuple<Leaves: SizeList<C<1>>>,
    N: IntTuple<Leaves: SizeList<C<1>>>,
    K: IntTuple<Leaves: SizeList<C<1>>>,
    SizeT<M>: Extent,
    SizeT<N>: Extent,
    SizeT<K>: Extent,
{
    type V = V;
    type M = SizeT<M>;
    type N = SizeT<N>;
    type K = SizeT<K>;
}

/// The atom's (M, N, K) as leaf types.
#[doc(hidden)]
pub trait Mnk {
    type M: Extent;
    type N: Extent;
    type K: Extent;
}
impl<M: Extent, N: Extent, K: Extent> Mnk for (M, N, K) {
    type M = M;
    type N = N;
    type K = K;
}

/// The thread layout of a tiled MMA: `(V, M, N, K) -> thread index`.
pub type ThrLayoutVmnk<A, L> =
    <<L as ZipProductParts<<A as MmaAtom>::ThrID>>::Zipped as Unpack>::Tiled;

/// The types a tiled MMA is made of, computed once.
pub trait MmaTiling: Copy + Default {
    /// The atom.
    type Atom: MmaAtom<ShapeMNK: Mnk>;
    /// [`TiledMma::thr_layout_vmnk`]'s type.
    type Vmnk: Copy
        + Default
        + Vmnk
        + ThreadLayout<Coord = (usize, usize, usize, usize)>
        + crate::error::NoteText;
    /// The concrete permutation of M (N, K): `_` made the atoms' extent.
    type PermM: Copy + Default;
    /// See [`MmaTiling::PermM`].
    type PermN: Copy + Default;
    /// See [`MmaTiling::PermM`].
    type PermK: Copy + Default;
    /// The tile size in M (N, K).
    type TileM: Leaf;
    /// See [`MmaTiling::TileM`].
    type TileN: Leaf;
    /// See [`MmaTiling::TileM`].
    type TileK: Leaf;
}

/// A static tile extent's value.
const fn tile_value<T: Leaf>() -> usize {
    match T::STATIC {
        Some(v) => v,
        None => panic!("a tiled MMA's tile is static"),
    }
}

type AtomM<A> = <<A as MmaAtom>::ShapeMNK as Mnk>::M;
type AtomN<A> = <<A as MmaAtom>::ShapeMNK as Mnk>::N;
type AtomK<A> = <<A as MmaAtom>::ShapeMNK as Mnk>::K;
type VM<A, L> = <ThrLayoutVmnk<A, L> as Vmnk>::M;
type VN<A, L> = <ThrLayoutVmnk<A, L> as Vmnk>::N;
type VK<A, L> = <ThrLayoutVmnk<A, L> as Vmnk>::K;

impl<A, L, P0, P1, P2> MmaTiling for TiledMma<A, L, (P0, P1, P2)>
where
    A: MmaAtom,
    A::ThrID: LayoutParts,
    <A::ThrID as LayoutParts>::Shape: Congruent<<A::ThrID as LayoutParts>::Stride>,
    A::ShapeMNK: Mnk,
    L: ProductParts<A::ThrID> + ZipProductParts<A::ThrID>,
    <L as ZipProductParts<A::ThrID>>::Zipped: Unpack,
    ThrLayoutVmnk<A, L>: StaticResult
        + Copy
        + Default
        + Vmnk
        + ThreadLayout<Coord = (usize, usize, usize, usize)>
        + crate::error::NoteText,
    (AtomM<A>, VM<A, L>): LMul,
    (AtomN<A>, VN<A, L>): LMul,
    (AtomK<A>, VK<A, L>): LMul,
    P0: PermMode<MulT<AtomM<A>, VM<A, L>>>,
    P1: PermMode<MulT<AtomN<A>, VN<A, L>>>,
    P2: PermMode<MulT<AtomK<A>, VK<A, L>>>,
{
    type Atom = A;
    type Vmnk = ThrLayoutVmnk<A, L>;
    type PermM = <P0 as PermMode<MulT<AtomM<A>, VM<A, L>>>>::Out;
    type PermN = <P1 as PermMode<MulT<AtomN<A>, VN<A, L>>>>::Out;
    type PermK = <P2 as PermMode<MulT<AtomK<A>, VK<A, L>>>>::Out;
    type TileM = <P0 as PermMode<MulT<AtomM<A>, VM<A, L>>>>::Size;
    type TileN = <P1 as PermMode<MulT<AtomN<A>, VN<A, L>>>>::Size;
    type TileK = <P2 as PermMode<MulT<AtomK<A>, VK<A, L>>>>::Size;
}

/// CuTe's `thrfrg_X`: a layout `(X, Y, ...)` reordered by the permutation
/// `P`, tiled by the atom `T`, its atom mode made `(thread, value)` by the
/// atom's layout `V`, then tiled by the threads `H`:
/// `((ThrV, (ThrX, ThrY)), (FrgV, (RestX, RestY, ...)))`.
#[doc(hidden)]
pub trait ThrFrg<P, T, V, H>: Sized {
    type Out;
    /// The layout, or why run-time leaves make a step inadmissible.
    fn try_thrfrg(self, p: P, t: T, v: V, h: H) -> Result<Self::Out, crate::LayoutError>;
}
type Permuted<L, P> = <P as DivideParts<L>>::Logical;
type AtomTiled<L, P, T> = <T as ZipDivideParts<Permuted<L, P>>>::Zipped;
type TvTiled<L, P, T, V> = <AtomTiled<L, P, T> as CompositionOut<(V, Underscore)>>::Output;
impl<L, P, T, V, H> ThrFrg<P, T, V, H> for L
where
    L: LayoutParts,
    L::Shape: Congruent<L::Stride>,
    P: DivideParts<L>,
    // A static permutation that does not divide the tensor is a type error
    // (`cargo check` sees it at the partition's call).
    <P as DivideParts<L>>::Verdict: crate::algebra::admits::Holds<crate::algebra::admits::DivideOp>,
    Permuted<L, P>: StaticResult + LayoutParts,
    <Permuted<L, P> as LayoutParts>::Shape: Congruent<<Permuted<L, P> as LayoutParts>::Stride>,
    T: ZipDivideParts<Permuted<L, P>>,
    AtomTiled<L, P, T>: StaticResult + Composition<(V, Underscore)>,
    TvTiled<L, P, T, V>: LayoutParts,
    <TvTiled<L, P, T, V> as LayoutParts>::Shape:
        Congruent<<TvTiled<L, P, T, V> as LayoutParts>::Stride>,
    H: ZipDivideParts<TvTiled<L, P, T, V>>,
    <H as ZipDivideParts<TvTiled<L, P, T, V>>>::Zipped: StaticResult,
{
    type Out = <H as ZipDivideParts<TvTiled<L, P, T, V>>>::Zipped;
    #[inline(always)]
    fn try_thrfrg(self, p: P, t: T, v: V, h: H) -> Result<Self::Out, crate::LayoutError> {
        let permuted = crate::algebra::divide::logical_parts(self, p)?;
        let atoms = crate::algebra::divide::zipped_parts(permuted, t)?;
        let tv = crate::algebra::try_composition(atoms, (v, Underscore))?;
        crate::algebra::divide::zipped_parts(tv, h)
    }
}

/// A static extent `n` and CuTe's `make_layout(n)` of it (compact, so a
/// size-1 extent has stride `_0`).
#[doc(hidden)]
pub trait Extent: Leaf {
    type Layout: Copy;
    fn layout() -> Self::Layout;
}
impl<X: Leaf + Compact<C<1>> + Congruent<<X as Compact<C<1>>>::Left>> Extent for X {
    type Layout = Layout<X, <X as Compact<C<1>>>::Left>;
    fn layout() -> Self::Layout {
        crate::layout::compact::make_layout_left(X::default())
    }
}
type Compact1<X> = <X as Extent>::Layout;
type AtomTile<X, Y> = (Compact1<X>, Compact1<Y>);
type ThrTile<X, Y> = (Underscore, (Compact1<X>, Compact1<Y>));

type AtomOf<T> = <T as MmaTiling>::Atom;
type VmnkOf<T> = <T as MmaTiling>::Vmnk;
type ThrM<T> = <VmnkOf<T> as Vmnk>::M;
type ThrN<T> = <VmnkOf<T> as Vmnk>::N;
type ThrK<T> = <VmnkOf<T> as Vmnk>::K;

/// The operands of a GEMM as types: [`TiledMma`] and
/// [`make_tiled_copy_a`](crate::atom::tiled_copy::make_tiled_copy_a) and its
/// siblings read what differs between A, B and C from [`Operand`], written
/// once per operand below.
#[derive(Clone, Copy, Debug, Default)]
pub struct OperandA;
/// See [`OperandA`].
#[derive(Clone, Copy, Debug, Default)]
pub struct OperandB;
/// See [`OperandA`].
#[derive(Clone, Copy, Debug, Default)]
pub struct OperandC;

/// What one operand takes of a tiled MMA `T`: the two modes of (M, N, K) it
/// spans (A: M and K, B: N and K, C: M and N), so their permutations, the
/// atom's extents and thread-value layout for it, the thread counts and the
/// tile extents, and where a thread's `(v, m, n, k)` puts it.
#[doc(hidden)]
pub trait Operand<T: MmaTiling> {
    /// The permutations of its two modes.
    type Perm: Copy + Default;
    /// The atom's extents in its two modes, as compact layouts.
    type Atom: Copy;
    /// The atom's thread-value layout of this operand.
    type AtomTv: Copy + Default;
    /// `(_, (threads in its two modes))`, as compact layouts.
    type Thr: Copy;
    /// The tile's extent in its first mode.
    type TileX: Leaf;
    /// The tile's extent in its second mode.
    type TileY: Leaf;
    /// The tile's two extents.
    const TILE: (usize, usize) = (tile_value::<Self::TileX>(), tile_value::<Self::TileY>());
    /// CuTe's name of its partition (`partition_A`).
    const PARTITION: &'static str;
    /// [`Operand::Atom`]'s value.
    fn atom() -> Self::Atom;
    /// [`Operand::Thr`]'s value.
    fn thr() -> Self::Thr;
    /// The thread's coordinates in its two modes, from `(v, m, n, k)`.
    fn thr_coord(vmnk: (usize, usize, usize, usize)) -> (usize, usize);
}
macro_rules! operand {
    ($op:ident, $name:literal, [$x:ident, $y:ident], [$px:ident, $py:ident], [$ax:ident, $ay:ident], [$tx:ident, $ty:ident], $tv:ident, |$c:ident| $crd:expr) => {
        impl<T: MmaTiling> Operand<T> for $op
        where
            $ax<AtomOf<T>>: Extent,
            $ay<AtomOf<T>>: Extent,
            $tx<T>: Extent,
            $ty<T>: Extent,
        {
            type Perm = (T::$px, T::$py);
            type Atom = AtomTile<$ax<AtomOf<T>>, $ay<AtomOf<T>>>;
            type AtomTv = <AtomOf<T> as MmaAtom>::$tv;
            type Thr = ThrTile<$tx<T>, $ty<T>>;
            type TileX = T::$x;
            type TileY = T::$y;
            const PARTITION: &'static str = $name;
            #[inline(always)]
            fn atom() -> Self::Atom {
                (
                    <$ax<AtomOf<T>> as Extent>::layout(),
                    <$ay<AtomOf<T>> as Extent>::layout(),
                )
            }
            #[inline(always)]
            fn thr() -> Self::Thr {
                (
                    Underscore,
                    (<$tx<T> as Extent>::layout(), <$ty<T> as Extent>::layout()),
                )
            }
            #[inline(always)]
            fn thr_coord($c: (usize, usize, usize, usize)) -> (usize, usize) {
                $crd
            }
        }
    };
}
operand!(
    OperandA,
    "partition_A",
    [TileM, TileK],
    [PermM, PermK],
    [AtomM, AtomK],
    [ThrM, ThrK],
    ALayout,
    |c| (c.1, c.3)
);
operand!(
    OperandB,
    "partition_B",
    [TileN, TileK],
    [PermN, PermK],
    [AtomN, AtomK],
    [ThrN, ThrK],
    BLayout,
    |c| (c.2, c.3)
);
operand!(
    OperandC,
    "partition_C",
    [TileM, TileN],
    [PermM, PermN],
    [AtomM, AtomN],
    [ThrM, ThrN],
    CLayout,
    |c| (c.1, c.2)
);

/// CuTe's `thrfrg_X` of a layout for operand `X` of the tiled MMA `T`.
#[doc(hidden)]
pub trait FrgOf<X, T>: Sized {
    /// The layout `((ThrV, (ThrX, ThrY)), (FrgV, (RestX, RestY, ...)))`.
    type Out;
    /// The layout, or why run-time leaves make a step inadmissible.
    fn try_frg(self) -> Result<Self::Out, crate::LayoutError>;
}
impl<X: Operand<T>, T: MmaTiling, L: ThrFrg<X::Perm, X::Atom, X::AtomTv, X::Thr>> FrgOf<X, T>
    for L
{
    type Out = <L as ThrFrg<X::Perm, X::Atom, X::AtomTv, X::Thr>>::Out;
    #[inline(always)]
    fn try_frg(self) -> Result<Self::Out, crate::LayoutError> {
        self.try_thrfrg(Default::default(), X::atom(), Default::default(), X::thr())
    }
}
/// `thrfrg_X`'s result for operand `X` and a layout `L`.
pub type Frg<X, T, L> = <L as FrgOf<X, T>>::Out;
/// `thrfrg_C`'s result for a layout `L`.
pub type FrgC<T, L> = Frg<OperandC, T, L>;
/// `thrfrg_A`'s result for a layout `L`.
pub type FrgA<T, L> = Frg<OperandA, T, L>;
/// `thrfrg_B`'s result for a layout `L`.
pub type FrgB<T, L> = Frg<OperandB, T, L>;

/// `thr_idx -> (V, M, N, K)`: the right inverse of the thread layout.
type ThrIdx<T> = <VmnkOf<T> as ThrInverse>::Out;
/// The column-major reference layout of an operand's tile.
type RefLayout<X, Y> = Layout<(X, Y), <(X, Y) as Compact<C<1>>>::Left>;
/// `(ThrV, (ThrM, ThrK)) -> (ThrV, (ThrM, ThrN, ThrK))` and the same for B.
type ATile<T> = (
    Underscore,
    (Layout<(ThrM<T>, ThrN<T>), (C<1>, C<0>)>, Underscore),
);
type BTile<T> = (
    Underscore,
    (Layout<(ThrM<T>, ThrN<T>), (C<0>, C<1>)>, Underscore),
);

/// `get_layoutC_TV`'s type.
pub type LayoutCTv<T> = <T as OperandTv<OperandC>>::Tv;
/// `get_layoutA_TV`'s type.
pub type LayoutATv<T> = <T as OperandTv<OperandA>>::Tv;
/// `get_layoutB_TV`'s type.
pub type LayoutBTv<T> = <T as OperandTv<OperandB>>::Tv;

/// CuTe's `thrfrg_X` of one operand as a method of the tiled MMA (the
/// panicking form over the `try_` one), from that operand's names: its
/// permutation modes, the atom's extents, the atom's TV layout, the thread
/// modes.
macro_rules! thrfrg_fns {
    ($(#[$doc:meta])* $name:ident, $try:ident, $op:ident, $static_shape:literal, $shape:literal) => {
        $(#[$doc])*
        #[inline(always)]
        #[track_caller]
        pub fn $name<Lx: FrgOf<$op, Self>>(self, l: Lx) -> Frg<$op, Self, Lx> {
            crate::algebra::values::or_panic(self.$try(l))
        }
        #[doc = concat!("[`TiledMma::", stringify!($name), "`], or why run-time leaves of the layout make a step inadmissible.")]
        ///
        /// ```
        /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
        /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
        /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
        #[doc = concat!("assert!(mma.", stringify!($try), "(layout!(", $static_shape, ")).is_ok());")]
        /// // A run-time extent: the divisions are checked when they run.
        /// let m = 64;
        #[doc = concat!("assert!(mma.", stringify!($try), "(layout!(", $shape, ")).is_ok());")]
        /// ```
        #[inline(always)]
        pub fn $try<Lx: FrgOf<$op, Self>>(self, l: Lx) -> Result<Frg<$op, Self, Lx>, crate::LayoutError> {
            l.try_frg()
        }
    };
}

impl<A, L, P> TiledMma<A, L, P>
where
    Self: MmaTiling,
{
    /// CuTe's `get_thr_layout_vmnk()`: `tiled_product(ThrID, atom layout)`,
    /// `(V, M, N, K) -> thread index`.
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
    /// // CuTe prints the same for this TiledMMA.
    /// assert_eq!(mma.thr_layout_vmnk().to_string(), "(_32,_2,_2,_1):(_1,_32,_64,_0)");
    /// ```
    pub fn thr_layout_vmnk(self) -> ThrLayoutVmnk<A, L>
    where
        A: MmaAtom,
        A::ThrID: LayoutParts,
        <A::ThrID as LayoutParts>::Shape: Congruent<<A::ThrID as LayoutParts>::Stride>,
        L: Default + ProductParts<A::ThrID> + ZipProductParts<A::ThrID>,
        <L as ZipProductParts<A::ThrID>>::Zipped: Unpack,
        ThrLayoutVmnk<A, L>: StaticResult,
    {
        crate::algebra::values::or_panic(crate::algebra::product::zipped_product_parts(
            A::ThrID::default(),
            L::default(),
            Unpack::tiled,
        ))
    }
    /// The number of threads (CuTe's `size(tiled_mma)`), a static integer.
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
    /// assert_eq!(mma.size().to_string(), "_128");
    /// ```
    pub fn size(self) -> SizeT<<VmnkOf<Self> as LayoutParts>::Shape>
    where
        VmnkOf<Self>: LayoutParts,
        <<VmnkOf<Self> as LayoutParts>::Shape as IntTuple>::Leaves:
            crate::typelevel::list::SizeList<C<1>>,
        SizeT<<VmnkOf<Self> as LayoutParts>::Shape>: Default,
    {
        Default::default()
    }
    /// CuTe's `(tile_size_mnk<0>(), tile_size_mnk<1>(), tile_size_mnk<2>())`:
    /// the M x N x K tile one step of the tiled MMA covers.
    ///
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((1,2,1):(0,1,0)), (X, X, X));
    /// // CuTe prints the same: two 16x8x16 atoms side by side in N.
    /// assert_eq!(layout_core::to_cute_string(&mma.tile_size()), "(_16,_16,_16)");
    /// ```
    pub fn tile_size(
        self,
    ) -> (
        <Self as MmaTiling>::TileM,
        <Self as MmaTiling>::TileN,
        <Self as MmaTiling>::TileK,
    )
    where
        (
            <Self as MmaTiling>::TileM,
            <Self as MmaTiling>::TileN,
            <Self as MmaTiling>::TileK,
        ): IntTuple,
    {
        Default::default()
    }
    thrfrg_fns!(
        /// CuTe's `thrfrg_C(layout)`: an `(M, N, ...)` layout as
        /// `((ThrV, (ThrM, ThrN)), (FrgV, (RestM, RestN, ...)))`.
        ///
        /// ```
        /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
        /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
        /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
        /// // CuTe prints the same for a row-major 64 x 32 C.
        /// assert_eq!(mma.thrfrg_c(layout!((64,32):(32,1))).to_string(),
        ///            "(((_4,_8),(_2,_2)),((_2,_2),(_2,_2))):(((_2,_32),(_512,_8)),((_1,_256),(_1024,_16)))");
        /// ```
        thrfrg_c, try_thrfrg_c, OperandC, "(64,32):(32,1)", "(m,32):(32,1)"
    );
    thrfrg_fns!(
        /// CuTe's `thrfrg_A(layout)`: an `(M, K, ...)` layout as
        /// `((ThrV, (ThrM, ThrK)), (FrgV, (RestM, RestK, ...)))`.
        /// ```
        /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
        /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
        /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
        /// // CuTe prints the same for a row-major 64 x 32 A.
        /// assert_eq!(mma.thrfrg_a(layout!((64,32):(32,1))).to_string(),
        ///            "(((_4,_8),(_2,_1)),((_2,_2,_2),(_2,_2))):(((_2,_32),(_512,_0)),((_1,_256,_8),(_1024,_16)))");
        /// ```
        thrfrg_a, try_thrfrg_a, OperandA, "(64,32):(32,1)", "(m,32):(32,1)"
    );
    thrfrg_fns!(
        /// CuTe's `thrfrg_B(layout)`: an `(N, K, ...)` layout as
        /// `((ThrV, (ThrN, ThrK)), (FrgV, (RestN, RestK, ...)))`.
        ///
        /// ```
        /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
        /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
        /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
        /// // CuTe prints the same for a row-major 32 x 64 B.
        /// assert_eq!(mma.thrfrg_b(layout!((32,64):(64,1))).to_string(),
        ///            "(((_4,_8),(_2,_1)),((_2,_2),(_2,_4))):(((_2,_64),(_512,_0)),((_1,_8),(_1024,_16)))");
        /// ```
        thrfrg_b, try_thrfrg_b, OperandB, "(32,64):(64,1)", "(m,64):(64,1)"
    );
    /// CuTe's `get_layoutC_TV()`: `(thread index, value) -> (m, n)` in the
    /// column-major M x N tile.
    ///
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
    /// // CuTe prints the same.
    /// assert_eq!(mma.get_layout_c_tv().to_string(),
    ///            "((_4,_8,_2,_2),((_2,_2),(_1,_1))):((_64,_1,_16,_256),((_32,_8),(_0,_0)))");
    /// ```
    pub fn get_layout_c_tv(self) -> <Self as OperandTv<OperandC>>::Tv
    where
        Self: OperandTv<OperandC>,
    {
        OperandTv::<OperandC>::tv(self)
    }
    /// CuTe's `get_layoutA_TV()`: `(thread index, value) -> (m, k)` in the
    /// column-major M x K tile.
    ///
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((2,1,1):(1,0,0)), (X, X, X));
    /// // CuTe prints the same.
    /// assert_eq!(mma.get_layout_a_tv().to_string(),
    ///            "((_4,_8,_2),((_2,_2,_2),(_1,_1))):((_64,_1,_16),((_32,_8,_256),(_0,_0)))");
    /// ```
    pub fn get_layout_a_tv(self) -> <Self as OperandTv<OperandA>>::Tv
    where
        Self: OperandTv<OperandA>,
    {
        OperandTv::<OperandA>::tv(self)
    }
    /// CuTe's `get_layoutB_TV()`: `(thread index, value) -> (n, k)` in the
    /// column-major N x K tile.
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
    /// assert_eq!(mma.get_layout_b_tv().to_string(),
    ///            "((_4,_8,_2,_2),((_2,_2),(_1,_1))):((_32,_1,_0,_8),((_16,_128),(_0,_0)))");
    /// ```
    pub fn get_layout_b_tv(self) -> <Self as OperandTv<OperandB>>::Tv
    where
        Self: OperandTv<OperandB>,
    {
        OperandTv::<OperandB>::tv(self)
    }
}

/// `right_inverse` of the thread layout (`thread index -> (V, M, N, K)`).
#[doc(hidden)]
pub trait ThrInverse {
    type Out: Copy + Default;
    fn thr_inverse(self) -> Self::Out;
}
impl<S: Congruent<D>, D: IntTuple> ThrInverse for Layout<S, D>
where
    Layout<S, D>: RightInverse,
    <Layout<S, D> as RightInverse>::Output: Default + Copy,
{
    type Out = <Layout<S, D> as RightInverse>::Output;
    fn thr_inverse(self) -> Self::Out {
        crate::algebra::right_inverse(self)
    }
}

/// A TiledMMA's thread-value layout of operand `X` and that operand's tile
/// (`(M, K)` for A, `(N, K)` for B, `(M, N)` for C), where the layout
/// exists: what `get_layout{A,B,C}_TV` compute and `make_tiled_copy_{a,b,c}`
/// ([`crate::atom::tiled_copy`]) tile by.
#[doc(hidden)]
pub trait OperandTv<X> {
    type Tv: Copy + Default;
    type Tile: Copy + Default;
    /// The thread-value layout.
    fn tv(self) -> Self::Tv;
}
/// How `thrfrg_X`'s thread mode `(ThrV, (ThrX, ThrY))` of operand `X`
/// becomes `(ThrV, (ThrM, ThrN, ThrK))`, the thread layout's modes: A and
/// B stretch theirs over the mode they do not span (stride 0), C's is
/// already in order.
#[doc(hidden)]
pub trait ToVmnk<T, F> {
    type Out;
    fn to_vmnk(f: F) -> Self::Out;
}
impl<T: MmaTiling, F> ToVmnk<T, F> for OperandC {
    type Out = F;
    #[inline(always)]
    fn to_vmnk(f: F) -> F {
        f
    }
}
impl<T: MmaTiling, F: Composition<(ATile<T>, Underscore)>> ToVmnk<T, F> for OperandA {
    type Out = F::Output;
    #[inline(always)]
    fn to_vmnk(f: F) -> F::Output {
        crate::algebra::composition(f, (ATile::<T>::default(), Underscore))
    }
}
impl<T: MmaTiling, F: Composition<(BTile<T>, Underscore)>> ToVmnk<T, F> for OperandB {
    type Out = F::Output;
    #[inline(always)]
    fn to_vmnk(f: F) -> F::Output {
        crate::algebra::composition(f, (BTile::<T>::default(), Underscore))
    }
}
/// The column-major reference tile of operand `X`.
type RefTile<X, T> = RefLayout<<X as Operand<T>>::TileX, <X as Operand<T>>::TileY>;
/// Operand `X`'s thread mode in the thread layout's modes.
type VmnkFrg<X, T> = <X as ToVmnk<T, Frg<X, T, RefTile<X, T>>>>::Out;
impl<A, L, P, X> OperandTv<X> for TiledMma<A, L, P>
where
    Self: MmaTiling,
    X: Operand<Self> + ToVmnk<Self, Frg<X, Self, RefTile<X, Self>>>,
    (X::TileX, X::TileY):
        Compact<C<1>> + Congruent<<(X::TileX, X::TileY) as Compact<C<1>>>::Left> + Copy + Default,
    RefTile<X, Self>: FrgOf<X, Self>,
    VmnkOf<Self>: ThrInverse,
    VmnkFrg<X, Self>: Composition<(ThrIdx<Self>, Underscore)>,
    <VmnkFrg<X, Self> as CompositionOut<(ThrIdx<Self>, Underscore)>>::Output: Copy + Default,
{
    type Tv = <VmnkFrg<X, Self> as CompositionOut<(ThrIdx<Self>, Underscore)>>::Output;
    type Tile = (X::TileX, X::TileY);
    fn tv(self) -> Self::Tv {
        let r: RefTile<X, Self> = crate::layout::compact::make_layout_left(Default::default());
        let frg = crate::algebra::values::or_panic(r.try_frg());
        // Thread ids to thread indices.
        crate::algebra::composition(
            X::to_vmnk(frg),
            (VmnkOf::<Self>::default().thr_inverse(), Underscore),
        )
    }
}

/// Thread `thr_idx` of a tiled MMA (CuTe's `ThrMMA`): partitions the A, B
/// and C tensors of a GEMM tile into the elements this thread holds.
#[derive(Clone, Copy, Debug)]
pub struct ThrMma<T> {
    mma: PhantomData<T>,
    vmnk: (usize, usize, usize, usize),
}

impl<A, L, P> TiledMma<A, L, P>
where
    Self: MmaTiling,
{
    /// CuTe's `get_slice(thr_idx)`: the thread's coordinate `(v, m, n, k)`
    /// in [`TiledMma::thr_layout_vmnk`].
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
    /// let data = [0u16; 64 * 32];
    /// let a = layout_core::Tensor::new(&data[..], layout!((64,32):(32,1))).unwrap();
    /// // Thread 5's share of a row-major 64 x 32 A, as CuTe's partition_A.
    /// let p = mma.get_slice(5).partition_a(a.view());
    /// assert_eq!(p.layout().to_string(), "((_2,_2,_2),_2,_2):((_1,_256,_8),_1024,_16)");
    /// assert_eq!(p.data_offset(), 34);
    /// assert_eq!(mma.get_slice(63).partition_a(a).data_offset(), 742);
    /// ```
    ///
    /// # Panics
    ///
    /// When `thr_idx` is not below the thread count ([`TiledMma::try_get_slice`]
    /// returns the error instead).
    #[track_caller]
    pub fn get_slice(self, thr_idx: usize) -> ThrMma<Self> {
        crate::algebra::values::or_panic(self.try_get_slice(thr_idx))
    }
    /// [`TiledMma::get_slice`], or the error when `thr_idx` is not below the
    /// thread count.
    ///
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
    /// // 128 threads: (_32,_2,_2,_1):(_1,_32,_64,_0) puts thread 127 at (31,1,1,0).
    /// assert_eq!(mma.try_get_slice(127).unwrap().thr_vmnk(), (31, 1, 1, 0));
    /// assert!(mma.try_get_slice(128).is_err());
    /// ```
    pub fn try_get_slice(self, thr_idx: usize) -> Result<ThrMma<Self>, crate::LayoutError> {
        let thr = VmnkOf::<Self>::default();
        let vmnk = thr.thread_coord(thr_idx).ok_or_else(|| {
            crate::tensor::partition::thread_outside(
                "get_slice",
                thr_idx,
                crate::error::Threads::TiledMma,
                Some(crate::error::Note::value(&thr)),
                thr.thread_count(),
            )
        })?;
        Ok(ThrMma {
            mma: PhantomData,
            vmnk,
        })
    }
}

/// A `thrfrg_X` layout `((ThrV, (ThrX, ThrY)), (FrgV, Rest))` sliced at
/// thread `(v, (x, y))`: `(FrgV, rest modes...)` and the offset.
#[doc(hidden)]
pub trait ThrSlice {
    type Out: Copy;
    fn thr_slice(self, v: usize, x: usize, y: usize) -> Option<(Self::Out, usize)>;
}
type ThrCrd<R> = (
    (usize, (usize, usize)),
    (Underscore, <R as crate::layout::slice::RepeatUnder>::Out),
);
impl<T0, F0, R, D0, E0, RD> ThrSlice for Layout<(T0, (F0, R)), (D0, (E0, RD))>
where
    (T0, (F0, R)): Congruent<(D0, (E0, RD))>,
    (D0, (E0, RD)): IntTuple,
    R: crate::layout::slice::RepeatUnder,
    ThrCrd<R>: crate::layout::slice::SliceCoord<(T0, (F0, R))>
        + crate::layout::slice::SliceCoord<(D0, (E0, RD))>
        + crate::layout::coord::Crd2Idx<(T0, (F0, R)), (D0, (E0, RD))>,
    <ThrCrd<R> as crate::layout::slice::SliceCoord<(T0, (F0, R))>>::Sliced:
        Congruent<<ThrCrd<R> as crate::layout::slice::SliceCoord<(D0, (E0, RD))>>::Sliced>,
    <ThrCrd<R> as crate::layout::slice::SliceCoord<(D0, (E0, RD))>>::Sliced: IntTuple,
{
    type Out = Layout<
        <ThrCrd<R> as crate::layout::slice::SliceCoord<(T0, (F0, R))>>::Sliced,
        <ThrCrd<R> as crate::layout::slice::SliceCoord<(D0, (E0, RD))>>::Sliced,
    >;
    #[inline(always)]
    fn thr_slice(self, v: usize, x: usize, y: usize) -> Option<(Self::Out, usize)> {
        use crate::layout::coord::Crd2Idx;
        let c: ThrCrd<R> = ((v, (x, y)), (Underscore, Default::default()));
        if !c.in_shape(self.shape()) {
            return None;
        }
        Some(crate::layout::slice::slice_and_offset(c, self))
    }
}

/// The layout of `partition_C` of a tensor of layout `L`.
pub type PartC<T, L> = Part<OperandC, T, L>;
/// The layout of `partition_A` of a tensor of layout `L`.
pub type PartA<T, L> = Part<OperandA, T, L>;
/// The layout of `partition_B` of a tensor of layout `L`.
pub type PartB<T, L> = Part<OperandB, T, L>;

impl<T: MmaTiling> ThrMma<T> {
    /// The thread's coordinate `(v, m, n, k)` in the thread layout.
    ///
    /// ```
    /// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Sm80;
    /// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X};
    /// let mma = make_tiled_mma(Sm80, layout!((2,2,1):(1,2,0)), (X, X, X));
    /// // Thread 37 in (_32,_2,_2,_1):(_1,_32,_64,_0): v = 37 % 32, m = 37 / 32.
    /// assert_eq!(mma.get_slice(37).thr_vmnk(), (5, 1, 0, 0));
    /// ```
    pub fn thr_vmnk(&self) -> (usize, usize, usize, usize) {
        self.vmnk
    }
}

impl<T: MmaTiling> ThrMma<T> {
    /// Operand `X`'s partition of `t` (the one algorithm behind
    /// `partition_{a,b,c}`): `thrfrg_X` of its layout sliced at the thread.
    #[inline(always)]
    fn try_partition<X: Operand<T>, E, Lt>(
        self,
        t: Tensor<E, Lt>,
    ) -> Result<Tensor<E, Part<X, T, Lt>>, crate::LayoutError>
    where
        Lt: Copy + LayoutParts + FrgOf<X, T>,
        Frg<X, T, Lt>: ThrSlice,
    {
        let l = *t.layout_ref();
        // CuTe partitions past the tensor when the tile does not divide
        // it; refused here.
        let (x, y) = crate::layout::ops::mode_sizes_2(&l.parts().0);
        check_divides(X::TILE.0, x, 0)?;
        check_divides(X::TILE.1, y, 1)?;
        let frg = l
            .try_frg()
            .map_err(|e| crate::tensor::partition::renamed(e, X::PARTITION))?;
        let (tx, ty) = X::thr_coord(self.vmnk);
        let (l, off) = frg
            .thr_slice(self.vmnk.0, tx, ty)
            .ok_or(refused(X::PARTITION))?;
        Ok(t.rebase(l, off))
    }
}

/// The layout of operand `X`'s partition of a tensor of layout `L`.
pub type Part<X, T, L> = <Frg<X, T, L> as ThrSlice>::Out;

/// `partition_X`, `try_partition_X` and `partition_fragment_X` of one
/// operand, with that operand's words.
macro_rules! partition_fns {
    ($name:ident, $try:ident, $frag:ident, $op:ident, $cute:literal, $doc:literal) => {
        impl<T: MmaTiling> ThrMma<T> {
            #[doc = concat!("CuTe's `", $cute, "(tensor)`: ", $doc)]
            ///
            /// # Panics
            ///
            /// When the thread's coordinate lies outside the partition (the
            /// tiled MMA's tile does not divide the tensor: CuTe would address
            /// elements past it), or run-time leaves make the division
            /// inadmissible.
            #[inline(always)]
            #[track_caller]
            pub fn $name<E, Lt>(self, t: Tensor<E, Lt>) -> Tensor<E, Part<$op, T, Lt>>
            where
                Lt: Copy + LayoutParts + FrgOf<$op, T>,
                Frg<$op, T, Lt>: ThrSlice,
                $op: Operand<T>,
            {
                crate::algebra::values::or_panic(self.$try(t))
            }
            #[doc = concat!("[`ThrMma::", stringify!($name), "`], returning the reason instead of panicking.")]
            #[inline(always)]
            pub fn $try<E, Lt>(
                self,
                t: Tensor<E, Lt>,
            ) -> Result<Tensor<E, Part<$op, T, Lt>>, crate::LayoutError>
            where
                Lt: Copy + LayoutParts + FrgOf<$op, T>,
                Frg<$op, T, Lt>: ThrSlice,
                $op: Operand<T>,
            {
                self.try_partition::<$op, E, Lt>(t)
            }
            #[doc = concat!("CuTe's `", $cute, "` made a register fragment (`partition_fragment_", stringify!($frag), "`): a [`crate::tensor::fragment::Fragment`] of `make_fragment_like` of the partition's layout (static shape and strides: partition a static tile).")]
            ///
            /// # Panics
            ///
            #[doc = concat!("As [`ThrMma::", stringify!($name), "`].")]
            #[inline(always)]
            #[track_caller]
            pub fn $frag<V: Default, E, Lt>(
                self,
                t: Tensor<E, Lt>,
            ) -> crate::tensor::fragment::Fragment<V, <Part<$op, T, Lt> as crate::tensor::fragment::FragmentLike>::Out>
            where
                Lt: Copy + LayoutParts + FrgOf<$op, T>,
                Frg<$op, T, Lt>: ThrSlice,
                $op: Operand<T>,
                Part<$op, T, Lt>: crate::tensor::fragment::FragmentLike,
            {
                crate::tensor::fragment::make_fragment_like(self.$name(t).layout_value())
            }
        }
    };
}
partition_fns!(
    partition_c,
    try_partition_c,
    partition_fragment_c,
    OperandC,
    "partition_C",
    "the `(FrgV, RestM, RestN, ...)` elements of an `(M, N, ...)` tensor this thread holds."
);
partition_fns!(
    partition_a,
    try_partition_a,
    partition_fragment_a,
    OperandA,
    "partition_A",
    "the `(FrgV, RestM, RestK, ...)` elements of an `(M, K, ...)` tensor this thread holds."
);
partition_fns!(
    partition_b,
    try_partition_b,
    partition_fragment_b,
    OperandB,
    "partition_B",
    "the `(FrgV, RestN, RestK, ...)` elements of an `(N, K, ...)` tensor this thread holds."
);

/// CuTe's `print(tiled_mma)`.
///
/// ```
/// use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN;
/// use layout_core::{layout, atom::mma::make_tiled_mma, Underscore as X, C};
/// let mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, layout!((2,2,1):(1,2,0)), (C::<32>, C::<32>, C::<16>));
/// assert!(mma.to_string().starts_with("TiledMMA\n  ThrLayoutVMNK:  (_32,_2,_2,_1):(_1,_32,_64,_0)\n  PermutationMNK: (_32,_32,_16)\n"));
/// ```
impl<A, L, P> core::fmt::Display for TiledMma<A, L, P>
where
    Self: MmaTiling,
    VmnkOf<Self>: core::fmt::Display,
    P: Default + crate::layout::print::TilerText,
    A::ThrID: core::fmt::Display,
    A::ShapeMNK: IntTuple,
    A::ALayout: core::fmt::Display,
    A::BLayout: core::fmt::Display,
    A::CLayout: core::fmt::Display,
    A: MmaAtom,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "TiledMMA")?;
        writeln!(f, "  ThrLayoutVMNK:  {}", VmnkOf::<Self>::default())?;
        f.write_str("  PermutationMNK: ")?;
        P::default().write_tiler(f)?;
        writeln!(f)?;
        writeln!(f, "MMA_Atom")?;
        writeln!(f, "  ThrID:      {}", A::ThrID::default())?;
        f.write_str("  Shape_MNK:  ")?;
        A::ShapeMNK::default().write_cute(f)?;
        writeln!(f)?;
        writeln!(f, "  LayoutA_TV: {}", A::ALayout::default())?;
        writeln!(f, "  LayoutB_TV: {}", A::BLayout::default())?;
        writeln!(f, "  LayoutC_TV: {}", A::CLayout::default())
    }
}
