//! The instructions behind the atoms of `layout_core::atom`: each atom
//! type says which registers a thread gives and receives, in the order of
//! the atom's thread-value layouts, and (on the GPU) executes.
//!
//! A thread's values of an operand, in the value order of the atom's
//! layout (`ALayout`'s second mode for A), go into registers two 16-bit
//! values per register, value `2r` in the low half of register `r`
//! ([`pack_halves`]): what a `TiledMma` partition of a tile gives a thread
//! (`partition_A`, value by value) feeds [`MmaInstr::mma`] directly. The
//! register counts are checked against the layouts by this crate's tests.

use layout_core::atom::{
    CopyAtom, MmaAtom, SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x1_LDSM_N,
    SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN,
    SM80_16x8x16_F32F16F16F32_TN,
};

/// An MMA atom the GPU executes: the registers each thread gives for A,
/// B and C and receives for D.
pub trait MmaInstr: MmaAtom {
    /// A's values of one thread, packed.
    type ARegs: Copy;
    /// B's values of one thread, packed.
    type BRegs: Copy;
    /// C's (and D's) values of one thread.
    type CRegs: Copy;
    /// D = A·B + C, executed by the whole warp together.
    fn mma(a: Self::ARegs, b: Self::BRegs, c: Self::CRegs) -> Self::CRegs;
}

impl MmaInstr for SM80_16x8x16_F32F16F16F32_TN {
    type ARegs = [u32; 4];
    type BRegs = [u32; 2];
    type CRegs = [f32; 4];
    #[inline(always)]
    fn mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        crate::hw::mma_m16n8k16_f32(a, b, c)
    }
}

impl MmaInstr for SM80_16x8x16_F16F16F16F16_TN {
    type ARegs = [u32; 4];
    type BRegs = [u32; 2];
    type CRegs = [u32; 2];
    #[inline(always)]
    fn mma(a: [u32; 4], b: [u32; 2], c: [u32; 2]) -> [u32; 2] {
        crate::hw::mma_m16n8k16_f16(a, b, c)
    }
}

/// A copy atom that the GPU executes from shared memory into registers
/// (`ldmatrix`): each lane gives the address of one row of 8 halves and
/// receives `Regs`, laid out as the atom's `DstLayout`.
pub trait LdsmInstr: CopyAtom {
    /// The registers each lane receives.
    type Regs: Copy;
    /// The copy, the row this lane names at word `i` of the window `src`
    /// (16-byte aligned), executed by the whole warp together.
    fn ldsm(src: crate::Smem, i: usize) -> Self::Regs;
}

macro_rules! ldsm {
    ($($atom:ty => $regs:ty, $f:ident;)*) => {$(
        impl LdsmInstr for $atom {
            type Regs = $regs;
            #[inline(always)]
            fn ldsm(src: crate::Smem, i: usize) -> $regs {
                src.$f(i)
            }
        }
    )*};
}

ldsm! {
    SM75_U32x1_LDSM_N => u32, ldmatrix_x1;
    SM75_U32x2_LDSM_N => [u32; 2], ldmatrix_x2;
    SM75_U32x4_LDSM_N => [u32; 4], ldmatrix_x4;
    SM75_U16x2_LDSM_T => u32, ldmatrix_x1_trans;
    SM75_U16x4_LDSM_T => [u32; 2], ldmatrix_x2_trans;
    SM75_U16x8_LDSM_T => [u32; 4], ldmatrix_x4_trans;
}

/// Two 16-bit values (f16 bits) per register, value `2r` in the low half
/// of register `r`: an operand's values in the atom's order, as the
/// instruction takes them.
///
/// ```
/// use layout_device::pack_halves;
/// assert_eq!(pack_halves([0x1111, 0x2222, 0x3333, 0x4444]), [0x2222_1111, 0x4444_3333]);
/// ```
#[inline(always)]
pub fn pack_halves<const V: usize, const R: usize>(v: [u16; V]) -> [u32; R] {
    const { assert!(V == 2 * R, "two halves per register") };
    core::array::from_fn(|r| v[2 * r] as u32 | (v[2 * r + 1] as u32) << 16)
}

/// The inverse of [`pack_halves`].
///
/// ```
/// use layout_device::unpack_halves;
/// assert_eq!(unpack_halves::<2, 4>([0x2222_1111, 0x4444_3333]), [0x1111, 0x2222, 0x3333, 0x4444]);
/// ```
#[inline(always)]
pub fn unpack_halves<const R: usize, const V: usize>(r: [u32; R]) -> [u16; V] {
    const { assert!(V == 2 * R, "two halves per register") };
    core::array::from_fn(|v| (r[v / 2] >> (16 * (v % 2))) as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout_core::{Congruent, IntTuple, Layout};

    /// The values one thread holds in a thread-value layout: its size over
    /// the thread count (mode 0's size).
    fn per_thread<S: Congruent<D>, D: IntTuple>(l: Layout<S, D>) -> usize {
        l.size() / l.shape().mode_size(0)
    }

    /// Bits of a register array.
    fn bits<T>() -> usize {
        8 * core::mem::size_of::<T>()
    }

    /// Each MMA atom's registers hold exactly one thread's values of its
    /// layouts (f16 A and B; f32 or f16 C).
    #[test]
    fn mma_registers_hold_a_threads_values() {
        type F32 = SM80_16x8x16_F32F16F16F32_TN;
        type F16 = SM80_16x8x16_F16F16F16F16_TN;
        let (a, b, c) = (
            per_thread(<F32 as MmaAtom>::ALayout::default()),
            per_thread(<F32 as MmaAtom>::BLayout::default()),
            per_thread(<F32 as MmaAtom>::CLayout::default()),
        );
        assert_eq!((a, b, c), (8, 4, 4));
        assert_eq!(a * 16, bits::<<F32 as MmaInstr>::ARegs>());
        assert_eq!(b * 16, bits::<<F32 as MmaInstr>::BRegs>());
        assert_eq!(c * 32, bits::<<F32 as MmaInstr>::CRegs>());
        assert_eq!(a * 16, bits::<<F16 as MmaInstr>::ARegs>());
        assert_eq!(b * 16, bits::<<F16 as MmaInstr>::BRegs>());
        assert_eq!(c * 16, bits::<<F16 as MmaInstr>::CRegs>());
    }

    /// Each `ldmatrix` atom's registers hold one lane's bits of its
    /// destination layout (the copy layouts count bits).
    #[test]
    fn ldsm_registers_hold_a_lanes_bits() {
        macro_rules! check {
            ($($atom:ty),*) => {$(
                assert_eq!(
                    per_thread(<$atom as CopyAtom>::DstLayout::default()),
                    bits::<<$atom as LdsmInstr>::Regs>(),
                    stringify!($atom)
                );
            )*};
        }
        check!(
            SM75_U32x1_LDSM_N,
            SM75_U32x2_LDSM_N,
            SM75_U32x4_LDSM_N,
            SM75_U16x2_LDSM_T,
            SM75_U16x4_LDSM_T,
            SM75_U16x8_LDSM_T
        );
    }
}
