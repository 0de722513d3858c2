//! The atoms' entry points: one warpgroup MMA, one TMA load, the wider
//! MMA for ptxas, and a checked store that traps. Each is its own plan
//! (the shared tiles it declares), body and entry point.
#![allow(unsafe_code)]

use crate::{k_interleave_desc, k_interleave_offset};
use layout_core::atom::{MmaAtom, SM90_64x64x16_F32F16F16_SS as Gmma};
use layout_device::{
    fence_proxy_async_shared, sync_threads, thread_idx, wgmma_commit_group, wgmma_fence,
    wgmma_m64n64k16_f32_f16, wgmma_wait_group, Global, GlobalMut, Smem, F4,
};

layout_device::shared_memory!(
    /// A's and B's 64 x 16 f16 tiles (2 KiB each).
    static TILES: [u8; 4096]
);

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

/// The bf16 warpgroup MMAs (SS at N = 128, RS at N = 64) on descriptors
/// from the host, for ptxas to check that they assemble for sm_90a, as
/// [`wgmma_shapes`].
///
/// # Safety
/// As [`wgmma_shapes`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn wgmma_shapes_bf16(desc_a: u64, desc_b: u64, out: *mut f32) {
    use layout_device::{wgmma_m64n128k16_f32_bf16, wgmma_m64n64k16_f32_bf16_rs};
    // SAFETY: the launch contract above.
    let out = unsafe { GlobalMut::new(out, 128) };
    let (mut a, mut b) = ([0f32; 64], [0f32; 32]);
    wgmma_fence();
    wgmma_m64n128k16_f32_bf16(desc_a, desc_b, &mut a, false);
    wgmma_m64n64k16_f32_bf16_rs::<false>([desc_a as u32; 4], desc_b, &mut b, false);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    out.st(thread_idx() % 128, a[0] + a[63] + b[0] + b[31]);
}

/// The K-major-only GMMA families at N = 64 (e4m3 into f32 SS, s8 into
/// s32 RS, tf32 into f32 SS, e5m2 into f16 SS) on descriptors from the
/// host, for ptxas to check that they assemble for sm_90a, as
/// [`wgmma_shapes`].
///
/// # Safety
/// As [`wgmma_shapes`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn wgmma_shapes_tn(desc_a: u64, desc_b: u64, out: *mut f32) {
    use layout_core::atom::{
        SM90_64x64x32_F16E5M2E5M2_SS_TN as H5, SM90_64x64x32_F32E4M3E4M3_SS_TN as E4,
        SM90_64x64x32_S32S8S8_RS_TN as S8, SM90_64x64x8_F32TF32TF32_SS_TN as Tf,
    };
    use layout_device::GmmaInstr;
    // SAFETY: the launch contract above.
    let out = unsafe { GlobalMut::new(out, 128) };
    let (mut e, mut i, mut t, mut h) = ([0f32; 32], [0i32; 32], [0f32; 32], [0u32; 16]);
    wgmma_fence();
    <E4 as GmmaInstr>::gmma::<false>(desc_a, desc_b, &mut e, false);
    <S8 as GmmaInstr>::gmma::<false>([desc_a as u32; 4], desc_b, &mut i, false);
    <Tf as GmmaInstr>::gmma::<false>(desc_a, desc_b, &mut t, false);
    <H5 as GmmaInstr>::gmma::<false>(desc_a, desc_b, &mut h, false);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    out.st(
        thread_idx() % 128,
        e[0] + e[31] + i[0] as f32 + t[31] + h[15] as f32,
    );
}

