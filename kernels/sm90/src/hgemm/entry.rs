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
    /// As `hgemm_sm90_1wg`.
    ///
    /// # Safety
    /// As `hgemm_sm90_1wg`.
    hgemm_sm90_1wg_nocluster: 7;
    /// [`hgemm_sm90`] in ping-pong (`crate::hgemm::Form::pingpong`): 64 x
    /// 256 tiles, the two consumers taking alternate ones.
    ///
    /// # Safety
    /// As [`hgemm_sm90`], with A's box of 64 rows.
    hgemm_sm90_pingpong: 8;
}

/// C (m x n, bf16, row-major) = A · Bᵀ for A m x k and B n x k bf16,
/// row-major, f32 accumulators: `hgemm_sm90`'s plan, launch and contract
/// with bf16 for f16 (`super::body::gemm_body` with `Bf16In`, `Bf16`, no
/// fusion).
///
/// # Safety
/// As `hgemm_sm90`, the tensor maps of bf16 buffers.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_bf16_sm90(
    map_a: *const u64,
    map_b: *const u64,
    c: GlobalMut<u16>,
    m: u32,
    n: u32,
    k: u32,
) {
    bf16_direct((map_a, map_b), c, (m, n, k), layout_device::epilogue::Plain)
}

/// The bf16 entries that store C directly: `gemm_body` with the fusion
/// `fusion`.
#[inline(always)]
fn bf16_direct<F: layout_device::epilogue::Fusion>(
    (map_a, map_b): (*const u64, *const u64),
    c: GlobalMut<u16>,
    mnk: (u32, u32, u32),
    fusion: F,
) {
    use crate::hgemm::body::COut;
    use crate::smem::HGEMM_SMEM;
    use layout_device::epilogue::Bf16;
    super::body::gemm_body::<0, super::Bf16In, Bf16, F, HGEMM_SMEM>(
        map_a,
        map_b,
        COut::Global(c),
        mnk,
        fusion,
    )
}

/// C (m x n, bf16) = GELU(A · Bᵀ + bias) for A m x k and B n x k bf16,
/// row-major, `bias` one bf16 per column of C (a linear layer's `x @ W.T +
/// b` then torch's exact GELU), f32 accumulators and epilogue: as
/// [`gemm_bf16_sm90`], the fusion `Gelu(BiasCol)` of
/// `layout_device::epilogue`.
///
/// # Safety
/// As [`gemm_bf16_sm90`]; `bias` points to n bf16 values.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_bias_gelu_bf16_sm90(
    map_a: *const u64,
    map_b: *const u64,
    c: GlobalMut<u16>,
    bias: layout_device::Global<u16>,
    m: u32,
    n: u32,
    k: u32,
) {
    use layout_device::epilogue::{BiasCol, Gelu, Plain};
    let fusion = Gelu(BiasCol { bias, inner: Plain });
    bf16_direct((map_a, map_b), c, (m, n, k), fusion)
}

/// [`gemm_bias_gelu_bf16_sm90`] with GELU's tanh form (torch's
/// `approximate='tanh'`, cuBLASLt's GELU epilogue): the fusion
/// `GeluTanh(BiasCol)`, one `tanh.approx` a value where the exact GELU
/// takes an `ex2` and an `rcp`.
///
/// # Safety
/// As [`gemm_bias_gelu_bf16_sm90`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_bias_gelu_tanh_bf16_sm90(
    map_a: *const u64,
    map_b: *const u64,
    c: GlobalMut<u16>,
    bias: layout_device::Global<u16>,
    m: u32,
    n: u32,
    k: u32,
) {
    use layout_device::epilogue::{BiasCol, GeluTanh, Plain};
    let fusion = GeluTanh(BiasCol { bias, inner: Plain });
    bf16_direct((map_a, map_b), c, (m, n, k), fusion)
}

