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

/// One atom of a K-major-only family (32-bit or 8-bit inputs: CuTe's
/// `_TN` atoms): its type, with a doctest printing its layouts. `$k` is the
/// instruction's K (8 for tf32, 32 for 8-bit inputs); an `_RS` atom's A is
/// four 32-bit registers a thread in `$a` (CuTe's `ALayout_64x8` or
/// `ALayout_64x32`).
macro_rules! gmma_tn_item {
    (ss $name:ident, $what:literal, $n:tt, $n8:tt, $k:tt) => {
        gmma_tn_item!(@ $name, $what, $n, $n8, $k, "A and B K-major in shared memory",
            concat!("(_128,(_64,_", stringify!($k), ")):(_0,(_1,_64))"),
            layout_type!((128,(64,$k)):(0,(1,64))));
    };
    (rs $name:ident, $what:literal, $n:tt, $n8:tt, $k:tt, $a_text:literal, $a:ty) => {
        gmma_tn_item!(@ $name, $what, $n, $n8, $k,
            "A in registers (four 32-bit registers a thread), B K-major in shared memory", $a_text, $a);
    };
    (@ $name:ident, $what:literal, $n:tt, $n8:tt, $k:tt, $operands:literal, $a_text:expr, $a:ty) => {
        #[doc = concat!(
            "The warpgroup MMA `wgmma.mma_async.sync.aligned.m64n", stringify!($n),
            "k", stringify!($k), "` with ", $what, ", ", $operands, " (CuTe's `",
            stringify!($name), "`): 128 threads, a 64 x ", stringify!($n), " x ",
            stringify!($k), " tile; K-major operands only.\n\n```\nuse layout_core::atom::{MmaAtom, ",
            stringify!($name), " as Mma};\n",
            "assert_eq!(<Mma as MmaAtom>::CLayout::default().to_string(), \"((_4,_8,_4),(_2,_2,_", stringify!($n8),
            ")):((_128,_1,_16),(_64,_8,_512))\");\n",
            "assert_eq!(<Mma as MmaAtom>::ALayout::default().to_string(), \"", $a_text, "\");\n",
            "assert_eq!(<Mma as MmaAtom>::BLayout::default().to_string(), \"(_128,(_",
            stringify!($n), ",_", stringify!($k), ")):(_0,(_1,_", stringify!($n), "))\");\n```"
        )]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        impl MmaAtom for $name {
            type ThrID = layout_type!(128:1);
            type ShapeMNK = (crate::C<64>, crate::C<$n>, crate::C<$k>);
            type ALayout = $a;
            type BLayout = layout_type!((128,($n,$k)):(0,(1,$n)));
            type CLayout = layout_type!(((4,8,4),(2,2,$n8)):((128,1,16),(64,8,512)));
        }
    };
}

/// The K-major-only families at N = 64, 128 and 256: tf32 into f32 (K =
/// 8), e4m3 and e5m2 into f32 or f16, s8 and u8 into s32 (K = 32).
macro_rules! gmma_tn_names {
    ($($n:tt / $n8:tt: [$tf32:ident $tf32r:ident] [$e4:ident $e4r:ident] [$e5:ident $e5r:ident] [$h4:ident $h4r:ident] [$h5:ident $h5r:ident] [$s8:ident $s8r:ident] [$u8:ident $u8r:ident];)*) => {$(
        gmma_tn_item!(ss $tf32, "tf32 inputs and f32 accumulators", $n, $n8, 8);
        gmma_tn_item!(rs $tf32r, "tf32 inputs and f32 accumulators", $n, $n8, 8,
            "((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))", layout_type!(((4,8,4),(2,2)):((64,1,16),(8,256))));
        gmma_tn_item!(ss $e4, "e4m3 inputs and f32 accumulators", $n, $n8, 32);
        gmma_tn_item!(rs $e4r, "e4m3 inputs and f32 accumulators", $n, $n8, 32,
            "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))", layout_type!(((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))));
        gmma_tn_item!(ss $e5, "e5m2 inputs and f32 accumulators", $n, $n8, 32);
        gmma_tn_item!(rs $e5r, "e5m2 inputs and f32 accumulators", $n, $n8, 32,
            "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))", layout_type!(((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))));
        gmma_tn_item!(ss $h4, "e4m3 inputs and f16 accumulators", $n, $n8, 32);
        gmma_tn_item!(rs $h4r, "e4m3 inputs and f16 accumulators", $n, $n8, 32,
            "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))", layout_type!(((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))));
        gmma_tn_item!(ss $h5, "e5m2 inputs and f16 accumulators", $n, $n8, 32);
        gmma_tn_item!(rs $h5r, "e5m2 inputs and f16 accumulators", $n, $n8, 32,
            "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))", layout_type!(((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))));
        gmma_tn_item!(ss $s8, "s8 inputs and s32 accumulators", $n, $n8, 32);
        gmma_tn_item!(rs $s8r, "s8 inputs and s32 accumulators", $n, $n8, 32,
            "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))", layout_type!(((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))));
        gmma_tn_item!(ss $u8, "u8 inputs and s32 accumulators", $n, $n8, 32);
        gmma_tn_item!(rs $u8r, "u8 inputs and s32 accumulators", $n, $n8, 32,
            "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))", layout_type!(((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))));
    )*};
}

