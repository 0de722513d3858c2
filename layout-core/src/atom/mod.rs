//! Thread-value layouts of MMA and copy instructions, as static layout
//! types.
//!
//! A thread-value layout maps `(thread, value)` to a position in the
//! instruction's tile, numbered column-major: `q = m + M*k` for the A operand.
//! The traits are here; the atoms are in one file per architecture
//! ([`universal`], [`sm75`], [`sm80`], [`sm90`]), a tiled MMA in [`mma`], a tiled copy
//! in [`tiled_copy`].

pub mod accumulator;
pub mod gmma;
pub mod mma;
pub mod sm75;
pub mod sm80;
pub mod sm90;
pub mod tiled_copy;
pub mod universal;

// The atoms by their CuTe names, whatever their architecture.
pub use sm75::*;
pub use sm80::*;
pub use sm90::*;
pub use universal::*;

use crate::typelevel::int::C;

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
