//! Where a thread is (its indices in the block and grid, its warp and
//! lane), the block barrier, and the trap that stops a kernel.

#[cfg(target_arch = "nvptx64")]
use core::arch::{asm, nvptx};

/// Stops the kernel: a failed check. The launch fails, and the host's
/// next synchronisation reports it (with the kernel's name, through
/// `layout-launch`).
///
/// On the host (tests of device logic), a panic.
#[inline(always)]
#[track_caller]
pub fn trap() -> ! {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: `brkpt` stops the kernel with an error when no debugger is
    // attached (the launch fails); `exit` ends the thread should it ever
    // resume. Not `trap`: with a `trap` in the region after
    // `setmaxnreg.inc`, ptxas (13.0) allocates that region within the
    // launch's register count instead of the raised one.
    unsafe {
        asm!("brkpt;", "exit;", options(noreturn, nostack))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("device check failed")
}

/// The number of threads in a warp.
pub const WARP_SIZE: usize = 32;

/// The thread's index in its block, x (CUDA's `threadIdx.x`).
#[inline(always)]
pub fn thread_idx() -> usize {
    gpu!("thread_idx", {
        // SAFETY: reads a special register.
        unsafe { nvptx::_thread_idx_x() as usize }
    }, emu: { crate::emulator::ops::thread_idx_xyz("thread_idx").0 })
}

/// The thread's index in its block, (x, y, z).
#[inline(always)]
pub fn thread_idx_xyz() -> (usize, usize, usize) {
    gpu!("thread_idx_xyz", {
        // SAFETY: reads special registers.
        unsafe {
            (
                nvptx::_thread_idx_x() as usize,
                nvptx::_thread_idx_y() as usize,
                nvptx::_thread_idx_z() as usize,
            )
        }
    }, emu: { crate::emulator::ops::thread_idx_xyz("thread_idx_xyz") })
}

/// The block's index in the grid, (x, y) (CUDA's `blockIdx`).
#[inline(always)]
pub fn block_idx() -> (usize, usize) {
    gpu!("block_idx", {
        // SAFETY: reads special registers.
        unsafe {
            (
                nvptx::_block_idx_x() as usize,
                nvptx::_block_idx_y() as usize,
            )
        }
    }, emu: { let b = crate::emulator::ops::block_idx_xyz("block_idx"); (b.0, b.1) })
}

/// The block's index in the grid, (x, y, z).
#[inline(always)]
pub fn block_idx_xyz() -> (usize, usize, usize) {
    gpu!("block_idx_xyz", {
        // SAFETY: reads special registers.
        unsafe {
            (
                nvptx::_block_idx_x() as usize,
                nvptx::_block_idx_y() as usize,
                nvptx::_block_idx_z() as usize,
            )
        }
    }, emu: { crate::emulator::ops::block_idx_xyz("block_idx_xyz") })
}

/// The block's extent in threads, (x, y, z) (CUDA's `blockDim`).
#[inline(always)]
pub fn block_dim() -> (usize, usize, usize) {
    gpu!("block_dim", {
        // SAFETY: reads special registers.
        unsafe {
            (
                nvptx::_block_dim_x() as usize,
                nvptx::_block_dim_y() as usize,
                nvptx::_block_dim_z() as usize,
            )
        }
    }, emu: { crate::emulator::ops::block_dim("block_dim") })
}

/// The grid's extent in blocks, (x, y, z) (CUDA's `gridDim`).
#[inline(always)]
pub fn grid_dim() -> (usize, usize, usize) {
    gpu!("grid_dim", {
        // SAFETY: reads special registers.
        unsafe {
            (
                nvptx::_grid_dim_x() as usize,
                nvptx::_grid_dim_y() as usize,
                nvptx::_grid_dim_z() as usize,
            )
        }
    }, emu: { crate::emulator::ops::grid_dim("grid_dim") })
}

/// The thread's warp in its block and its lane in the warp, for a block
/// of x threads only: `(thread_idx() / 32, thread_idx() % 32)`.
#[inline(always)]
pub fn warp_lane() -> (usize, usize) {
    gpu!("warp_lane", {
        let t = thread_idx();
        (t / WARP_SIZE, t % WARP_SIZE)
    }, emu: { let t = thread_idx(); (t / WARP_SIZE, t % WARP_SIZE) })
}

/// `__syncthreads()`: every thread of the block waits here; shared-memory
/// writes before it are seen by every thread after it.
///
/// It is `bar.sync`, which is `.aligned`: every lane of a warp must reach
/// the same instruction. The compiler may copy it into both sides of a
/// branch on the thread index: `if t == 0 {..} sync_threads(); if t == 0
/// {..}` became two copies (kernels/sm90's `tma_tile`), and lane 0 then
/// waited at its copy until the others exited. Around such branches use
/// [`sync_threads_divergent`].
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn sync_threads() {
    gpu!("sync_threads", {
        // SAFETY: a barrier; every thread of the block reaches it (kernels
        // call it outside data-dependent branches). No `nomem`: the compiler
        // keeps shared-memory accesses on their side of it.
        unsafe { asm!("bar.sync 0;", options(nostack)) }
    }, emu: {
        crate::emulator::ops::barrier("sync_threads", core::panic::Location::caller(), true)
    })
}

/// `fence.acq_rel.gpu` (like CUDA's `__threadfence()`, which is
/// `fence.sc.gpu`): this thread's memory accesses before it, and those
/// ordered before it (by a block barrier, say), are ordered before its
/// accesses after it for every thread of the GPU. The handshake between
/// blocks: each writes its results, fences, then counts itself with
/// [`GlobalMut::atomic_inc`](crate::GlobalMut::atomic_inc); the block that
/// sees the last count fences again and then reads the others' results.
/// On the GPU it also drops the SM's L1 lines (`CCTL.IVALL` in the SASS),
/// so that those reads see memory. Under the emulator, whose blocks run
/// one after another, it has nothing to order.
#[inline(always)]
pub fn fence_acq_rel_gpu() {
    gpu!("fence_acq_rel_gpu", {
        // SAFETY: no operands; a memory fence (no `nomem`: the compiler
        // keeps memory accesses on their side of it).
        unsafe { asm!("fence.acq_rel.gpu;", options(nostack)) }
    }, emu: { crate::emulator::ops::nop("fence_acq_rel_gpu") })
}

/// `barrier.sync 0` (CUDA's `__barrier_sync(0)`): [`sync_threads`] without
/// `.aligned`, correct where lanes of one warp reach it through different
/// instructions (divergent branches, or copies the compiler made of it).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn sync_threads_divergent() {
    gpu!("sync_threads_divergent", {
        // SAFETY: a barrier every thread of the block reaches (by any copy
        // of it); no `nomem`, as `sync_threads`.
        unsafe { asm!("barrier.sync 0;", options(nostack)) }
    }, emu: {
        crate::emulator::ops::barrier("sync_threads_divergent", core::panic::Location::caller(), false)
    })
}