/// A TMA load of the 64 x 64 f16 box at (`col`, `row`) of the matrix
/// `src` describes, then a TMA store of it (`SM90_TMA_STORE`) to the same
/// place of the matrix `dst` describes, issued by the lane `elect_one`
/// picks (both maps with the 128-byte swizzle; parts of the box past a
/// matrix are read as zeros and not written). Launch: one block of 32
/// threads.
///
/// # Safety
/// `src` and `dst` point to tensor maps (64-byte aligned) of live buffers.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn tma_round_trip(
    src: *const u64,
    dst: *const u64,
    col: i32,
    row: i32,
) {
    use layout_device::{
        elect_one, fence_mbarrier_init, fence_tensormap_acquire, sync_warp, tma_load_2d,
        tma_store_2d, tma_store_commit, tma_store_wait, Mbarrier,
    };
    let all = Smem::window::<BOX>(0, 2560);
    let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
    let tile = Smem::window::<BOX>(skip, 2048);
    let bar = Mbarrier::at(Smem::window::<BOX>(skip + 2048, 2), 0);
    let leader = elect_one();
    if leader {
        bar.init(1);
        fence_mbarrier_init();
        fence_tensormap_acquire(src as u64);
        fence_tensormap_acquire(dst as u64);
        bar.arrive_expect_tx(8192);
        tma_load_2d(tile, 8192, src as u64, (col, row), bar);
        bar.wait(0);
        tma_store_2d(tile, 8192, dst as u64, (col, row));
        tma_store_commit();
        tma_store_wait::<0>();
    }
    sync_warp();
}

/// A TMA load of the 64 x 32 f32 box at (`col`, `row`) of the matrix `src`
/// describes (prefetched into L2 first), then a TMA reduce-add
/// (`SM90_TMA_REDUCE_ADD`) of it into the same place of the matrix `dst`
/// describes (both maps f32 with the 128-byte swizzle). Launch: one block
/// of 32 threads.
///
/// # Safety
/// `src` and `dst` point to tensor maps (64-byte aligned) of live buffers.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn tma_reduce_tile(
    src: *const u64,
    dst: *const u64,
    col: i32,
    row: i32,
) {
    use layout_device::{
        elect_one, fence_mbarrier_init, fence_tensormap_acquire, sync_warp, tma_load_2d,
        tma_prefetch_2d, tma_reduce_add_2d, tma_store_commit, tma_store_wait, Mbarrier,
    };
    let all = Smem::window::<BOX>(0, 2560);
    let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
    let tile = Smem::window::<BOX>(skip, 2048);
    let bar = Mbarrier::at(Smem::window::<BOX>(skip + 2048, 2), 0);
    if elect_one() {
        bar.init(1);
        fence_mbarrier_init();
        fence_tensormap_acquire(src as u64);
        fence_tensormap_acquire(dst as u64);
        tma_prefetch_2d(src as u64, (col, row));
        bar.arrive_expect_tx(8192);
        tma_load_2d(tile, 8192, src as u64, (col, row), bar);
        bar.wait(0);
        tma_reduce_add_2d(tile, 8192, dst as u64, (col, row));
        tma_store_commit();
        tma_store_wait::<0>();
    }
    sync_warp();
}

/// The masked warp instructions, each half-warp its own group: lane `l`
/// writes `shfl_xor_sync` of its index with lane `l ^ 1`, the half's
/// ballot of `l % 3 == 0`, and whether all of its lanes and any lane are
/// below 99 (`out`: 4 words a lane, one warp). For ptxas, and to check on
/// the GPU against the emulator's `masked_shuffles_and_votes` test.
///
/// # Safety
/// `out` points to 128 `u32` of device memory.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn warp_masked(out: *mut u32) {
    use layout_device::{
        shfl_down_sync, shfl_xor_sync, warp_all_sync, warp_any_sync, warp_ballot_sync,
    };
    // SAFETY: the launch contract above.
    let out = unsafe { GlobalMut::new(out, 128) };
    let l = thread_idx() as u32 % 32;
    let mask = if l < 16 { 0x0000_ffff } else { 0xffff_0000 };
    let x = shfl_xor_sync(mask, l, 1);
    let b = warp_ballot_sync(mask, l % 3 == 0);
    let v = warp_all_sync(mask, l < 99) as u32 + 2 * warp_any_sync(mask, l > 99) as u32;
    let d = shfl_down_sync(mask, l, 0);
    let at = 4 * l as usize;
    out.st(at, x);
    out.st(at + 1, b);
    out.st(at + 2, v);
    out.st(at + 3, d);
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
