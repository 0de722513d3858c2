//! Hopper's warpgroup MMA (`wgmma`) and the fences around it; `sm_90a`
//! only (build with `layout-ptx --arch sm_90a`).

use super::GmmaInstr;
#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

/// `wgmma.fence.sync.aligned`: orders this warpgroup's register and
/// shared-memory accesses before the `wgmma` instructions that follow
/// (issue it before the first `wgmma` of a batch, and whenever the
/// accumulators were touched in between).
#[inline(always)]
pub fn wgmma_fence() {
    gpu!("wgmma_fence", {
        // SAFETY: no operands; no `nomem`: a memory fence.
        unsafe { asm!("wgmma.fence.sync.aligned;", options(nostack)) }
    }, emu: { crate::emulator::ops::nop("wgmma_fence") })
}

/// `wgmma.commit_group.sync.aligned`: the `wgmma` instructions issued
/// since the last commit form one group.
#[inline(always)]
pub fn wgmma_commit_group() {
    gpu!("wgmma_commit_group", {
        // SAFETY: no operands.
        unsafe { asm!("wgmma.commit_group.sync.aligned;", options(nostack)) }
    }, emu: { crate::emulator::ops::nop("wgmma_commit_group") })
}

/// `wgmma.wait_group.sync.aligned N`: waits until at most `N` committed
/// groups are in flight; the accumulators of the others are readable.
#[inline(always)]
pub fn wgmma_wait_group<const N: u32>() {
    gpu!("wgmma_wait_group", {
        // SAFETY: no operands; a memory clobber keeps the accumulators'
        // reads after it.
        unsafe { asm!("wgmma.wait_group.sync.aligned {n};", n = const N, options(nostack)) }
    }, emu: { crate::emulator::ops::nop("wgmma_wait_group") })
}

/// `fence.proxy.async.shared::cta`: makes this thread's ordinary writes
/// to shared memory visible to the asynchronous proxy (`wgmma`'s operand
/// reads, TMA) after a barrier.
#[inline(always)]
pub fn fence_proxy_async_shared() {
    gpu!("fence_proxy_async_shared", {
        // SAFETY: no operands; a memory fence.
        unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) }
    }, emu: { crate::emulator::ops::proxy_fence("fence_proxy_async_shared") })
}

/// The matrix descriptor of an operand tile in shared memory laid out as
/// CuTe's `tile_to_shape(GMMA::Layout_K_INTER_Atom<half_t>, (R, 16))`
/// (32 bytes of each of R rows; the same for every element type):
/// `((8,R/8),(8,2)):((8,64),(1,8R))` in halves (CuTe prints
/// `((_8,_8),(_8,_2)):((_8,_64),(_1,_512))` for R = 64), that is 8 x 8 core
/// matrices of 128 bytes, 8-row groups 128 bytes apart and the two K halves
/// `R * 16` bytes apart. CuTe's `make_gmma_desc<Major::K>` gives
/// `0x0000000800400000` for R = 64 at address 0 (host g++, CUTLASS 7107b05). In 16-byte units, CuTe's canonical K-major
/// INTERLEAVE form `((8,n),2):((1,SBO),LBO)` with SBO = 8 and LBO = R.
///
/// Bits (CuTe's `GmmaDescriptor`): start address >> 4 in [0,14), LBO in
/// [16,30), SBO in [32,46), base offset 0, layout type 0 (INTERLEAVE) in
/// [62,64).
///
/// ```
/// // A 64 x 16 tile at shared address 0x400: LBO 64 (1024 bytes), SBO 8.
/// assert_eq!(layout_device::k_interleave_desc(0x400, 64), 0x0000_0008_0040_0040);
/// ```
pub const fn k_interleave_desc(address: u32, rows: u32) -> u64 {
    let start = ((address >> 4) & 0x3fff) as u64;
    let lbo = (rows & 0x3fff) as u64;
    start | lbo << 16 | 8u64 << 32
}