/// `barrier.sync id, count` (CUDA's named barriers): the `count` threads
/// of the block that reach barrier `id` wait for each other, and their
/// shared-memory writes before it are seen after it; the other threads go
/// on (one warpgroup of a warp-specialized kernel, say, with `count` 128).
/// `id` is 1 to 15 (0 is [`sync_threads`]'), `count` a positive multiple of
/// 32 that every arriving thread gives alike. Not `.aligned`: lanes may
/// reach it through different instructions.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn named_barrier(id: u32, count: u32) {
    gpu!("named_barrier", {
        // SAFETY: a barrier of `count` threads (the caller's contract: all
        // of them reach it); no `nomem`, as `sync_threads`.
        unsafe { asm!("barrier.sync {id}, {count};", id = in(reg32) id, count = in(reg32) count, options(nostack)) }
    }, emu: {
        crate::emulator::ops::named_barrier(core::panic::Location::caller(), id, count)
    })
}

/// `barrier.arrive id, count`: this thread counts towards named barrier
/// `id`'s `count` without waiting; the threads that [`named_barrier`] it
/// go on once all `count` have arrived, and see the shared-memory writes
/// this thread made before arriving. A signal from one warpgroup to
/// another (a ping-pong GEMM's consumers handing over the tensor cores:
/// one arrives after its K-loop, the other syncs before its own). A thread
/// must not arrive twice before the barrier completes. As
/// [`named_barrier`] otherwise.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn named_barrier_arrive(id: u32, count: u32) {
    gpu!("named_barrier_arrive", {
        // SAFETY: an arrival at a barrier of `count` threads (the caller's
        // contract); no `nomem`: the writes before it are ordered before
        // the waiters' reads.
        unsafe { asm!("barrier.arrive {id}, {count};", id = in(reg32) id, count = in(reg32) count, options(nostack)) }
    }, emu: {
        crate::emulator::ops::named_barrier_arrive(core::panic::Location::caller(), id, count)
    })
}

