//! What a launch is (its extents) and what stops a run (its errors).

use std::fmt;
use std::format;
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
    pub(crate) kernel: String,
    pub(crate) grid: D3,
    pub(crate) block: D3,
    pub(crate) cluster: D3,
    pub(crate) dynamic_smem: usize,
    pub(crate) reversed: bool,
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
            reversed: false,
        }
    }
    /// Running the clusters last to first (the default runs block (0, 0,
    /// 0)'s first, x fastest). The GPU promises no order: blocks that hand
    /// results to each other (through a counter in global memory, say)
    /// must be right in either.
    ///
    /// ```
    /// use layout_device::emulator::{run, Buffer, Launch};
    /// use layout_device::{block_idx, thread_idx};
    ///
    /// // Each block takes a ticket from one counter: block 2 first.
    /// let (n, t) = (Buffer::filled(0u32, 1), Buffer::filled(0u32, 3));
    /// let (gn, gt) = (n.global_mut(), t.global_mut());
    /// run(&Launch::new("tickets", 3, 32).reversed(), move || {
    ///     if thread_idx() == 0 {
    ///         gt.st(block_idx().0, gn.atomic_inc(0, u32::MAX));
    ///     }
    /// })
    /// .unwrap();
    /// t.check(&[2, 1, 0], |a, b| a == b).unwrap();
    /// ```
    pub fn reversed(mut self) -> Launch {
        self.reversed = true;
        self
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

    pub(crate) fn error(&self, kind: ErrorKind, message: String) -> EmuError {
        EmuError {
            kernel: self.kernel.clone(),
            block: (0, 0, 0),
            thread: None,
            kind,
            message,
        }
    }

    /// The launch's own limits, as the driver checks them.
    pub(crate) fn check(&self) -> Result<(), EmuError> {
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
        } else if self.dynamic_smem > BLOCK_LIMIT {
            Some(format!(
                "{} bytes of dynamic shared memory (at most {})",
                self.dynamic_smem, BLOCK_LIMIT
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
    /// A global access outside every live [`Buffer`](super::Buffer).
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

/// Where the dynamic buffer starts: above the 48 KiB a block may declare
/// statically.
pub(crate) const DYNAMIC_BASE: u32 = 48 << 10;
/// The shared memory a block may have, static and dynamic together
/// (sm_90: 227 KiB).
pub(crate) const BLOCK_LIMIT: usize = 227 << 10;
