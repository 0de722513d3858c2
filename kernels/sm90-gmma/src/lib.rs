//! Check kernels for Hopper's warpgroup MMAs (`sm_90a`: `layout-ptx
//! kernels/sm90-gmma OUT --arch sm_90a --ptx 8.4 --lenient`; PTX 8.4 for
//! the mixed s8/u8 forms): one entry point per atom of the GMMA table,
//! named as the atom
//! (`SM90_64x24x16_F16F16F16_RS`, ...; for 16-bit inputs a second one
//! with B N-major, the name and `_MN`), each running its atom's one
//! instruction through [`layout_device::GmmaInstr`] and storing C through
//! the atom's C layout. A wrong layout, register order or instruction
//! string puts values in the wrong place, and the host's check
//! ([`host::check`], `gpu-runner gmma-atoms`) finds them.
//!
//! The body indexes its registers with loops (local memory: a check, not
//! a kernel to time), so `layout-ptx` builds it with `--lenient`.
//!
//! Launch contract of every entry `(a, b, c)`: one block of 128 threads;
//! `a` points to A's 64 rows of 32 bytes (K elements, K-major), `b` to B's
//! N rows of 32 bytes, `c` to 64 x N `u32` (row-major; each element's
//! bits: f32, i32, or an f16 in the low half), all 16-byte aligned device
//! memory, `c` distinct from both.
//!
//! ```
//! use layout_kernels_sm90_gmma::ATOMS;
//! // Three 16-bit families of 32 N, tf32's 32, eight 8-bit float
//! // pairings of 32, eight integer ones (wrapping and saturating) of 18;
//! // each in both forms.
//! assert_eq!(ATOMS.len(), 2 * (3 * 32 + 32 + 8 * 32 + 8 * 18));
//! let a = ATOMS.iter().find(|a| a.name == "SM90_64x200x32_F32E4M3E5M2_RS_TN").unwrap();
//! assert_eq!((a.n, a.k, a.types, a.rs), (200, 32, "f32.e4m3.e5m2", true));
//! ```
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

#[cfg(not(target_arch = "nvptx64"))]
pub mod host;

use layout_core::atom::MmaAtom;
use layout_core::layout::Congruent;
use layout_core::{IntTuple, Layout};
use layout_device::{
    fence_proxy_async_shared, k_interleave_desc, k_interleave_offset, sync_threads, thread_idx,
    wgmma_commit_group, wgmma_fence, wgmma_wait_group, Global, GlobalMut, GmmaInstr, Smem, F4,
};

layout_device::shared_memory!(
    /// A's 64 rows of 32 bytes, then B's N rows (N at most 256): 10 KiB.
    static TILES: [u8; 10240]
);

/// One atom of the table: its name (its entry point's), N, K, its
/// instruction's types (`d.a.b`, `.satfinite` for the saturating ones)
/// and whether A is in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atom {
    /// The atom's name and the entry point's.
    pub name: &'static str,
    /// N.
    pub n: usize,
    /// K: 32 bytes of elements.
    pub k: usize,
    /// D's, A's and B's PTX types, dot-separated, then `.satfinite` where
    /// the instruction saturates.
    pub types: &'static str,
    /// A in registers (`_RS`), else in shared memory (`_SS`).
    pub rs: bool,
}

impl Atom {
    /// Whether B may be N-major (16-bit inputs): the atom then has a
    /// second entry, its name and `_MN`, with B N-major.
    pub fn b_mn(&self) -> bool {
        self.k == 16
    }
}

/// A's operand, from the tile's descriptor (`_SS`) or this thread's four
/// registers (`_RS`).
pub trait AOperand: Copy {
    /// The one the atom takes.
    fn pick(desc: u64, regs: [u32; 4]) -> Self;
}
impl AOperand for u64 {
    #[inline(always)]
    fn pick(desc: u64, _: [u32; 4]) -> Self {
        desc
    }
}
impl AOperand for [u32; 4] {
    #[inline(always)]
    fn pick(_: u64, regs: [u32; 4]) -> Self {
        regs
    }
}

/// A thread's accumulators: their count and each register's bits.
pub trait AccRegs: Copy {
    /// Registers a thread.
    const LEN: usize;
    /// All zero.
    fn zero() -> Self;
    /// Register `i`'s bits.
    fn word(&self, i: usize) -> u32;
}
macro_rules! acc_regs {
    ($($t:ty: $bits:expr;)*) => {$(
        impl<const R: usize> AccRegs for [$t; R] {
            const LEN: usize = R;
            #[inline(always)]
            fn zero() -> Self {
                [<$t>::default(); R]
            }
            #[inline(always)]
            fn word(&self, i: usize) -> u32 {
                let f: fn($t) -> u32 = $bits;
                f(self[i])
            }
        }
    )*};
}
acc_regs! {
    f32: f32::to_bits;
    u32: |x| x;
    i32: |x| x as u32;
}

