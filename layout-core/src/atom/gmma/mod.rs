//! Hopper's GMMA shared-memory side (CuTe's `SM90::GMMA`): the canonical
//! shared-memory layout atoms an operand tile is built from, and the
//! matrix descriptor a `wgmma` names such a tile by.
//!
//! A descriptor describes a tile of 16-byte chunks ("core matrices" of 8
//! rows x 16 bytes) by two strides, the leading and stride byte offsets
//! (LBO, SBO), and a swizzle mode; [`make_gmma_desc`] reads them off the
//! tile's layout and checks, point by point, that the layout is the
//! canonical form the descriptor can describe, refusing any other: by the
//! type checker for a static tile of a static major ([`KMajor`],
//! [`MnMajor`]), as CuTe's `static_assert`s do ([`verdict`]), at run time
//! otherwise.
//!
//! The atoms are in elements of 16 bits (f16, bf16), their swizzle in
//! element units: CuTe's byte-address `Sw<B,4,3>` is `Sw<B,3,3>` here.

use super::super::algebra::swizzle::{ComposedLayout, Swizzle};
use crate::layout::{Congruent, Layout, StaticText};
use crate::layout_type;
use crate::typelevel::const_text::{Leaves, Text};
use crate::typelevel::tuple::{one, IntTuple};
use core::fmt;
use core::marker::PhantomData;

pub mod verdict;
pub use verdict::GmmaOperand;

/// Which mode of an operand tile is contiguous: K (the tile is K-major,
/// "T" in BLAS terms for A) or M/N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Major {
    /// K contiguous.
    K,
    /// M (for A) or N (for B) contiguous.
    MN,
}

/// The descriptor's swizzle mode (CuTe's `GMMA::LayoutType`), with its
/// 2-bit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutType {
    /// No swizzle (`Sw<0,4,3>` in bytes): core matrices 128 bytes each.
    Interleave = 0,
    /// 128-byte swizzle (`Sw<3,4,3>`).
    B128 = 1,
    /// 64-byte swizzle (`Sw<2,4,3>`).
    B64 = 2,
    /// 32-byte swizzle (`Sw<1,4,3>`).
    B32 = 3,
}

impl LayoutType {
    /// The mode of a swizzle's bit count `B` (0 to 3).
    pub const fn of_bits(b: u32) -> Option<LayoutType> {
        match b {
            0 => Some(LayoutType::Interleave),
            1 => Some(LayoutType::B32),
            2 => Some(LayoutType::B64),
            3 => Some(LayoutType::B128),
            _ => None,
        }
    }
    /// 16-byte chunks per swizzled row: 1, 2, 4, 8 (CuTe's `W`).
    pub const fn width(self) -> usize {
        match self {
            LayoutType::Interleave => 1,
            LayoutType::B32 => 2,
            LayoutType::B64 => 4,
            LayoutType::B128 => 8,
        }
    }
}

/// A GMMA matrix descriptor (CuTe's `GmmaDescriptor`): 64 bits, start
/// address >> 4 in bits [0,14), LBO >> 4 in [16,30), SBO >> 4 in [32,46),
/// base offset in [49,52), layout type in [62,64).
///
/// ```
/// use layout_core::atom::gmma::{GmmaDescriptor, LayoutType};
/// let d = GmmaDescriptor::new(0x400, 64, 8, LayoutType::Interleave);
/// assert_eq!(d.bits(), 0x0000_0008_0040_0040);
/// assert_eq!((d.lbo(), d.sbo(), d.layout_type()), (64, 8, LayoutType::Interleave));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GmmaDescriptor(u64);

impl GmmaDescriptor {
    /// The descriptor of a tile at shared `address` (16-byte aligned),
    /// with LBO and SBO in 16-byte units, base offset 0.
    pub const fn new(address: u32, lbo: u32, sbo: u32, layout: LayoutType) -> Self {
        GmmaDescriptor(
            ((address >> 4) & 0x3fff) as u64
                | ((lbo & 0x3fff) as u64) << 16
                | ((sbo & 0x3fff) as u64) << 32
                | (layout as u64) << 62,
        )
    }
    /// The descriptor of 64 bits (an instruction's operand, read back).
    pub const fn from_bits(bits: u64) -> Self {
        GmmaDescriptor(bits)
    }
    /// The 64 bits the instruction takes.
    pub const fn bits(self) -> u64 {
        self.0
    }
    /// The leading byte offset, in 16-byte units.
    pub const fn lbo(self) -> u32 {
        ((self.0 >> 16) & 0x3fff) as u32
    }
    /// The stride byte offset, in 16-byte units.
    pub const fn sbo(self) -> u32 {
        ((self.0 >> 32) & 0x3fff) as u32
    }
    /// The swizzle mode.
    pub const fn layout_type(self) -> LayoutType {
        match self.0 >> 62 {
            0 => LayoutType::Interleave,
            1 => LayoutType::B128,
            2 => LayoutType::B64,
            _ => LayoutType::B32,
        }
    }
    /// The start address (a shared-window byte address, 16-byte aligned).
    pub const fn address(self) -> u32 {
        ((self.0 & 0x3fff) as u32) << 4
    }
    /// The shared byte address of 16-bit element (mn, k) of the tile this
    /// descriptor names as an operand of `major`, as the `wgmma` reads it:
    /// the canonical form's offset from the start address, then the
    /// swizzle on the address (`Sw<B,4,3>` in bytes: bits [4, 4+B) take
    /// the XOR of bits [7, 7+B); the tile's swizzle pattern aligned in
    /// shared memory, as the descriptor's base offset of 0 says).
    ///
    /// ```
    /// use layout_core::atom::gmma::{GmmaDescriptor, LayoutType, Major};
    /// // K-major, 128-byte swizzle, 8-row groups 1024 bytes apart (SBO 64).
    /// let d = GmmaDescriptor::new(0x4000, 1, 64, LayoutType::B128);
    /// // Row 1, k = 0: the second 128-byte row, its chunk 0 moved to chunk 1.
    /// assert_eq!(d.element_address(Major::K, (1, 0)), 0x4000 + 128 + 16);
    /// // Row 9: the next group of 8 rows.
    /// assert_eq!(d.element_address(Major::K, (9, 3)), 0x4000 + 1024 + 128 + 16 + 6);
    /// ```
    pub const fn element_address(self, major: Major, (mn, k): (usize, usize)) -> u32 {
        let layout = self.layout_type();
        let interleave = matches!(layout, LayoutType::Interleave);
        let strides = (self.lbo() as usize, self.sbo() as usize);
        let offset = canonical(major, interleave, layout.width(), strides, (mn, k));
        swizzled(
            self.address()
                .wrapping_add(2u32.wrapping_mul(offset as u32)),
            layout,
        )
    }
    /// [`GmmaDescriptor::element_address`] for a K-major tile of elements of
    /// `bytes` bytes (4: tf32, 1: 8-bit types, 2: as `element_address`):
    /// each 16-byte chunk holds `16 / bytes` consecutive elements along K.
    ///
    /// ```
    /// use layout_core::atom::gmma::{GmmaDescriptor, LayoutType};
    /// // 8-bit elements, 128-byte swizzle: row 1, k = 40 is byte 40 of the
    /// // second 128-byte row, its chunk 2 moved to chunk 3.
    /// let d = GmmaDescriptor::new(0x4000, 1, 64, LayoutType::B128);
    /// assert_eq!(d.element_address_k_major(1, (1, 40)), 0x4000 + 128 + 48 + 8);
    /// ```
    pub const fn element_address_k_major(self, bytes: usize, (mn, k): (usize, usize)) -> u32 {
        let layout = self.layout_type();
        let per_chunk = 16 / bytes;
        let kstride = match layout {
            LayoutType::Interleave => self.lbo() as usize,
            _ => 1,
        };
        let chunk =
            (mn % 8) * layout.width() + (mn / 8) * self.sbo() as usize + (k / per_chunk) * kstride;
        let a = self.address() as usize + 16 * chunk + bytes * (k % per_chunk);
        swizzled(a as u32, layout)
    }
    /// The descriptor `chunks` 16-byte chunks further in shared memory (a
    /// k-block of a tile: CuTe's `DescriptorIterator` step).
    pub const fn advance(self, chunks: u32) -> Self {
        let lo = (self.0 as u32).wrapping_add(chunks);
        GmmaDescriptor((self.0 & !0xffff_ffff) | lo as u64)
    }
}

