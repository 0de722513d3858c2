//! The launch rules of the SM80 kernels: for each entry point, the sizes
//! it takes, its grid and its block, made of the tiles their maps are
//! written for (`BM`, `HGEMM_BM`, `TT`, ...), which the kernels' own size
//! checks use. The host API (`layout-gpu`), the runner and its help text
//! read them from here.

use super::{BK, BM, BN, HGEMM_BK, HGEMM_BM, HGEMM_BN, HGEMM_THREADS, THREADS, TT};

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

/// `sgemm_f32`: C = A · B, f32, A (M x K) and B (K x N) row-major.
pub const SGEMM: GemmPlan = GemmPlan {
    entry: "sgemm_f32",
    tile: (BM, BN, BK),
    threads: THREADS,
};

/// `sgemm_nt_f32`: as [`SGEMM`] with A M-major (column-major).
pub const SGEMM_NT: GemmPlan = GemmPlan {
    entry: "sgemm_nt_f32",
    ..SGEMM
};

/// `hgemm_f32`: C = A · Bᵀ on tensor cores, A (M x K) and B (N x K) f16
/// row-major, f32 accumulators and C.
pub const HGEMM_F32: GemmPlan = GemmPlan {
    entry: "hgemm_f32",
    tile: (HGEMM_BM, HGEMM_BN, HGEMM_BK),
    threads: HGEMM_THREADS,
};

/// `hgemm_f16`: as [`HGEMM_F32`] with f16 accumulators and C.
pub const HGEMM_F16: GemmPlan = GemmPlan {
    entry: "hgemm_f16",
    ..HGEMM_F32
};

/// `transpose_f32(src, dst, n)`: `dst = srcᵀ`, both n x n f32 row-major,
/// n a multiple of [`TRANSPOSE_TILE`]; one block of [`THREADS`] per tile,
/// grid `(n / 64, n / 64)`.
pub const TRANSPOSE_TILE: usize = TT;

/// Whether `transpose_f32` takes side `n` (the kernel traps otherwise).
///
/// ```
/// assert!(layout_kernels::maps::transpose_divides(128));
/// assert!(!layout_kernels::maps::transpose_divides(100));
/// ```
#[inline(always)]
pub const fn transpose_divides(n: usize) -> bool {
    n % TRANSPOSE_TILE == 0
}

#[cfg(test)]
mod tests {
    use super::*;

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