/// C (m x n, bf16) = (scale_a · scale_b) · A · Bᵀ for A m x k and B n x k
/// FP8 e4m3, row-major, with per-tensor scales and f32 accumulators (the
/// FP8 inference GEMM): `hgemm_sm90`'s plan with K-blocks of 128 elements
/// (the same 128 bytes), `wgmma` m64n256k32 e4m3, the fusion `Alpha`.
///
/// # Safety
/// As `hgemm_sm90`, the tensor maps of e4m3 buffers with 128 x 128-byte
/// boxes (A's `64 x (64 consumers)` rows, B's 128 rows), K a multiple of 16.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_e4m3_sm90(
    map_a: *const u64,
    map_b: *const u64,
    c: GlobalMut<u16>,
    scale_a: f32,
    scale_b: f32,
    m: u32,
    n: u32,
    k: u32,
) {
    let c = crate::hgemm::body::COut::Global(c);
    e4m3_body::<crate::smem::HGEMM_SMEM>((map_a, map_b), c, (scale_a, scale_b), (m, n, k))
}

/// [`gemm_e4m3_sm90`] with the TMA-store epilogue (as
/// [`gemm_bf16_tma_sm90`]): the FP8 K-loop takes half the bf16 one's time,
/// so the epilogue's share of a tile is twice as large.
///
/// # Safety
/// As [`gemm_e4m3_sm90`], with `map_c` the tensor map (in global memory) of
/// C, m x n bf16 row-major, 64 x 64 boxes, the 128-byte swizzle.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_e4m3_tma_sm90(
    map_a: *const u64,
    map_b: *const u64,
    map_c: *const u64,
    scale_a: f32,
    scale_b: f32,
    m: u32,
    n: u32,
    k: u32,
) {
    let c = crate::hgemm::body::COut::Tma(map_c);
    e4m3_body::<crate::smem::GEMM_TMA_SMEM>((map_a, map_b), c, (scale_a, scale_b), (m, n, k))
}

/// The e4m3 entries' body: `gemm_body` with `E4m3In`, bf16 C and the
/// fusion `Alpha(scale_a · scale_b)`, in the shared memory `S`.
#[inline(always)]
fn e4m3_body<S: layout_device::SharedBuffer>(
    (map_a, map_b): (*const u64, *const u64),
    c: crate::hgemm::body::COut,
    (scale_a, scale_b): (f32, f32),
    mnk: (u32, u32, u32),
) {
    use layout_device::epilogue::{Alpha, Bf16};
    let fusion = Alpha(scale_a * scale_b);
    super::body::gemm_body::<0, super::E4m3In, Bf16, _, S>(map_a, map_b, c, mnk, fusion)
}

/// Entries with the TMA-store epilogue: each consumer stages its tile's
/// 64 x 64 pieces of C in shared memory (128-byte swizzle) and one thread
/// stores each by TMA, which clips at C's edges. Dynamic shared memory:
/// `crate::hgemm::SMEM_BYTES_TMA_STORE`.
macro_rules! tma_store_entries {
    ($($(#[$doc:meta])* $name:ident: $in:ty, $out:ty;)*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            map_a: *const u64,
            map_b: *const u64,
            map_c: *const u64,
            m: u32,
            n: u32,
            k: u32,
        ) {
            use crate::hgemm::body::COut;
            use crate::smem::GEMM_TMA_SMEM;
            use layout_device::epilogue::Plain;
            super::body::gemm_body::<0, $in, $out, Plain, GEMM_TMA_SMEM>(
                map_a,
                map_b,
                COut::Tma(map_c),
                (m, n, k),
                Plain,
            )
        }
    )*};
}

tma_store_entries! {
    /// [`gemm_bf16_sm90`] with the TMA-store epilogue.
    ///
    /// # Safety
    /// As [`gemm_bf16_sm90`], with `map_c` the tensor map (in global
    /// memory) of C, m x n bf16 row-major, 64 x 64 boxes, the 128-byte
    /// swizzle.
    gemm_bf16_tma_sm90: super::Bf16In, layout_device::epilogue::Bf16;
    /// [`hgemm_sm90`] with the TMA-store epilogue (as
    /// [`gemm_bf16_tma_sm90`], in f16).
    ///
    /// # Safety
    /// As [`hgemm_sm90`], with `map_c` the tensor map (in global memory) of
    /// C, m x n f16 row-major, 64 x 64 boxes, the 128-byte swizzle.
    hgemm_tma_sm90: super::F16In, layout_device::epilogue::F16;
}

