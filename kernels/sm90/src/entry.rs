//! The entry points: raw pointers from the host made into checked buffers
//! (the crate's only `unsafe`).
#![allow(unsafe_code)]

use crate::{k_interleave_desc, k_interleave_offset};
use layout_core::atom::{MmaAtom, SM90_64x64x16_F32F16F16_SS as Gmma};
use layout_device::{
    fence_proxy_async_shared, sync_threads, thread_idx, trap, wgmma_commit_group, wgmma_fence,
    wgmma_m64n64k16_f32_f16, wgmma_wait_group, Global, GlobalMut, Smem, F4,
};

layout_device::shared_memory!(
    /// A's and B's 64 x 16 f16 tiles (2 KiB each).
    static TILES: [u8; 4096]
);

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    trap()
}

/// One warpgroup MMA: C (64 x 64 f32, row-major) = A · Bᵀ with A and B 64
/// x 16 f16 (bits), row-major. Launch: one block of 128 threads.
///
/// # Safety
/// `a` and `b` point to 1024 `u16`, `c` to 4096 `f32` of device memory,
/// 16-byte aligned, `c` distinct from both.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn wgmma_atom(a: *const u16, b: *const u16, c: *mut f32) {
    // SAFETY: the launch contract above (16-byte chunks of 8 halves).
    let (a, b, c) = unsafe {
        (
            Global::new(a.cast::<F4>(), 128),
            Global::new(b.cast::<F4>(), 128),
            GlobalMut::new(c, 4096),
        )
    };
    let t = thread_idx();
    // 4-byte words: A's tile, then B's.
    let tiles = Smem::window::<TILES>(0, 1024);
    // Thread t copies row t / 2, halves 8 (t % 2) .. + 8 of each operand.
    let (r, k) = (t / 2, 8 * (t % 2));
    let at = k_interleave_offset(r, k, 64) / 2;
    tiles.st4(at, a.ld(t));
    tiles.st4(512 + at, b.ld(t));
    // The writes, seen by the tensor cores' (asynchronous) reads.
    fence_proxy_async_shared();
    sync_threads();
    let base = tiles.address();
    let (da, db) = (
        k_interleave_desc(base, 64),
        k_interleave_desc(base + 2048, 64),
    );
    let mut acc = [0f32; 32];
    wgmma_fence();
    wgmma_m64n64k16_f32_f16(da, db, &mut acc, false);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    // Value v of thread t is C's element q = m + 64 n (the atom's layout),
    // each value by a constant index (a loop over `acc` would put it in
    // local memory).
    let cl = <Gmma as MmaAtom>::CLayout::default();
    macro_rules! store {
        ($($v:literal)*) => {$(
            let q = cl.crd2idx((t, $v as usize));
            c.st((q % 64) * 64 + q / 64, acc[$v]);
        )*};
    }
    store!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
}

layout_device::shared_memory!(
    /// The TMA test's 64 x 64 f16 box (8 KiB; the buffer is 128-byte
    /// aligned, the box at a 1024-byte multiple in it) and its barrier.
    static BOX: [u8; 10240]
);

