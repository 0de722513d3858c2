//! The block emulator: a kernel's body runs on the host, as written, for
//! a grid of blocks, so that `cargo test` checks GPU code without a GPU
//! (feature `emulator`, host only).
//!
//! [`run`] calls the body once per GPU thread. Each thread is a coroutine
//! on the calling OS thread, and the threads of a block (of a cluster) run
//! in turn, deterministically, each until it blocks or exits; blocks (and
//! clusters) run one after another. Inside, every instruction of this
//! crate computes what the hardware computes:
//!
//! - **Threads and barriers.** [`thread_idx`](crate::thread_idx),
//!   [`block_idx`](crate::block_idx), [`block_dim`](crate::block_dim),
//!   [`grid_dim`](crate::grid_dim), [`warp_lane`](crate::warp_lane);
//!   [`sync_threads`](crate::sync_threads) (`.aligned`: every lane of a
//!   warp at the same call, or an error) and
//!   [`sync_threads_divergent`](crate::sync_threads_divergent); named
//!   barriers ([`named_barrier`](crate::named_barrier), and
//!   [`named_barrier_arrive`](crate::named_barrier_arrive), whose writes
//!   before the arrival, not after, the waiters see). A barrier that some
//!   thread never reaches is an [`EmuError`] naming the barrier and who
//!   waits where: never a hang.
//! - **Warps.** [`shfl_idx`](crate::shfl_idx), [`shfl_xor`](crate::shfl_xor),
//!   [`shfl_down`](crate::shfl_down), [`warp_any`](crate::warp_any),
//!   [`sync_warp`](crate::sync_warp): all 32 lanes must take part (the
//!   functions' full mask), at the same instruction; lanes at different
//!   warp-wide instructions, or a warp of fewer than 32 threads, are an
//!   error.
//! - **Shared memory.** The buffers of [`shared_memory!`](crate::shared_memory),
//!   static (up to 48 KiB) and dynamic (the launch's
//!   [`Launch::shared_bytes`]; a buffer the launch gave fewer bytes traps,
//!   as on the GPU), per block, zeroed. **Racecheck:** every access is
//!   checked against the other threads' since they last synchronised with
//!   it (vector clocks through the barriers): two threads touching the same
//!   word with one of them writing, unordered, is an error naming both
//!   threads and the word.
//! - **Copies.** `cp.async` lands in shared memory when its group is
//!   waited for ([`cp_async_wait`](crate::cp_async_wait)), not before: a
//!   read before the wait sees the old bytes.
//! - **Tensor cores.** `ldmatrix` and `mma.sync` m16n8k16 are computed
//!   from their atoms' thread-value layouts in `layout_core::atom`. The
//!   f16 products are exact, and each output's 16 products and C are summed
//!   exactly and rounded once (to f32, or to f16): equal to the GPU's bits
//!   whenever the exact sum is representable (integer-valued inputs whose
//!   sums stay below 2^24, for instance), and within the ISA's bound
//!   otherwise.
//! - **Hopper.** `mbarrier`s (arrivals, transaction bytes, phases by
//!   parity; a phase that cannot complete is a deadlock, more bytes than a
//!   phase expects an error); TMA loads (with cluster multicast), stores,
//!   reduce-adds and prefetches through [`TensorMap`]s (the box, the
//!   swizzle, zeros past the tensor on loads, nothing written past it);
//!   every `wgmma` of [`GmmaInstr`](crate::GmmaInstr), computed from its
//!   atom's layouts and its operands' descriptors; clusters (ranks,
//!   barrier); `elect_one` (lane 0); `setmaxnreg`, within the block's
//!   pool of registers (the launch's count, at most 65536 over the block's
//!   threads in steps of 8, times its threads): an increase waits for what
//!   decreases freed, so a split that asks for more is a deadlock, as on the
//!   GPU. The async proxy is checked: a `wgmma`
//!   operand or a TMA store's source that a thread stored without a
//!   `fence_proxy_async_shared` after it is an error.
//! - **Math.** [`fma`](crate::fma) and [`f16x2`](crate::f16x2) are
//!   bit-exact; [`exp2`](crate::exp2), [`log2`](crate::log2) and
//!   [`rcp`](crate::rcp) are the correctly rounded results with the
//!   instructions' flushing of subnormals: within the PTX ISA's bound of
//!   the GPU's `ex2.approx.ftz`, `lg2.approx.ftz` and `rcp.approx.ftz`
//!   (2^-22 and 2^-22.6 relative, 1 ulp), exact at integers and powers of
//!   two.
//! - **Global memory.** A kernel's arguments are handles of [`Buffer`]s;
//!   every access is checked against the live buffers, and each element
//!   remembers which thread wrote it ([`Buffer::check`] names it).
//! - **Traps and panics** stop the run: an [`EmuError`] naming the
//!   kernel, the block and the thread.
//!
//! ```
//! use layout_device::emulator::{run, Buffer, Launch};
//! use layout_device::{block_idx, shfl_xor, sync_threads, thread_idx};
//!
//! // Each warp reverses its 32 values through a butterfly of shuffles.
//! let x = Buffer::from_slice(&(0..64u32).collect::<Vec<_>>());
//! let y = Buffer::filled(0u32, 64);
//! let (gx, gy) = (x.global(), y.global_mut());
//! run(&Launch::new("reverse", 2, 32), move || {
//!     let i = 32 * block_idx().0 + thread_idx();
//!     let v = shfl_xor(gx.ld(i), 31);
//!     sync_threads();
//!     gy.st(i, v);
//! })
//! .unwrap();
//! let want: Vec<u32> = (0..64).map(|i| (i / 32) * 32 + 31 - i % 32).collect();
//! y.check(&want, |a, b| a == b).unwrap();
//! ```

mod buffer;
mod copies;
mod error;
pub(crate) mod gmma;
pub(crate) mod mbarrier;
pub(crate) mod ops;
mod sched;
mod shared;
mod state;
pub(crate) mod tma;
mod warp;

pub use buffer::{Buffer, Mismatch};
pub use error::{EmuError, ErrorKind, Extent, Launch, D3};
pub(crate) use state::active;
pub use tma::{TensorMap, TmaSwizzle, TmaType};

use std::rc::Rc;

/// Runs `body` as the kernel `launch` names: once per thread of every
/// block, each thread seeing its own indices. `Ok` when every thread
/// exited; the first error otherwise.
pub fn run<F: Fn() + 'static>(launch: &Launch, body: F) -> Result<(), EmuError> {
    launch.check()?;
    sched::run(launch, Rc::new(body))
}