/// [`gemm_bias_gelu_bf16_sm90`] with the TMA-store epilogue (as
/// [`gemm_bf16_tma_sm90`]): C = GELU(A · Bᵀ + bias), bf16. The cooperative
/// form, the GELU applied by the consumers to their f32 sums before the
/// store. In ping-pong (`crate::hgemm::PINGPONG`), whose 64-row tiles hide
/// the GELU under the other consumer's K-loop, it ran 0.80x-0.86x as fast;
/// the GELU in the producer warpgroup's epilogue warps (as
/// [`gemm_bias_gelu_tma_wide_bf16_sm90`] runs it) was slower too
/// (docs/gpu.md).
///
/// # Safety
/// As [`gemm_bias_gelu_bf16_sm90`], with `map_c` the tensor map (in global
/// memory) of C, m x n bf16 row-major, 64 x 64 boxes, the 128-byte
/// swizzle.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_bias_gelu_tma_bf16_sm90(
    map_a: *const u64,
    map_b: *const u64,
    map_c: *const u64,
    bias: layout_device::Global<u16>,
    m: u32,
    n: u32,
    k: u32,
) {
    bias_gelu_tma::<false>((map_a, map_b, map_c), bias, (m, n, k))
}

/// [`gemm_bias_gelu_tma_bf16_sm90`] with three stages and a whole tile of
/// staging (`super::body::gemm_wide_body`), the GELU in the producer
/// warpgroup's epilogue warps: the consumers hand each tile's sums,
/// rounded to bf16, to the epilogue warps without waiting for them, and
/// run their next K-loop while the warps apply the GELU and store C by
/// TMA. C = bf16(GELU(bf16(A · Bᵀ + bias))), the sum rounded as a linear
/// layer's output is (docs/gpu.md).
///
/// # Safety
/// As [`gemm_bias_gelu_tma_bf16_sm90`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_bias_gelu_tma_wide_bf16_sm90(
    map_a: *const u64,
    map_b: *const u64,
    map_c: *const u64,
    bias: layout_device::Global<u16>,
    m: u32,
    n: u32,
    k: u32,
) {
    bias_gelu_tma::<true>((map_a, map_b, map_c), bias, (m, n, k))
}

/// [`gemm_bias_gelu_tma_bf16_sm90`] with GELU's tanh form (as
/// [`gemm_bias_gelu_tanh_bf16_sm90`]): the fusion `GeluTanh(BiasCol)`.
///
/// # Safety
/// As [`gemm_bias_gelu_tma_bf16_sm90`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_bias_gelu_tanh_tma_bf16_sm90(
    map_a: *const u64,
    map_b: *const u64,
    map_c: *const u64,
    bias: layout_device::Global<u16>,
    m: u32,
    n: u32,
    k: u32,
) {
    use layout_device::epilogue::{BiasCol, GeluTanh, Plain};
    let fusion = GeluTanh(BiasCol { bias, inner: Plain });
    bias_act_tma::<false, _>((map_a, map_b, map_c), fusion, (m, n, k))
}

/// The TMA-store bias + GELU entries' body: the fusion `Gelu(BiasCol)` in
/// bf16, by `gemm_body` or (`WIDE`) `gemm_wide_body`.
#[inline(always)]
fn bias_gelu_tma<const WIDE: bool>(
    maps: (*const u64, *const u64, *const u64),
    bias: layout_device::Global<u16>,
    mnk: (u32, u32, u32),
) {
    use layout_device::epilogue::{BiasCol, Gelu, Plain};
    bias_act_tma::<WIDE, _>(maps, Gelu(BiasCol { bias, inner: Plain }), mnk)
}

