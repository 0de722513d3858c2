//! The warpgroup MMAs (`wgmma.mma_async`) behind layout-core's SM90 atoms,
//! from one table: each atom's instruction, its accumulator registers and
//! its operands, as [`GmmaInstr`] (`<Atom as GmmaInstr>::gmma(..)`). The
//! named functions (`wgmma_m64n128k16_f32_f16`, ...) are these.

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

/// The `GmmaInstr` of one atom: its instruction (`$ty`: D, A and B types),
/// its accumulator registers (`$acc` values, `$regs` of them, listed), and
/// A from a descriptor (`ss`) or registers (`rs`).
macro_rules! gmma {
    ($($form:ident $atom:ident, $n:literal, $ty:literal, $acc:ty, $regs:literal, [$first:literal $($i:literal)*];)*) => {$(
        gmma!(@ $form $atom, $n, $ty, $acc, $regs, [$first $($i)*]);
    )*};
    (@ ss $atom:ident, $n:literal, $ty:literal, $acc:ty, $regs:literal, [$first:literal $($i:literal)*]) => {
        impl GmmaInstr for $atom {
            type Acc = [$acc; $regs];
            type A = u64;
            const INSTRUCTION: &'static str = concat!("wgmma.mma_async.sync.aligned.m64n", stringify!($n), "k16.", $ty);
            #[inline(always)]
            #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
            fn gmma<const B_MN_MAJOR: bool>(desc_a: u64, desc_b: u64, acc: &mut [$acc; $regs], accumulate: bool) {
                #[cfg(target_arch = "nvptx64")]
                macro_rules! issue {
                    ($tnsp:literal) => {
                        // SAFETY: registers only (the descriptors name shared
                        // memory the kernel wrote and fenced; a descriptor
                        // past the buffer reads within the shared window,
                        // never another's memory); the warpgroup executes it
                        // converged.
                        unsafe {
                            asm!(
                                concat!(
                                    "{{ .reg .pred p; setp.ne.b32 p, {scale_d}, 0; ",
                                    "wgmma.mma_async.sync.aligned.m64n", stringify!($n), "k16.", $ty, " {{",
                                    "{", stringify!($first), "}" $(, ", {", stringify!($i), "}")*,
                                    "}}, {desc_a}, {desc_b}, p, 1, 1, 0, ", $tnsp, "; }}"
                                ),
                                inout(reg32) acc[$first], $(inout(reg32) acc[$i],)*
                                desc_a = in(reg64) desc_a,
                                desc_b = in(reg64) desc_b,
                                scale_d = in(reg32) accumulate as u32,
                                options(nostack)
                            )
                        }
                    };
                }
                gpu!(stringify!($atom), {
                    if B_MN_MAJOR {
                        issue!("1")
                    } else {
                        issue!("0")
                    }
                }, emu: {
                    let site = core::panic::Location::caller();
                    crate::emulator::hopper::gmma($atom, site, $ty, Ok(desc_a), (desc_b, B_MN_MAJOR), acc, accumulate);
                })
            }
        }
    };
    (@ rs $atom:ident, $n:literal, $ty:literal, $acc:ty, $regs:literal, [$first:literal $($i:literal)*]) => {
        impl GmmaInstr for $atom {
            type Acc = [$acc; $regs];
            type A = [u32; 4];
            const INSTRUCTION: &'static str = concat!("wgmma.mma_async.sync.aligned.m64n", stringify!($n), "k16.", $ty);
            #[inline(always)]
            #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
            fn gmma<const B_MN_MAJOR: bool>(a: [u32; 4], desc_b: u64, acc: &mut [$acc; $regs], accumulate: bool) {
                #[cfg(target_arch = "nvptx64")]
                macro_rules! issue {
                    ($tnsp:literal) => {
                        // SAFETY: registers only (the descriptor names shared
                        // memory the kernel wrote and fenced; a descriptor
                        // past the buffer reads within the shared window,
                        // never another's memory); the warpgroup executes it
                        // converged.
                        unsafe {
                            asm!(
                                concat!(
                                    "{{ .reg .pred p; setp.ne.b32 p, {scale_d}, 0; ",
                                    "wgmma.mma_async.sync.aligned.m64n", stringify!($n), "k16.", $ty, " {{",
                                    "{", stringify!($first), "}" $(, ", {", stringify!($i), "}")*,
                                    "}}, {{{a0}, {a1}, {a2}, {a3}}}, {desc_b}, p, 1, 1, ", $tnsp, "; }}"
                                ),
                                inout(reg32) acc[$first], $(inout(reg32) acc[$i],)*
                                a0 = in(reg32) a[0], a1 = in(reg32) a[1],
                                a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                                desc_b = in(reg64) desc_b,
                                scale_d = in(reg32) accumulate as u32,
                                options(nostack)
                            )
                        }
                    };
                }
                gpu!(stringify!($atom), {
                    if B_MN_MAJOR {
                        issue!("1")
                    } else {
                        issue!("0")
                    }
                }, emu: {
                    let site = core::panic::Location::caller();
                    crate::emulator::hopper::gmma($atom, site, $ty, Err(a), (desc_b, B_MN_MAJOR), acc, accumulate);
                })
            }
        }
    };
}

