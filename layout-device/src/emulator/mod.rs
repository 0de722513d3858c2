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
//!   [`sync_threads_divergent`](crate::sync_threads_divergent). A barrier
//!   that some thread never reaches is an [`EmuError`] naming the barrier
//!   and who waits where: never a hang.
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
//!   barrier); `elect_one` (lane 0). The async proxy is checked: a `wgmma`
//!   operand or a TMA store's source that a thread stored without a
//!   `fence_proxy_async_shared` after it is an error.
//! - **Math.** [`fma`](crate::fma) and [`f16x2`](crate::f16x2) are
//!   bit-exact; [`exp2`](crate::exp2) and [`log2`](crate::log2) are the
//!   correctly rounded results with the instructions' flushing of
//!   subnormals: within the PTX ISA's bound of the GPU's `ex2.approx.ftz`
//!   and `lg2.approx.ftz` (2^-22 and 2^-22.6 relative), exact at integers
//!   and powers of two.
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
pub(crate) mod gmma;
pub(crate) mod mbarrier;
pub(crate) mod ops;
mod sched;
mod shared;
pub(crate) mod tma;
mod warp;

pub use buffer::{Buffer, Mismatch};
pub(crate) use sched::active;
pub use tma::{TensorMap, TmaSwizzle, TmaType};

use std::fmt;
use std::rc::Rc;
use std::string::{String, ToString};

/// A grid, block or cluster extent, or an index in one: (x, y, z).
pub type D3 = (usize, usize, usize);

/// An extent given as x, (x, y) or (x, y, z).
pub trait Extent {
    /// As (x, y, z), the missing ones 1.
    fn d3(self) -> D3;
}
impl Extent for usize {
    fn d3(self) -> D3 {
        (self, 1, 1)
    }
}
impl Extent for (usize, usize) {
    fn d3(self) -> D3 {
        (self.0, self.1, 1)
    }
}
impl Extent for (usize, usize, usize) {
    fn d3(self) -> D3 {
        self
    }
}

/// A launch to emulate: the kernel's name (for errors), the grid, the
/// block, the cluster and the dynamic shared memory.
///
/// ```
/// use layout_device::emulator::Launch;
/// let l = Launch::new("hgemm", (4, 2), 128).shared_bytes(65536).cluster((2, 1));
/// assert_eq!(l.grid_dim(), (4, 2, 1));
/// ```
#[derive(Clone, Debug)]
pub struct Launch {
    kernel: String,
    grid: D3,
    block: D3,
    cluster: D3,
    dynamic_smem: usize,
}

impl Launch {
    /// `grid` blocks of `block` threads, no dynamic shared memory,
    /// clusters of one block.
    pub fn new(kernel: &str, grid: impl Extent, block: impl Extent) -> Launch {
        Launch {
            kernel: kernel.to_string(),
            grid: grid.d3(),
            block: block.d3(),
            cluster: (1, 1, 1),
            dynamic_smem: 0,
        }
    }
    /// With `bytes` of dynamic shared memory per block.
    pub fn shared_bytes(mut self, bytes: usize) -> Launch {
        self.dynamic_smem = bytes;
        self
    }
    /// With clusters of `c` blocks (dividing the grid).
    pub fn cluster(mut self, c: impl Extent) -> Launch {
        self.cluster = c.d3();
        self
    }
    /// The grid's extent.
    pub fn grid_dim(&self) -> D3 {
        self.grid
    }

    fn error(&self, kind: ErrorKind, message: String) -> EmuError {
        EmuError {
            kernel: self.kernel.clone(),
            block: (0, 0, 0),
            thread: None,
            kind,
            message,
        }
    }

    /// The launch's own limits, as the driver checks them.
    fn check(&self) -> Result<(), EmuError> {
        let (g, b, c) = (self.grid, self.block, self.cluster);
        let threads = b.0 * b.1 * b.2;
        let bad = if threads == 0 || threads > 1024 {
            Some(format!("a block of {threads} threads (1 to 1024)"))
        } else if c.0 * c.1 * c.2 == 0 || g.0 % c.0 != 0 || g.1 % c.1 != 0 || g.2 % c.2 != 0 {
            Some(format!(
                "clusters of {c:?} blocks do not divide the grid {g:?}"
            ))
        } else if c.0 * c.1 * c.2 > 16 {
            Some(format!("clusters of {c:?}: more than 16 blocks"))
        } else if self.dynamic_smem > shared::BLOCK_LIMIT {
            Some(format!(
                "{} bytes of dynamic shared memory (at most {})",
                self.dynamic_smem,
                shared::BLOCK_LIMIT
            ))
        } else {
            None
        };
        match bad {
            Some(m) => Err(self.error(ErrorKind::Launch, m)),
            None => Ok(()),
        }
    }
}

use std::format;

/// What stopped an emulated run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The launch itself is invalid.
    Launch,
    /// A trap: a failed device check.
    Trap,
    /// A panic in the kernel's code.
    Panic,
    /// No thread can go on: a barrier some threads never reach, a poll no
    /// thread completes.
    Deadlock,
    /// Lanes of a warp at different warp-wide instructions, or an
    /// `.aligned` barrier reached from different sites.
    Divergence,
    /// Two threads touch the same shared word, one of them writing, with
    /// no synchronisation between.
    Race,
    /// A shared access outside every shared buffer.
    Shared,
    /// A global access outside every live [`Buffer`].
    Global,
    /// An instruction the emulator does not compute.
    NotEmulated,
    /// An `mbarrier` misused: before `init`, more arrivals than its
    /// count, more transaction bytes than a phase expects.
    Mbarrier,
    /// A TMA copy refused: a map the emulator did not make, a box past
    /// its window, a destination not aligned to the swizzle.
    Tma,
}

/// Why an emulated run stopped: the kernel, the block, the thread and
/// what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmuError {
    /// The kernel's name, as given to [`Launch::new`].
    pub kernel: String,
    /// The block's index in the grid.
    pub block: D3,
    /// The thread's index in the block, when one thread is at fault.
    pub thread: Option<usize>,
    /// What kind of error.
    pub kind: ErrorKind,
    /// What happened, in words.
    pub message: String,
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.block;
        write!(
            f,
            "kernel `{}`, block ({},{},{})",
            self.kernel, b.0, b.1, b.2
        )?;
        if let Some(t) = self.thread {
            write!(f, ", thread {t} (warp {}, lane {})", t / 32, t % 32)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for EmuError {}

/// Runs `body` as the kernel `launch` names: once per thread of every
/// block, each thread seeing its own indices. `Ok` when every thread
/// exited; the first error otherwise.
pub fn run<F: Fn() + 'static>(launch: &Launch, body: F) -> Result<(), EmuError> {
    launch.check()?;
    sched::run(launch, Rc::new(body))
}