/// The half offset of element (r, k) of a `rows` x 16 tile in that layout
/// (of a 16-bit type; for other types, 16-byte chunk `k / 8` of row `r`).
///
/// ```
/// use layout_device::k_interleave_offset;
/// // Row 9 is in the second 8-row group (64 halves on), row 1 of it (8
/// // halves); column 10 in the second K half (64 x 8 halves on), column 2.
/// assert_eq!(k_interleave_offset(9, 10, 64), 64 + 8 + 512 + 2);
/// ```
pub const fn k_interleave_offset(r: usize, k: usize, rows: usize) -> usize {
    (r % 8) * 8 + (r / 8) * 64 + (k % 8) + (k / 8) * rows * 8
}

/// One named `wgmma` function: its atom's [`GmmaInstr`] with both
/// operands K-major.
macro_rules! wgmma_f32_f16 {
    ($(#[$doc:meta])* $name:ident, $atom:ident, $regs:literal) => {
        $(#[$doc])*
        #[inline(always)]
        #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
        pub fn $name(desc_a: u64, desc_b: u64, acc: &mut [f32; $regs], accumulate: bool) {
            <layout_core::atom::$atom as GmmaInstr>::gmma::<false>(desc_a, desc_b, acc, accumulate)
        }
    };
}

wgmma_f32_f16!(
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16` (the atom
    /// `SM90_64x64x16_F32F16F16_SS`, both operands K-major): `acc = A·Bᵀ +
    /// acc` (or `A·Bᵀ` when `accumulate` is false) on a 64 x 16 A and a
    /// 64 x 16 B in shared memory, named by their matrix descriptors; `acc` is
    /// this thread's 32 values of the atom's C layout, in its value order.
    ///
    /// Asynchronous: issue [`wgmma_fence`] before (the accumulators' registers
    /// are the instruction's until it completes), then [`wgmma_commit_group`]
    /// and [`wgmma_wait_group`] before reading `acc`. All 128 threads of the
    /// warpgroup execute it together, converged. Needs `sm_90a`.
    wgmma_m64n64k16_f32_f16, SM90_64x64x16_F32F16F16_SS, 32
);

wgmma_f32_f16!(
    /// `wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16` (the atom
    /// `SM90_64x128x16_F32F16F16_SS`, both operands K-major): `acc = A·Bᵀ +
    /// acc` (or `A·Bᵀ` when `accumulate` is false) on a 64 x 16 A and a
    /// 128 x 16 B in shared memory, named by their matrix descriptors; `acc` is
    /// this thread's 64 values of the atom's C layout, in its value order.
    ///
    /// Asynchronous: issue [`wgmma_fence`] before (the accumulators' registers
    /// are the instruction's until it completes), then [`wgmma_commit_group`]
    /// and [`wgmma_wait_group`] before reading `acc`. All 128 threads of the
    /// warpgroup execute it together, converged. Needs `sm_90a`.
    wgmma_m64n128k16_f32_f16, SM90_64x128x16_F32F16F16_SS, 64
);

wgmma_f32_f16!(
    /// `wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16` (the atom
    /// `SM90_64x256x16_F32F16F16_SS`, both operands K-major): `acc = A·Bᵀ +
    /// acc` (or `A·Bᵀ` when `accumulate` is false) on a 64 x 16 A and a
    /// 256 x 16 B in shared memory, named by their matrix descriptors; `acc` is
    /// this thread's 128 values of the atom's C layout, in its value order.
    ///
    /// Asynchronous: issue [`wgmma_fence`] before (the accumulators' registers
    /// are the instruction's until it completes), then [`wgmma_commit_group`]
    /// and [`wgmma_wait_group`] before reading `acc`. All 128 threads of the
    /// warpgroup execute it together, converged. Needs `sm_90a`; the 128
    /// accumulators stay in registers only when every use of `acc` has a
    /// constant index.
    wgmma_m64n256k16_f32_f16, SM90_64x256x16_F32F16F16_SS, 128
);

/// One named RS `wgmma` function: its atom's [`GmmaInstr`], B K-major or
/// (`B_MN_MAJOR`) N-major.
macro_rules! wgmma_f32_f16_rs {
    ($(#[$doc:meta])* $name:ident, $atom:ident, $regs:literal) => {
        $(#[$doc])*
        #[inline(always)]
        #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
        pub fn $name<const B_MN_MAJOR: bool>(a: [u32; 4], desc_b: u64, acc: &mut [f32; $regs], accumulate: bool) {
            <layout_core::atom::$atom as GmmaInstr>::gmma::<B_MN_MAJOR>(a, desc_b, acc, accumulate)
        }
    };
}

wgmma_f32_f16_rs!(
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16` with A in
    /// registers (the atom `SM90_64x64x16_F32F16F16_RS`): `acc = A·Bᵀ +
    /// acc` (or `A·Bᵀ` when `accumulate` is false) on this thread's 8
    /// halves of a 64 x 16 A (`a`: four f16 pairs in the atom's A value
    /// order, CuTe's `ALayout_64x16`) and a 64 x 16 B in shared memory
    /// named by its descriptor, K-major or (`B_MN_MAJOR`, the instruction's
    /// transpose bit) N-major; `acc` is this thread's 32 values of the
    /// atom's C layout.
    ///
    /// Asynchronous, as [`wgmma_m64n64k16_f32_f16`]: [`wgmma_fence`]
    /// before (after `a` or `acc` were written), then
    /// [`wgmma_commit_group`] and [`wgmma_wait_group`] before reading
    /// `acc` or writing `a`'s registers. Needs `sm_90a`.
    wgmma_m64n64k16_f32_f16_rs, SM90_64x64x16_F32F16F16_RS, 32
);

wgmma_f32_f16_rs!(
    /// `wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16` with A in
    /// registers (the atom `SM90_64x128x16_F32F16F16_RS`), as
    /// [`wgmma_m64n64k16_f32_f16_rs`] with a 128 x 16 B and 64
    /// accumulators a thread.
    wgmma_m64n128k16_f32_f16_rs, SM90_64x128x16_F32F16F16_RS, 64
);

wgmma_f32_f16_rs!(
    /// `wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16` with A in
    /// registers (the atom `SM90_64x256x16_F32F16F16_RS`), as
    /// [`wgmma_m64n64k16_f32_f16_rs`] with a 256 x 16 B and 128
    /// accumulators a thread.
    wgmma_m64n256k16_f32_f16_rs, SM90_64x256x16_F32F16F16_RS, 128
);

wgmma_f32_f16!(
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16` (the atom
    /// `SM90_64x64x16_F32BF16BF16_SS`): [`wgmma_m64n64k16_f32_f16`] with
    /// bf16 operands.
    wgmma_m64n64k16_f32_bf16, SM90_64x64x16_F32BF16BF16_SS, 32
);

wgmma_f32_f16!(
    /// `wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16` (the atom
    /// `SM90_64x128x16_F32BF16BF16_SS`): [`wgmma_m64n128k16_f32_f16`] with
    /// bf16 operands.
    wgmma_m64n128k16_f32_bf16, SM90_64x128x16_F32BF16BF16_SS, 64
);

wgmma_f32_f16!(
    /// `wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16` (the atom
    /// `SM90_64x256x16_F32BF16BF16_SS`): [`wgmma_m64n256k16_f32_f16`] with
    /// bf16 operands.
    wgmma_m64n256k16_f32_bf16, SM90_64x256x16_F32BF16BF16_SS, 128
);

wgmma_f32_f16_rs!(
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16` with A in
    /// registers (the atom `SM90_64x64x16_F32BF16BF16_RS`):
    /// [`wgmma_m64n64k16_f32_f16_rs`] with bf16 operands (A as four bf16
    /// pairs).
    wgmma_m64n64k16_f32_bf16_rs, SM90_64x64x16_F32BF16BF16_RS, 32
);

wgmma_f32_f16_rs!(
    /// `wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16` with A in
    /// registers (the atom `SM90_64x128x16_F32BF16BF16_RS`):
    /// [`wgmma_m64n128k16_f32_f16_rs`] with bf16 operands.
    wgmma_m64n128k16_f32_bf16_rs, SM90_64x128x16_F32BF16BF16_RS, 64
);

/// The registers each thread of a block of `threads` threads is launched
/// with, at most: the SM's 65536 over the block's warps' threads, in the
/// allocation's steps of 8, at most 255 (ptxas's limit; a kernel that
/// needs fewer gets fewer). [`setmaxnreg_inc`] and [`setmaxnreg_dec`]
/// move registers within the block's pool, this times `threads`: an
/// increase waits for what decreases have freed, so a split that asks for
/// more never finishes.
///
/// ```
/// use layout_device::launch_registers;
/// // A producer and two consumer warpgroups: 168 a thread, a pool of
/// // 64512, which 128 x (24 + 2 x 240) fills.
/// assert_eq!(launch_registers(384), 168);
/// assert_eq!(128 * (24 + 2 * 240), 168 * 384);
/// assert_eq!(launch_registers(256), 255);
/// ```
pub const fn launch_registers(threads: usize) -> u32 {
    let warps = if threads == 0 {
        1
    } else {
        threads.div_ceil(32)
    };
    let per = 65536 / (warps * 32) / 8 * 8;
    if per > 255 {
        255
    } else {
        per as u32
    }
}

/// `setmaxnreg.inc.sync.aligned.u32 N`: this warpgroup's threads grow to
/// `N` registers each (a consumer warpgroup of a warp-specialized kernel,
/// taking what the producer gave back). `N` is a multiple of 8 in 24..=256;
/// the kernel needs launch bounds (`.maxntid`: layout-ptx adds them from
/// `KERNEL_LAUNCH_BOUNDS`), else ptxas ignores the instruction (and
/// layout-ptx fails the build on its warning). Every thread of the
/// warpgroup executes it, converged. `sm_90a`.
#[inline(always)]
pub fn setmaxnreg_inc<const N: u32>() {
    const {
        assert!(
            N % 8 == 0 && N >= 24 && N <= 256,
            "setmaxnreg: N is a multiple of 8 in 24..=256"
        )
    };
    gpu!("setmaxnreg_inc", {
        // SAFETY: no operands; the register file is the hardware's.
        unsafe {
            asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const N, options(nostack, nomem))
        }
    }, emu: { crate::emulator::ops::setmaxnreg("setmaxnreg_inc", true, N) })
}

/// `setmaxnreg.dec.sync.aligned.u32 N`: this warpgroup's threads shrink to
/// `N` registers each (a producer warpgroup, which needs few, giving them
/// to the consumers). As [`setmaxnreg_inc`].
#[inline(always)]
pub fn setmaxnreg_dec<const N: u32>() {
    const {
        assert!(
            N % 8 == 0 && N >= 24 && N <= 256,
            "setmaxnreg: N is a multiple of 8 in 24..=256"
        )
    };
    gpu!("setmaxnreg_dec", {
        // SAFETY: as `setmaxnreg_inc`.
        unsafe {
            asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const N, options(nostack, nomem))
        }
    }, emu: { crate::emulator::ops::setmaxnreg("setmaxnreg_dec", false, N) })
}

/// An `mbarrier` in shared memory: 8 bytes (two words of an [`Smem`]
/// window, 8-byte aligned), that threads arrive at and TMA copies
/// complete transactions on; waited on by phase parity.
///
/// [`Smem`]: super::Smem
#[derive(Clone, Copy, Debug)]
pub struct Mbarrier {
    addr: u32,
}

impl Mbarrier {
    /// The barrier at word `i` of `window` (8-byte aligned: traps
    /// otherwise, or when it leaves the window).
    #[inline(always)]
    pub fn at(window: super::Smem, i: usize) -> Mbarrier {
        if i % 2 != 0 || i + 2 > window.len() || window.address() % 8 != 0 {
            super::trap()
        }
        Mbarrier {
            addr: window.address() + 4 * i as u32,
        }
    }

    /// `mbarrier.init`: expects `count` arrivals per phase. One thread
    /// initialises it, then [`fence_mbarrier_init`] and a barrier.
    #[inline(always)]
    pub fn init(self, count: u32) {
        gpu!("Mbarrier::init", {
            // SAFETY: the address lies in the shared buffer (`at`).
            unsafe {
                asm!("mbarrier.init.shared::cta.b64 [{a}], {c};", a = in(reg32) self.addr,
                     c = in(reg32) count, options(nostack))
            }
        }, emu: { crate::emulator::mbarrier::mbar_init(self.addr, count) })
    }

    /// `mbarrier.arrive.expect_tx`: this thread arrives, and the phase
    /// also waits for `bytes` of transactions (the TMA copies that complete
    /// on this barrier).
    #[inline(always)]
    pub fn arrive_expect_tx(self, bytes: u32) {
        gpu!("Mbarrier::arrive_expect_tx", {
            // SAFETY: as `init`.
            unsafe {
                asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{a}], {b};",
                     a = in(reg32) self.addr, b = in(reg32) bytes, options(nostack))
            }
        }, emu: { crate::emulator::mbarrier::mbar_arrive(self.addr, bytes, None) })
    }

    /// `mbarrier.arrive`: this thread arrives.
    #[inline(always)]
    pub fn arrive(self) {
        gpu!("Mbarrier::arrive", {
            // SAFETY: as `init`.
            unsafe {
                asm!("mbarrier.arrive.shared::cta.b64 _, [{a}];", a = in(reg32) self.addr,
                     options(nostack))
            }
        }, emu: { crate::emulator::mbarrier::mbar_arrive(self.addr, 0, None) })
    }

    /// `mbarrier.arrive` on the barrier at this one's address in the shared
    /// memory of block `cta` of this block's cluster (`mapa`, then the
    /// arrival through the cluster's shared window): a consumer telling a
    /// peer block's producer that a stage the peer multicasts into is free.
    /// `cta` below the cluster's size (the caller's loop bound).
    #[inline(always)]
    pub fn arrive_cluster(self, cta: u32) {
        gpu!("Mbarrier::arrive_cluster", {
            // SAFETY: the address is a barrier of this kernel's shared
            // buffer (`at`), which every block of the cluster has at the
            // same offset; the hardware maps it into block `cta`'s.
            unsafe {
                asm!(
                    "{{ .reg .b32 r; mapa.shared::cluster.u32 r, {a}, {c}; mbarrier.arrive.shared::cluster.b64 _, [r]; }}",
                    a = in(reg32) self.addr, c = in(reg32) cta, options(nostack)
                )
            }
        }, emu: { crate::emulator::mbarrier::mbar_arrive(self.addr, 0, Some(cta)) })
    }

    /// Whether the phase of parity `phase` (0 or 1) has completed
    /// (`mbarrier.try_wait.parity`: waits a while in hardware first).
    #[inline(always)]
    pub fn try_wait(self, phase: u32) -> bool {
        gpu!("Mbarrier::try_wait", {
            let done: u32;
            // SAFETY: as `init`.
            unsafe {
                asm!(
                    "{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [{a}], {ph}; selp.u32 {d}, 1, 0, p; }}",
                    a = in(reg32) self.addr, ph = in(reg32) phase, d = out(reg32) done,
                    options(nostack)
                )
            };
            done != 0
        }, emu: { crate::emulator::mbarrier::mbar_try_wait(self.addr, phase) })
    }

    /// Waits until the phase of parity `phase` has completed. The thread
    /// that completes the phase (issues the copy, arrives) must not be left
    /// behind by its own warp spinning here: reconverge the warp first
    /// ([`sync_warp`](super::sync_warp)) when one lane does that work.
    #[inline(always)]
    pub fn wait(self, phase: u32) {
        while !self.try_wait(phase) {}
    }

    /// The barrier `i` places on (8 `i` bytes) from this one, which the
    /// caller has checked lies in the same window (a pipeline's barriers
    /// after the first, with `i` below its count).
    #[inline(always)]
    pub(crate) fn nth(self, i: u32) -> Mbarrier {
        Mbarrier {
            addr: self.addr + 8 * i,
        }
    }

    /// The barrier's shared-window address.
    #[inline(always)]
    pub fn address(self) -> u32 {
        self.addr
    }
}