/// Why a tile has no descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GmmaDescError {
    /// The swizzle is not `Sw<B,4,3>` in bytes (`Sw<B,3,3>` over 16-bit
    /// elements) with B at most 3.
    Swizzle {
        /// The swizzle's `B`, `M`, `S` in element units.
        bms: (u32, u32, i32),
    },
    /// The tile's extents: MN must be a multiple of 8 (K-major) or of the
    /// swizzle width (MN-major), K 16 elements (one k-block).
    Extents {
        /// The tile's (MN, K).
        mn_k: (usize, usize),
    },
    /// The layout is not the canonical form at this point.
    NotCanonical {
        /// The major mode.
        major: Major,
        /// The swizzle mode.
        layout: LayoutType,
        /// The (mn, k) element where the form fails.
        at: (usize, usize),
        /// The layout's offset there, and the form's.
        got_expected: (usize, usize),
    },
}

impl GmmaDescError {
    /// The reason after `what`: the one spelling of both the run-time
    /// error's `Display` and the compile-time refusal.
    const fn text(self, what: Text) -> Text {
        match self {
            GmmaDescError::Swizzle { bms: (b, m, s) } => swizzle_text(what.str("swizzle "), b, m, s)
                .str(" over 16-bit elements is none of GMMA's (Sw<B,3,3>, B <= 3)"),
            GmmaDescError::Extents { mn_k: (mn, k) } => what
                .str("a ")
                .num(mn)
                .str(" x ")
                .num(k)
                .str(" tile: a descriptor covers MN x 16 elements, MN a multiple of 8 (K-major) or of the swizzle's width (MN-major)"),
            GmmaDescError::NotCanonical {
                major,
                layout,
                at: (mn, k),
                got_expected: (got, want),
            } => {
                let interleave = matches!(layout, LayoutType::Interleave);
                let (major, form) = match major {
                    Major::K if interleave => ("K", "((8,n),2):((1,SBO),LBO)"),
                    Major::K => ("K", "((8,n),2):((W,SBO),1)"),
                    Major::MN if interleave => ("MN", "((1,n),(8,k)):((X,SBO),(1,LBO))"),
                    Major::MN => ("MN", "((W,n),(8,k)):((1,LBO),(W,SBO))"),
                };
                let name = match layout {
                    LayoutType::Interleave => "Interleave",
                    LayoutType::B128 => "B128",
                    LayoutType::B64 => "B64",
                    LayoutType::B32 => "B32",
                };
                what.str("not a canonical ")
                    .str(major)
                    .str("-major ")
                    .str(name)
                    .str(" layout ")
                    .str(form)
                    .str(" in 16-byte chunks (W = ")
                    .num(layout.width())
                    .str("): element (")
                    .num(mn)
                    .byte(b',')
                    .num(k)
                    .str(") is at ")
                    .num(got)
                    .str(", the form puts it at ")
                    .num(want)
            }
        }
    }
}

/// `Sw<b,m,s>` after `t`, as [`Swizzle`] prints.
const fn swizzle_text(t: Text, b: u32, m: u32, s: i32) -> Text {
    let t = t
        .str("Sw<")
        .num(b as usize)
        .byte(b',')
        .num(m as usize)
        .byte(b',');
    let t = if s < 0 { t.byte(b'-') } else { t };
    t.num(s.unsigned_abs() as usize).byte(b'>')
}

impl fmt::Display for GmmaDescError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text(Text::EMPTY.str("make_gmma_desc: ")).as_str())
    }
}

/// The major mode as a value ([`Major`], checked at run time like a
/// `usize` leaf) or as a type ([`KMajor`], [`MnMajor`]: CuTe's template
/// argument `Major::K`, `Major::MN`, which lets [`make_gmma_desc`] check a
/// static tile at compile time, as a `C<N>` leaf does).
pub trait GmmaMajor: Copy {
    /// The major mode when the type fixes it.
    const STATIC: Option<Major>;
    /// The major mode.
    fn major(self) -> Major;
}
impl GmmaMajor for Major {
    const STATIC: Option<Major> = None;
    #[inline(always)]
    fn major(self) -> Major {
        self
    }
}
/// `Major::K` as a type: a static tile given with it is checked at
/// compile time (see [`make_gmma_desc`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KMajor;
impl GmmaMajor for KMajor {
    const STATIC: Option<Major> = Some(Major::K);
    #[inline(always)]
    fn major(self) -> Major {
        Major::K
    }
}
/// `Major::MN` as a type: a static tile given with it is checked at
/// compile time (see [`make_gmma_desc`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MnMajor;
impl GmmaMajor for MnMajor {
    const STATIC: Option<Major> = Some(Major::MN);
    #[inline(always)]
    fn major(self) -> Major {
        Major::MN
    }
}