/// `__syncwarp()`: the lanes of the warp wait for each other; their
/// shared-memory writes before it are seen after it.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn sync_warp() {
    gpu!("sync_warp", {
        // SAFETY: a warp barrier over all 32 lanes (kernels call it with whole
        // warps). No `nomem`, as `sync_threads`.
        unsafe { asm!("bar.warp.sync -1;", options(nostack)) }
    }, emu: { crate::emulator::ops::sync_warp(core::panic::Location::caller()) })
}

/// Fused multiply-add `a * b + c`, one `fma.rn.f32` (rounded once; on
/// the host the same, bit for bit).
///
/// ```
/// assert_eq!(layout_device::fma(3.0, 0.5, 1.0), 2.5);
/// ```
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    gpu!("fma", { core::intrinsics::fmaf32(a, b, c) }, host: { libm::fmaf(a, b, c) })
}

/// A subnormal `x` as 0 of its sign (the `.ftz` of an instruction).
#[cfg(not(target_arch = "nvptx64"))]
fn ftz(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// The `in_loop` functions, one per register width: a register move the
/// optimiser may neither move nor merge.
macro_rules! in_loop_fns {
    ($($(#[$doc:meta])* $name:ident: $ty:ty, $mov:literal, $reg:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(x: $ty) -> $ty {
            gpu!(stringify!($name), host: { x }, {
                let y: $ty;
                // SAFETY: a register move. Not `pure`: each call is its own
                // value.
                unsafe {
                    asm!(concat!($mov, " {y}, {x};"), y = out($reg) y, x = in($reg) x,
                         options(nomem, nostack))
                };
                y
            })
        }
    )*};
}

in_loop_fns! {
    /// `x` as the optimiser cannot see it (a register move it may not move
    /// or merge): what a loop derives from it is computed inside the loop,
    /// rather than hoisted before it and held in registers across it (a
    /// kernel short of registers recomputes a few addresses per iteration
    /// instead of spilling them).
    in_loop: usize, "mov.b64", reg64;
    /// [`in_loop`] for a 32-bit value: one register held across the loop,
    /// not two (shared-memory offsets, counts below 2^32). A loop's index
    /// passed through it is also opaque to LLVM's induction-variable
    /// rewriting, which would otherwise keep a 64-bit running copy of each
    /// address derived from the index.
    in_loop_u32: u32, "mov.b32", reg32;
}

/// `log2(x)`, `lg2.approx.ftz.f32` (maximum relative error 2^-22.6 over
/// normal arguments): with [`exp2`], a softmax's log-sum-exp. On the host,
/// `log2` of `x` with subnormals flushed (within that error; exact at
/// powers of two).
///
/// ```
/// assert_eq!(layout_device::log2(8.0), 3.0);
/// assert_eq!(layout_device::log2(0.0), f32::NEG_INFINITY);
/// ```
#[inline(always)]
pub fn log2(x: f32) -> f32 {
    gpu!("log2", host: { libm::log2f(ftz(x)) }, {
        let d: f32;
        // SAFETY: registers only.
        unsafe {
            asm!("lg2.approx.ftz.f32 {d}, {x};", d = out(reg32) d, x = in(reg32) x,
                 options(pure, nomem, nostack))
        };
        d
    })
}

/// `2^x`, `ex2.approx.ftz.f32` (relative error 2^-22, subnormal results
/// flushed to 0; `2^-inf` is 0): the exponential of a softmax computed in
/// base 2, its scale multiplied by log2(e) beforehand. On the host, `2^x`
/// with subnormal arguments and results flushed (within that error; exact
/// at integers).
///
/// ```
/// assert_eq!(layout_device::exp2(-3.0), 0.125);
/// assert_eq!(layout_device::exp2(f32::NEG_INFINITY), 0.0);
/// assert_eq!(layout_device::exp2(-140.0), 0.0); // subnormal: flushed
/// ```
#[inline(always)]
pub fn exp2(x: f32) -> f32 {
    gpu!("exp2", host: { ftz(libm::exp2f(ftz(x))) }, {
        let d: f32;
        // SAFETY: registers only.
        unsafe {
            asm!("ex2.approx.ftz.f32 {d}, {x};", d = out(reg32) d, x = in(reg32) x,
                 options(pure, nomem, nostack))
        };
        d
    })
}

/// `tanh(x)`, `tanh.approx.f32` (sm_75 on; the PTX ISA gives its maximum
/// relative error as about 2^-11, and subnormal results flushed to 0): one
/// MUFU instruction. On the host, `tanh` correctly rounded with the same
/// flushing (within that error of the instruction's value).
///
/// ```
/// assert_eq!(layout_device::tanh(0.0), 0.0);
/// assert_eq!(layout_device::tanh(f32::INFINITY), 1.0);
/// assert!((layout_device::tanh(0.5) - 0.462_117_16).abs() < 1e-7);
/// ```
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    gpu!("tanh", host: { ftz(libm::tanhf(ftz(x))) }, {
        let d: f32;
        // SAFETY: registers only.
        unsafe {
            asm!("tanh.approx.f32 {d}, {x};", d = out(reg32) d, x = in(reg32) x,
                 options(pure, nomem, nostack))
        };
        d
    })
}

