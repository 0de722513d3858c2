//! SM80 (Ampere) atoms: the `mma.sync.m16n8k16` tensor-core MMAs and the
//! 16-byte `cp.async` copy.

use super::{CopyAtom, MmaAtom};
use crate::layout_type;

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