/// The check's body for atom `G` (N, K its shape): A and B copied into
/// shared memory in the canonical K-major layout without swizzle (8-row
/// core matrices of 16-byte rows, [`k_interleave_offset`]), A's registers
/// (for `_RS`) gathered by the atom's A layout, one instruction (D = A·Bᵀ),
/// and each accumulator stored at the (m, n) the atom's C layout gives.
/// With `B_MN` (16-bit inputs only), B is N-major in shared memory and the
/// instruction's transpose bit set.
#[inline(always)]
pub fn gmma_check_body<G, CS, CD, AS, AD, const N: usize, const K: usize, const B_MN: bool>(
    a: Global<F4>,
    a_words: Global<u32>,
    (b, b_words): (Global<F4>, Global<u32>),
    c: GlobalMut<u32>,
) where
    G: GmmaInstr + MmaAtom<CLayout = Layout<CS, CD>, ALayout = Layout<AS, AD>>,
    G::A: AOperand,
    G::Acc: AccRegs,
    CS: Congruent<CD> + Default,
    CD: IntTuple + Default,
    AS: Congruent<AD> + Default,
    AD: IntTuple + Default,
{
    let t = thread_idx();
    let tiles = Smem::window::<TILES>(0, 2560);
    // 16-byte chunk h of row r, as a word offset.
    let at = |r: usize, h: usize, rows: usize| k_interleave_offset(r, 8 * h, rows) / 2;
    tiles.st4(at(t / 2, t % 2, 64), a.ld(t));
    if B_MN {
        // B N-major (16-bit inputs): CuTe's `Layout_MN_INTER_Atom` tiled
        // to N x 16, ((8,N/8),(8,2)):((1,64),(8,8N)) in halves: element
        // (n, k) of B's row n, written one half at a time.
        let (bh, halves) = (b_words, tiles.halves());
        let mut j = t;
        while j < 16 * N {
            let (n, k) = (j / 16, j % 16);
            let h = (bh.ld(8 * n + k / 2) >> (16 * (k % 2))) as u16;
            halves.st(
                1024 + n % 8 + (n / 8) * 64 + (k % 8) * 8 + (k / 8) * 8 * N,
                h,
            );
            j += 128;
        }
    } else {
        let mut j = t;
        while j < 2 * N {
            tiles.st4(512 + at(j / 2, j % 2, N), b.ld(j));
            j += 128;
        }
    }
    fence_proxy_async_shared();
    sync_threads();
    let base = tiles.address();
    // The MN-major interleaved tile's descriptor has the same fields
    // (CuTe's make_gmma_desc<Major::MN>: LBO N, the K halves' distance in
    // 16-byte units; SBO 8, the 8-row groups').
    let (da, db) = (
        k_interleave_desc(base, 64),
        k_interleave_desc(base + 2048, N as u32),
    );
    // `_RS`: value v of this thread is A's element (m, k) at p = m + 64 k
    // of the A layout (coordinate (t, v), index t + 128 v), packed from the
    // low byte up.
    let bytes = 32 / K;
    let al = Layout::<AS, AD>::default();
    let mut regs = [0u32; 4];
    for v in 0..16 / bytes {
        let p = al.call(t + 128 * v);
        let off = (p % 64) * 32 + (p / 64) * bytes;
        let w = a_words.ld(off / 4);
        let x = if bytes == 4 {
            w
        } else {
            (w >> (8 * (off % 4))) & ((1 << (8 * bytes)) - 1)
        };
        regs[v * bytes / 4] |= x << (8 * (v * bytes % 4));
    }
    let mut acc = G::Acc::zero();
    wgmma_fence();
    G::gmma::<B_MN>(G::A::pick(da, regs), db, &mut acc, false);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    // Value v of this thread is C's element q = m + 64 n; f16 values come
    // two a register, value 2r in register r's low half.
    let cl = Layout::<CS, CD>::default();
    let put = |v: usize, bits: u32| {
        let q = cl.call(t + 128 * v);
        c.st((q % 64) * N + q / 64, bits);
    };
    let packed = <G::Acc as AccRegs>::LEN * 4 == N;
    for i in 0..<G::Acc as AccRegs>::LEN {
        let w = acc.word(i);
        if packed {
            put(2 * i, w & 0xffff);
            put(2 * i + 1, w >> 16);
        } else {
            put(i, w);
        }
    }
}

#[cfg(target_arch = "nvptx64")]
mod entries;

/// [`ATOMS`]: the table's rows.
macro_rules! atoms {
    ($($form:ident $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ident, $regs:tt, $n8:tt,
       $kind:ident, $base:ident, $what:literal; [$($i:tt)*];)*) => {
        /// Every atom of the GMMA table, in the table's order.
        pub const ATOMS: &[Atom] = &[$(Atom {
            name: stringify!($atom),
            n: $n,
            k: $k,
            types: $ty,
            rs: matches!(stringify!($form).as_bytes(), [b'r', ..]),
        }),*];
    };
}

layout_core::__private::sm90_gmma_table!(atoms);

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    layout_device::trap()
}