/// One TMA load (`SM90_TMA_LOAD`) of the 64 x 64 f16 box at (`col`,
/// `row`) of the matrix `map` describes (128-byte swizzle), written back
/// un-swizzled: `out` (64 x 64 `u16`, as 2048 `u32`) row-major. Element
/// (r, c) of the box is at `Sw<3,3,3>(64 r + c)` halves in shared memory
/// (CuTe's K-major SW128 GMMA layout). Launch: one block of 128 threads.
///
/// # Safety
/// `map` points to a tensor map (64-byte aligned) of a live buffer; `out`
/// to 2048 `u32` of device memory.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn tma_tile(map: *const u64, out: *mut u32, col: i32, row: i32) {
    use layout_core::algebra::swizzle::Swizzle;
    use layout_device::{
        fence_mbarrier_init, fence_tensormap_acquire, sync_threads_divergent, tma_load_2d, Mbarrier,
    };
    // SAFETY: the launch contract above.
    let out = unsafe { GlobalMut::new(out, 2048) };
    let t = thread_idx();
    // The box from the buffer's first 1024-byte boundary (TMA's 128-byte
    // swizzle repeats every 1024 bytes); the barrier after it.
    let all = Smem::window::<BOX>(0, 2560);
    let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
    let tile = Smem::window::<BOX>(skip, 2048);
    let bar = Mbarrier::at(Smem::window::<BOX>(skip + 2048, 2), 0);
    if t == 0 {
        bar.init(1);
        fence_mbarrier_init();
    }
    sync_threads_divergent();
    if t == 0 {
        fence_tensormap_acquire(map as u64);
        bar.arrive_expect_tx(8192);
        tma_load_2d(tile, 8192, map as u64, (col, row), bar);
    }
    // Thread 0 issued the copy and waits for it; the block then reads the
    // box after a barrier. The barriers are the non-aligned form: the
    // compiler copies them into the `t == 0` branches, and with `bar.sync`
    // lane 0 then waited at its own copy (on the H200, until the other
    // threads gave up). A bounded wait: a copy that never completes leaves
    // `out` all ones (every element wrong) instead of hanging the launch.
    let mut done = true;
    if t == 0 {
        let mut spins = 0u32;
        while !bar.try_wait(0) {
            spins += 1;
            if spins > 1 << 20 {
                done = false;
                break;
            }
        }
    }
    sync_threads_divergent();
    if !done {
        for j in 0..16 {
            out.st(16 * t + j, u32::MAX);
        }
        return;
    }
    // Thread t writes words 16 t .. 16 t + 16 of the box, two halves each,
    // each half read where the swizzle put it.
    let (sw, halves) = (Swizzle::<3, 3, 3>, tile.halves());
    for j in 0..16 {
        let w = 16 * t + j;
        let (lo, hi) = (halves.ld(sw.apply(2 * w)), halves.ld(sw.apply(2 * w + 1)));
        out.st(w, lo as u32 | (hi as u32) << 16);
    }
}

/// The wider warpgroup MMA (N = 128) on descriptors from the
/// host, a few accumulators summed into `out[thread]`: for ptxas to check
/// that they assemble for sm_90a, not run yet (no test gives them
/// operands).
///
/// # Safety
/// `out` points to 128 `f32`; the descriptors name shared memory of this
/// kernel (none: the copies would read whatever the window holds).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn wgmma_shapes(desc_a: u64, desc_b: u64, out: *mut f32) {
    use layout_device::wgmma_m64n128k16_f32_f16;
    // SAFETY: the launch contract above.
    let out = unsafe { GlobalMut::new(out, 128) };
    let mut a = [0f32; 64];
    wgmma_fence();
    wgmma_m64n128k16_f32_f16(desc_a, desc_b, &mut a, false);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    // A few accumulators by constant index (a loop over them would put the
    // arrays in local memory); the instructions write all of them.
    out.st(thread_idx() % 128, a[0] + a[63]);
}

layout_device::shared_memory!(
    /// `hgemm_sm90`'s stages and barriers (dynamic shared memory; the plan
    /// is `hgemm`'s).
    extern static HGEMM_SMEM: [u8; 197696]
);
const _: () = assert!(HGEMM_SMEM_BYTES == crate::hgemm::SMEM_BYTES);
const HGEMM_SMEM_BYTES: usize = <HGEMM_SMEM as layout_device::SharedBuffer>::BYTES;

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
            hgemm_body::<$i>(map_a, map_b, c, (m, n, k))
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

