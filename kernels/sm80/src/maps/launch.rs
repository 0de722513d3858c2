//! The launch rules of a GEMM entry point ([`GemmPlan`]): the sizes it
//! takes, its grid and its block, made of the tiles its plan is written
//! for, which the kernel's own size checks use. Each kernel's plan states
//! its rules (`SGEMM` in `crate::sgemm`, `HGEMM_F32` in `crate::hgemm`,
//! `transpose_divides` in `crate::transpose`); the host API
//! (`layout-gpu`), the runner and its help text read them there.

/// A GEMM entry point's launch rules: `(a, b, c, m, n, k)`, one block of
/// `threads` per `tile.0 x tile.1` tile of C, M, N and K multiples of the
/// tile (K positive: the kernels have no empty k-loop).
///
/// ```
/// use layout_kernels::maps::SGEMM;
/// assert_eq!(SGEMM.tile, (128, 128, 8));
/// assert!(SGEMM.divides(256, 128, 16) && !SGEMM.divides(256, 100, 16));
/// assert_eq!(SGEMM.grid(256, 384), (3, 2)); // (N / 128, M / 128)
/// assert_eq!(SGEMM.sizes(), "M and N multiples of 128, K a positive multiple of 8");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmPlan {
    /// The entry point.
    pub entry: &'static str,
    /// The block tile (M, N, K).
    pub tile: (usize, usize, usize),
    /// Threads per block.
    pub threads: usize,
}

impl GemmPlan {
    /// Whether the kernel takes (m, n, k): multiples of the tile, K
    /// positive (M or N of 0 launches no block). The kernel traps
    /// otherwise.
    #[inline(always)]
    pub const fn divides(&self, m: usize, n: usize, k: usize) -> bool {
        tile_divides(self.tile, m, n, k)
    }
    /// The grid: `(N / BN, M / BM)` blocks, x along N.
    pub const fn grid(&self, m: usize, n: usize) -> (usize, usize) {
        (n / self.tile.1, m / self.tile.0)
    }
    /// The sizes it takes, in words (help text and refusals).
    #[cfg(not(target_arch = "nvptx64"))]
    pub fn sizes(&self) -> alloc::string::String {
        let (bm, bn, bk) = self.tile;
        if bm == bn {
            alloc::format!("M and N multiples of {bm}, K a positive multiple of {bk}")
        } else {
            alloc::format!("M a multiple of {bm}, N of {bn}, K a positive multiple of {bk}")
        }
    }
}

/// Whether M, N and K are multiples of a GEMM block tile (BM, BN, BK), K
/// positive: [`GemmPlan::divides`], for a body written for any tile.
#[inline(always)]
pub const fn tile_divides(
    (bm, bn, bk): (usize, usize, usize),
    m: usize,
    n: usize,
    k: usize,
) -> bool {
    m % bm == 0 && n % bn == 0 && k % bk == 0 && k != 0
}

#[cfg(test)]
mod tests {
    use crate::maps::*;

    /// The rules as the kernels were written for them: 128 x 128 tiles, 16
    /// x 16 SIMT threads or 2 x 2 warps, k-blocks of 8 floats or 32 halves.
    #[test]
    fn gemm_rules() {
        assert_eq!((SGEMM_NT.tile, SGEMM_NT.threads), ((128, 128, 8), 256));
        assert_eq!((HGEMM_F16.tile, HGEMM_F16.threads), ((128, 128, 32), 128));
        assert!(HGEMM_F32.divides(128, 256, 32));
        // K = 0 is no k-block: refused (the host API writes C = 0 itself).
        assert!(!HGEMM_F32.divides(128, 128, 0));
        assert!(!HGEMM_F32.divides(128, 128, 16));
        // M = 0 divides: a grid of no block.
        assert!(SGEMM.divides(0, 128, 8));
        assert_eq!(HGEMM_F32.grid(384, 128), (1, 3));
        assert_eq!(
            HGEMM_F16.sizes(),
            "M and N multiples of 128, K a positive multiple of 32"
        );
    }
}