/// `1/x`, `rcp.approx.ftz.f32` (at most 1 ulp from the exact reciprocal,
/// subnormal arguments and results flushed; one instruction where `1.0 /
/// x` is IEEE division's sequence with a slow path). On the host, `1/x`
/// correctly rounded with the same flushing.
///
/// ```
/// assert_eq!(layout_device::rcp(4.0), 0.25);
/// assert_eq!(layout_device::rcp(-0.0), f32::NEG_INFINITY);
/// assert_eq!(layout_device::rcp(1e-40), f32::INFINITY); // subnormal: flushed
/// ```
#[inline(always)]
pub fn rcp(x: f32) -> f32 {
    gpu!("rcp", host: { ftz(1.0 / ftz(x)) }, {
        let d: f32;
        // SAFETY: registers only.
        unsafe {
            asm!("rcp.approx.ftz.f32 {d}, {x};", d = out(reg32) d, x = in(reg32) x,
                 options(pure, nomem, nostack))
        };
        d
    })
}

/// Two floats rounded to f16 (to nearest even) and packed into one word,
/// `lo` in the low half (`cvt.rn.f16x2.f32`): an f16 C's two adjacent
/// elements for one 4-byte store. On the host, the same bits.
///
/// ```
/// // 1.0 is 0x3c00 in f16, -2.0 is 0xc000.
/// assert_eq!(layout_device::f16x2(1.0, -2.0), 0xc000_3c00);
/// ```
#[inline(always)]
pub fn f16x2(lo: f32, hi: f32) -> u32 {
    gpu!("f16x2", host: {
        let h = |x: f32| u32::from(half::f16::from_f32(x).to_bits());
        h(lo) | h(hi) << 16
    }, {
        let d: u32;
        // SAFETY: registers only.
        unsafe {
            asm!("cvt.rn.f16x2.f32 {d}, {hi}, {lo};", d = out(reg32) d, hi = in(reg32) hi,
                 lo = in(reg32) lo, options(pure, nomem, nostack))
        };
        d
    })
}

/// The two f16 halves of a word as floats, the low half first
/// (`cvt.f32.f16`, exact): [`f16x2`]'s inverse for values f16 holds.
///
/// ```
/// assert_eq!(layout_device::f32x2_of_f16x2(0xc000_3c00), (1.0, -2.0));
/// ```
#[inline(always)]
pub fn f32x2_of_f16x2(w: u32) -> (f32, f32) {
    gpu!("f32x2_of_f16x2", host: {
        let f = |b: u32| half::f16::from_bits(b as u16).to_f32();
        (f(w & 0xffff), f(w >> 16))
    }, {
        let (lo, hi): (f32, f32);
        // SAFETY: registers only.
        unsafe {
            asm!("{{ .reg .b16 l, h; mov.b32 {{l, h}}, {w}; cvt.f32.f16 {lo}, l; cvt.f32.f16 {hi}, h; }}",
                 w = in(reg32) w, lo = out(reg32) lo, hi = out(reg32) hi,
                 options(pure, nomem, nostack))
        };
        (lo, hi)
    })
}