/// `hgemm_sm90`'s body for the form `crate::hgemm::FORMS[I]`: its consumer
/// warpgroups, the K-blocks' overlap or not, its tile order, its clusters
/// along M (1 or 2: the pair shares B's tile, each block loading half of it
/// for both), and whether a tile inside C is stored without clipping.
#[inline(always)]
fn hgemm_body<const I: usize>(
    map_a: *const u64,
    map_b: *const u64,
    c: GlobalMut<u16>,
    (m, n, k): (u32, u32, u32),
) {
    use crate::hgemm::{ceil_div, desc, ATile, BTile, BK, BN, B_BYTES, FORMS, STAGES};
    use crate::hgemm::{CONSUMER_REGISTERS, PRODUCER_REGISTERS};
    use layout_core::atom::SM90_64x256x16_F32F16F16_SS as Gmma;
    use layout_device::{
        block_idx, cluster_ctarank, cluster_idx, cluster_sync, f16x2, fence_tensormap_acquire,
        grid_dim, setmaxnreg_dec, setmaxnreg_inc, sync_threads_divergent, tma_load_2d,
        tma_load_2d_multicast, wgmma_m64n256k16_f32_f16, ConsumerSlot, PipelineTmaAsync,
    };
    let form = const { FORMS[I].1 };
    let (consumers, cluster) = (form.consumers as u32, form.cluster as u32);
    let (bm, a_bytes, b_at) = (form.bm(), form.a_bytes(), form.b_at());
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let t = thread_idx();
    // The plan from the buffer's first 1024-byte boundary.
    let all = Smem::window::<HGEMM_SMEM>(0, HGEMM_SMEM_BYTES / 4);
    let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
    let base = all.address() + 4 * skip as u32;
    let pipe = PipelineTmaAsync::<STAGES>::at(Smem::window::<HGEMM_SMEM>(
        skip + form.barriers_at() / 4,
        PipelineTmaAsync::<STAGES>::WORDS,
    ));
    // Each consumer warp of each block of the cluster releases a stage
    // once (lane 0).
    if t == 0 {
        pipe.init(4 * consumers * cluster);
    }
    sync_threads_divergent();
    // The tiles as the clusters see them: `cluster` tiles along M each,
    // this block's the `rank`-th (past C's rows for the last of an odd
    // count: loads of zeros, no stores).
    let (tiles_m, tiles_n) = (ceil_div(m, bm * cluster as usize), ceil_div(n, BN));
    let (tiles, kblocks) = (tiles_m * tiles_n, ceil_div(k, BK));
    let (rank, first, step) = if cluster > 1 {
        // The peers' barriers are initialised before any block arrives at
        // them or multicasts into the others.
        cluster_sync();
        let (id, count) = cluster_idx();
        (cluster_ctarank() as usize, id as usize, count as usize)
    } else {
        (0, block_idx().0, grid_dim().0)
    };
    if t < 128 {
        setmaxnreg_dec::<PRODUCER_REGISTERS>();
        if t == 0 {
            let (ma, mb) = (map_a as u64, map_b as u64);
            fence_tensormap_acquire(ma);
            fence_tensormap_acquire(mb);
            let mut producer = pipe.producer();
            let mut tile = first;
            while tile < tiles {
                let (tm, tn) = form.tile_of(tile, tiles_m, tiles_n);
                let tm = cluster as usize * tm + rank;
                for kb in 0..kblocks {
                    let slot = producer.acquire();
                    let s = slot.stage() as usize;
                    let full = slot.barrier();
                    full.arrive_expect_tx((a_bytes + B_BYTES) as u32);
                    let kc = (kb * BK) as i32;
                    let a = Smem::window::<HGEMM_SMEM>(skip + (s * a_bytes) / 4, a_bytes / 4);
                    tma_load_2d(a, a_bytes, ma, (kc, (tm * bm) as i32), full);
                    if cluster == 1 {
                        let b = Smem::window::<HGEMM_SMEM>(
                            skip + (b_at + s * B_BYTES) / 4,
                            B_BYTES / 4,
                        );
                        tma_load_2d(b, B_BYTES, mb, (kc, (tn * BN) as i32), full);
                    } else {
                        // This block's share of B, for every block of the
                        // cluster.
                        let part = B_BYTES / cluster as usize;
                        let b = Smem::window::<HGEMM_SMEM>(
                            skip + (b_at + s * B_BYTES + rank * part) / 4,
                            part / 4,
                        );
                        let row = tn * BN + rank * (BN / cluster as usize);
                        let all = ((1u32 << cluster) - 1) as u16;
                        tma_load_2d_multicast(b, part, mb, (kc, row as i32), full, all);
                    }
                }
                tile += step;
            }
            if cluster > 1 {
                // The peers' consumers arrive at this block's barriers:
                // it stays until they have.
                producer.tail();
            }
        }
        return;
    }
    setmaxnreg_inc::<CONSUMER_REGISTERS>();
    // This consumer's 64 rows of the tile, and its thread.
    let (rows, wt) = (64 * (t / 128 - 1), t % 128);
    let mut consumer = pipe.consumer();
    let cl = <Gmma as MmaAtom>::CLayout::default();
    // C as words (used when n is even), over its even-length prefix: the
    // cast traps on an odd number of halves.
    let c32 = match layout_core::tensor::memory::Memory::window(c, 0, c.len() & !1) {
        Some(even) => even.cast::<u32>(),
        None => trap(),
    };
    let mut tile = first;
    while tile < tiles {
        let (tm, tn) = form.tile_of(tile, tiles_m, tiles_n);
        let tm = cluster as usize * tm + rank;
        // From a constant: `[0f32; 128]` is written by a loop, whose
        // run-time index keeps the array in local memory.
        const ZERO: [f32; 128] = [0.0; 128];
        let mut acc = ZERO;
        // The stage the `wgmma`s in flight read, released once they are done.
        let mut reading: Option<ConsumerSlot> = None;
        for kb in 0..kblocks {
            let slot = consumer.wait();
            let s = slot.stage();
            let da = desc::<ATile>(base + s * a_bytes as u32 + 128 * rows as u32);
            let db = desc::<BTile>(base + (b_at + s as usize * B_BYTES) as u32);
            wgmma_fence();
            // The K-block's four K-steps, 32 bytes apart.
            let step =
                |d: layout_core::atom::gmma::GmmaDescriptor, ks: u32| d.advance(2 * ks).bits();
            wgmma_m64n256k16_f32_f16(step(da, 0), step(db, 0), &mut acc, kb > 0);
            wgmma_m64n256k16_f32_f16(step(da, 1), step(db, 1), &mut acc, true);
            wgmma_m64n256k16_f32_f16(step(da, 2), step(db, 2), &mut acc, true);
            wgmma_m64n256k16_f32_f16(step(da, 3), step(db, 3), &mut acc, true);
            wgmma_commit_group();
            // The previous K-block's group is done: its stage goes back.
            if form.overlap {
                wgmma_wait_group::<1>();
            } else {
                wgmma_wait_group::<0>();
            }
            if let Some(done) = reading.replace(slot) {
                if wt % 32 == 0 {
                    consumer.release_cluster(done, cluster);
                }
            }
        }
        wgmma_wait_group::<0>();
        if let Some(done) = reading.take() {
            if wt % 32 == 0 {
                consumer.release_cluster(done, cluster);
            }
        }
        // Values v and v + 1 (v even) are C's adjacent columns (c, c + 1)
        // of one row: one word when both lie in C and n is even.
        let (r0, c0) = (tm * bm + rows, tn * BN);
        if form.fast_stores && r0 + 64 <= m && c0 + BN <= n && n % 2 == 0 {
            // A tile inside C: no clipping. The C layout's offset is the
            // thread's part plus the value's (a layout is additive over its
            // modes), and the thread's rows (< 56) plus the value's (0 or
            // 8) stay in the atom's 64: each word is this thread's first
            // plus a constant row (0 or 8 rows of n / 2 words) and column.
            let qt = cl.crd2idx((wt, 0usize));
            let half_n = n / 2;
            let first = ((r0 + qt % 64) * n + c0 + qt / 64) / 2;
            macro_rules! store_inside {
                ($($v:literal)*) => {$(
                    let qv = cl.crd2idx((0usize, $v as usize));
                    c32.st(first + (qv % 64) * half_n + qv / 64 / 2, f16x2(acc[$v], acc[$v + 1]));
                )*};
            }
            store_inside!(0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42 44 46 48 50 52 54 56 58 60 62 64 66 68 70 72 74 76 78 80 82 84 86 88 90 92 94 96 98 100 102 104 106 108 110 112 114 116 118 120 122 124 126);
        } else {
            macro_rules! store {
                ($($v:literal)*) => {$(
                    let q = cl.crd2idx((wt, $v as usize));
                    let (r, col) = (r0 + q % 64, c0 + q / 64);
                    if r < m {
                        let w = f16x2(acc[$v], acc[$v + 1]);
                        let at = r * n + col;
                        if n % 2 == 0 && col + 1 < n {
                            c32.st(at / 2, w);
                        } else {
                            if col < n {
                                c.st(at, w as u16);
                            }
                            if col + 1 < n {
                                c.st(at + 1, (w >> 16) as u16);
                            }
                        }
                    }
                )*};
            }
            store!(0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42 44 46 48 50 52 54 56 58 60 62 64 66 68 70 72 74 76 78 80 82 84 86 88 90 92 94 96 98 100 102 104 106 108 110 112 114 116 118 120 122 124 126);
        }
        tile += step;
    }
}