/// `fence.mbarrier_init.release.cluster`: makes barrier initialisations
/// visible to the other threads and to TMA (then a block barrier).
#[inline(always)]
pub fn fence_mbarrier_init() {
    gpu!("fence_mbarrier_init", {
        // SAFETY: no operands; a memory fence.
        unsafe { asm!("fence.mbarrier_init.release.cluster;", options(nostack)) }
    }, emu: { crate::emulator::ops::nop("fence_mbarrier_init") })
}

/// What a TMA load into `dst` needs (traps otherwise): the box fits the
/// window, which is 128-byte aligned, and the map is 64-byte aligned.
#[inline(always)]
fn tma_checks(dst: super::Smem, box_bytes: usize, map: u64) {
    if box_bytes > 4 * dst.len() || dst.address() % 128 != 0 || map % 64 != 0 {
        super::trap()
    }
}

/// `cp.async.bulk.tensor.2d` (CuTe's `SM90_TMA_LOAD`): the box at
/// coordinates (`col`, `row`) of the matrix the tensor map at `map` (a
/// global address, 64-byte aligned) describes, into the window `dst` from
/// word 0 (128-byte aligned; 1024 for the 128-byte swizzle), completing on
/// `bar`. One thread issues it; the box's bytes arrive with the barrier's
/// phase. Coordinates past the matrix read zeros.
///
/// The window must hold the box: the caller passes the box's bytes, which
/// are checked against it.
#[inline(always)]
pub fn tma_load_2d(
    dst: super::Smem,
    box_bytes: usize,
    map: u64,
    (col, row): (i32, i32),
    bar: Mbarrier,
) {
    tma_checks(dst, box_bytes, map);
    gpu!("tma_load_2d", {
        // SAFETY: the box fits the window (checked); the map is the
        // caller's, read by the hardware, which faults on a bad one rather
        // than writing outside the box's shared bytes.
        unsafe {
            asm!(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c}, {r}}}], [{b}];",
                d = in(reg32) dst.address(), m = in(reg64) map, c = in(reg32) col, r = in(reg32) row,
                b = in(reg32) bar.address(), options(nostack)
            )
        }
    }, emu: {
        crate::emulator::tma::tma_load("tma_load_2d", dst.address(), 4 * dst.len(), map, [col, row, 0], bar.address(), None)
    })
}