/// Two floats rounded to bf16 (to nearest even) and packed into one word,
/// `lo` in the low half (`cvt.rn.bf16x2.f32`): a bf16 C's two adjacent
/// elements for one 4-byte store. On the host, the same bits.
///
/// ```
/// // 1.0 is 0x3f80 in bf16, -2.0 is 0xc000; 1 + 2^-8 rounds to even (1.0).
/// assert_eq!(layout_device::bf16x2(1.0, -2.0), 0xc000_3f80);
/// assert_eq!(layout_device::bf16x2(1.0 + 1.0 / 256.0, 0.0), 0x0000_3f80);
/// ```
#[inline(always)]
pub fn bf16x2(lo: f32, hi: f32) -> u32 {
    gpu!("bf16x2", host: {
        let h = |x: f32| u32::from(half::bf16::from_f32(x).to_bits());
        h(lo) | h(hi) << 16
    }, {
        let d: u32;
        // SAFETY: registers only.
        unsafe {
            asm!("cvt.rn.bf16x2.f32 {d}, {hi}, {lo};", d = out(reg32) d, hi = in(reg32) hi,
                 lo = in(reg32) lo, options(pure, nomem, nostack))
        };
        d
    })
}

/// `__shfl_sync(0xffffffff, v, lane)`: lane `src`'s `v` (modulo 32), for
/// every lane of the warp.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_idx(v: u32, src: u32) -> u32 {
    gpu!("shfl_idx", {
        let r: u32;
        // SAFETY: registers only; the whole warp executes it (full mask).
        unsafe {
            asm!("shfl.sync.idx.b32 {r}, {v}, {s}, 31, -1;", r = out(reg32) r, v = in(reg32) v,
                 s = in(reg32) src, options(nomem, nostack))
        };
        r
    }, emu: { crate::emulator::ops::shfl("shfl_idx", core::panic::Location::caller(), v, src) })
}

/// `__shfl_xor_sync(0xffffffff, v, mask)`: the `v` of lane `lane ^ mask`
/// (a butterfly step of a warp reduction).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_xor(v: u32, mask: u32) -> u32 {
    gpu!("shfl_xor", {
        let r: u32;
        // SAFETY: registers only; the whole warp executes it (full mask).
        unsafe {
            asm!("shfl.sync.bfly.b32 {r}, {v}, {m}, 31, -1;", r = out(reg32) r, v = in(reg32) v,
                 m = in(reg32) mask, options(nomem, nostack))
        };
        r
    }, emu: { crate::emulator::ops::shfl("shfl_xor", core::panic::Location::caller(), v, mask) })
}

/// `x` combined by `op` with the `x` of the lanes `lane ^ m` for every XOR
/// combination of `masks` (a butterfly: one [`shfl_xor`] per mask, in
/// order): every lane of the group ends with the group's reduction. An MMA
/// accumulator's row reduction passes the masks its C layout derives
/// (`layout_core::atom::accumulator::AccRows::xor`).
///
/// ```no_run
/// // A row of an m16n8k16 accumulator is held by a quad (lanes t ^ 1, t ^ 2):
/// let row_max = layout_device::shfl_xor_reduce(0.5f32, &[1, 2], f32::max);
/// ```
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_xor_reduce(mut x: f32, masks: &[u32], op: impl Fn(f32, f32) -> f32) -> f32 {
    let mut k = 0;
    while k < masks.len() {
        x = op(x, f32::from_bits(shfl_xor(x.to_bits(), masks[k])));
        k += 1;
    }
    x
}

/// `__shfl_down_sync(0xffffffff, v, delta)`: the `v` of lane
/// `lane + delta` (a lane past 31 keeps its own).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_down(v: u32, delta: u32) -> u32 {
    gpu!("shfl_down", {
        let r: u32;
        // SAFETY: registers only; the whole warp executes it (full mask).
        unsafe {
            asm!("shfl.sync.down.b32 {r}, {v}, {d}, 31, -1;", r = out(reg32) r, v = in(reg32) v,
                 d = in(reg32) delta, options(nomem, nostack))
        };
        r
    }, emu: { crate::emulator::ops::shfl("shfl_down", core::panic::Location::caller(), v, delta) })
}

