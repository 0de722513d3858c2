//! CuTe's `PipelineTmaAsync`: a ring of `S` shared-memory stages that a
//! producer fills with TMA copies and consumers read, each stage guarded by
//! a *full* barrier (the copies' bytes arrived) and an *empty* barrier (the
//! consumers are done with it). Who waits on which phase parity is kept by
//! [`Producer`] and [`Consumer`], which advance their [`PipelineState`]
//! themselves: a kernel cannot wait on a stale parity or release a stage
//! twice (a [`ConsumerSlot`] is moved into [`Consumer::release`]).

use crate::{fence_mbarrier_init, trap, Mbarrier, Smem};

/// Where a side of the pipeline is: stage `index` (0..S), on its pass of
/// parity `phase` (CuTe's `PipelineState`). Advancing past the last stage
/// wraps to 0 and flips the phase.
///
/// ```
/// use layout_device::PipelineState;
/// let mut s = PipelineState::<3>::start();
/// for _ in 0..4 {
///     s.advance();
/// }
/// // Four stages on with three in the ring: stage 1 of the second pass.
/// assert_eq!((s.index(), s.phase()), (1, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineState<const S: usize> {
    index: u32,
    phase: u32,
}

impl<const S: usize> PipelineState<S> {
    /// Stage 0 of the first pass (phase 0).
    pub const fn start() -> Self {
        const { assert!(S > 0 && S < 1 << 16, "a pipeline has 1 to 65535 stages") };
        PipelineState { index: 0, phase: 0 }
    }

    /// The stage, in 0..S.
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The pass's parity, 0 or 1.
    pub const fn phase(self) -> u32 {
        self.phase
    }

    /// The next stage (wrapping, the phase flipped on the wrap).
    #[inline(always)]
    pub fn advance(&mut self) {
        self.index += 1;
        if self.index == S as u32 {
            self.index = 0;
            self.phase ^= 1;
        }
    }

    /// `n` stages on at once, as `n` [`advance`](Self::advance)s: the phase
    /// flips once per wrap.
    ///
    /// ```
    /// use layout_device::PipelineState;
    /// let (mut s, mut t) = (PipelineState::<4>::start(), PipelineState::<4>::start());
    /// s.advance();
    /// t.advance();
    /// s.advance_by(9);
    /// for _ in 0..9 {
    ///     t.advance();
    /// }
    /// // Ten stages on: stage 2, after two wraps (the phase back to 0).
    /// assert_eq!(s, t);
    /// assert_eq!((s.index(), s.phase()), (2, 0));
    /// ```
    #[inline(always)]
    pub fn advance_by(&mut self, n: u32) {
        let at = self.index + n % S as u32;
        let wraps = n / S as u32 + u32::from(at >= S as u32);
        self.index = at % S as u32;
        self.phase ^= wraps & 1;
    }
}

/// The barriers of an `S`-stage pipeline: `2 S` mbarriers (16 `S` bytes),
/// the full ones then the empty ones, at the start of a shared window.
///
/// ```
/// use layout_device::PipelineTmaAsync;
/// // Four stages take 64 bytes of barriers.
/// assert_eq!(PipelineTmaAsync::<4>::WORDS, 16);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PipelineTmaAsync<const S: usize> {
    first: Mbarrier,
}

impl<const S: usize> PipelineTmaAsync<S> {
    /// The 4-byte words the barriers take.
    pub const WORDS: usize = 4 * S;

    /// The pipeline whose barriers are the first [`Self::WORDS`] words of
    /// `window` (traps when it holds fewer, or is not 8-byte aligned).
    #[inline(always)]
    pub fn at(window: Smem) -> Self {
        if window.len() < Self::WORDS {
            trap()
        }
        PipelineTmaAsync {
            first: Mbarrier::at(window, 0),
        }
    }

    /// Stage `i`'s full barrier.
    #[inline(always)]
    fn full(self, i: u32) -> Mbarrier {
        self.first.nth(i)
    }

    /// Stage `i`'s empty barrier.
    #[inline(always)]
    fn empty(self, i: u32) -> Mbarrier {
        self.first.nth(S as u32 + i)
    }

    /// Initialises the barriers (one thread, before any other use; then a
    /// block barrier): each full barrier completes with the producer's one
    /// arrival and its copies' bytes, each empty barrier with
    /// `consumer_arrivals` arrivals ([`Consumer::release`] calls).
    #[inline(always)]
    pub fn init(self, consumer_arrivals: u32) {
        for i in 0..S as u32 {
            self.full(i).init(1);
            self.empty(i).init(consumer_arrivals);
        }
        fence_mbarrier_init();
    }

    /// The producer's side, at stage 0. One thread of the block issues the
    /// copies through it.
    #[inline(always)]
    pub fn producer(self) -> Producer<S> {
        Producer {
            pipe: self,
            state: PipelineState::start(),
        }
    }

    /// A consumer's side, at stage 0. Each consuming thread keeps its own.
    #[inline(always)]
    pub fn consumer(self) -> Consumer<S> {
        Consumer {
            pipe: self,
            state: PipelineState::start(),
        }
    }
}

/// The producer's side of a [`PipelineTmaAsync`].
#[derive(Debug)]
pub struct Producer<const S: usize> {
    pipe: PipelineTmaAsync<S>,
    state: PipelineState<S>,
}

