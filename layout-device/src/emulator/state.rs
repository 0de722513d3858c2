//! The emulator's state: the running cluster's threads, blocks and their
//! shared memory, warp and warpgroup collectives and `mbarrier`s in
//! progress, the thread-local handle on it, and the coroutine helpers
//! (suspend, fail) every instruction uses. The instructions' behaviour is
//! in the modules above this one.

use super::error::{EmuError, ErrorKind, D3, DYNAMIC_BASE};
use corosensei::Yielder;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::format;
use std::panic::Location;
use std::string::String;
use std::vec::Vec;

/// Where an instruction was called.
pub(crate) type Site = &'static Location<'static>;

/// What a thread waits for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wait {
    /// Runnable.
    Run,
    /// Runnable, but its last step was a failed poll (an `mbarrier` wait):
    /// a round of such steps and nothing else is a deadlock.
    Spin(&'static str),
    /// At a block barrier.
    Barrier(&'static str, Site),
    /// At named barrier `id` (`bar.sync id, count`).
    Named(u32, Site),
    /// At a warp-wide instruction, until the warp's 32 lanes are there.
    Warp(&'static str, Site),
    /// At the cluster barrier.
    Cluster(Site),
    /// Exited.
    Done,
}

/// A `cp.async` copy waiting for its group: 16 bytes (or zeros) for a
/// shared address.
pub(crate) struct PendingCopy {
    pub addr: u32,
    pub data: [u8; 16],
}

/// One emulated thread.
pub(crate) struct ThreadState {
    /// Its block's index in the cluster.
    pub block: usize,
    /// Its index in the block.
    pub tid: usize,
    pub wait: Wait,
    /// Its vector clock over the cluster's threads.
    pub clock: Vec<u32>,
    /// The yielder of its coroutine, set when the coroutine starts.
    pub yielder: *const Yielder<(), ()>,
    /// The result of its last warp-wide instruction.
    pub out: [u32; 4],
    /// The result of its last `wgmma` (its accumulators' bits).
    pub wide: Vec<u32>,
    /// How many `fence.proxy.async` it has executed.
    pub proxy_fences: u32,
    /// `cp.async` copies not yet committed, and committed groups, oldest
    /// first.
    pub cp_pending: Vec<PendingCopy>,
    pub cp_groups: VecDeque<Vec<PendingCopy>>,
}

/// A warp's collective in progress.
pub(crate) struct WarpSlot {
    pub name: Option<&'static str>,
    pub site: Option<Site>,
    /// The member mask the lanes gave.
    pub mask: u32,
    pub arrived: u32,
    pub inputs: [Operand; 32],
}

impl WarpSlot {
    pub(crate) fn new() -> WarpSlot {
        WarpSlot {
            name: None,
            site: None,
            mask: 0,
            arrived: 0,
            inputs: [Operand::None; 32],
        }
    }
}

/// One block of the cluster.
pub(crate) struct BlockState {
    pub idx: D3,
    pub shared: SharedState,
    /// Threads at the block barrier.
    pub at_barrier: usize,
    /// Each named barrier (1..16) in progress: its thread count, the
    /// threads arrived, and the clocks (joined) of those that arrived
    /// without waiting, as of their arrival.
    pub named: [(usize, Vec<usize>, Vec<u32>); 16],
    /// Each warp's collectives in progress, one per member mask.
    pub warps: Vec<Vec<WarpSlot>>,
    pub warpgroups: Vec<WgSlot>,
    /// Each thread's registers under `setmaxnreg` (the launch's count
    /// first), and the registers decreases have freed and no increase has
    /// taken: the block's pool is fixed at launch.
    pub regs: Vec<u32>,
    pub free_regs: u64,
}

/// The state of one cluster's run.
pub(crate) struct Sim {
    pub kernel: String,
    pub block_dim: D3,
    pub grid: D3,
    pub cluster: D3,
    pub per_block: usize,
    pub dynamic_smem: usize,
    pub blocks: Vec<BlockState>,
    pub threads: Vec<ThreadState>,
    /// The running thread.
    pub cur: usize,
    /// The first error; the run stops at it.
    pub fault: Option<EmuError>,
    /// Counts every step that changes state (not failed polls).
    pub progress: u64,
    pub at_cluster_barrier: usize,
    /// Whether the running access is the async proxy's (TMA, `wgmma`).
    pub async_proxy: bool,
    /// The cluster's `mbarrier`s, by (block, shared address).
    pub mbars: std::collections::HashMap<(usize, u32), Mbar>,
}

std::thread_local! {
    pub(crate) static SIM: RefCell<Option<Sim>> = const { RefCell::new(None) };
}

/// `f` on the running emulation, or `None` outside one.
pub(crate) fn with<R>(f: impl FnOnce(&mut Sim) -> R) -> Option<R> {
    SIM.with(|s| s.borrow_mut().as_mut().map(f))
}

/// Whether a kernel is being emulated on this OS thread.
pub(crate) fn active() -> bool {
    SIM.with(|s| s.borrow().is_some())
}

/// Gives the OS thread back to the scheduler until it resumes this
/// thread.
pub(crate) fn suspend() {
    let y = with(|s| s.threads[s.cur].yielder).expect("emulating");
    // SAFETY: `y` is the yielder of the running coroutine (the scheduler
    // set `cur` before resuming it, and the coroutine stored it when it
    // started); it lives as long as the coroutine, which is running.
    unsafe { &*y }.suspend(());
}

/// Stops the run with an error of the running thread: recorded, then the
/// coroutine is never resumed (the scheduler drops it).
pub(crate) fn fail(kind: ErrorKind, message: String) -> ! {
    with(|s| {
        if s.fault.is_none() {
            let e = s.error_at(Some(s.cur), kind, message);
            s.fault = Some(e);
        }
    });
    loop {
        suspend()
    }
}

impl Sim {
    /// An error in `thread` (of this cluster), or in the cluster's first
    /// block when `None`.
    pub fn error_at(&self, thread: Option<usize>, kind: ErrorKind, message: String) -> EmuError {
        let (block, tid) = match thread {
            Some(t) => (self.threads[t].block, Some(self.threads[t].tid)),
            None => (0, None),
        };
        EmuError {
            kernel: self.kernel.clone(),
            block: self.blocks[block].idx,
            thread: tid,
            kind,
            message,
        }
    }

    /// `f` as the async proxy's accesses (TMA, `wgmma`'s operands).
    pub fn as_async<R>(&mut self, f: impl FnOnce(&mut Sim) -> R) -> R {
        self.async_proxy = true;
        let r = f(self);
        self.async_proxy = false;
        r
    }

    /// The running thread.
    pub fn me(&mut self) -> &mut ThreadState {
        &mut self.threads[self.cur]
    }

    /// The cluster-wide index of thread `tid` of block `b`.
    pub fn global(&self, b: usize, tid: usize) -> usize {
        b * self.per_block + tid
    }

    /// Thread `t` in words: "thread 37 (warp 1, lane 5) of block (1,0,0)".
    pub fn name(&self, t: usize) -> String {
        let th = &self.threads[t];
        let b = self.blocks[th.block].idx;
        format!(
            "thread {} (warp {}, lane {}) of block ({},{},{})",
            th.tid,
            th.tid / 32,
            th.tid % 32,
            b.0,
            b.1,
            b.2
        )
    }

    /// Joins the clocks of `threads` (a barrier: each sees what every
    /// other did before it) and starts a new epoch in each.
    pub fn join(&mut self, threads: &[usize]) {
        let n = self.threads.len();
        let mut max = std::vec![0u32; n];
        for &t in threads {
            for (m, c) in max.iter_mut().zip(&self.threads[t].clock) {
                *m = (*m).max(*c);
            }
        }
        for &t in threads {
            self.threads[t].clock.copy_from_slice(&max);
            self.threads[t].clock[t] += 1;
        }
    }
}

/// A failed poll: the thread yields, and the scheduler counts it as no
/// progress.
pub(crate) fn spin(what: &'static str) {
    with(|s| s.me().wait = Wait::Spin(what));
    suspend();
}

/// The last write of a unit and the reads since, as (thread, its epoch).
#[derive(Clone, Default)]
pub(crate) struct Unit {
    pub write: Option<(u32, u32)>,
    pub reads: Vec<(u32, u32)>,
    /// A write through the generic proxy (an ordinary store): its thread
    /// and that thread's count of `fence.proxy.async` then; `None` for a
    /// write of the async proxy (TMA), which the async proxy sees.
    pub generic: Option<(u32, u32)>,
}

pub(crate) struct SharedState {
    pub bytes: Vec<u8>,
    pub units: Vec<Unit>,
    /// Static buffers: (name, start, bytes).
    pub statics: Vec<(&'static str, u32, u32)>,
    pub static_top: u32,
    pub dynamic: u32,
}

impl SharedState {
    pub fn new(dynamic: usize) -> SharedState {
        let len = DYNAMIC_BASE as usize + dynamic;
        SharedState {
            bytes: std::vec![0; len],
            units: std::vec![Unit::default(); len / 2],
            statics: Vec::new(),
            static_top: 0,
            dynamic: dynamic as u32,
        }
    }

    /// The buffer holding `addr .. addr + n`, by name and offset.
    pub fn buffer_of(&self, addr: u32, n: u32) -> Option<(&'static str, u32)> {
        let end = addr.checked_add(n)?;
        if addr >= DYNAMIC_BASE {
            return (end <= DYNAMIC_BASE + self.dynamic)
                .then_some(("dynamic shared memory", addr - DYNAMIC_BASE));
        }
        self.statics
            .iter()
            .find(|(_, s, b)| addr >= *s && end <= s + b)
            .map(|(name, s, _)| (*name, addr - s))
    }
}

/// One lane's operands of a warp-wide instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Operand {
    None,
    /// A shuffle: the value and the lane operand.
    Shfl(u32, u32),
    /// A vote's predicate.
    Vote(bool),
    /// `ldmatrix`: the shared address this lane gives.
    Ldsm(u32),
    /// `mma.sync` m16n8k16: A's 4 registers, B's 2, C's 4 (f32 bits, or 2
    /// registers of f16 pairs).
    Mma([u32; 4], [u32; 2], [u32; 4]),
}

/// A warpgroup's `wgmma` in progress: what each of its 128 threads gave.
pub(crate) struct WgSlot {
    pub arrived: u128,
    pub site: Option<Site>,
    pub ops: Vec<Option<WgOperand>>,
}

impl WgSlot {
    pub fn new() -> WgSlot {
        WgSlot {
            arrived: 0,
            site: None,
            ops: (0..128).map(|_| None).collect(),
        }
    }
}

/// One thread's operands of a `wgmma` m64nNk16: the atom's C and A
/// layouts (as functions of a 1-D index), A by descriptor (`Ok`) or as its
/// four registers, B's descriptor and whether B is MN-major, its
/// accumulators as bits (f32, or f16 pairs), and whether they are added
/// (scale-d).
#[derive(Clone)]
pub(crate) struct WgOperand {
    pub n: usize,
    /// A's and B's element types (the 8-bit families pair any two).
    pub elem: (crate::GmmaElem, crate::GmmaElem),
    pub acc_kind: AccKind,
    /// `.satfinite`: an integer sum clamped to i32's range, not wrapped.
    pub saturate: bool,
    pub c_pos: fn(usize) -> usize,
    pub a_pos: fn(usize) -> usize,
    pub a: Result<u64, [u32; 4]>,
    pub b: u64,
    pub b_mn: bool,
    pub acc: Vec<u32>,
    pub accumulate: bool,
}

/// An accumulator register's value as the 32 bits the emulator moves.
pub(crate) trait AccBits: Copy {
    /// Its bits.
    fn bits(self) -> u32;
    /// From bits.
    fn of_bits(b: u32) -> Self;
}
impl AccBits for f32 {
    fn bits(self) -> u32 {
        self.to_bits()
    }
    fn of_bits(b: u32) -> Self {
        f32::from_bits(b)
    }
}
impl AccBits for i32 {
    fn bits(self) -> u32 {
        self as u32
    }
    fn of_bits(b: u32) -> Self {
        b as i32
    }
}

impl AccBits for u32 {
    fn bits(self) -> u32 {
        self
    }
    fn of_bits(b: u32) -> Self {
        b
    }
}

/// One `mbarrier`: the arrivals a phase expects, those still missing, the
/// transaction bytes still expected, the phases completed, and the clocks
/// released into the current phase and by the last completed one.
pub(crate) struct Mbar {
    pub count: u32,
    pub pending: u32,
    pub tx: i64,
    pub completed: u64,
    pub release: Vec<u32>,
    pub done: Vec<u32>,
}

/// A GMMA's accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AccKind {
    F32,
    /// f16 pairs in 32-bit registers.
    F16,
    S32,
}