/// An operand tile a descriptor can name: a rank-2 layout `(MN, K)` over
/// 16-bit elements composed with a [`Swizzle`]. Its leaves are read in one
/// flattened form ([`TileLeaves`]), the same for static leaves (at compile
/// time) and run-time ones.
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc: `{Self}` is not a GMMA operand tile",
    label = "not a swizzled rank-2 layout",
    note = "an operand tile is a rank-2 layout (MN, K) over 16-bit elements composed with its swizzle: `ComposedLayout {{ swizzle: Swizzle::<B, 3, 3>, layout: layout!((128,16):(64,1)) }}`"
)]
pub trait GmmaTile {
    /// The swizzle's `B`, `M`, `S`.
    #[doc(hidden)]
    const BMS: (u32, u32, i32);
    /// The flattened tile when every leaf is static.
    #[doc(hidden)]
    const STATIC: Option<TileLeaves>;
    /// The tile in CuTe notation (`Sw<3,3,3> o _0 o (_128,_16):(_64,_1)`).
    #[doc(hidden)]
    const TEXT: Text;
    /// The flattened tile.
    #[doc(hidden)]
    fn leaves(&self) -> TileLeaves;
}

/// A shape of two modes (`(MN, K)`): how many leaves mode 0 has. Every
/// other shape has an impl whose bound never holds ([`NotTwoModes`]), so
/// that a refusal names the rank and lists no impls.
#[doc(hidden)]
pub trait TwoModes {
    /// Mode 0's leaves.
    const MODE0_LEAVES: usize;
}
impl<S0: IntTuple, S1> TwoModes for (S0, S1) {
    const MODE0_LEAVES: usize = S0::LEAF_COUNT;
}
/// A tile shape `Sh` of `R` modes (0 for an integer shape), `R != 2`:
/// never holds.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "make_gmma_desc: the tile's shape has {R} modes, not two (MN, K)",
    label = "not a rank-2 tile",
    note = "a descriptor names one k-block of an operand tile, (MN, 16) over 16-bit elements: slice a larger tile first"
)]
pub trait NotTwoModes<const R: usize, Sh> {
    /// No value: such a tile has no descriptor.
    const NEVER: core::convert::Infallible;
}
macro_rules! not_two_modes {
    // The empty shape is left without (a bound of concrete types only).
    () => {};
    (T0, T1) => {};
    ($($t:ident),*) => {
        impl<$($t),*> TwoModes for ($($t,)*)
        where
            (): NotTwoModes<{ 0 $(+ one!($t))* }, ($($t,)*)>,
        {
            const MODE0_LEAVES: usize =
                match <() as NotTwoModes<{ 0 $(+ one!($t))* }, ($($t,)*)>>::NEVER {};
        }
    };
}
crate::typelevel::tuple::for_each_tuple!(not_two_modes);
// An integer shape (a run-time one is left without: a bound of concrete
// types only would be refused where it is declared).
impl<const N: usize> TwoModes for crate::C<N>
where
    (): NotTwoModes<0, crate::C<N>>,
{
    const MODE0_LEAVES: usize = match <() as NotTwoModes<0, crate::C<N>>>::NEVER {};
}
impl<U> TwoModes for crate::S<U>
where
    (): NotTwoModes<0, crate::S<U>>,
{
    const MODE0_LEAVES: usize = match <() as NotTwoModes<0, crate::S<U>>>::NEVER {};
}

impl<const B: u32, const M: u32, const S: i32, Sh, D> GmmaTile
    for ComposedLayout<Swizzle<B, M, S>, Layout<Sh, D>>
where
    Sh: Congruent<D> + TwoModes,
    D: IntTuple,
{
    const BMS: (u32, u32, i32) = (B, M, S);
    const STATIC: Option<TileLeaves> =
        TileLeaves::of_static(Sh::LEAF_VALUES, D::LEAF_VALUES, Sh::MODE0_LEAVES);
    const TEXT: Text = swizzle_text(Text::EMPTY, B, M, S)
        .str(" o _0 o ")
        .text(<Layout<Sh, D> as StaticText>::TEXT);
    fn leaves(&self) -> TileLeaves {
        let (s, d) = (self.layout.shape(), self.layout.stride());
        let mut t = TileLeaves::EMPTY;
        for i in 0..Sh::LEAF_COUNT {
            if i == Sh::MODE0_LEAVES {
                t = t.next_mode();
            }
            t = t.push(s.leaf(i), d.leaf(i));
        }
        t
    }
}

/// Leaves a [`TileLeaves`] holds (each of size 2 or more: at most
/// log2 of the size).
const LEAF_CAP: usize = 64;

/// A rank-2 tile flattened: its leaves of size other than 1 (those never
/// move an offset), shape and stride, mode 0's first; the two modes' sizes.
/// What [`make_gmma_desc`] reads, from constants or from values.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct TileLeaves {
    shape: [usize; LEAF_CAP],
    stride: [usize; LEAF_CAP],
    /// Leaves recorded.
    n: usize,
    /// Of which mode 0's.
    n0: usize,
    /// The modes' sizes (saturating).
    size: [usize; 2],
    /// The mode being filled.
    mode: usize,
    /// A leaf did not fit.
    full: bool,
}

impl TileLeaves {
    const EMPTY: TileLeaves = TileLeaves {
        shape: [0; LEAF_CAP],
        stride: [0; LEAF_CAP],
        n: 0,
        n0: 0,
        size: [1, 1],
        mode: 0,
        full: false,
    };

    /// The next leaf `s:d` of the mode being filled.
    const fn push(mut self, s: usize, d: usize) -> TileLeaves {
        self.size[self.mode] = self.size[self.mode].saturating_mul(s);
        if s != 1 {
            if self.n < LEAF_CAP {
                self.shape[self.n] = s;
                self.stride[self.n] = d;
                self.n += 1;
                if self.mode == 0 {
                    self.n0 += 1;
                }
            } else {
                self.full = true;
            }
        }
        self
    }

    /// Mode 1's leaves follow.
    const fn next_mode(mut self) -> TileLeaves {
        self.mode = 1;
        self
    }

    /// The tile of constant leaves, mode 0's the first `n0`; `None`
    /// unless every leaf is static.
    const fn of_static(s: Leaves, d: Leaves, n0: usize) -> Option<TileLeaves> {
        if !s.all_static() || !d.all_static() || s.n != d.n {
            return None;
        }
        let mut t = TileLeaves::EMPTY;
        let mut i = 0;
        while i < s.n {
            if i == n0 {
                t = t.next_mode();
            }
            t = t.push(s.v[i], d.v[i]);
            i += 1;
        }
        Some(t)
    }

