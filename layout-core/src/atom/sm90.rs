//! SM90 (Hopper) atoms: the warpgroup MMAs (`wgmma.mma_async`, CuTe's
//! GMMA), every one the PTX ISA has: f16 and bf16 inputs into f32 or f16,
//! tf32 into f32, e4m3 and e5m2 (either for A, either for B) into f32 or
//! f16, s8 and u8 (either for A, either for B) into s32, wrapping or
//! saturating; N every multiple of 8 to 256 (integers: 8 to 32 by 8, then
//! by 16); both operands in shared memory (`_SS`) or A in registers
//! (`_RS`). They are expanded from one table (`sm90_gmma_table!`), which
//! layout-device's instructions expand too. CuTe defines the N outside 8,
//! 16, 32, 64, 96, 128, 192 and 256 in an opt-in header
//! (`mma_sm90_gmma_ext.hpp`); here they are always present.
//!
//! The atoms of one family differ only in N: C's last value mode is N / 8
//! long and B is N x K. A `_TN` family takes K-major operands only; K is
//! 16 for 16-bit inputs, 8 for tf32 and 32 for 8-bit inputs (32 bytes of
//! a row in every family).
//!
//! A GMMA is issued by a warpgroup of 128 threads. An `_SS` atom's A and B
//! layouts map every thread to the whole operand tile (stride 0 over
//! threads): the operands are read from shared memory through matrix
//! descriptors, not held by threads. An `_RS` atom's A is 8 halves per
//! thread (four 32-bit registers) in the C layout's pattern of a 64 x 16
//! tile (CuTe's `ALayout_64x16`), which is why an accumulator can become
//! the next GMMA's A without moving (`accumulator::acc_as_a`: where 16
//! divides N, or N is 8). Its C layout is where each thread's
//! accumulators lie in the 64 x N tile: thread `t` holds rows
//! `16 (t / 32) + (t % 32) / 4` and that plus 8, two adjacent columns per
//! 8-column block.

use super::MmaAtom;
use crate::layout_type;

/// The atoms of the table's rows: each row's type, its `MmaAtom` impl
/// (the A layout by the row's form and input width) and its rustdoc.
macro_rules! gmma_atoms {
    ($($form:ident $name:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ident, $regs:tt, $n8:tt,
       $kind:ident, $base:ident, $what:literal; [$($i:tt)*];)*) => {$(
        gmma_atoms!(@ $form $kind $name, $n, $k, $n8, $ty, $what);
    )*};
    (@ ss h16 $name:ident, $n:tt, $k:tt, $n8:tt, $ty:literal, $what:literal) => {
        gmma_atoms!(@ item $name, $n, $k, $n8, $ty, $what,
            "A (K-major) and B (K- or N-major) in shared memory",
            "(_128,(_64,_16)):(_0,(_1,_64))", layout_type!((128,(64,16)):(0,(1,64))));
    };
    (@ rs h16 $name:ident, $n:tt, $k:tt, $n8:tt, $ty:literal, $what:literal) => {
        gmma_atoms!(@ item $name, $n, $k, $n8, $ty, $what,
            "A in registers (8 halves a thread, CuTe's `ALayout_64x16`), B in shared memory, K- or N-major",
            "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))",
            layout_type!(((4,8,4),(2,2,2)):((128,1,16),(64,8,512))));
    };
    (@ ss_tn $kind:ident $name:ident, $n:tt, $k:tt, $n8:tt, $ty:literal, $what:literal) => {
        gmma_atoms!(@ item $name, $n, $k, $n8, $ty, $what, "A and B K-major in shared memory",
            concat!("(_128,(_64,_", stringify!($k), ")):(_0,(_1,_64))"),
            layout_type!((128,(64,$k)):(0,(1,64))));
    };
    (@ rs_tn tf32 $name:ident, $n:tt, $k:tt, $n8:tt, $ty:literal, $what:literal) => {
        gmma_atoms!(@ item $name, $n, $k, $n8, $ty, $what,
            "A in registers (four 32-bit values a thread, CuTe's `ALayout_64x8`), B K-major in shared memory",
            "((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))",
            layout_type!(((4,8,4),(2,2)):((64,1,16),(8,256))));
    };
    (@ rs_tn b8 $name:ident, $n:tt, $k:tt, $n8:tt, $ty:literal, $what:literal) => {
        gmma_atoms!(@ item $name, $n, $k, $n8, $ty, $what,
            "A in registers (16 bytes a thread, CuTe's `ALayout_64x32`), B K-major in shared memory",
            "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))",
            layout_type!(((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))));
    };
    (@ item $name:ident, $n:tt, $k:tt, $n8:tt, $ty:literal, $what:literal, $operands:literal, $a_text:expr, $a:ty) => {
        #[doc = concat!(
            "The warpgroup MMA `wgmma.mma_async.sync.aligned.m64n", stringify!($n),
            "k", stringify!($k), ".", $ty, "`: ", $what, "; ", $operands,
            ". 128 threads, a 64 x ", stringify!($n), " x ", stringify!($k), " tile (CuTe's `",
            stringify!($name), "`).\n\n```\nuse layout_core::atom::{MmaAtom, ", stringify!($name), " as Mma};\n",
            "let c = <Mma as MmaAtom>::CLayout::default();\n",
            "assert_eq!(c.to_string(), \"((_4,_8,_4),(_2,_2,_", stringify!($n8),
            ")):((_128,_1,_16),(_64,_8,_512))\");\n",
            "// Thread 37 (warp 1, lane 5), its first value: row 16 + 5 / 4 = 17,\n",
            "// column 2 · (5 % 4) = 2; C is numbered column-major, q = m + 64 n.\n",
            "assert_eq!(c.crd2idx((37usize, 0usize)), 17 + 64 * 2);\n",
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

crate::__private::sm90_gmma_table!(gmma_atoms);