layout_device::shared_memory!(
    /// `flash_attn_fwd_sm90`'s Q tile, K and V rings and barriers (dynamic
    /// shared memory; the plan is `attention`'s).
    extern static ATTN_SMEM: [u8; 164944]
);
const _: () = assert!(ATTN_SMEM_BYTES == crate::attention::SMEM_BYTES);
const ATTN_SMEM_BYTES: usize = <ATTN_SMEM as layout_device::SharedBuffer>::BYTES;

/// The entry points of `flash_attn_fwd_sm90`: one per head dimension and
/// mask, each `attention_body::<D, CAUSAL, STAGES>`.
macro_rules! attention_entries {
    ($($name:ident: $d:literal, $causal:literal, $stages:literal;)*) => {$(
        /// O = softmax!(scale · Q·Kᵀ) · V and the rows' log-sum-exp, for
        /// one (batch, head) per grid row (`crate::attention` has the
        /// plan): Q, K, V and O f16 in (batch, seq, heads, d) order, LSE f32
        /// in (batch, heads, seq_q); top-left causal in the `_causal` form.
        /// Launch: grid (ceil(seq_q / bm(d)), heads, batch) (another x
        /// traps), `threads(d)` threads, `crate::attention::SMEM_BYTES` of
        /// dynamic shared memory (`crate::attention`'s functions of d).
        ///
        /// # Safety
        /// `map_q`, `map_k`, `map_v` point to tensor maps (64-byte aligned,
        /// in global memory) of live f16 buffers, each seen as (heads · d,
        /// seq, batch) with boxes of 64 columns x `bm(d)` (Q) or 128 (K, V)
        /// rows x 1 plane and the 128-byte swizzle;
        /// `o` and `lse` are the problem's O and LSE (every store is checked
        /// against them).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            map_q: *const u64,
            map_k: *const u64,
            map_v: *const u64,
            o: GlobalMut<u16>,
            lse: GlobalMut<f32>,
            seq_q: u32,
            seq_k: u32,
            heads: u32,
            scale: f32,
        ) {
            const { assert!($stages == crate::attention::stages($d)) };
            attention_body::<$d, $causal, $stages>(
                (map_q as u64, map_k as u64, map_v as u64),
                (o, lse),
                (seq_q, seq_k, heads),
                scale,
            )
        }
    )*};
}