    /// The offset of element (m, k): each coordinate split
    /// colexicographically over its mode's leaves (CuTe's `crd2idx`).
    /// Wrapping: a form that overflows is refused, not a panic.
    const fn offset(&self, m: usize, k: usize) -> usize {
        let mut off = 0usize;
        let mut c = m;
        let mut i = 0;
        while i < self.n {
            if i == self.n0 {
                c = k;
            }
            let last = i + 1 == self.n0 || i + 1 == self.n;
            let x = if last { c } else { c % self.shape[i] };
            c = if last { 0 } else { c / self.shape[i] };
            off = off.wrapping_add(x.wrapping_mul(self.stride[i]));
            i += 1;
        }
        off
    }
}

/// What [`make_gmma_desc`] checks, written once for the run-time and the
/// compile-time paths: the swizzle mode, LBO and SBO (in 16-byte chunks)
/// of a tile whose every element is where the canonical form of `major`
/// puts it, or the first element (column by column) where not.
const fn check(
    major: Major,
    (b, m, s): (u32, u32, i32),
    t: &TileLeaves,
) -> Result<(LayoutType, usize, usize), GmmaDescError> {
    let layout = match LayoutType::of_bits(b) {
        Some(l) if m == 3 && s == 3 => l,
        _ => return Err(GmmaDescError::Swizzle { bms: (b, m, s) }),
    };
    let [mn, k] = t.size;
    let w = layout.width();
    // Elements per 16-byte chunk.
    const T: usize = 8;
    let interleave = matches!(layout, LayoutType::Interleave);
    let extents = match major {
        Major::K => mn % 8 == 0,
        Major::MN => mn % (T * w) == 0,
    };
    if t.full || mn == 0 || k != 2 * T || !extents {
        return Err(GmmaDescError::Extents { mn_k: (mn, k) });
    }
    // The strides in chunks, read where the form has them (0 for a mode of
    // one, as CuTe's).
    let (lbo, sbo) = match major {
        Major::K => {
            let sbo = if mn > 8 { t.offset(8, 0) / T } else { 0 };
            (if interleave { t.offset(0, T) / T } else { 1 }, sbo)
        }
        Major::MN => {
            let many = mn > T * w;
            if interleave {
                (
                    t.offset(0, 8) / T,
                    if many { t.offset(T, 0) / T } else { 0 },
                )
            } else {
                (
                    if many { t.offset(T * w, 0) / T } else { 0 },
                    t.offset(0, 8) / T,
                )
            }
        }
    };
    // A layout's offset is a part in m plus a part in k, and so is each
    // form's, both 0 at (0,0): they agree everywhere when they agree along
    // m (at k = 0) and along k (at m = 0), and the first element where
    // they differ, column by column, is on one of those axes. So mn + k
    // points decide what every element would (the check runs in the
    // compiler for static tiles).
    let mut i = 1;
    while i < mn + k - 1 {
        let (m, kk) = if i < mn { (i, 0) } else { (0, i - mn + 1) };
        let got = t.offset(m, kk);
        let want = canonical(major, interleave, w, (lbo, sbo), (m, kk));
        if got != want {
            return Err(GmmaDescError::NotCanonical {
                major,
                layout,
                at: (m, kk),
                got_expected: (got, want),
            });
        }
        i += 1;
    }
    Ok((layout, lbo, sbo))
}

/// [`check`] of a static major and a static tile, at compile time.
struct StaticCheck<Mj, Tile>(PhantomData<(Mj, Tile)>);
impl<Mj: GmmaMajor, Tile: GmmaTile> StaticCheck<Mj, Tile> {
    /// The result, when every input is static.
    const RESULT: Option<Result<(LayoutType, usize, usize), GmmaDescError>> = match Mj::STATIC {
        Some(major) => match Tile::STATIC {
            Some(t) => Some(check(major, Tile::BMS, &t)),
            None => None,
        },
        None => None,
    };
    /// The refusal, naming the tile.
    const ERROR: Option<Text> = match Self::RESULT {
        Some(Err(e)) => Some(
            e.text(
                Text::EMPTY
                    .str("make_gmma_desc: ")
                    .text(Tile::TEXT)
                    .str(": "),
            ),
        ),
        _ => None,
    };
}

/// Why [`make_gmma_desc`] refuses a static tile of a static major, if it
/// does, without failing the build: what the compile-time check
/// evaluates. `None` when the tile is canonical, or when the major or a
/// leaf is a run-time value (checked at run time then).
///
/// ```
/// use layout_core::atom::gmma::{gmma_desc_error, KMajor, Major};
/// use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
/// use layout_core::layout_type;
/// type Bad = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((128,16):(16,1))>;
/// assert_eq!(gmma_desc_error::<KMajor, Bad>(), Some("make_gmma_desc: Sw<3,3,3> o _0 o (_128,_16):(_16,_1): not a canonical K-major B128 layout ((8,n),2):((W,SBO),1) in 16-byte chunks (W = 8): element (1,0) is at 16, the form puts it at 64"));
/// // A run-time major is checked at run time.
/// assert_eq!(gmma_desc_error::<Major, Bad>(), None);
/// type Good = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((128,16):(64,1))>;
/// assert_eq!(gmma_desc_error::<KMajor, Good>(), None);
/// ```
pub fn gmma_desc_error<Mj: GmmaMajor, Tile: GmmaTile>() -> Option<&'static str> {
    match &StaticCheck::<Mj, Tile>::ERROR {
        Some(t) => Some(t.as_str()),
        None => None,
    }
}