/// `cp.async.bulk.tensor.3d` (CuTe's `SM90_TMA_LOAD` of a rank-3 map): as
/// [`tma_load_2d`], the box at coordinates (`col`, `row`, `plane`) of the
/// tensor the map describes (innermost first: a batch of matrices, each
/// plane one matrix). Coordinates past the tensor in any mode read zeros,
/// so a box that runs past one plane's rows does not read the next plane.
#[inline(always)]
pub fn tma_load_3d(
    dst: super::Smem,
    box_bytes: usize,
    map: u64,
    (col, row, plane): (i32, i32, i32),
    bar: Mbarrier,
) {
    tma_checks(dst, box_bytes, map);
    gpu!("tma_load_3d", {
        // SAFETY: as tma_load_2d's.
        unsafe {
            asm!(
                "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c}, {r}, {p}}}], [{b}];",
                d = in(reg32) dst.address(), m = in(reg64) map, c = in(reg32) col, r = in(reg32) row,
                p = in(reg32) plane, b = in(reg32) bar.address(), options(nostack)
            )
        }
    }, emu: {
        crate::emulator::tma::tma_load("tma_load_3d", dst.address(), 4 * dst.len(), map, [col, row, plane], bar.address(), None)
    })
}

/// `cp.async.bulk.tensor.2d ... .multicast::cluster` (CuTe's
/// `SM90_TMA_LOAD_MULTICAST`): as [`tma_load_2d`], the box written at the
/// same shared offset in every block of the cluster whose bit is set in
/// `mask`, each completing its bytes on its barrier at `bar`'s offset.
#[inline(always)]
pub fn tma_load_2d_multicast(
    dst: super::Smem,
    box_bytes: usize,
    map: u64,
    (col, row): (i32, i32),
    bar: Mbarrier,
    mask: u16,
) {
    tma_checks(dst, box_bytes, map);
    gpu!("tma_load_2d_multicast", {
        // SAFETY: as `tma_load_2d`, in each block of the mask (the same
        // buffer at the same offset in each).
        unsafe {
            asm!(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{c}, {r}}}], [{b}], {k};",
                d = in(reg32) dst.address(), m = in(reg64) map, c = in(reg32) col, r = in(reg32) row,
                b = in(reg32) bar.address(), k = in(reg16) mask, options(nostack)
            )
        }
    }, emu: {
        crate::emulator::tma::tma_load("tma_load_2d_multicast", dst.address(), 4 * dst.len(), map, [col, row, 0], bar.address(), Some(mask))
    })
}