/// A stage the producer may fill: copy into stage [`stage`](Self::stage)'s
/// buffers, completing on [`barrier`](Self::barrier), after announcing
/// their bytes there (`barrier().arrive_expect_tx(bytes)`).
#[derive(Debug)]
#[must_use = "a stage acquired is filled and its barrier arrived at"]
pub struct ProducerSlot {
    stage: u32,
    full: Mbarrier,
}

impl ProducerSlot {
    /// The stage, in 0..S.
    #[inline(always)]
    pub fn stage(&self) -> u32 {
        self.stage
    }

    /// The stage's full barrier.
    #[inline(always)]
    pub fn barrier(&self) -> Mbarrier {
        self.full
    }
}

impl<const S: usize> Producer<S> {
    /// Waits until the next stage is empty (on the first pass, at once) and
    /// hands it out.
    #[inline(always)]
    pub fn acquire(&mut self) -> ProducerSlot {
        let s = self.state;
        // The empty barrier's previous phase: its parity is the opposite
        // of this pass's, and before the first pass it counts as complete.
        self.pipe.empty(s.index()).wait(s.phase() ^ 1);
        self.state.advance();
        ProducerSlot {
            stage: s.index(),
            full: self.pipe.full(s.index()),
        }
    }

    /// Waits until every stage has been released for the last time (the
    /// "producer tail"): in a cluster, the peers' consumers arrive on this
    /// block's empty barriers, so the block must not exit before they have.
    #[inline(always)]
    pub fn tail(&mut self) {
        for _ in 0..S {
            // Acquired and left unfilled: the block is done.
            let _ = self.acquire();
        }
    }

    /// Where the producer is.
    pub fn state(&self) -> PipelineState<S> {
        self.state
    }
}

/// A consumer's side of a [`PipelineTmaAsync`].
#[derive(Debug)]
pub struct Consumer<const S: usize> {
    pipe: PipelineTmaAsync<S>,
    state: PipelineState<S>,
}

/// A stage whose copies have arrived: read stage
/// [`stage`](Self::stage)'s buffers, then hand it back with
/// [`Consumer::release`].
#[derive(Debug)]
#[must_use = "a stage waited for is released when read"]
pub struct ConsumerSlot {
    stage: u32,
}

impl ConsumerSlot {
    /// The stage, in 0..S.
    #[inline(always)]
    pub fn stage(&self) -> u32 {
        self.stage
    }
}

impl<const S: usize> Consumer<S> {
    /// Waits until the next stage's copies have arrived and hands it out.
    #[inline(always)]
    pub fn wait(&mut self) -> ConsumerSlot {
        let s = self.state;
        self.pipe.full(s.index()).wait(s.phase());
        self.state.advance();
        ConsumerSlot { stage: s.index() }
    }

    /// Passes the next `n` stages by without waiting: another consumer
    /// reads and releases them (a ping-pong GEMM's consumers, each taking
    /// every other tile's stages). The stage then waited for may lie
    /// several passes ahead of the barriers: only wait once the producer
    /// is known to be at most one pass from it (the consumer before has
    /// waited for its last stage).
    #[inline(always)]
    pub fn skip(&mut self, n: u32) {
        self.state.advance_by(n);
    }

    /// This thread arrives at the slot's empty barrier: the stage may be
    /// filled again once all `consumer_arrivals` have. Its reads must be
    /// complete (for `wgmma`, after `wgmma_wait_group`).
    #[inline(always)]
    pub fn release(&self, slot: ConsumerSlot) {
        self.pipe.empty(slot.stage).arrive();
    }

    /// As [`release`](Self::release), on the slot's empty barrier in each
    /// of the cluster's first `ctas` blocks (whose producers multicast into
    /// this block's stage): the empty barriers then count `ctas` times the
    /// arrivals of one block.
    #[inline(always)]
    pub fn release_cluster(&self, slot: ConsumerSlot, ctas: u32) {
        if ctas <= 1 {
            // No peers: the plain arrival.
            return self.release(slot);
        }
        let bar = self.pipe.empty(slot.stage);
        for cta in 0..ctas {
            bar.arrive_cluster(cta);
        }
    }

    /// Where the consumer is.
    pub fn state(&self) -> PipelineState<S> {
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::PipelineState;

    /// The (stage, phase) sequence of a 4-stage ring over 10 steps, by hand:
    /// stages 0..4 in phase 0, again in phase 1, then 0, 1 in phase 0.
    #[test]
    fn state_wraps_and_flips() {
        let mut s = PipelineState::<4>::start();
        let mut seen = std::vec::Vec::new();
        for _ in 0..10 {
            seen.push((s.index(), s.phase()));
            s.advance();
        }
        assert_eq!(
            seen,
            [
                (0, 0),
                (1, 0),
                (2, 0),
                (3, 0),
                (0, 1),
                (1, 1),
                (2, 1),
                (3, 1),
                (0, 0),
                (1, 0)
            ]
        );
    }

    /// One stage: every step flips the phase.
    #[test]
    fn one_stage_flips_every_step() {
        let mut s = PipelineState::<1>::start();
        s.advance();
        assert_eq!((s.index(), s.phase()), (0, 1));
        s.advance();
        assert_eq!((s.index(), s.phase()), (0, 0));
    }
}