/// A TMA-store entry's body with the fusion `fusion` in bf16, by
/// `gemm_body` or (`WIDE`) `gemm_wide_body`.
#[inline(always)]
fn bias_act_tma<const WIDE: bool, F: layout_device::epilogue::Fusion>(
    (map_a, map_b, map_c): (*const u64, *const u64, *const u64),
    fusion: F,
    mnk: (u32, u32, u32),
) {
    use super::Bf16In;
    use crate::hgemm::body::COut;
    use crate::smem::GEMM_TMA_SMEM;
    use layout_device::epilogue::Bf16;
    let c = COut::Tma(map_c);
    if WIDE {
        super::body::gemm_wide_body::<0, Bf16In, Bf16, _, GEMM_TMA_SMEM>(
            map_a, map_b, c, mnk, fusion,
        )
    } else {
        super::body::gemm_body::<0, Bf16In, Bf16, _, GEMM_TMA_SMEM>(map_a, map_b, c, mnk, fusion)
    }
}

/// Split-K, for the shapes whose tiles do not fill the GPU
/// (`crate::hgemm::plan_splits`): A · Bᵀ as [`hgemm_sm90`] in the form
/// `crate::hgemm::SPLIT_FORM` (64 x 256 tiles, one consumer, no
/// clusters), each (tile, split of K) pair a block's work, a tile's splits
/// adding up in turn through `sums` and `flags`
/// (`super::body::gemm_split_body`). One split stores C directly.
macro_rules! split_entries {
    ($($(#[$doc:meta])* $name:ident: $in:ty, $out:ty;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// As [`hgemm_sm90`] with the form's 256 threads, A's box of 64
        /// rows and B's of 256 (no clusters); `c` covers m x n elements;
        /// `sums` holds `crate::hgemm::split_sums(SPLIT_FORM, m, n)` floats
        /// and `flags` `crate::hgemm::split_flags(SPLIT_FORM, m, n)`
        /// words, all 0, that no
        /// other launch uses meanwhile (one split uses neither); `splits`
        /// at least 1; with more than one split, one block per (tile,
        /// split) pair, or fewer all resident at once.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            map_a: *const u64,
            map_b: *const u64,
            c: GlobalMut<u16>,
            sums: GlobalMut<f32>,
            flags: GlobalMut<u32>,
            splits: u32,
            m: u32,
            n: u32,
            k: u32,
        ) {
            use layout_device::epilogue::Plain;
            const I: usize = crate::hgemm::SPLIT_FORM;
            super::body::gemm_split_body::<I, $in, $out, _, crate::smem::HGEMM_SMEM>(
                map_a, map_b, (c, sums, flags), (m, n, k), splits, Plain,
            )
        }
    )*};
}

split_entries! {
    /// f16 A, B and C.
    hgemm_splitk_sm90: super::F16In, layout_device::epilogue::F16;
    /// bf16 A, B and C.
    gemm_bf16_splitk_sm90: super::Bf16In, layout_device::epilogue::Bf16;
}

/// The grouped GEMM's TMA-store entries, one per form (an index of
/// `super::FORMS`), all with the same arguments.
macro_rules! grouped_tma_entries {
    ($($(#[$doc:meta])* $name:ident: $form:expr;)*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            map_a: *const u64,
            map_b: *const u64,
            map_c: *const u64,
            c: GlobalMut<u16>,
            sums: GlobalMut<f32>,
            flags: GlobalMut<u32>,
            offsets: layout_device::Global<i32>,
            groups: u32,
            tail_splits: u32,
            n: u32,
            k: u32,
        ) {
            use crate::hgemm::body::{COut, Groups};
            use layout_device::epilogue::{Bf16, Plain};
            let groups = Groups {
                offsets,
                count: groups as usize,
                n: n as usize,
                tail_splits: tail_splits as usize,
            };
            let c = COut::TmaGrouped {
                map: map_c,
                c,
                sums,
                flags,
            };
            super::body::gemm_grouped_body::<
                { $form },
                super::Bf16In,
                Bf16,
                Plain,
                crate::smem::GEMM_TMA_SMEM,
            >(map_a, map_b, c, groups, k, Plain)
        }
    )*};
}