/// `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group` (CuTe's
/// `SM90_TMA_STORE`): the box at coordinates (`col`, `row`) of the matrix
/// the tensor map at `map` describes, written from the window `src` (from
/// word 0, laid out as a TMA load lays it: 128-byte aligned, 1024 for the
/// 128-byte swizzle); elements past the matrix are not written. One thread
/// issues it, after the threads that wrote `src` have fenced their writes
/// ([`fence_proxy_async_shared`]) and synchronised; then
/// [`tma_store_commit`], and [`tma_store_wait`] before `src` is written
/// again. The window must hold the box (`box_bytes`, checked).
#[inline(always)]
pub fn tma_store_2d(src: super::Smem, box_bytes: usize, map: u64, (col, row): (i32, i32)) {
    tma_checks(src, box_bytes, map);
    gpu!("tma_store_2d", {
        // SAFETY: the box lies in the window (checked); the map is the
        // caller's, read by the hardware, which writes only inside the
        // tensor the map describes.
        unsafe {
            asm!(
                "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [{m}, {{{c}, {r}}}], [{s}];",
                m = in(reg64) map, c = in(reg32) col, r = in(reg32) row, s = in(reg32) src.address(),
                options(nostack)
            )
        }
    }, emu: {
        let coords = [col, row, 0];
        crate::emulator::tma::tma_store("tma_store_2d", src.address(), 4 * src.len(), map, coords)
    })
}

