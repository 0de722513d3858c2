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
