//! Hopper's GMMA shared-memory side (CuTe's `SM90::GMMA`): the canonical
//! shared-memory layout atoms an operand tile is built from, and the
//! matrix descriptor a `wgmma` names such a tile by.
//!
//! A descriptor describes a tile of 16-byte chunks ("core matrices" of 8
//! rows x 16 bytes) by two strides, the leading and stride byte offsets
//! (LBO, SBO), and a swizzle mode; [`make_gmma_desc`] reads them off the
//! tile's layout and checks, point by point, that the layout is the
//! canonical form the descriptor can describe, refusing any other.
//!
//! The atoms are in elements of 16 bits (f16, bf16), their swizzle in
//! element units: CuTe's byte-address `Sw<B,4,3>` is `Sw<B,3,3>` here.

use super::super::algebra::swizzle::{ComposedLayout, Swizzle};
use crate::layout::coord::Crd2Idx;
use crate::layout::{Congruent, Layout};
use crate::layout_type;
use crate::typelevel::tuple::IntTuple;
use core::fmt;

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

impl fmt::Display for GmmaDescError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GmmaDescError::Swizzle { bms: (b, m, s) } => write!(
                f,
                "make_gmma_desc: swizzle Sw<{b},{m},{s}> over 16-bit elements is none of GMMA's (Sw<B,3,3>, B <= 3)"
            ),
            GmmaDescError::Extents { mn_k: (mn, k) } => write!(
                f,
                "make_gmma_desc: a {mn} x {k} tile: a descriptor covers MN x 16 elements, MN a multiple of 8 (K-major) or of the swizzle's width (MN-major)"
            ),
            GmmaDescError::NotCanonical {
                major,
                layout,
                at: (mn, k),
                got_expected: (got, want),
            } => {
                let form = match (major, layout) {
                    (Major::K, LayoutType::Interleave) => "((8,n),2):((1,SBO),LBO)",
                    (Major::K, _) => "((8,n),2):((W,SBO),1)",
                    (Major::MN, LayoutType::Interleave) => "((1,n),(8,k)):((X,SBO),(1,LBO))",
                    (Major::MN, _) => "((W,n),(8,k)):((1,LBO),(W,SBO))",
                };
                write!(
                    f,
                    "make_gmma_desc: not a canonical {}-major {layout:?} layout {form} in 16-byte chunks (W = {}): element ({mn},{k}) is at {got}, the form puts it at {want}",
                    if major == Major::K { "K" } else { "MN" },
                    layout.width()
                )
            }
        }
    }
}