/// The descriptor of an operand tile: `tile` is the tile's layout over
/// 16-bit elements, (MN, K) with K = 16 (one `wgmma` k-block), composed
/// with its swizzle; `address` is the shared address of the element at
/// offset 0. Every element is checked against the canonical form of
/// `major` and the swizzle (CuTe's `make_gmma_desc<Major>`); another
/// layout is refused with the point where it differs.
///
/// With a static major ([`KMajor`], [`MnMajor`]) and a tile of static
/// leaves, the check runs at compile time, as CuTe's `static_assert`s do:
/// a canonical tile's descriptor is a constant, another tile is an unmet
/// bound ([`GmmaOperand`]) that `cargo check` reports at the tile argument,
/// naming the run of the coalesced mode that misses the form ([`verdict`]).
/// A [`Major`] value or a run-time leaf is checked at run time and refused
/// with `Err`.
///
/// ```
/// use layout_core::atom::gmma::{make_gmma_desc, KMajor, LayoutType, Major, MnMajor};
/// use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
/// use layout_core::layout;
/// // CuTe's tile_to_shape(Layout_K_SW128_Atom<half_t>, (128,64)), its first
/// // k-block: (128,16):(64,1) under the 128-byte swizzle.
/// let tile = ComposedLayout { swizzle: Swizzle::<3, 3, 3>, layout: layout!((128,16):(64,1)) };
/// assert_eq!(tile.to_string(), "Sw<3,3,3> o _0 o (_128,_16):(_64,_1)");
/// let d = make_gmma_desc(KMajor, &tile, 0x800).unwrap();
/// // CuTe's make_gmma_desc<Major::K>: lbo 1, sbo 64, type 1 (B128).
/// assert_eq!((d.lbo(), d.sbo(), d.layout_type()), (1, 64, LayoutType::B128));
/// assert_eq!(make_gmma_desc(Major::K, &tile, 0x800), Ok(d));
/// // Tile_to_shape(Layout_MN_SW128_Atom<half_t>, (128,16)): lbo 64, sbo 128.
/// let mn = ComposedLayout { swizzle: Swizzle::<3, 3, 3>, layout: layout!(((64,2),(8,2)):((1,512),(64,1024))) };
/// let d = make_gmma_desc(MnMajor, &mn, 0).unwrap();
/// assert_eq!((d.lbo(), d.sbo()), (64, 128));
/// // Rows 16 halves apart are not a 128-byte-swizzled tile: with a run-time
/// // leaf (or a `Major` value) that is an `Err`.
/// let w = 16;
/// let bad = ComposedLayout { swizzle: Swizzle::<3, 3, 3>, layout: layout!((128,16):(w,1)) };
/// assert_eq!(bad.to_string(), "Sw<3,3,3> o _0 o (_128,_16):(16,_1)");
/// let e = make_gmma_desc(KMajor, &bad, 0).unwrap_err();
/// assert_eq!(e.to_string(), "make_gmma_desc: not a canonical K-major B128 layout ((8,n),2):((W,SBO),1) in 16-byte chunks (W = 8): element (1,0) is at 16, the form puts it at 64");
/// ```
///
/// The same tile with static leaves and a static major does not type-check
/// ("make_gmma_desc(KMajor, ..): the tile's MN mode starts with the run
/// _128:_16; a canonical tile under Sw<3,3,3> steps _64 there"):
///
/// ```compile_fail,E0277
/// use layout_core::atom::gmma::{make_gmma_desc, KMajor};
/// use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
/// use layout_core::layout;
/// let bad = ComposedLayout { swizzle: Swizzle::<3, 3, 3>, layout: layout!((128,16):(16,1)) };
/// let _ = make_gmma_desc(KMajor, &bad, 0);
/// ```
#[inline]
pub fn make_gmma_desc<Mj: GmmaMajor, Tile: GmmaOperand<Mj>>(
    major: Mj,
    tile: &Tile,
    address: u32,
) -> Result<GmmaDescriptor, GmmaDescError>
where
    <Tile as GmmaOperand<Mj>>::Checked: Copy,
{
    // Checked here, so that the refusal of a static tile names the
    // caller's line.
    const {
        if let Some(e) = StaticCheck::<Mj, Tile>::ERROR {
            panic!("{}", e.as_str())
        }
    }
    let (layout, lbo, sbo) = match StaticCheck::<Mj, Tile>::RESULT {
        Some(r) => r,
        None => check(major.major(), Tile::BMS, &tile.leaves()),
    }?;
    // The tile's element 0 is at offset 0: the address is the start's.
    Ok(GmmaDescriptor::new(address, lbo as u32, sbo as u32, layout))
}

/// A shared byte address under a descriptor's swizzle (`Sw<B,4,3>`: bits
/// [4, 4+B) take the XOR of bits [7, 7+B)).
const fn swizzled(a: u32, layout: LayoutType) -> u32 {
    let bits = layout.width().trailing_zeros();
    a ^ (((a >> 7) & ((1 << bits) - 1)) << 4)
}

/// Where the canonical form puts element (m, kk) of a tile, relative to
/// element (0, 0), in elements (8 to a 16-byte chunk), before the swizzle.
/// Wrapping, as [`TileLeaves::offset`].
const fn canonical(
    major: Major,
    interleave: bool,
    w: usize,
    (lbo, sbo): (usize, usize),
    (m, kk): (usize, usize),
) -> usize {
    const T: usize = 8;
    let chunk = match major {
        // ((8,n),2):((W,SBO),LBO or 1) over chunks; a chunk's T elements
        // consecutive along K.
        Major::K => {
            let kstride = if interleave { lbo } else { 1 };
            ((m % 8) * w)
                .wrapping_add((m / 8).wrapping_mul(sbo))
                .wrapping_add((kk / T).wrapping_mul(kstride))
        }
        // ((1,n),(8,k)):((X,SBO),(1,LBO)), a chunk along MN.
        Major::MN if interleave => (m / T)
            .wrapping_mul(sbo)
            .wrapping_add(kk % 8)
            .wrapping_add((kk / 8).wrapping_mul(lbo)),
        // ((W,n),(8,k)):((1,LBO),(W,SBO)).
        Major::MN => {
            let c = m / T;
            (c % w)
                .wrapping_add((c / w).wrapping_mul(lbo))
                .wrapping_add((kk % 8) * w)
                .wrapping_add((kk / 8).wrapping_mul(sbo))
        }
    };
    let within = match major {
        Major::K => kk % T,
        Major::MN => m % T,
    };
    T.wrapping_mul(chunk).wrapping_add(within)
}