grouped_tma_entries! {
    /// [`gemm_grouped_bf16_sm90`] on 128 x 256 tiles (`hgemm_sm90`'s
    /// cooperative form, two consumer warpgroups, clusters of two along a
    /// group's rows) with the TMA-store epilogue: a consumer's 64 rows of a
    /// tile that lie in its group go out by TMA, those that end past its
    /// group's rows by each thread (TMA clips only at C's edges). For groups
    /// of a few hundred rows or more; the host picks it
    /// (`layout_gpu::launch::gemm_grouped_bf16_sm90`). With `tail_splits` > 1
    /// the tiles left over after the grid's full rounds are cut along K into
    /// that many units that add up in turn through `sums` and `flags`
    /// (`super::body::Groups::tail_splits`).
    ///
    /// # Safety
    /// As [`gemm_grouped_bf16_sm90`], with `map_c` the tensor map (in global
    /// memory) of C, `offsets[groups]` x n bf16 row-major, 64 x 64 boxes, the
    /// 128-byte swizzle, and A's and B's maps with this form's boxes (128
    /// rows of A, 128 of B); with `tail_splits` > 1, a grid whose clusters are
    /// all resident at once, `sums` of `super::SPLIT_REGION` floats and
    /// `flags` (all 0) of one word for each of 4 (the consumers of a cluster)
    /// per tile left over.
    gemm_grouped_tma_bf16_sm90: 0;
    /// [`gemm_grouped_tma_bf16_sm90`] in the form without clusters
    /// (`hgemm_sm90_nocluster`'s: 128 x 256 tiles, two consumers, each block
    /// loading all of its B tile): a group's rows go in tiles of 128, not 256,
    /// so a small group computes fewer rows past its end, and the grid has
    /// twice the units of work to share out, at the cost of B's multicast:
    /// on 8 groups of 64 to 2048 rows (N = K = 4096) it ran 10 % slower
    /// than the clustered entry (docs/gpu.md), which the host picks.
    ///
    /// # Safety
    /// As [`gemm_grouped_tma_bf16_sm90`], with no clusters, B's box of 256
    /// rows, and `flags` of one word for each of 2 consumers per tile left
    /// over.
    gemm_grouped_tma_nocluster_bf16_sm90: super::NOCLUSTER;
}

/// A grouped GEMM in bf16 (a mixture-of-experts layer): for each group g
/// of `groups`, C rows `offsets[g]..offsets[g + 1]` (n columns, bf16) =
/// the same rows of A (k columns) times B_gᵀ, B_g rows `g n..(g + 1) n` of
/// B; every group's tiles in one launch, the problem list (`offsets`,
/// `groups + 1` nondecreasing int32 from 0) in device memory. As
/// [`gemm_bf16_sm90`] otherwise (`super::body::gemm_grouped_body`), with
/// one consumer warpgroup: 64 x 256 tiles, 256 threads.
///
/// # Safety
/// As [`gemm_bf16_sm90`], with A the map of all groups' rows (`offsets[
/// groups]` x k) and B of all groups' matrices (`groups n` x k); `offsets`
/// as above (a row past C traps at its store).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gemm_grouped_bf16_sm90(
    map_a: *const u64,
    map_b: *const u64,
    c: GlobalMut<u16>,
    offsets: layout_device::Global<i32>,
    groups: u32,
    n: u32,
    k: u32,
) {
    use crate::hgemm::body::{COut, Groups};
    use layout_device::epilogue::{Bf16, Plain};
    let groups = Groups {
        offsets,
        count: groups as usize,
        n: n as usize,
        tail_splits: 1,
    };
    // 64-row tiles (the form `hgemm_sm90_1wg`): the groups' rows are few
    // (an expert's tokens), and one consumer keeps the group lookup in
    // registers.
    super::body::gemm_grouped_body::<1, super::Bf16In, Bf16, Plain, crate::smem::HGEMM_SMEM>(
        map_a,
        map_b,
        COut::Global(c),
        groups,
        k,
        Plain,
    )
}
