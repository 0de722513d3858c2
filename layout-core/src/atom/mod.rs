//! Thread-value layouts of MMA and copy instructions, as static layout
//! types.
//!
//! A thread-value layout maps `(thread, value)` to a position in the
//! instruction's tile, numbered column-major: `q = m + M*k` for the A operand.

pub mod mma;
pub mod tiled_copy;

use crate::layout::Layout;
use crate::layout_type;
use crate::typelevel::int::C;
use core::marker::PhantomData;

/// The SM80 `mma.sync.m16n8k16` with f16 inputs and f32 accumulators
/// (CuTe's `SM80_16x8x16_F32F16F16F32_TN`): one warp of 32 threads.
///
/// ```
/// use layout_core::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN as Mma};
/// let a = <Mma as MmaAtom>::ALayout::default();
/// assert_eq!(a.to_string(), "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))");
/// // Lane 0's value 1 is A(0,1): q = 0 + 16*1.
/// assert_eq!(a.crd2idx((0usize, 1usize)), 16);
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM80_16x8x16_F32F16F16F32_TN;

/// An MMA instruction's layouts, as CuTe's `MMA_Traits` give them.
pub trait MmaAtom {
    /// Thread ids of the participating threads.
    type ThrID: Default + Copy;
    /// The instruction's (M, N, K).
    type ShapeMNK: Default + Copy;
    /// (thread, value) -> position in the M x K tile of A.
    type ALayout: Default + Copy;
    /// (thread, value) -> position in the N x K tile of B.
    type BLayout: Default + Copy;
    /// (thread, value) -> position in the M x N tile of C.
    type CLayout: Default + Copy;
}

impl MmaAtom for SM80_16x8x16_F32F16F16F32_TN {
    type ThrID = layout_type!(32:1);
    type ShapeMNK = (crate::C<16>, crate::C<8>, crate::C<16>);
    type ALayout = layout_type!(((4,8),(2,2,2)):((32,1),(16,8,128)));
    type BLayout = layout_type!(((4,8),(2,2)):((16,1),(8,64)));
    type CLayout = layout_type!(((4,8),(2,2)):((32,1),(16,8)));
}

/// The SM80 `mma.sync.m16n8k16` with f16 inputs and f16 accumulators
/// (CuTe's `SM80_16x8x16_F16F16F16F16_TN`): the same thread-value layouts as
/// the f32-accumulator atom; a C value holds an f16.
///
/// ```
/// use layout_core::atom::{MmaAtom, SM80_16x8x16_F16F16F16F16_TN as Mma};
/// assert_eq!(<Mma as MmaAtom>::CLayout::default().to_string(), "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM80_16x8x16_F16F16F16F16_TN;

impl MmaAtom for SM80_16x8x16_F16F16F16F16_TN {
    type ThrID = <SM80_16x8x16_F32F16F16F32_TN as MmaAtom>::ThrID;
    type ShapeMNK = <SM80_16x8x16_F32F16F16F32_TN as MmaAtom>::ShapeMNK;
    type ALayout = <SM80_16x8x16_F32F16F16F32_TN as MmaAtom>::ALayout;
    type BLayout = <SM80_16x8x16_F32F16F16F32_TN as MmaAtom>::BLayout;
    type CLayout = <SM80_16x8x16_F32F16F16F32_TN as MmaAtom>::CLayout;
}

/// One thread, one multiply-add (CuTe's `UniversalFMA`): a 1 x 1 x 1 atom,
/// the building block of a CPU or SIMT GEMM's `TiledMma`.
///
/// ```
/// use layout_core::atom::{MmaAtom, UniversalFMA};
/// use layout_core::{layout, atom::mma::make_tiled_mma, to_cute_string, Underscore as X};
/// assert_eq!(<UniversalFMA as MmaAtom>::ALayout::default().to_string(), "(_1,_1):(_0,_0)");
/// // 16 x 16 threads, each one multiply-add per step: a 16 x 16 x 1 tile.
/// let mma = make_tiled_mma(UniversalFMA, layout!((16,16,1):(1,16,0)), (X, X, X));
/// assert_eq!(to_cute_string(&mma.tile_size()), "(_16,_16,_1)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct UniversalFMA;

