//! The tensor-core instruction and the asynchronous copy's group
//! commands. (`ldmatrix` and `cp.async` itself are [`Smem`](super::Smem)
//! methods: they address shared memory.)

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

/// Commits this thread's outstanding `cp.async` copies as one group.
#[inline(always)]
pub fn cp_async_commit() {
    gpu!("cp_async_commit", {
        // SAFETY: no operands.
        unsafe { asm!("cp.async.commit_group;", options(nostack)) }
    }, emu: { crate::emulator::ops::cp_async_commit("cp_async_commit") })
}

/// Waits until at most `N` of this thread's committed `cp.async` groups
/// are still in flight (the older ones are done).
#[inline(always)]
pub fn cp_async_wait<const N: u32>() {
    gpu!("cp_async_wait", {
        // SAFETY: no operands; without `nomem` the compiler keeps shared reads
        // after it.
        unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) }
    }, emu: { crate::emulator::ops::cp_async_wait("cp_async_wait", N as usize) })
}

/// Waits until every committed `cp.async` group of this thread is done.
#[inline(always)]
pub fn cp_async_wait_all() {
    gpu!("cp_async_wait_all", {
        // SAFETY: no operands; as `cp_async_wait`.
        unsafe { asm!("cp.async.wait_all;", options(nostack)) }
    }, emu: {
        crate::emulator::ops::cp_async_commit("cp_async_wait_all");
        crate::emulator::ops::cp_async_wait("cp_async_wait_all", 0)
    })
}

/// One warp's `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` (the
/// atom `SM80_16x8x16_F32F16F16F32_TN`): D = A·Bᵀ + C on a 16 x 16 A, an
/// 8 x 16 B (N x K) and a 16 x 8 C, each lane holding the values the atom's
/// thread-value layouts give it: A as 4 registers of two f16 (value 2r in
/// the low half of register r), B as 2, C and D as 4 f32.
///
/// All 32 lanes of the warp execute it together (`.aligned`): kernels call
/// it outside data-dependent branches, with whole warps.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn mma_m16n8k16_f32(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    gpu!("mma_m16n8k16_f32", {
        let (d0, d1, d2, d3): (f32, f32, f32, f32);
        // SAFETY: registers only; the warp executes it converged (above).
        unsafe {
            asm!(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};",
                d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
                a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                b0 = in(reg32) b[0], b1 = in(reg32) b[1],
                c0 = in(reg32) c[0], c1 = in(reg32) c[1], c2 = in(reg32) c[2], c3 = in(reg32) c[3],
                options(pure, nomem, nostack)
            )
        };
        [d0, d1, d2, d3]
    }, emu: {
        let d = crate::emulator::ops::mma("mma_m16n8k16_f32", core::panic::Location::caller(), a, b, c.map(f32::to_bits));
        d.map(f32::from_bits)
    })
}

/// The same atom with f16 accumulators
/// (`mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16`, the atom
/// `SM80_16x8x16_F16F16F16F16_TN`): C and D as 2 registers of two f16.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn mma_m16n8k16_f16(a: [u32; 4], b: [u32; 2], c: [u32; 2]) -> [u32; 2] {
    gpu!("mma_m16n8k16_f16", {
        let (d0, d1): (u32, u32);
        // SAFETY: registers only; the warp executes it converged (as above).
        unsafe {
            asm!(
                "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {{{d0}, {d1}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}}};",
                d0 = out(reg32) d0, d1 = out(reg32) d1,
                a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                b0 = in(reg32) b[0], b1 = in(reg32) b[1],
                c0 = in(reg32) c[0], c1 = in(reg32) c[1],
                options(pure, nomem, nostack)
            )
        };
        [d0, d1]
    }, emu: {
        let d = crate::emulator::ops::mma("mma_m16n8k16_f16", core::panic::Location::caller(), a, b, [c[0], c[1], 0, 0]);
        [d[0], d[1]]
    })
}