/// `cp.async.bulk.tensor.3d` store: as [`tma_store_2d`], the box at
/// (`col`, `row`, `plane`) of a rank-3 map.
#[inline(always)]
pub fn tma_store_3d(
    src: super::Smem,
    box_bytes: usize,
    map: u64,
    (col, row, plane): (i32, i32, i32),
) {
    tma_checks(src, box_bytes, map);
    gpu!("tma_store_3d", {
        // SAFETY: as `tma_store_2d`.
        unsafe {
            asm!(
                "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [{m}, {{{c}, {r}, {p}}}], [{s}];",
                m = in(reg64) map, c = in(reg32) col, r = in(reg32) row, p = in(reg32) plane,
                s = in(reg32) src.address(), options(nostack)
            )
        }
    }, emu: {
        let coords = [col, row, plane];
        crate::emulator::tma::tma_store("tma_store_3d", src.address(), 4 * src.len(), map, coords)
    })
}

/// `cp.reduce.async.bulk.tensor.2d ... .add` (CuTe's
/// `SM90_TMA_REDUCE_ADD`): as [`tma_store_2d`], but each element of the
/// box is added to the matrix's element (in the map's element type: f32,
/// f16, bf16, ...) instead of replacing it; elements past the matrix are
/// dropped. Completes with the stores' [`tma_store_commit`] /
/// [`tma_store_wait`].
#[inline(always)]
pub fn tma_reduce_add_2d(src: super::Smem, box_bytes: usize, map: u64, (col, row): (i32, i32)) {
    tma_checks(src, box_bytes, map);
    gpu!("tma_reduce_add_2d", {
        // SAFETY: as `tma_store_2d`.
        unsafe {
            asm!(
                "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [{m}, {{{c}, {r}}}], [{s}];",
                m = in(reg64) map, c = in(reg32) col, r = in(reg32) row, s = in(reg32) src.address(),
                options(nostack)
            )
        }
    }, emu: {
        let coords = [col, row, 0];
        crate::emulator::tma::tma_reduce_add("tma_reduce_add_2d", src.address(), 4 * src.len(), map, coords)
    })
}