impl MmaAtom for UniversalFMA {
    type ThrID = layout_type!(1:0);
    type ShapeMNK = (crate::C<1>, crate::C<1>, crate::C<1>);
    type ALayout = layout_type!((1,1):(0,0));
    type BLayout = layout_type!((1,1):(0,0));
    type CLayout = layout_type!((1,1):(0,0));
}

/// A copy instruction's layouts, as CuTe's `Copy_Traits` give them: which
/// bits each thread of the instruction reads and receives.
pub trait CopyAtom {
    /// Thread ids of the participating threads.
    type ThrID: Default + Copy;
    /// (source thread, source bit) -> bit of the copied block.
    type SrcLayout: Default + Copy;
    /// (destination thread, destination bit) -> bit of the copied block.
    type DstLayout: Default + Copy;
    /// The reference `(thread, bit)` order a tiled copy's thread-value
    /// layout is written in: the source's, or for `ldmatrix` the
    /// destination's (CuTe's `RefLayout`).
    type RefLayout: Default + Copy;
}

/// A type a copy moves, by its width in bits (CuTe's `sizeof_bits`): the
/// copy atoms' bit layouts are read in units of it.
pub trait CopyValue: Copy {
    /// The width in bits, as a static integer.
    type Bits: crate::typelevel::int::StaticInt;
}
macro_rules! copy_value {
    ($($t:ty = $n:literal),*) => {$(
        impl CopyValue for $t {
            type Bits = C<$n>;
        }
    )*};
}
copy_value!(
    u8 = 8,
    i8 = 8,
    u16 = 16,
    i16 = 16,
    u32 = 32,
    i32 = 32,
    f32 = 32,
    u64 = 64,
    i64 = 64,
    f64 = 64,
    u128 = 128,
    i128 = 128
);

/// One thread copies one value of type `S` (CuTe's `UniversalCopy<S>`):
/// `UniversalCopy<u128>` is a 16-byte vector load or store.
///
/// ```
/// use layout_core::atom::{CopyAtom, UniversalCopy};
/// assert_eq!(<UniversalCopy<u128> as CopyAtom>::SrcLayout::default().to_string(), "(_1,_128):(_0,_1)");
/// ```
#[derive(Debug)]
pub struct UniversalCopy<S>(PhantomData<S>);
impl<S> Clone for UniversalCopy<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for UniversalCopy<S> {}
impl<S> Default for UniversalCopy<S> {
    fn default() -> Self {
        UniversalCopy(PhantomData)
    }
}

