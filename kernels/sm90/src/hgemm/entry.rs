//! `hgemm_sm90`'s entry points, one per form of `super::FORMS`: the
//! tensor maps and C from the host (the dynamic shared memory the plan lays
//! out is `crate::smem::HGEMM_SMEM`).
#![allow(unsafe_code)]

use layout_device::GlobalMut;

/// The entry points of `crate::hgemm::FORMS`, each `hgemm_body::<I>` for
/// its index in that list (the name checked against it at compile time):
/// the list is the one statement of what each form is.
macro_rules! forms {
    ($($(#[$doc:meta])* $name:ident: $i:literal;)*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            map_a: *const u64,
            map_b: *const u64,
            c: GlobalMut<u16>,
            m: u32,
            n: u32,
            k: u32,
        ) {
            const { assert!(crate::hgemm::same_name(crate::hgemm::FORMS[$i].0, stringify!($name))) };
            super::body::hgemm_body::<$i>(map_a, map_b, c, (m, n, k))
        }
    )*};
}

forms! {
    /// C (m x n, f16, row-major) = A · Bᵀ for A m x k and B n x k f16,
    /// row-major, f32 accumulators: warp-specialized (a TMA producer
    /// warpgroup, two `wgmma` consumer warpgroups), persistent over 128 x 256
    /// tiles in clusters of two blocks along M that share B's tile by
    /// multicast (`crate::hgemm` has the plan). Partial tiles: TMA fills what
    /// lies past A or B with zeros, and the stores are clipped to m x n.
    /// Launch: blocks of 384 threads (an even count: the clusters of two are
    /// compiled in), at most one cluster per pair of tile rows and tile
    /// column, with `crate::hgemm::SMEM_BYTES` of dynamic shared memory.
    ///
    /// # Safety
    /// `map_a` and `map_b` point to tensor maps (64-byte aligned, in global
    /// memory) of live f16 buffers: A as (k, m) with a 64 x 128 box, B as
    /// (k, n) with a 64 x 128 box (each block of a cluster loads half of B's
    /// 256 rows), both with the 128-byte swizzle; `c` covers m x n elements.
    hgemm_sm90: 0;
    /// A form of [`hgemm_sm90`] for docs/gpu.md's table (`crate::hgemm::FORMS`
    /// says which ingredient it leaves out).
    ///
    /// # Safety
    /// As [`hgemm_sm90`], with the form's threads and boxes: A's `64 x (64
    /// consumers)`, B's `64 x (256 / cluster)` (`crate::hgemm::Form`).
    hgemm_sm90_1wg: 1;
    /// As `hgemm_sm90_1wg`.
    ///
    /// # Safety
    /// As `hgemm_sm90_1wg`.
    hgemm_sm90_wait0: 2;
    /// As `hgemm_sm90_1wg`.
    ///
    /// # Safety
    /// As `hgemm_sm90_1wg`.
    hgemm_sm90_columns: 3;
    /// As `hgemm_sm90_1wg`.
    ///
    /// # Safety
    /// As `hgemm_sm90_1wg`.
    hgemm_sm90_rows: 4;
    /// As `hgemm_sm90_1wg`.
    ///
    /// # Safety
    /// As `hgemm_sm90_1wg`.
    hgemm_sm90_nocluster: 5;
    /// As `hgemm_sm90_1wg`.
    ///
    /// # Safety
    /// As `hgemm_sm90_1wg`.
    hgemm_sm90_clipped: 6;
}