gmma_tn_names! {
    64 / 8: [SM90_64x64x8_F32TF32TF32_SS_TN SM90_64x64x8_F32TF32TF32_RS_TN]
        [SM90_64x64x32_F32E4M3E4M3_SS_TN SM90_64x64x32_F32E4M3E4M3_RS_TN]
        [SM90_64x64x32_F32E5M2E5M2_SS_TN SM90_64x64x32_F32E5M2E5M2_RS_TN]
        [SM90_64x64x32_F16E4M3E4M3_SS_TN SM90_64x64x32_F16E4M3E4M3_RS_TN]
        [SM90_64x64x32_F16E5M2E5M2_SS_TN SM90_64x64x32_F16E5M2E5M2_RS_TN]
        [SM90_64x64x32_S32S8S8_SS_TN SM90_64x64x32_S32S8S8_RS_TN]
        [SM90_64x64x32_S32U8U8_SS_TN SM90_64x64x32_S32U8U8_RS_TN];
    128 / 16: [SM90_64x128x8_F32TF32TF32_SS_TN SM90_64x128x8_F32TF32TF32_RS_TN]
        [SM90_64x128x32_F32E4M3E4M3_SS_TN SM90_64x128x32_F32E4M3E4M3_RS_TN]
        [SM90_64x128x32_F32E5M2E5M2_SS_TN SM90_64x128x32_F32E5M2E5M2_RS_TN]
        [SM90_64x128x32_F16E4M3E4M3_SS_TN SM90_64x128x32_F16E4M3E4M3_RS_TN]
        [SM90_64x128x32_F16E5M2E5M2_SS_TN SM90_64x128x32_F16E5M2E5M2_RS_TN]
        [SM90_64x128x32_S32S8S8_SS_TN SM90_64x128x32_S32S8S8_RS_TN]
        [SM90_64x128x32_S32U8U8_SS_TN SM90_64x128x32_S32U8U8_RS_TN];
    256 / 32: [SM90_64x256x8_F32TF32TF32_SS_TN SM90_64x256x8_F32TF32TF32_RS_TN]
        [SM90_64x256x32_F32E4M3E4M3_SS_TN SM90_64x256x32_F32E4M3E4M3_RS_TN]
        [SM90_64x256x32_F32E5M2E5M2_SS_TN SM90_64x256x32_F32E5M2E5M2_RS_TN]
        [SM90_64x256x32_F16E4M3E4M3_SS_TN SM90_64x256x32_F16E4M3E4M3_RS_TN]
        [SM90_64x256x32_F16E5M2E5M2_SS_TN SM90_64x256x32_F16E5M2E5M2_RS_TN]
        [SM90_64x256x32_S32S8S8_SS_TN SM90_64x256x32_S32S8S8_RS_TN]
        [SM90_64x256x32_S32U8U8_SS_TN SM90_64x256x32_S32U8U8_RS_TN];
}