attention_entries! {
    flash_attn_fwd_sm90_d64: 64, false, 4;
    flash_attn_fwd_sm90_d64_causal: 64, true, 4;
    flash_attn_fwd_sm90_d128: 128, false, 2;
    flash_attn_fwd_sm90_d128_causal: 128, true, 2;
}

/// `flash_attn_fwd_sm90`'s body for head dimension `D`, causal or not,
/// with `S` stages per K/V ring: the producer warpgroup's TMA loads, then
/// the two consumer warpgroups' loop over K/V tiles and epilogue.
#[layout_core::instantiate((64, false, 4), (64, true, 4), (128, false, 2), (128, true, 2))]
#[inline(always)]
fn attention_body<const D: usize, const CAUSAL: bool, const S: usize>(
    (map_q, map_k, map_v): (u64, u64, u64),
    (o, lse): (GlobalMut<u16>, GlobalMut<f32>),
    (seq_q, seq_k, heads): (u32, u32, u32),
    scale: f32,
) {
    use crate::attention::{
        barriers_at, bm, consumer_registers, consumers, first_row, k_at, k_desc, kv_bytes,
        kv_tiles, q_bytes, q_desc, v_at, v_desc, SAtom, BN, CHUNK, PRODUCER_REGISTERS, P_OF_S,
        S_ROWS,
    };
    use layout_device::{
        block_idx_xyz, each, f16x2, fence_tensormap_acquire, grid_dim, setmaxnreg_dec,
        setmaxnreg_inc, shfl_xor_reduce, sync_threads_divergent, tma_load_3d, warp_any,
        wgmma_m64n128k16_f32_f16, wgmma_m64n128k16_f32_f16_rs, wgmma_m64n64k16_f32_f16_rs,
        Mbarrier, OnlineSoftmax, PipelineTmaAsync,
    };
    const NEG_INF: f32 = f32::NEG_INFINITY;
    let t = thread_idx();
    let ((bx, h, b), blocks) = (block_idx_xyz(), grid_dim().0);
    let (seq_q, seq_k, heads) = (seq_q as usize, seq_k as usize, heads as usize);
    let m0 = first_row(bx, bm(D), seq_q, CAUSAL);
    // The masks compare 32-bit coordinates (a block's rows up to m0 +
    // bm(D) among them), TMA's are i32; a grid of other than ceil(seq_q /
    // bm) row blocks is a launch error.
    if blocks != seq_q.div_ceil(bm(D))
        || m0 >= seq_q as isize
        || m0 + bm(D) as isize <= 0
        || seq_k == 0
        || seq_q > i32::MAX as usize - bm(D)
        || seq_k > i32::MAX as usize
    {
        trap()
    }
    let tiles = kv_tiles(m0, bm(D), seq_q, seq_k, CAUSAL);
    // -bm(D) < m0 < seq_q: an i32 (rows before 0 read zeros, are never stored).
    let m0 = m0 as i32;
    // The plan from the buffer's first 1024-byte boundary.
    let all = Smem::window::<ATTN_SMEM>(0, ATTN_SMEM_BYTES / 4);
    let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
    let base = all.address() + 4 * skip as u32;
    let bars = skip + barriers_at(D) / 4;
    type Ring<const S: usize> = PipelineTmaAsync<S>;
    let qbar = Mbarrier::at(Smem::window::<ATTN_SMEM>(bars, 2), 0);
    let kpipe = Ring::<S>::at(Smem::window::<ATTN_SMEM>(bars + 4, Ring::<S>::WORDS));
    let vpipe = Ring::<S>::at(Smem::window::<ATTN_SMEM>(
        bars + 4 + Ring::<S>::WORDS,
        Ring::<S>::WORDS,
    ));
    if t == 0 {
        qbar.init(1);
        // Each consumer warp releases a stage once (lane 0).
        kpipe.init(4 * consumers(D) as u32);
        vpipe.init(4 * consumers(D) as u32);
    }
    sync_threads_divergent();
    if t < 128 {
        setmaxnreg_dec::<PRODUCER_REGISTERS>();
        if t == 0 {
            fence_tensormap_acquire(map_q);
            fence_tensormap_acquire(map_k);
            fence_tensormap_acquire(map_v);
            // A tile as boxes of 64 columns of head h's D and 128 rows of
            // batch b's plane (rows outside the sequence read zeros), box c
            // at `box_bytes` c.
            let col0 = (h * D) as i32;
            let load = |at: usize, box_bytes: usize, map: u64, row: i32, bar: Mbarrier| {
                each::<{ D / CHUNK }>(|c| {
                    let w =
                        Smem::window::<ATTN_SMEM>(skip + (at + c * box_bytes) / 4, box_bytes / 4);
                    let col = col0 + (c * CHUNK) as i32;
                    tma_load_3d(w, box_bytes, map, (col, row, b as i32), bar);
                });
            };
            qbar.arrive_expect_tx(q_bytes(D) as u32);
            load(0, bm(D) * 128, map_q, m0, qbar);
            let (mut kp, mut vp) = (kpipe.producer(), vpipe.producer());
            // Tile n of K or V into its ring's next stage.
            macro_rules! next_tile {
                ($ring:ident, $at:ident, $map:ident, $n:ident) => {{
                    let slot = $ring.acquire();
                    let full = slot.barrier();
                    full.arrive_expect_tx(kv_bytes(D) as u32);
                    load(
                        $at(D, slot.stage() as usize),
                        BN * 128,
                        $map,
                        ($n * BN) as i32,
                        full,
                    );
                }};
            }
            for n in 0..tiles {
                next_tile!(kp, k_at, map_k, n);
                next_tile!(vp, v_at, map_v, n);
            }
        }
        return;
    }
    setmaxnreg_inc::<{ consumer_registers(D) }>();
    let (mut kc, mut vc) = (kpipe.consumer(), vpipe.consumer());
    // This consumer's 64 rows (w = 0 or 1), its thread, and where the
    // thread's S values lie: S's C layout is the thread's offset plus the
    // value's (a layout is additive over its modes), the offset q = row +
    // 64 column.
    let (w, wt) = ((t / 128 - 1) as u32, t % 128);
    let cs = <SAtom as MmaAtom>::CLayout::default();
    let qt = cs.crd2idx((wt, 0usize));
    let (row_t, key_t) = (m0 + 64 * w as i32 + (qt % 64) as i32, (qt / 64) as u32);
    // The online softmax (layout_device::OnlineSoftmax): the exponentials
    // are one FFMA on the unscaled S; with a negative scale S is negated
    // first (a branch the whole block takes alike).
    const ROWS: usize = S_ROWS.rows;
    let mut acc_o = const { [0f32; D / 2] };
    let mut sm = OnlineSoftmax::<ROWS>::new(scale);
    let negative = sm.negative();
    qbar.wait(0);
    // Each of the thread's 64 S values by a constant index: value 16 i + j.
    macro_rules! each_s {
        (|$v:ident| $body:expr) => {
            each::<4>(|i| {
                each::<16>(|j| {
                    let $v = 16 * i + j;
                    $body
                })
            })
        };
    }
    // S = Q·Kᵀ for the K tile in `slot`, issued (not waited for).
    macro_rules! s_gemm {
        ($s:expr, $slot:expr) => {{
            let s: &mut [f32; 64] = $s;
            let slot: &layout_device::ConsumerSlot = $slot;
            let kat = base + k_at(D, slot.stage() as usize) as u32;
            each::<{ D / 16 }>(|ks| {
                let ks = ks as u32;
                wgmma_m64n128k16_f32_f16(
                    q_desc(base, bm(D) as u32, w, ks).bits(),
                    k_desc(kat, ks).bits(),
                    s,
                    ks > 0,
                );
            });
        }};
    }
    // O += P·V for the V tile in `slot` (N-major: the transpose bit),
    // issued; P's A fragment kk is 16 keys.
    macro_rules! pv_gemm {
        ($acc_o:expr, $p:expr, $slot:expr) => {{
            let acc_o: &mut [f32; D / 2] = $acc_o;
            let p: &[[u32; 4]; BN / 16] = $p;
            let slot: &layout_device::ConsumerSlot = $slot;
            let vat = base + v_at(D, slot.stage() as usize) as u32;
            each::<{ BN / 16 }>(|kk| {
                let dv = v_desc::<D>(vat, kk as u32).bits();
                // (Both forms type-check in each copy; the other is never taken.)
                if D == 64 {
                    match (&mut acc_o[..]).try_into() {
                        Ok(acc) => wgmma_m64n64k16_f32_f16_rs::<true>(p[kk], dv, acc, true),
                        Err(_) => trap(),
                    }
                } else {
                    match (&mut acc_o[..]).try_into() {
                        Ok(acc) => wgmma_m64n128k16_f32_f16_rs::<true>(p[kk], dv, acc, true),
                        Err(_) => trap(),
                    }
                }
            });
        }};
    }
    // The online softmax of tile n's S, in place: the masks, the row
    // maxima, the reference moved (the sums rescaled now, O by the
    // returned factors once its P·V is done) only when some row of the
    // warp outgrew it by RESCALE_SLACK, then S := P.
    macro_rules! softmax {
        ($s:expr, $n:expr, $sm:expr) => {{
            let s: &mut [f32; 64] = $s;
            let n: usize = $n;
            let sm: &mut OnlineSoftmax<ROWS> = $sm;
            if negative {
                each_s!(|v| s[v] = -s[v]);
            }
            // Keys past seq_k, and (causal) past the row, count for nothing.
            let n0 = (n * BN) as u32;
            let first_row = m0 + 64 * w as i32;
            // (n0 + BN - 1 < seq_k <= i32::MAX.)
            if n0 + BN as u32 > seq_k as u32 || (CAUSAL && (n0 + BN as u32 - 1) as i32 > first_row)
            {
                let keys_left = seq_k as i32 - (n0 + key_t) as i32;
                let ahead = (n0 + key_t) as i32 - row_t;
                each_s!(|v| {
                    let qv = cs.crd2idx((0usize, v));
                    let (dr, dk) = ((qv % 64) as i32, (qv / 64) as i32);
                    if dk >= keys_left || (CAUSAL && ahead + dk > dr) {
                        s[v] = NEG_INF;
                    }
                });
            }
            let mut mx = [NEG_INF; ROWS];
            each_s!(|v| {
                let r = S_ROWS.row_of[v];
                mx[r] = mx[r].max(s[v]);
            });
            let mut corr = [1f32; ROWS];
            let lanes = |m: f32| shfl_xor_reduce(m, S_ROWS.xor(), f32::max);
            let grown = sm.update(mx, lanes, warp_any, |c| corr = *c);
            each_s!(|v| s[v] = sm.p(s[v], S_ROWS.row_of[v]));
            (grown, corr)
        }};
    }
    // P as f16 pairs: A fragment kk of O += P·V is S's values
    // P_OF_S.value[8 kk + x] (derived from the two atoms' layouts).
    macro_rules! pack {
        ($s:expr, $p:expr) => {{
            let s: &[f32; 64] = $s;
            let p: &mut [[u32; 4]; BN / 16] = $p;
            each::<{ BN / 16 }>(|kk| {
                each::<4>(|r| {
                    p[kk][r] = f16x2(
                        s[P_OF_S.value[8 * kk + 2 * r]],
                        s[P_OF_S.value[8 * kk + 2 * r + 1]],
                    );
                })
            });
        }};
    }
    let mut s = const { [0f32; 64] };
    let mut p = const { [[0u32; 4]; BN / 16] };
    // FlashAttention-3's order within a warpgroup: tile n's S = Q·Kᵀ
    // and tile n - 1's O += P·V are in flight together; S's softmax
    // runs while P·V does, and O is rescaled once P·V is done. (Each
    // `wgmma` issued unconditionally in its stretch: ptxas serializes
    // them where it cannot tell which group is in flight.)
    let slot = kc.wait();
    wgmma_fence();
    s_gemm!(&mut s, &slot);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    if wt % 32 == 0 {
        kc.release(slot);
    }
    // O is 0 yet: its rescale is moot.
    let _ = softmax!(&mut s, 0, &mut sm);
    pack!(&s, &mut p);
    for n in 1..tiles {
        let kslot = kc.wait();
        wgmma_fence();
        s_gemm!(&mut s, &kslot);
        wgmma_commit_group();
        let vslot = vc.wait();
        pv_gemm!(&mut acc_o, &p, &vslot);
        wgmma_commit_group();
        // S is done (groups complete in order); P·V may not be.
        wgmma_wait_group::<1>();
        if wt % 32 == 0 {
            kc.release(kslot);
        }
        let (grown, corr) = softmax!(&mut s, n, &mut sm);
        wgmma_wait_group::<0>();
        if wt % 32 == 0 {
            vc.release(vslot);
        }
        // O (through tile n - 1) against the reference tile n moved to.
        if grown {
            each::<{ D / 32 }>(|i| {
                each::<16>(|j| {
                    let v = 16 * i + j;
                    acc_o[v] *= corr[S_ROWS.row_of[v]];
                })
            });
        }
        pack!(&s, &mut p);
    }
    let slot = vc.wait();
    wgmma_fence();
    pv_gemm!(&mut acc_o, &p, &slot);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    if wt % 32 == 0 {
        vc.release(slot);
    }
    // Epilogue: the rows' sums (each lane held its columns' share), O / sum
    // as f16 pairs (values v and v + 1, v even, are adjacent columns of one
    // row), the log-sum-exp of the rows inside Q.
    let inv = sm.finish(|x| shfl_xor_reduce(x, S_ROWS.xor(), |a, b| a + b));
    // O's C layout is S's on O's D / 2 values (`attention`'s tests).
    let co = cs;
    let o32 = match layout_core::tensor::memory::Memory::window(o, 0, o.len() & !1) {
        Some(even) => even.cast::<u32>(),
        None => trap(),
    };
    let qo = co.crd2idx((wt, 0usize));
    let (orow, ocol) = (m0 + 64 * w as i32 + (qo % 64) as i32, qo / 64);
    each::<{ D / 32 }>(|i| {
        each::<8>(|j| {
            let v = 16 * i + 2 * j;
            let qv = co.crd2idx((0usize, v));
            let (row, col) = (orow + (qv % 64) as i32, ocol + qv / 64);
            if row >= 0 && row < seq_q as i32 {
                let row = row as usize;
                let r = S_ROWS.row_of[v];
                let word = f16x2(acc_o[v] * inv[r], acc_o[v + 1] * inv[r]);
                o32.st((((b * seq_q + row) * heads + h) * D + col) / 2, word);
            }
        })
    });
    // One lane of each row's group writes its log-sum-exp (natural log; the
    // maxima are in base-2 units).
    if (wt % 32) as u32 & S_ROWS.lane_bits() == 0 {
        each::<ROWS>(|r| {
            // The row of the first S value in row slot r.
            let mut v = 0;
            while S_ROWS.row_of[v] != r {
                v += 1;
            }
            let row = row_t + (cs.crd2idx((0usize, v)) % 64) as i32;
            if row >= 0 && row < seq_q as i32 {
                let row = row as usize;
                lse.st((b * heads + h) * seq_q + row, sm.lse(r));
            }
        });
    }
}

/// Stores 1 at `out[at]` through a checked buffer of `len` words. With `at
/// >= len` the store's bounds check stops the kernel (`layout_device::trap`)
/// and the launch fails: `kernels/scripts/trap-check.py` runs both.
///
/// # Safety
/// `out` points to `len` `u32` of device memory.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn check_trap(out: *mut u32, len: u32, at: u32) {
    // SAFETY: the launch contract above.
    let out = unsafe { GlobalMut::new(out, len as usize) };
    out.st(at as usize, 1);
}
