//! The warpgroup MMAs (`wgmma.mma_async`) behind layout-core's SM90 atoms,
//! expanded from the table layout-core's atoms come from
//! (`sm90_gmma_table!`): each atom's instruction, its accumulator
//! registers and its operands, as [`GmmaInstr`] (`<Atom as
//! GmmaInstr>::gmma(..)`). Every instruction the PTX ISA has: f16 and bf16
//! inputs into f32 or f16; and, K-major only, tf32 into f32, e4m3 and e5m2
//! (in any pairing) into f32 or f16, s8 and u8 (in any pairing) into s32,
//! wrapping or `.satfinite`; N every multiple of 8 to 256 (integers: 8 to
//! 32 by 8, then by 16). The named functions (`wgmma_m64n128k16_f32_f16`,
//! ...) are these.

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;
use layout_core::atom::*;

/// A warpgroup MMA the GPU executes (`sm_90a`): `acc = A·Bᵀ + acc`, or
/// `A·Bᵀ` when `accumulate` is false, on the atom's 64 x N x 16 tile. A is
/// named by a matrix descriptor (`_SS` atoms, K-major) or given as this
/// thread's four registers of 16-bit pairs in the atom's A layout (`_RS`);
/// B by its descriptor, K-major or (`B_MN_MAJOR`, the transpose bit)
/// N-major; `acc` is this thread's values of the atom's C layout (f32, or
/// f16 pairs in `u32`s, value `2r` in the low half of register `r`).
///
/// Asynchronous: [`wgmma_fence`](super::wgmma_fence) before (the
/// accumulators' registers are the instruction's until it completes), then
/// [`wgmma_commit_group`](super::wgmma_commit_group) and
/// [`wgmma_wait_group`](super::wgmma_wait_group) before reading `acc`. All
/// 128 threads of the warpgroup execute it together, converged.
///
/// ```
/// use layout_core::atom::{MmaAtom, SM90_64x64x16_F32BF16BF16_SS as Atom};
/// use layout_device::GmmaInstr;
/// // The accumulators of one thread: 32 f32 values of the 64 x 64 tile.
/// let acc: <Atom as GmmaInstr>::Acc = [0.0; 32];
/// assert_eq!(<Atom as GmmaInstr>::INSTRUCTION, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16");
/// # let _ = acc;
/// ```
pub trait GmmaInstr: MmaAtom {
    /// This thread's accumulators.
    type Acc: Copy;
    /// A's operand: a descriptor's 64 bits (`_SS`) or four registers (`_RS`).
    type A: Copy;
    /// The PTX instruction.
    const INSTRUCTION: &'static str;
    /// One instruction, issued by the whole warpgroup.
    fn gmma<const B_MN_MAJOR: bool>(a: Self::A, desc_b: u64, acc: &mut Self::Acc, accumulate: bool);
}

/// An input element type of the table's instructions, by its PTX name.
/// A row's instruction types are `d.a.b` (`.satfinite` after, for the
/// saturating integers); A's and B's elements are always the same size,
/// 32 bytes of a row making the instruction's K.
///
/// ```
/// use layout_device::GmmaElem;
/// assert_eq!(GmmaElem::of("e5m2"), Some(GmmaElem::E5m2));
/// assert_eq!((GmmaElem::Tf32.bytes(), GmmaElem::Tf32.k()), (4, 8));
/// assert_eq!(GmmaElem::of("f32"), None); // an accumulator type, not an input
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GmmaElem {
    /// `f16`.
    F16,
    /// `bf16`.
    Bf16,
    /// `tf32` (an f32's bits, the low 13 mantissa bits ignored).
    Tf32,
    /// `e4m3`.
    E4m3,
    /// `e5m2`.
    E5m2,
    /// `s8`.
    S8,
    /// `u8`.
    U8,
}

impl GmmaElem {
    /// The input type of a PTX name, if it is one.
    pub fn of(name: &str) -> Option<GmmaElem> {
        Some(match name {
            "f16" => GmmaElem::F16,
            "bf16" => GmmaElem::Bf16,
            "tf32" => GmmaElem::Tf32,
            "e4m3" => GmmaElem::E4m3,
            "e5m2" => GmmaElem::E5m2,
            "s8" => GmmaElem::S8,
            "u8" => GmmaElem::U8,
            _ => return None,
        })
    }
    /// Its size in bytes.
    pub const fn bytes(self) -> usize {
        match self {
            GmmaElem::F16 | GmmaElem::Bf16 => 2,
            GmmaElem::Tf32 => 4,
            _ => 1,
        }
    }
    /// The instruction's K: 32 bytes of each operand row.
    pub const fn k(self) -> usize {
        32 / self.bytes()
    }
}