gmma! {
    ss SM90_64x8x16_F32F16F16_SS, 8, "f32.f16.f16", f32, 4, [0 1 2 3];
    rs SM90_64x8x16_F32F16F16_RS, 8, "f32.f16.f16", f32, 4, [0 1 2 3];
    ss SM90_64x8x16_F16F16F16_SS, 8, "f16.f16.f16", u32, 2, [0 1];
    rs SM90_64x8x16_F16F16F16_RS, 8, "f16.f16.f16", u32, 2, [0 1];
    ss SM90_64x8x16_F32BF16BF16_SS, 8, "f32.bf16.bf16", f32, 4, [0 1 2 3];
    rs SM90_64x8x16_F32BF16BF16_RS, 8, "f32.bf16.bf16", f32, 4, [0 1 2 3];
    ss SM90_64x16x16_F32F16F16_SS, 16, "f32.f16.f16", f32, 8, [0 1 2 3 4 5 6 7];
    rs SM90_64x16x16_F32F16F16_RS, 16, "f32.f16.f16", f32, 8, [0 1 2 3 4 5 6 7];
    ss SM90_64x16x16_F16F16F16_SS, 16, "f16.f16.f16", u32, 4, [0 1 2 3];
    rs SM90_64x16x16_F16F16F16_RS, 16, "f16.f16.f16", u32, 4, [0 1 2 3];
    ss SM90_64x16x16_F32BF16BF16_SS, 16, "f32.bf16.bf16", f32, 8, [0 1 2 3 4 5 6 7];
    rs SM90_64x16x16_F32BF16BF16_RS, 16, "f32.bf16.bf16", f32, 8, [0 1 2 3 4 5 6 7];
    ss SM90_64x32x16_F32F16F16_SS, 32, "f32.f16.f16", f32, 16, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15];
    rs SM90_64x32x16_F32F16F16_RS, 32, "f32.f16.f16", f32, 16, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15];
    ss SM90_64x32x16_F16F16F16_SS, 32, "f16.f16.f16", u32, 8, [0 1 2 3 4 5 6 7];
    rs SM90_64x32x16_F16F16F16_RS, 32, "f16.f16.f16", u32, 8, [0 1 2 3 4 5 6 7];
    ss SM90_64x32x16_F32BF16BF16_SS, 32, "f32.bf16.bf16", f32, 16, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15];
    rs SM90_64x32x16_F32BF16BF16_RS, 32, "f32.bf16.bf16", f32, 16, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15];
    ss SM90_64x64x16_F32F16F16_SS, 64, "f32.f16.f16", f32, 32, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31];
    rs SM90_64x64x16_F32F16F16_RS, 64, "f32.f16.f16", f32, 32, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31];
    ss SM90_64x64x16_F16F16F16_SS, 64, "f16.f16.f16", u32, 16, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15];
    rs SM90_64x64x16_F16F16F16_RS, 64, "f16.f16.f16", u32, 16, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15];
    ss SM90_64x64x16_F32BF16BF16_SS, 64, "f32.bf16.bf16", f32, 32, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31];
    rs SM90_64x64x16_F32BF16BF16_RS, 64, "f32.bf16.bf16", f32, 32, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31];
    ss SM90_64x96x16_F32F16F16_SS, 96, "f32.f16.f16", f32, 48, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47];
    rs SM90_64x96x16_F32F16F16_RS, 96, "f32.f16.f16", f32, 48, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47];
    ss SM90_64x96x16_F16F16F16_SS, 96, "f16.f16.f16", u32, 24, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23];
    rs SM90_64x96x16_F16F16F16_RS, 96, "f16.f16.f16", u32, 24, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23];
    ss SM90_64x96x16_F32BF16BF16_SS, 96, "f32.bf16.bf16", f32, 48, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47];
    rs SM90_64x96x16_F32BF16BF16_RS, 96, "f32.bf16.bf16", f32, 48, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47];
    ss SM90_64x128x16_F32F16F16_SS, 128, "f32.f16.f16", f32, 64, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63];
    rs SM90_64x128x16_F32F16F16_RS, 128, "f32.f16.f16", f32, 64, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63];
    ss SM90_64x128x16_F16F16F16_SS, 128, "f16.f16.f16", u32, 32, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31];
    rs SM90_64x128x16_F16F16F16_RS, 128, "f16.f16.f16", u32, 32, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31];
    ss SM90_64x128x16_F32BF16BF16_SS, 128, "f32.bf16.bf16", f32, 64, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63];
    rs SM90_64x128x16_F32BF16BF16_RS, 128, "f32.bf16.bf16", f32, 64, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63];
    ss SM90_64x192x16_F32F16F16_SS, 192, "f32.f16.f16", f32, 96, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95];
    rs SM90_64x192x16_F32F16F16_RS, 192, "f32.f16.f16", f32, 96, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95];
    ss SM90_64x192x16_F16F16F16_SS, 192, "f16.f16.f16", u32, 48, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47];
    rs SM90_64x192x16_F16F16F16_RS, 192, "f16.f16.f16", u32, 48, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47];
    ss SM90_64x192x16_F32BF16BF16_SS, 192, "f32.bf16.bf16", f32, 96, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95];
    rs SM90_64x192x16_F32BF16BF16_RS, 192, "f32.bf16.bf16", f32, 96, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95];
    ss SM90_64x256x16_F32F16F16_SS, 256, "f32.f16.f16", f32, 128, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127];
    rs SM90_64x256x16_F32F16F16_RS, 256, "f32.f16.f16", f32, 128, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127];
    ss SM90_64x256x16_F16F16F16_SS, 256, "f16.f16.f16", u32, 64, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63];
    rs SM90_64x256x16_F16F16F16_RS, 256, "f16.f16.f16", u32, 64, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63];
    ss SM90_64x256x16_F32BF16BF16_SS, 256, "f32.bf16.bf16", f32, 128, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127];
    rs SM90_64x256x16_F32BF16BF16_RS, 256, "f32.bf16.bf16", f32, 128, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127];
}
