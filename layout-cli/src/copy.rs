//! TiledCopy pictures: which thread reads (source) and writes
//! (destination) which element of a tiled copy's tile, for a fixed set of
//! tiled copies (their layouts are types, built here at compile time).

use layout_core::atom::mma::make_tiled_mma;
use layout_core::atom::tiled_copy::{
    make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, Copy_Atom,
};
use layout_core::atom::{
    SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN, UniversalCopy,
    SM80_CP_ASYNC_CACHEGLOBAL_U128,
};
use layout_core::{layout, Int, C};

/// The source and destination thread-value layouts and the tile (M, N).
pub struct Tv {
    /// `(thread, value) -> (m, n)` of the elements read, column-major.
    pub s: String,
    /// `(thread, value) -> (m, n)` of the elements written.
    pub d: String,
    /// The tile.
    pub mn: (i64, i64),
}

/// The tiled copies the explorer draws.
pub const SPECS: &str = "sgemm_2:nt, sgemm_2:tn, ldsm:a, ldsm:b, cp_async";

macro_rules! tv {
    ($copy:expr) => {{
        let copy = $copy;
        let (m, n) = copy.tile_size();
        Tv {
            s: copy.get_layout_s_tv().to_string(),
            d: copy.get_layout_d_tv().to_string(),
            mn: (m.value() as i64, n.value() as i64),
        }
    }};
}

/// The tiled copy named `spec`.
pub fn tiled(spec: &str) -> Result<Tv, String> {
    // CuTe's sgemm_sm80 TiledMMA, whose operands the ldmatrix copies load.
    let mma = make_tiled_mma(
        SM80_16x8x16_F16F16F16F16_TN,
        layout!((2, 2, 1)),
        (C::<32>, C::<32>, C::<16>),
    );
    Ok(match spec {
        // CuTe's sgemm_2: 32 x 8 threads, 4 floats each by 16-byte accesses
        // (NT), or one float each, k-major (TN).
        "sgemm_2:nt" => tv!(make_tiled_copy(
            Copy_Atom::<UniversalCopy<u128>, f32>::default(),
            layout!((32, 8)),
            layout!((4, 1))
        )),
        "sgemm_2:tn" => tv!(make_tiled_copy(
            Copy_Atom::<UniversalCopy<f32>, f32>::default(),
            layout!((32,8):(8,1)),
            layout!((1, 1))
        )),
        "ldsm:a" => tv!(make_tiled_copy_a(
            Copy_Atom::<SM75_U32x4_LDSM_N, u16>::default(),
            mma
        )),
        "ldsm:b" => tv!(make_tiled_copy_b(
            Copy_Atom::<SM75_U32x2_LDSM_N, u16>::default(),
            mma
        )),
        // CuTe's sgemm_sm80 global-to-shared copy: 8 halves per thread.
        "cp_async" => tv!(make_tiled_copy(
            Copy_Atom::<SM80_CP_ASYNC_CACHEGLOBAL_U128, u16>::default(),
            layout!((32,4):(4,1)),
            layout!((1, 8))
        )),
        _ => return Err(format!("`{spec}`: unknown tiled copy (one of {SPECS})")),
    })
}