impl<S: CopyValue> CopyAtom for UniversalCopy<S> {
    type ThrID = layout_type!(1:0);
    type SrcLayout = Layout<(C<1>, S::Bits), (C<0>, C<1>)>;
    type DstLayout = Layout<(C<1>, S::Bits), (C<0>, C<1>)>;
    type RefLayout = Layout<(C<1>, S::Bits), (C<0>, C<1>)>;
}

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (CuTe's `SM75_U32x4_LDSM_N`):
/// four 8 x 8 matrices of 16-bit values; each of the 32 threads gives the
/// address of one 128-bit row and receives four 32-bit registers, register
/// r holding matrix r's row `thread / 4`, values `2 (thread % 4)` and `+1`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U32x4_LDSM_N as Ldsm};
/// let dst = <Ldsm as CopyAtom>::DstLayout::default();
/// assert_eq!(dst.to_string(), "(_32,(_32,_4)):(_32,(_1,_1024))");
/// // Thread 5, register 2: matrix 2 (bit 2048), row 1 (bit 128), the
/// // second 32-bit pair of the row.
/// assert_eq!(dst.crd2idx((5usize, (0usize, 2usize))), 2048 + 160);
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U32x4_LDSM_N;

impl CopyAtom for SM75_U32x4_LDSM_N {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!((32,128):(128,1));
    type DstLayout = layout_type!((32,(32,4)):(32,(1,1024)));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x2.shared.b16` (CuTe's `SM75_U32x2_LDSM_N`):
/// two 8 x 8 matrices; threads 0-15 give the row addresses (threads 16-31
/// repeat them), each thread receives two registers.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U32x2_LDSM_N as Ldsm};
/// assert_eq!(<Ldsm as CopyAtom>::SrcLayout::default().to_string(), "((_16,_2),_128):((_128,_0),_1)");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U32x2_LDSM_N;

impl CopyAtom for SM75_U32x2_LDSM_N {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!(((16,2),128):((128,0),1));
    type DstLayout = layout_type!((32,(32,2)):(32,(1,1024)));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x1.shared.b16` (CuTe's `SM75_U32x1_LDSM_N`):
/// one 8 x 8 matrix; threads 0-7 give the row addresses (the others repeat
/// them), each thread receives one register: row `thread / 4`, values
/// `2 (thread % 4)` and `+1`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U32x1_LDSM_N as Ldsm};
/// assert_eq!(<Ldsm as CopyAtom>::SrcLayout::default().to_string(), "((_8,_4),_128):((_128,_0),_1)");
/// assert_eq!(<Ldsm as CopyAtom>::DstLayout::default().to_string(), "(_32,_32):(_32,_1)");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U32x1_LDSM_N;

impl CopyAtom for SM75_U32x1_LDSM_N {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!(((8,4),128):((128,0),1));
    type DstLayout = layout_type!((32,32):(32,1));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16` (CuTe's
/// `SM75_U16x2_LDSM_T`): one 8 x 8 matrix, transposed on the way: thread
/// `t`'s register holds column `t / 4` of rows `2 (t % 4)` and `+1`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U16x2_LDSM_T as Ldsm};
/// let dst = <Ldsm as CopyAtom>::DstLayout::default();
/// assert_eq!(dst.to_string(), "((_4,_8),(_16,_2)):((_256,_16),(_1,_128))");
/// // Thread 6 = (2, 1), high half: row 2 * 2 + 1 (bit 640), column 1 (bit 16).
/// assert_eq!(dst.crd2idx(((2usize, 1usize), (0usize, 1usize))), 656);
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U16x2_LDSM_T;

impl CopyAtom for SM75_U16x2_LDSM_T {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!(((8,4),128):((128,0),1));
    type DstLayout = layout_type!(((4,8),(16,2)):((256,16),(1,128)));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16` (CuTe's
/// `SM75_U16x4_LDSM_T`): two 8 x 8 matrices transposed, register `r` from
/// matrix `r`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U16x4_LDSM_T as Ldsm};
/// let dst = <Ldsm as CopyAtom>::DstLayout::default();
/// assert_eq!(dst.to_string(), "((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U16x4_LDSM_T;

impl CopyAtom for SM75_U16x4_LDSM_T {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!(((16,2),128):((128,0),1));
    type DstLayout = layout_type!(((4,8),(16,2,2)):((256,16),(1,128,1024)));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16` (CuTe's
/// `SM75_U16x8_LDSM_T`): four 8 x 8 matrices transposed, register `r` from
/// matrix `r`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U16x8_LDSM_T as Ldsm};
/// let dst = <Ldsm as CopyAtom>::DstLayout::default();
/// assert_eq!(dst.to_string(), "((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U16x8_LDSM_T;

impl CopyAtom for SM75_U16x8_LDSM_T {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!((32,128):(128,1));
    type DstLayout = layout_type!(((4,8),(16,2,4)):((256,16),(1,128,1024)));
    type RefLayout = Self::DstLayout;
}

/// `cp.async.cg.shared.global` of 16 bytes (CuTe's
/// `SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>`): one thread copies 128 bits
/// from global to shared memory without passing through registers.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM80_CP_ASYNC_CACHEGLOBAL_U128 as Cp};
/// assert_eq!(<Cp as CopyAtom>::DstLayout::default().to_string(), "(_1,_128):(_0,_1)");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM80_CP_ASYNC_CACHEGLOBAL_U128;

impl CopyAtom for SM80_CP_ASYNC_CACHEGLOBAL_U128 {
    type ThrID = layout_type!(1:0);
    type SrcLayout = layout_type!((1,128):(0,1));
    type DstLayout = layout_type!((1,128):(0,1));
    type RefLayout = Self::SrcLayout;
}