/// CuTe's `GMMA::Layout_K_INTER_Atom<half_t>`: 8 rows of 8 elements (16
/// bytes), no swizzle.
pub type LayoutKInterAtom = ComposedLayout<Swizzle<0, 3, 3>, layout_type!((8,8):(8,1))>;
/// CuTe's `GMMA::Layout_K_SW32_Atom<half_t>`: 8 rows of 16 elements, 32-byte swizzle.
pub type LayoutKSw32Atom = ComposedLayout<Swizzle<1, 3, 3>, layout_type!((8,16):(16,1))>;
/// CuTe's `GMMA::Layout_K_SW64_Atom<half_t>`: 8 rows of 32 elements, 64-byte swizzle.
pub type LayoutKSw64Atom = ComposedLayout<Swizzle<2, 3, 3>, layout_type!((8,32):(32,1))>;
/// CuTe's `GMMA::Layout_K_SW128_Atom<half_t>`: 8 rows of 64 elements, 128-byte swizzle.
pub type LayoutKSw128Atom = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((8,64):(64,1))>;
/// CuTe's `GMMA::Layout_MN_INTER_Atom<half_t>`: 8 columns of 8 elements, no swizzle.
pub type LayoutMnInterAtom = ComposedLayout<Swizzle<0, 3, 3>, layout_type!((8,8):(1,8))>;
/// CuTe's `GMMA::Layout_MN_SW32_Atom<half_t>`: 8 columns of 16 elements, 32-byte swizzle.
pub type LayoutMnSw32Atom = ComposedLayout<Swizzle<1, 3, 3>, layout_type!((16,8):(1,16))>;
/// CuTe's `GMMA::Layout_MN_SW64_Atom<half_t>`: 8 columns of 32 elements, 64-byte swizzle.
pub type LayoutMnSw64Atom = ComposedLayout<Swizzle<2, 3, 3>, layout_type!((32,8):(1,32))>;
/// CuTe's `GMMA::Layout_MN_SW128_Atom<half_t>`: 8 columns of 64 elements, 128-byte swizzle.
pub type LayoutMnSw128Atom = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((64,8):(1,64))>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{layout, layout_type};
    extern crate alloc;
    use alloc::string::ToString;

    /// The descriptor of a static tile of a static major (the compile-time
    /// check's constant), checked equal to the run-time check's (the
    /// major as a value).
    fn desc<const B: u32, Mj: GmmaMajor, L>(major: Mj, l: L) -> (u32, u32, LayoutType)
    where
        ComposedLayout<Swizzle<B, 3, 3>, L>: GmmaOperand<Mj>,
    {
        let tile = ComposedLayout {
            swizzle: Swizzle::<B, 3, 3>,
            layout: l,
        };
        let d = make_gmma_desc(major, &tile, 0).unwrap();
        assert!(StaticCheck::<Mj, ComposedLayout<Swizzle<B, 3, 3>, L>>::RESULT.is_some());
        assert_eq!(make_gmma_desc(major.major(), &tile, 0), Ok(d));
        (d.lbo(), d.sbo(), d.layout_type())
    }

    /// Each case: the first k-block of `tile_to_shape(GMMA atom, shape)` as
    /// CuTe 4.7 printed it, and its `make_gmma_desc` (host g++, CUTLASS
    /// 7107b05: LBO, SBO, layout type).
    #[test]
    fn descriptors_match_cutes() {
        use LayoutType::*;
        // K-major: INTER (64,16), INTER (128,32), SW32 (64,32), SW64 (64,32),
        // SW128 (64,64) and (128,64).
        assert_eq!(
            desc::<0, _, _>(KMajor, layout!((64,(8,2)):(8,(1,512)))),
            (64, 8, Interleave)
        );
        assert_eq!(
            desc::<0, _, _>(KMajor, layout!((128,(8,2)):(8,(1,1024)))),
            (128, 8, Interleave)
        );
        assert_eq!(
            desc::<1, _, _>(KMajor, layout!((64,16):(16,1))),
            (1, 16, B32)
        );
        assert_eq!(
            desc::<2, _, _>(KMajor, layout!((64,16):(32,1))),
            (1, 32, B64)
        );
        assert_eq!(
            desc::<3, _, _>(KMajor, layout!((64,16):(64,1))),
            (1, 64, B128)
        );
        assert_eq!(
            desc::<3, _, _>(KMajor, layout!((128,16):(64,1))),
            (1, 64, B128)
        );
        // MN-major: INTER, SW32, SW64, SW128 at (64,16); SW128 (128,32).
        assert_eq!(
            desc::<0, _, _>(MnMajor, layout!(((8,8),(8,2)):((1,64),(8,512)))),
            (64, 8, Interleave)
        );
        assert_eq!(
            desc::<1, _, _>(MnMajor, layout!(((16,4),(8,2)):((1,128),(16,512)))),
            (16, 64, B32)
        );
        assert_eq!(
            desc::<2, _, _>(MnMajor, layout!(((32,2),(8,2)):((1,256),(32,512)))),
            (32, 64, B64)
        );
        assert_eq!(
            desc::<3, _, _>(MnMajor, layout!((64,16):(1,64))),
            (0, 64, B128)
        );
        assert_eq!(
            desc::<3, _, _>(MnMajor, layout!(((64,2),(8,2)):((1,512),(64,1024)))),
            (64, 128, B128)
        );
    }

    /// The descriptor read back, element by element: the address
    /// `element_address` decodes for (mn, k) is where the tile's layout
    /// (with its swizzle) puts it, for every canonical tile of CuTe's cases
    /// above, at a 1024-byte aligned start.
    #[test]
    fn element_addresses_are_the_tiles() {
        use crate::layout::coord::Crd2Idx;
        fn agree<const B: u32, Mj: GmmaMajor, Sh: Congruent<D>, D: IntTuple>(
            major: Mj,
            l: Layout<Sh, D>,
        ) where
            ComposedLayout<Swizzle<B, 3, 3>, Layout<Sh, D>>: GmmaOperand<Mj>,
            (usize, usize): Crd2Idx<Sh, D>,
        {
            let tile = ComposedLayout {
                swizzle: Swizzle::<B, 3, 3>,
                layout: l,
            };
            let start = 0x8000;
            let d = make_gmma_desc(major, &tile, start).unwrap();
            for k in 0..16 {
                for m in 0..l.shape().mode_size(0) {
                    let want = start + 2 * Swizzle::<B, 3, 3>.apply(l.crd2idx((m, k))) as u32;
                    assert_eq!(
                        d.element_address(major.major(), (m, k)),
                        want,
                        "{l} at ({m},{k})"
                    );
                    if major.major() == Major::K {
                        let k_major = d.element_address_k_major(2, (m, k));
                        assert_eq!(k_major, want, "{l} at ({m},{k})");
                    }
                }
            }
        }
        agree::<0, _, _, _>(KMajor, layout!((64,(8,2)):(8,(1,512))));
        agree::<0, _, _, _>(KMajor, layout!((128,(8,2)):(8,(1,1024))));
        agree::<1, _, _, _>(KMajor, layout!((64,16):(16,1)));
        agree::<2, _, _, _>(KMajor, layout!((64,16):(32,1)));
        agree::<3, _, _, _>(KMajor, layout!((64,16):(64,1)));
        agree::<3, _, _, _>(KMajor, layout!((128,16):(64,1)));
        agree::<0, _, _, _>(MnMajor, layout!(((8,8),(8,2)):((1,64),(8,512))));
        agree::<1, _, _, _>(MnMajor, layout!(((16,4),(8,2)):((1,128),(16,512))));
        agree::<2, _, _, _>(MnMajor, layout!(((32,2),(8,2)):((1,256),(32,512))));
        agree::<3, _, _, _>(MnMajor, layout!((64,16):(1,64)));
        agree::<3, _, _, _>(MnMajor, layout!(((64,2),(8,2)):((1,512),(64,1024))));
    }

    /// The start address is the tile's element 0 (a later k-block of the
    /// same tile starts further on), in 16-byte units.
    #[test]
    fn the_start_address_is_the_tiles_first_element() {
        // The second k-block of a K-major SW128 (64,64) tile: 16 elements on.
        let tile = ComposedLayout {
            swizzle: Swizzle::<3, 3, 3>,
            layout: crate::make_layout(
                (crate::C::<64>, crate::C::<16>),
                (crate::C::<64>, crate::C::<1>),
            ),
        };
        let d = make_gmma_desc(Major::K, &tile, 0x1000).unwrap();
        assert_eq!(d.bits() & 0x3fff, 0x100);
        assert_eq!(d.advance(2).bits() & 0x3fff, 0x102);
    }

    /// The refusals: a swizzle GMMA lacks, a K extent other than one
    /// k-block, an MN extent off the form, a layout off the form.
    #[test]
    fn other_layouts_are_refused() {
        let sw = ComposedLayout {
            swizzle: Swizzle::<3, 4, 3>,
            layout: layout!((64,16):(64,1)),
        };
        assert_eq!(
            make_gmma_desc(Major::K, &sw, 0),
            Err(GmmaDescError::Swizzle { bms: (3, 4, 3) })
        );
        let k32 = ComposedLayout {
            swizzle: Swizzle::<3, 3, 3>,
            layout: layout!((64,32):(64,1)),
        };
        assert_eq!(
            make_gmma_desc(Major::K, &k32, 0),
            Err(GmmaDescError::Extents { mn_k: (64, 32) })
        );
        let mn = ComposedLayout {
            swizzle: Swizzle::<3, 3, 3>,
            layout: layout!((32,16):(1,64)),
        };
        assert_eq!(
            make_gmma_desc(Major::MN, &mn, 0),
            Err(GmmaDescError::Extents { mn_k: (32, 16) })
        );
        // Column-major K-major data: element (0,1) is 64 on, not next.
        let cm = ComposedLayout {
            swizzle: Swizzle::<0, 3, 3>,
            layout: layout!((64,16):(1,64)),
        };
        assert!(matches!(
            make_gmma_desc(Major::K, &cm, 0),
            Err(GmmaDescError::NotCanonical { at: (1, 0), .. })
        ));
    }

    /// A static tile of a static major is refused at compile time with
    /// the run-time refusal's reason, after the tile in CuTe notation. The
    /// expected points are CuTe's forms in elements (8 to a chunk): a
    /// K-major row is W chunks on (W = 8 under Sw<3,3,3>, 4 under
    /// Sw<2,3,3>), an MN-major column W chunks on.
    #[test]
    fn static_refusals_name_the_tile() {
        type Tile<const B: u32, const M: u32, L> = ComposedLayout<Swizzle<B, M, 3>, L>;
        let cases = [
            // Rows 16 halves apart under the 128-byte swizzle (they must be 64).
            (
                gmma_desc_error::<KMajor, Tile<3, 3, layout_type!((128,16):(16,1))>>(),
                "make_gmma_desc: Sw<3,3,3> o _0 o (_128,_16):(_16,_1): not a canonical K-major B128 layout ((8,n),2):((W,SBO),1) in 16-byte chunks (W = 8): element (1,0) is at 16, the form puts it at 64",
            ),
            // An SW128 tile under the 64-byte swizzle: rows are 32 halves on.
            (
                gmma_desc_error::<KMajor, Tile<2, 3, layout_type!((128,16):(64,1))>>(),
                "make_gmma_desc: Sw<2,3,3> o _0 o (_128,_16):(_64,_1): not a canonical K-major B64 layout ((8,n),2):((W,SBO),1) in 16-byte chunks (W = 4): element (1,0) is at 64, the form puts it at 32",
            ),
            // MN-major columns padded to 72 halves (they must be 64).
            (
                gmma_desc_error::<MnMajor, Tile<3, 3, layout_type!((64,16):(1,72))>>(),
                "make_gmma_desc: Sw<3,3,3> o _0 o (_64,_16):(_1,_72): not a canonical MN-major B128 layout ((W,n),(8,k)):((1,LBO),(W,SBO)) in 16-byte chunks (W = 8): element (0,1) is at 72, the form puts it at 64",
            ),
            // A K-major tile given as MN-major.
            (
                gmma_desc_error::<MnMajor, Tile<3, 3, layout_type!((64,16):(64,1))>>(),
                "make_gmma_desc: Sw<3,3,3> o _0 o (_64,_16):(_64,_1): not a canonical MN-major B128 layout ((W,n),(8,k)):((1,LBO),(W,SBO)) in 16-byte chunks (W = 8): element (1,0) is at 64, the form puts it at 1",
            ),
            // CuTe's byte-unit swizzle over elements.
            (
                gmma_desc_error::<KMajor, Tile<3, 4, layout_type!((64,16):(64,1))>>(),
                "make_gmma_desc: Sw<3,4,3> o _0 o (_64,_16):(_64,_1): swizzle Sw<3,4,3> over 16-bit elements is none of GMMA's (Sw<B,3,3>, B <= 3)",
            ),
            // Two k-blocks.
            (
                gmma_desc_error::<KMajor, Tile<3, 3, layout_type!((64,32):(64,1))>>(),
                "make_gmma_desc: Sw<3,3,3> o _0 o (_64,_32):(_64,_1): a 64 x 32 tile: a descriptor covers MN x 16 elements, MN a multiple of 8 (K-major) or of the swizzle's width (MN-major)",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, Some(want));
        }
        // Canonical tiles, a major value and run-time leaves: no refusal here.
        assert_eq!(gmma_desc_error::<KMajor, LayoutKSw128Tile>(), None);
        assert_eq!(
            gmma_desc_error::<Major, Tile<3, 3, layout_type!((128,16):(16,1))>>(),
            None
        );
        assert_eq!(
            gmma_desc_error::<KMajor, Tile<3, 3, layout_type!((128,16):(usize,1))>>(),
            None
        );
    }

    /// The two axes decide what every element would: the check agrees with
    /// checking every element through `crd2idx` (the first element where
    /// the form fails, column by column, and both offsets there) on
    /// canonical tiles and on tiles with one stride changed.
    #[test]
    fn the_axes_decide_every_element() {
        use crate::layout::coord::Crd2Idx;
        fn every_element<Sh: Congruent<D> + TwoModes, D: IntTuple>(
            major: Major,
            b: u32,
            l: Layout<Sh, D>,
        ) -> Result<(LayoutType, usize, usize), GmmaDescError>
        where
            (usize, usize): Crd2Idx<Sh, D>,
        {
            let tile = ComposedLayout {
                swizzle: Swizzle::<0, 3, 3>,
                layout: l,
            };
            // The axes' check refuses the swizzle and the extents; past
            // those, LBO and SBO are read as CuTe reads them and the form is
            // checked at every element.
            let t = tile.leaves();
            match check(major, (b, 3, 3), &t) {
                Ok(_) | Err(GmmaDescError::NotCanonical { .. }) => {}
                refused => return refused,
            }
            let layout = LayoutType::of_bits(b).unwrap();
            let mn = l.shape().mode_size(0);
            let w = layout.width();
            let read = |m, k| l.crd2idx((m, k)) / 8;
            let interleave = layout == LayoutType::Interleave;
            let (lbo, sbo) = match major {
                Major::K => (
                    if interleave { read(0, 8) } else { 1 },
                    if mn > 8 { read(8, 0) } else { 0 },
                ),
                Major::MN if interleave => (read(0, 8), if mn > 8 { read(8, 0) } else { 0 }),
                Major::MN => (if mn > 8 * w { read(8 * w, 0) } else { 0 }, read(0, 8)),
            };
            for kk in 0..16 {
                for m in 0..l.shape().mode_size(0) {
                    let got = l.crd2idx((m, kk));
                    let want = canonical(
                        major,
                        layout == LayoutType::Interleave,
                        layout.width(),
                        (lbo, sbo),
                        (m, kk),
                    );
                    if got != want {
                        return Err(GmmaDescError::NotCanonical {
                            major,
                            layout,
                            at: (m, kk),
                            got_expected: (got, want),
                        });
                    }
                }
            }
            Ok((layout, lbo, sbo))
        }
        // (major, swizzle B, shape, stride) of canonical tiles, nested
        // as CuTe's tile_to_shape prints them (run-time leaves).
        let cases: [(Major, u32, [usize; 4], [usize; 4]); 8] = [
            (Major::K, 0, [8, 16, 8, 2], [8, 64, 1, 1024]),
            (Major::K, 1, [8, 8, 16, 1], [16, 128, 1, 0]),
            (Major::K, 2, [8, 16, 16, 1], [32, 256, 1, 0]),
            (Major::K, 3, [8, 16, 16, 1], [64, 512, 1, 0]),
            (Major::MN, 0, [8, 8, 8, 2], [1, 64, 8, 512]),
            (Major::MN, 1, [16, 4, 8, 2], [1, 128, 16, 512]),
            (Major::MN, 2, [32, 2, 8, 2], [1, 256, 32, 512]),
            (Major::MN, 3, [64, 2, 8, 2], [1, 512, 64, 1024]),
        ];
        let mut refused = 0;
        for (major, b, s, d) in cases {
            for leaf in 0..5 {
                for delta in [0, 1, 8, 56, 64, 448, 1016] {
                    let mut d = d;
                    if leaf < 4 {
                        d[leaf] = d[leaf].wrapping_add(delta);
                    }
                    let l = crate::make_layout(
                        ((s[0], s[1]), (s[2], s[3])),
                        ((d[0], d[1]), (d[2], d[3])),
                    );
                    let tile = ComposedLayout {
                        swizzle: Swizzle::<0, 3, 3>,
                        layout: l,
                    };
                    let axes = check(major, (b, 3, 3), &tile.leaves());
                    assert_eq!(axes, every_element(major, b, l), "{major:?} B{b} {l}");
                    refused += usize::from(axes.is_err());
                }
            }
        }
        // Most changed strides are refused, so the refusals were compared too.
        assert!(refused > 100, "{refused} refused");
    }

    type LayoutKSw128Tile = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((128,16):(64,1))>;

    /// Run-time leaves take the same check at run time: the static
    /// refusal's reason as an `Err`, a canonical tile's descriptor.
    #[test]
    fn runtime_leaves_are_checked_at_run_time() {
        let (n, row) = (128, 64);
        let tile = ComposedLayout {
            swizzle: Swizzle::<3, 3, 3>,
            layout: layout!((n,16):(row,1)),
        };
        let d = make_gmma_desc(KMajor, &tile, 0).unwrap();
        assert_eq!(
            (d.lbo(), d.sbo(), d.layout_type()),
            (1, 64, LayoutType::B128)
        );
        assert_eq!(
            make_gmma_desc(KMajor, &LayoutKSw128Tile::default(), 0),
            Ok(d)
        );
        let col = row + 8;
        let padded = ComposedLayout {
            swizzle: Swizzle::<3, 3, 3>,
            layout: layout!((64,16):(1,col)),
        };
        assert_eq!(
            make_gmma_desc(MnMajor, &padded, 0),
            Err(GmmaDescError::NotCanonical {
                major: Major::MN,
                layout: LayoutType::B128,
                at: (0, 1),
                got_expected: (72, 64),
            })
        );
        // Leaves of size 1 move nothing, wherever they sit.
        let one = 1;
        let ones = ComposedLayout {
            swizzle: Swizzle::<3, 3, 3>,
            layout: layout!(((1,128,one),(16,1)):((5,64,7),(1,9))),
        };
        assert_eq!(make_gmma_desc(KMajor, &ones, 0), Ok(d));
    }

    /// The atoms are CuTe's (printed by CuTe 4.7 over `half_t`: the layout
    /// after `smem_ptr[16b]`).
    #[test]
    fn atoms_are_cutes() {
        let texts = [
            LayoutKInterAtom::default().layout.to_string(),
            LayoutKSw32Atom::default().layout.to_string(),
            LayoutKSw128Atom::default().layout.to_string(),
            LayoutMnInterAtom::default().layout.to_string(),
            LayoutMnSw128Atom::default().layout.to_string(),
        ];
        assert_eq!(
            texts,
            [
                "(_8,_8):(_8,_1)",
                "(_8,_16):(_16,_1)",
                "(_8,_64):(_64,_1)",
                "(_8,_8):(_1,_8)",
                "(_64,_8):(_1,_64)"
            ]
        );
    }
}
