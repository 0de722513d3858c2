//! SM90 (Hopper) atoms: the warpgroup MMAs (`wgmma.mma_async`, CuTe's
//! GMMA), for every N a GEMM tile uses, with both operands in shared
//! memory (`_SS`) or A in registers (`_RS`).
//!
//! A GMMA is issued by a warpgroup of 128 threads. An `_SS` atom's A and B
//! layouts map every thread to the whole operand tile (stride 0 over
//! threads): the operands are read from shared memory through matrix
//! descriptors, not held by threads. An `_RS` atom's A is 8 halves per
//! thread (four 32-bit registers) in the C layout's pattern of a 64 x 16
//! tile (CuTe's `ALayout_64x16`), which is why an accumulator can become
//! the next GMMA's A without moving (`accumulator::acc_as_a`). Its C layout is where each thread's accumulators lie
//! in the 64 x N tile: thread `t` holds rows `16 (t / 32) + (t % 32) / 4`
//! and that plus 8, two adjacent columns per 8-column block.

use super::MmaAtom;
use crate::layout_type;

/// One atom: its type, with a doctest printing its C layout.
macro_rules! gmma_item {
    ($name:ident, $what:literal, $n:tt, $n8:tt) => {
        gmma_item!(@ $name, $what, $n, $n8, "A and B K-major in shared memory", "SS<Major::K, Major::K>",
            "(_128,(_64,_16)):(_0,(_1,_64))", layout_type!((128,(64,16)):(0,(1,64))));
    };
    (rs $name:ident, $what:literal, $n:tt, $n8:tt) => {
        gmma_item!(@ $name, $what, $n, $n8,
            "A in registers (8 halves a thread), B in shared memory", "RS<Major::K, B's major>",
            "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))",
            layout_type!(((4,8,4),(2,2,2)):((128,1,16),(64,8,512))));
    };
    (@ $name:ident, $what:literal, $n:tt, $n8:tt, $operands:literal, $cute:literal, $a_text:literal, $a:ty) => {
        #[doc = concat!(
            "The warpgroup MMA `wgmma.mma_async.sync.aligned.m64n", stringify!($n),
            "k16` with ", $what, ", ", $operands, " (CuTe's `",
            stringify!($name), "`, `SM90::GMMA::MMA_64x", stringify!($n),
            "x16_..._", $cute, "`): 128 threads, a 64 x ", stringify!($n),
            " x 16 tile.\n\n```\nuse layout_core::atom::{MmaAtom, ", stringify!($name), " as Mma};\n",
            "let c = <Mma as MmaAtom>::CLayout::default();\n",
            "assert_eq!(c.to_string(), \"((_4,_8,_4),(_2,_2,_", stringify!($n8),
            ")):((_128,_1,_16),(_64,_8,_512))\");\n",
            "// Thread 37 (warp 1, lane 5), its first value: row 16 + 5 / 4 = 17,\n",
            "// column 2 · (5 % 4) = 2; C is numbered column-major, q = m + 64 n.\n",
            "assert_eq!(c.crd2idx((37usize, 0usize)), 17 + 64 * 2);\n",
            "assert_eq!(<Mma as MmaAtom>::ALayout::default().to_string(), \"", $a_text, "\");\n",
            "assert_eq!(<Mma as MmaAtom>::BLayout::default().to_string(), \"(_128,(_",
            stringify!($n), ",_16)):(_0,(_1,_", stringify!($n), "))\");\n```"
        )]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        impl MmaAtom for $name {
            type ThrID = layout_type!(128:1);
            type ShapeMNK = (crate::C<64>, crate::C<$n>, crate::C<16>);
            type ALayout = $a;
            type BLayout = layout_type!((128,($n,16)):(0,(1,$n)));
            type CLayout = layout_type!(((4,8,4),(2,2,$n8)):((128,1,16),(64,8,512)));
        }
    };
}

macro_rules! gmma_names {
    ($($n:tt / $n8:tt: $f32:ident, $f16:ident, $bf16:ident;)*) => {$(
        gmma_item!($f32, "f16 inputs and f32 accumulators", $n, $n8);
        gmma_item!($f16, "f16 inputs and f16 accumulators", $n, $n8);
        gmma_item!($bf16, "bf16 inputs and f32 accumulators", $n, $n8);
    )*};
}

gmma_names! {
    8 / 1: SM90_64x8x16_F32F16F16_SS, SM90_64x8x16_F16F16F16_SS, SM90_64x8x16_F32BF16BF16_SS;
    16 / 2: SM90_64x16x16_F32F16F16_SS, SM90_64x16x16_F16F16F16_SS, SM90_64x16x16_F32BF16BF16_SS;
    32 / 4: SM90_64x32x16_F32F16F16_SS, SM90_64x32x16_F16F16F16_SS, SM90_64x32x16_F32BF16BF16_SS;
    64 / 8: SM90_64x64x16_F32F16F16_SS, SM90_64x64x16_F16F16F16_SS, SM90_64x64x16_F32BF16BF16_SS;
    96 / 12: SM90_64x96x16_F32F16F16_SS, SM90_64x96x16_F16F16F16_SS, SM90_64x96x16_F32BF16BF16_SS;
    128 / 16: SM90_64x128x16_F32F16F16_SS, SM90_64x128x16_F16F16F16_SS, SM90_64x128x16_F32BF16BF16_SS;
    192 / 24: SM90_64x192x16_F32F16F16_SS, SM90_64x192x16_F16F16F16_SS, SM90_64x192x16_F32BF16BF16_SS;
    256 / 32: SM90_64x256x16_F32F16F16_SS, SM90_64x256x16_F16F16F16_SS, SM90_64x256x16_F32BF16BF16_SS;
}

macro_rules! gmma_rs_names {
    ($($n:tt / $n8:tt: $f32:ident, $f16:ident, $bf16:ident;)*) => {$(
        gmma_item!(rs $f32, "f16 inputs and f32 accumulators", $n, $n8);
        gmma_item!(rs $f16, "f16 inputs and f16 accumulators", $n, $n8);
        gmma_item!(rs $bf16, "bf16 inputs and f32 accumulators", $n, $n8);
    )*};
}

gmma_rs_names! {
    8 / 1: SM90_64x8x16_F32F16F16_RS, SM90_64x8x16_F16F16F16_RS, SM90_64x8x16_F32BF16BF16_RS;
    16 / 2: SM90_64x16x16_F32F16F16_RS, SM90_64x16x16_F16F16F16_RS, SM90_64x16x16_F32BF16BF16_RS;
    32 / 4: SM90_64x32x16_F32F16F16_RS, SM90_64x32x16_F16F16F16_RS, SM90_64x32x16_F32BF16BF16_RS;
    64 / 8: SM90_64x64x16_F32F16F16_RS, SM90_64x64x16_F16F16F16_RS, SM90_64x64x16_F32BF16BF16_RS;
    96 / 12: SM90_64x96x16_F32F16F16_RS, SM90_64x96x16_F16F16F16_RS, SM90_64x96x16_F32BF16BF16_RS;
    128 / 16: SM90_64x128x16_F32F16F16_RS, SM90_64x128x16_F16F16F16_RS, SM90_64x128x16_F32BF16BF16_RS;
    192 / 24: SM90_64x192x16_F32F16F16_RS, SM90_64x192x16_F16F16F16_RS, SM90_64x192x16_F32BF16BF16_RS;
    256 / 32: SM90_64x256x16_F32F16F16_RS, SM90_64x256x16_F16F16F16_RS, SM90_64x256x16_F32BF16BF16_RS;
}