/// `cp.async.bulk.prefetch.tensor.2d.L2` (CuTe's `SM90_TMA_LOAD::PREFETCH`):
/// the box at (`col`, `row`) of the matrix the map describes brought into
/// the L2 cache ahead of a load; no shared memory, no barrier.
#[inline(always)]
pub fn tma_prefetch_2d(map: u64, (col, row): (i32, i32)) {
    if map % 64 != 0 {
        super::trap()
    }
    gpu!("tma_prefetch_2d", {
        // SAFETY: a prefetch reads through the map (the caller's), writes
        // nothing.
        unsafe {
            asm!(
                "cp.async.bulk.prefetch.tensor.2d.L2.global [{m}, {{{c}, {r}}}];",
                m = in(reg64) map, c = in(reg32) col, r = in(reg32) row, options(nostack)
            )
        }
    }, emu: { crate::emulator::tma::tma_prefetch("tma_prefetch_2d", map) })
}

/// `cp.async.bulk.commit_group`: this thread's TMA stores since the last
/// commit form one group.
#[inline(always)]
pub fn tma_store_commit() {
    gpu!("tma_store_commit", {
        // SAFETY: no operands.
        unsafe { asm!("cp.async.bulk.commit_group;", options(nostack)) }
    }, emu: { crate::emulator::ops::nop("tma_store_commit") })
}