/// The descriptor of an operand tile: `tile` is the tile's layout over
/// 16-bit elements, (MN, K) with K = 16 (one `wgmma` k-block), composed
/// with its swizzle; `address` is the shared address of the element at
/// offset 0. Every element is checked against the canonical form of
/// `major` and the swizzle (CuTe's `make_gmma_desc<Major>`, which checks
/// the same at compile time); another layout is refused with the point
/// where it differs.
///
/// ```
/// use layout_core::atom::gmma::{make_gmma_desc, LayoutType, Major};
/// use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
/// use layout_core::layout;
/// // CuTe's tile_to_shape(Layout_K_SW128_Atom<half_t>, (128,64)), its first
/// // k-block: (128,16):(64,1) under the 128-byte swizzle.
/// let tile = ComposedLayout { swizzle: Swizzle::<3, 3, 3>, layout: layout!((128,16):(64,1)) };
/// let d = make_gmma_desc(Major::K, &tile, 0x800).unwrap();
/// // CuTe's make_gmma_desc<Major::K>: lbo 1, sbo 64, type 1 (B128).
/// assert_eq!((d.lbo(), d.sbo(), d.layout_type()), (1, 64, LayoutType::B128));
/// // Rows 16 halves apart are not a 128-byte-swizzled tile.
/// let bad = ComposedLayout { swizzle: Swizzle::<3, 3, 3>, layout: layout!((128,16):(16,1)) };
/// let e = make_gmma_desc(Major::K, &bad, 0).unwrap_err();
/// assert_eq!(e.to_string(), "make_gmma_desc: not a canonical K-major B128 layout ((8,n),2):((W,SBO),1) in 16-byte chunks (W = 8): element (1,0) is at 16, the form puts it at 64");
/// ```
pub fn make_gmma_desc<const B: u32, const M: u32, const S: i32, Sh, D>(
    major: Major,
    tile: &ComposedLayout<Swizzle<B, M, S>, Layout<Sh, D>>,
    address: u32,
) -> Result<GmmaDescriptor, GmmaDescError>
where
    Sh: Congruent<D>,
    D: IntTuple,
    (usize, usize): Crd2Idx<Sh, D>,
{
    let layout = match LayoutType::of_bits(B) {
        Some(t) if M == 3 && S == 3 => t,
        _ => return Err(GmmaDescError::Swizzle { bms: (B, M, S) }),
    };
    let l = &tile.layout;
    let (mn, k) = (l.shape().mode_size(0), l.shape().mode_size(1));
    let w = layout.width();
    // Elements per 16-byte chunk.
    const T: usize = 8;
    let at = |m: usize, kk: usize| l.crd2idx((m, kk));
    let base = at(0, 0);
    let rel = |m: usize, kk: usize| at(m, kk).wrapping_sub(base);
    let interleave = layout == LayoutType::Interleave;
    // The strides in chunks, read where the form has them (0 for a mode of
    // one, as CuTe's).
    let (lbo, sbo) = match major {
        Major::K => {
            if mn == 0 || mn % 8 != 0 || k != 2 * T {
                return Err(GmmaDescError::Extents { mn_k: (mn, k) });
            }
            let sbo = if mn > 8 { rel(8, 0) / T } else { 0 };
            (if interleave { rel(0, T) / T } else { 1 }, sbo)
        }
        Major::MN => {
            if k != 2 * T || mn == 0 || mn % (T * w) != 0 {
                return Err(GmmaDescError::Extents { mn_k: (mn, k) });
            }
            let many = mn > T * w;
            if interleave {
                (rel(0, 8) / T, if many { rel(T, 0) / T } else { 0 })
            } else {
                (if many { rel(T * w, 0) / T } else { 0 }, rel(0, 8) / T)
            }
        }
    };
    for kk in 0..k {
        for m in 0..mn {
            let (got, want) = (
                rel(m, kk),
                canonical(major, interleave, w, (lbo, sbo), (m, kk)),
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
    // Byte address of element 0 of the tile (2 bytes an element).
    let start = address.wrapping_add(2 * base as u32);
    Ok(GmmaDescriptor::new(start, lbo as u32, sbo as u32, layout))
}

/// Where the canonical form puts element (m, kk) of a tile, relative to
/// element (0, 0), in elements (8 to a 16-byte chunk), before the swizzle.
fn canonical(
    major: Major,
    interleave: bool,
    w: usize,
    (lbo, sbo): (usize, usize),
    (m, kk): (usize, usize),
) -> usize {
    const T: usize = 8;
    match major {
        // ((8,n),2):((W,SBO),LBO or 1) over chunks; a chunk's T elements
        // consecutive along K.
        Major::K => {
            let kstride = if interleave { lbo } else { 1 };
            T * ((m % 8) * w + (m / 8) * sbo + (kk / T) * kstride) + kk % T
        }
        // ((1,n),(8,k)):((X,SBO),(1,LBO)), a chunk along MN.
        Major::MN if interleave => T * ((m / T) * sbo + (kk % 8) + (kk / 8) * lbo) + m % T,
        // ((W,n),(8,k)):((1,LBO),(W,SBO)).
        Major::MN => {
            let c = m / T;
            T * ((c % w) + (c / w) * lbo + (kk % 8) * w + (kk / 8) * sbo) + m % T
        }
    }
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
    use crate::layout;
    extern crate alloc;
    use alloc::string::ToString;

    fn desc<const B: u32, Sh: Congruent<D>, D: IntTuple>(
        major: Major,
        l: Layout<Sh, D>,
    ) -> (u32, u32, LayoutType)
    where
        (usize, usize): Crd2Idx<Sh, D>,
    {
        let tile = ComposedLayout {
            swizzle: Swizzle::<B, 3, 3>,
            layout: l,
        };
        let d = make_gmma_desc(major, &tile, 0).unwrap();
        (d.lbo(), d.sbo(), d.layout_type())
    }

    /// Each case: the first k-block of `tile_to_shape(GMMA atom, shape)` as
    /// CuTe 4.7 printed it, and its `make_gmma_desc` (host g++, CUTLASS
    /// 7107b05: LBO, SBO, layout type).
    #[test]
    fn descriptors_match_cutes() {
        use LayoutType::*;
        use Major::*;
        // K-major: INTER (64,16), INTER (128,32), SW32 (64,32), SW64 (64,32),
        // SW128 (64,64) and (128,64).
        assert_eq!(
            desc::<0, _, _>(K, layout!((64,(8,2)):(8,(1,512)))),
            (64, 8, Interleave)
        );
        assert_eq!(
            desc::<0, _, _>(K, layout!((128,(8,2)):(8,(1,1024)))),
            (128, 8, Interleave)
        );
        assert_eq!(desc::<1, _, _>(K, layout!((64,16):(16,1))), (1, 16, B32));
        assert_eq!(desc::<2, _, _>(K, layout!((64,16):(32,1))), (1, 32, B64));
        assert_eq!(desc::<3, _, _>(K, layout!((64,16):(64,1))), (1, 64, B128));
        assert_eq!(desc::<3, _, _>(K, layout!((128,16):(64,1))), (1, 64, B128));
        // MN-major: INTER, SW32, SW64, SW128 at (64,16); SW128 (128,32).
        assert_eq!(
            desc::<0, _, _>(MN, layout!(((8,8),(8,2)):((1,64),(8,512)))),
            (64, 8, Interleave)
        );
        assert_eq!(
            desc::<1, _, _>(MN, layout!(((16,4),(8,2)):((1,128),(16,512)))),
            (16, 64, B32)
        );
        assert_eq!(
            desc::<2, _, _>(MN, layout!(((32,2),(8,2)):((1,256),(32,512)))),
            (32, 64, B64)
        );
        assert_eq!(desc::<3, _, _>(MN, layout!((64,16):(1,64))), (0, 64, B128));
        assert_eq!(
            desc::<3, _, _>(MN, layout!(((64,2),(8,2)):((1,512),(64,1024)))),
            (64, 128, B128)
        );
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