/// `x` through a register move that stays where the code has it (an `asm`
/// with effects): what is computed from it is computed after whatever
/// comes before, not hoisted above it. An epilogue's store addresses,
/// computed from a pinned row before the stores, are then not all worked
/// out before a loop of `wgmma`s and kept in registers across it (where
/// they spill). On the host, `x`.
///
/// ```
/// assert_eq!(layout_device::pin(7), 7);
/// ```
#[inline(always)]
pub fn pin(x: u32) -> u32 {
    gpu!("pin", {
        let r: u32;
        // SAFETY: a register move.
        unsafe { asm!("mov.b32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(nostack)) };
        r
    }, host: { x })
}

/// `__any_sync(0xffffffff, p)`: whether `p` holds in any lane of the warp
/// (the same answer in every lane: a branch on it is uniform).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn warp_any(p: bool) -> bool {
    gpu!("warp_any", {
        let r: u32;
        // SAFETY: registers only; the whole warp executes it (full mask).
        unsafe {
            asm!("{{ .reg .pred p, q; setp.ne.u32 p, {x}, 0; vote.sync.any.pred q, p, -1; selp.u32 {r}, 1, 0, q; }}",
                 r = out(reg32) r, x = in(reg32) p as u32, options(nomem, nostack))
        };
        r != 0
    }, emu: { crate::emulator::ops::vote_any(core::panic::Location::caller(), p) })
}

/// The shuffles and votes of a subset of the warp's lanes: `mask`'s lanes
/// execute it together (each lane that executes it is in `mask`, and every
/// lane of `mask` does), and a shuffle reads from lanes of `mask` only.
macro_rules! masked {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty, $emu:expr, $asm:literal, [$($op:tt)*];)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
        pub fn $name(mask: u32, $($arg: $ty),*) -> $ret {
            gpu!(stringify!($name), {
                let r: u32;
                // SAFETY: registers only; the lanes of `mask` execute it
                // together (the caller's contract above).
                unsafe { asm!($asm, r = out(reg32) r, m = in(reg32) mask, $($op)*, options(nomem, nostack)) };
                r as $ret
            }, emu: {
                let site = core::panic::Location::caller();
                $emu(site, mask) as $ret
            })
        }
    )*};
}

masked! {
    /// `__shfl_sync(mask, v, src)`: lane `src`'s `v` (modulo 32), among the
    /// lanes of `mask`.
    shfl_idx_sync(v: u32, src: u32) -> u32,
        |site, mask| crate::emulator::ops::shfl_of("shfl_idx", site, v, src, mask),
        "shfl.sync.idx.b32 {r}, {v}, {s}, 31, {m};", [v = in(reg32) v, s = in(reg32) src];
    /// `__shfl_xor_sync(mask, v, lane_mask)`: the `v` of lane `lane ^
    /// lane_mask`, among the lanes of `mask`.
    shfl_xor_sync(v: u32, lane_mask: u32) -> u32,
        |site, mask| crate::emulator::ops::shfl_of("shfl_xor", site, v, lane_mask, mask),
        "shfl.sync.bfly.b32 {r}, {v}, {x}, 31, {m};", [v = in(reg32) v, x = in(reg32) lane_mask];
    /// `__shfl_down_sync(mask, v, delta)`: the `v` of lane `lane + delta` (a
    /// lane past 31 keeps its own), among the lanes of `mask`.
    shfl_down_sync(v: u32, delta: u32) -> u32,
        |site, mask| crate::emulator::ops::shfl_of("shfl_down", site, v, delta, mask),
        "shfl.sync.down.b32 {r}, {v}, {d}, 31, {m};", [v = in(reg32) v, d = in(reg32) delta];
    /// `__ballot_sync(mask, p)`: bit `l` set for each lane `l` of `mask`
    /// whose `p` holds.
    warp_ballot_sync(p: bool) -> u32,
        |site, mask| crate::emulator::ops::vote_of("warp_ballot", site, p, mask),
        "{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}", [x = in(reg32) p as u32];
}

/// `__any_sync(mask, p)`: whether `p` holds in any lane of `mask`.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn warp_any_sync(mask: u32, p: bool) -> bool {
    warp_ballot_sync(mask, p) != 0
}

/// `__all_sync(mask, p)`: whether `p` holds in every lane of `mask`.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn warp_all_sync(mask: u32, p: bool) -> bool {
    warp_ballot_sync(mask, p) == mask
}

/// The sum of `v` over the 32 lanes of the warp, in every lane (five
/// butterfly shuffles).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn warp_sum(mut v: f32) -> f32 {
    let mut m = 16;
    while m > 0 {
        v += f32::from_bits(shfl_xor(v.to_bits(), m));
        m /= 2;
    }
    v
}