/// `cp.async.bulk.wait_group.read N`: waits until at most `N` of this
/// thread's committed store groups still read their shared memory (the
/// others' windows may be written again).
#[inline(always)]
pub fn tma_store_wait<const N: u32>() {
    gpu!("tma_store_wait", {
        // SAFETY: no operands; a memory clobber keeps later shared writes
        // after it.
        unsafe { asm!("cp.async.bulk.wait_group.read {n};", n = const N, options(nostack)) }
    }, emu: { crate::emulator::ops::nop("tma_store_wait") })
}

/// `elect.sync`: true in exactly one lane of the warp (all 32 lanes take
/// part): the one that issues a warp's TMA copy or arrival. Under the
/// emulator, lane 0.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn elect_one() -> bool {
    gpu!("elect_one", {
        let r: u32;
        // SAFETY: registers only; the whole warp executes it (full mask).
        unsafe {
            asm!("{{ .reg .pred p; elect.sync _|p, -1; selp.u32 {r}, 1, 0, p; }}",
                 r = out(reg32) r, options(nomem, nostack))
        };
        r != 0
    }, emu: { crate::emulator::ops::elect_one(core::panic::Location::caller()) })
}

/// This block's rank in its cluster (`%cluster_ctarank`).
#[inline(always)]
pub fn cluster_ctarank() -> u32 {
    gpu!("cluster_ctarank", {
        let r: u32;
        // SAFETY: reads a special register.
        unsafe {
            asm!("mov.u32 {r}, %cluster_ctarank;", r = out(reg32) r, options(pure, nomem, nostack))
        };
        r
    }, emu: { crate::emulator::ops::cluster("cluster_ctarank").0 })
}

/// This block's cluster along x, and the clusters along x
/// (`%clusterid.x`, `%nclusterid.x`).
#[inline(always)]
pub fn cluster_idx() -> (u32, u32) {
    gpu!("cluster_idx", {
        let (i, n): (u32, u32);
        // SAFETY: reads special registers.
        unsafe {
            asm!("mov.u32 {i}, %clusterid.x; mov.u32 {n}, %nclusterid.x;", i = out(reg32) i,
                 n = out(reg32) n, options(pure, nomem, nostack))
        };
        (i, n)
    }, emu: { let c = crate::emulator::ops::cluster("cluster_idx"); (c.1, c.2) })
}

/// Every thread of the cluster's blocks arrives and waits
/// (`barrier.cluster.arrive.release` / `wait.acquire`, the non-aligned
/// forms: safe near divergent code): after barrier initialisation, before
/// any block reaches into another's shared memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn cluster_sync() {
    gpu!("cluster_sync", {
        // SAFETY: no operands; a memory barrier across the cluster.
        unsafe {
            asm!(
                "barrier.cluster.arrive.release; barrier.cluster.wait.acquire;",
                options(nostack)
            )
        }
    }, emu: {
        crate::emulator::ops::cluster_barrier("cluster_sync", core::panic::Location::caller())
    })
}

/// `fence.proxy.tensormap::generic.acquire.sys`: before TMA reads a tensor
/// map that reached global memory by ordinary writes (a copy from the
/// host), orders those writes before the TMA unit's reads of the map's 128
/// bytes at `map` (system scope: the host's copy wrote them). PTX 8.3
/// (`layout-ptx --ptx 8.3`).
#[inline(always)]
pub fn fence_tensormap_acquire(map: u64) {
    gpu!("fence_tensormap_acquire", {
        // SAFETY: a fence on the map's bytes; no access.
        unsafe {
            asm!("fence.proxy.tensormap::generic.acquire.sys [{m}], 128;", m = in(reg64) map,
                 options(nostack))
        }
    }, emu: { crate::emulator::ops::nop("fence_tensormap_acquire") })
}