/// The `GmmaInstr` of each row of the table (`sm90_gmma_table!`): its
/// instruction (`$ty`: D, A and B types), its accumulator registers
/// (`$regs` values of `$acc`, listed), and A from a descriptor (`ss`,
/// `ss_tn`) or registers (`rs`, `rs_tn`). The 16-bit families take B K- or
/// N-major (the transpose operand); the others (`_tn`: tf32, 8-bit inputs)
/// K-major only, with `$tail` what follows the scale-d predicate (the
/// input scales, or nothing for integers).
macro_rules! gmma {
    ($($form:ident $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ident, $regs:tt, $n8:tt,
       $kind:ident, $base:ident, $what:literal; [$($i:tt)*];)*) => {$(
        gmma!(@ $form $atom, $n, $k, $ty, $tail, $acc, $regs, [$($i)*]);
    )*};
    (@ ss $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ty, $regs:tt, [$($i:tt)*]) => {
        gmma!(@ impl $atom, $n, $k, $ty, $acc, $regs, [$($i)*], (true, ", 1, 1, 0, 0", ", 1, 1, 0, 1"),
            desc_a: u64, "{desc_a}", [desc_a = in(reg64) desc_a], Ok(desc_a));
    };
    (@ rs $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ty, $regs:tt, [$($i:tt)*]) => {
        gmma!(@ impl $atom, $n, $k, $ty, $acc, $regs, [$($i)*], (true, ", 1, 1, 0", ", 1, 1, 1"),
            a: [u32; 4], "{{{a0}, {a1}, {a2}, {a3}}}",
            [a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3]], Err(a));
    };
    (@ ss_tn $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ty, $regs:tt, [$($i:tt)*]) => {
        gmma!(@ impl $atom, $n, $k, $ty, $acc, $regs, [$($i)*], (false, $tail, $tail),
            desc_a: u64, "{desc_a}", [desc_a = in(reg64) desc_a], Ok(desc_a));
    };
    (@ rs_tn $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ty, $regs:tt, [$($i:tt)*]) => {
        gmma!(@ impl $atom, $n, $k, $ty, $acc, $regs, [$($i)*], (false, $tail, $tail),
            a: [u32; 4], "{{{a0}, {a1}, {a2}, {a3}}}",
            [a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3]], Err(a));
    };
    // The impl: `$mn` whether B may be N-major, and the operands after the
    // predicate for K-major and N-major B; A's parameter, its type, its
    // place in the instruction, its asm operands and what the emulator gets.
    (@ impl $atom:ident, $n:tt, $k:tt, $ty:literal, $acc:ty, $regs:tt, [$first:tt $($i:tt)*],
        ($mn:literal, $tail_k:literal, $tail_mn:literal),
        $a:ident: $a_ty:ty, $a_text:literal, [$($a_ops:tt)*], $a_emu:expr) => {
        impl GmmaInstr for $atom {
            type Acc = [$acc; $regs];
            type A = $a_ty;
            const INSTRUCTION: &'static str = concat!("wgmma.mma_async.sync.aligned.m64n", stringify!($n), "k", stringify!($k), ".", $ty);
            #[inline(always)]
            #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
            fn gmma<const B_MN_MAJOR: bool>($a: $a_ty, desc_b: u64, acc: &mut [$acc; $regs], accumulate: bool) {
                const { assert!($mn || !B_MN_MAJOR, "this GMMA takes K-major operands only") };
                #[cfg(target_arch = "nvptx64")]
                macro_rules! issue {
                    ($tail:expr) => {
                        // SAFETY: registers only (the descriptors name shared
                        // memory the kernel wrote and fenced; a descriptor
                        // past the buffer reads within the shared window,
                        // never another's memory); the warpgroup executes it
                        // converged.
                        unsafe {
                            asm!(
                                concat!(
                                    "{{ .reg .pred p; setp.ne.b32 p, {scale_d}, 0; ",
                                    "wgmma.mma_async.sync.aligned.m64n", stringify!($n), "k", stringify!($k), ".", $ty, " {{",
                                    "{", stringify!($first), "}" $(, ", {", stringify!($i), "}")*,
                                    "}}, ", $a_text, ", {desc_b}, p", $tail, "; }}"
                                ),
                                inout(reg32) acc[$first], $(inout(reg32) acc[$i],)*
                                $($a_ops)*,
                                desc_b = in(reg64) desc_b,
                                scale_d = in(reg32) accumulate as u32,
                                options(nostack)
                            )
                        }
                    };
                }
                gpu!(stringify!($atom), {
                    if B_MN_MAJOR {
                        issue!($tail_mn)
                    } else {
                        issue!($tail_k)
                    }
                }, emu: {
                    let site = core::panic::Location::caller();
                    crate::emulator::gmma::gmma($atom, site, $ty, $a_emu, (desc_b, B_MN_MAJOR), acc, accumulate);
                })
            }
        }
    };
}

layout_core::__private::sm90_gmma_table!(gmma);
