//! TiledMMA pictures: the thread-value layouts of a tiled MMA's A, B and C
//! partitions, for a fixed set of tiled MMAs (their layouts are types, built
//! here at compile time).

use layout_core::atom::{
    SM80_16x8x16_F32F16F16F32_TN, SM90_64x128x16_F32F16F16_SS, SM90_64x256x16_F32F16F16_SS,
    SM90_64x64x16_F32F16F16_SS, UniversalFMA,
};
use layout_core::{atom::mma::make_tiled_mma, layout, Int, Underscore as X};

/// The three thread-value layouts and the tile (M, N, K).
pub struct Tv {
    /// `(thread, value) -> (m, k)`, column-major in M x K.
    pub a: String,
    /// `(thread, value) -> (n, k)`, column-major in N x K.
    pub b: String,
    /// `(thread, value) -> (m, n)`, column-major in M x N.
    pub c: String,
    /// The tile.
    pub mnk: (i64, i64, i64),
    /// Whether A and B come from shared memory (a warpgroup MMA): their
    /// thread-value layouts give every thread every element.
    pub smem_ab: bool,
}

/// The tiled MMAs the explorer draws.
pub const SPECS: &str =
    "sm80:1x1x1, sm80:2x2x1, sm80:4x1x1, sm90:64x64x16, sm90:64x128x16, sm90:64x256x16, \
     sm90:64x256x16/2x1x1, fma:16x16x1, fma:(4,4)x(8,2)x1";

macro_rules! tv {
    ($atom:expr, $l:expr) => {
        tv!($atom, $l, false)
    };
    ($atom:expr, $l:expr, $smem:expr) => {{
        let mma = make_tiled_mma($atom, $l, (X, X, X));
        let (m, n, k) = mma.tile_size();
        Tv {
            a: mma.get_layout_a_tv().to_string(),
            b: mma.get_layout_b_tv().to_string(),
            c: mma.get_layout_c_tv().to_string(),
            mnk: (m.value() as i64, n.value() as i64, k.value() as i64),
            smem_ab: $smem,
        }
    }};
}

/// The tiled MMA named `spec` (`atom:MxNxK` atoms).
pub fn tiled(spec: &str) -> Result<Tv, String> {
    Ok(match spec {
        "sm80:1x1x1" => tv!(SM80_16x8x16_F32F16F16F32_TN, layout!((1,1,1):(0,0,0))),
        "sm80:2x2x1" => tv!(SM80_16x8x16_F32F16F16F32_TN, layout!((2,2,1):(1,2,0))),
        "sm80:4x1x1" => tv!(SM80_16x8x16_F32F16F16F32_TN, layout!((4,1,1):(1,0,0))),
        // Hopper's warpgroup MMA: 128 threads; A and B are read from shared
        // memory (every thread maps to every element), C is in registers.
        "sm90:64x64x16" => tv!(SM90_64x64x16_F32F16F16_SS, layout!((1,1,1):(0,0,0)), true),
        "sm90:64x128x16" => tv!(SM90_64x128x16_F32F16F16_SS, layout!((1,1,1):(0,0,0)), true),
        "sm90:64x256x16" => tv!(SM90_64x256x16_F32F16F16_SS, layout!((1,1,1):(0,0,0)), true),
        // hgemm_sm90's consumers: two warpgroups along M, a 128 x 256 tile.
        "sm90:64x256x16/2x1x1" => {
            tv!(SM90_64x256x16_F32F16F16_SS, layout!((2,1,1):(1,0,0)), true)
        }
        "fma:16x16x1" => tv!(UniversalFMA, layout!((16,16,1):(1,16,0))),
        // The same 16 x 16 threads, each warp a 4 x 8 block (the SGEMM's).
        "fma:(4,4)x(8,2)x1" => tv!(UniversalFMA, layout!(((4,4),(8,2),1):((1,32),(4,128),0))),
        _ => return Err(format!("`{spec}`: unknown tiled MMA (one of {SPECS})")),
    })
}
