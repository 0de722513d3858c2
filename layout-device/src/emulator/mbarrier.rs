//! `mbarrier`s: arrivals, transaction bytes and phases by parity, with the
//! clocks they release and acquire for the racecheck.

use super::error::ErrorKind;
use super::state::{fail, spin, with, Mbar, Sim};
use std::format;
use std::string::String;

fn join(into: &mut [u32], from: &[u32]) {
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

impl Sim {
    fn mbar(&mut self, b: usize, addr: u32) -> Result<&mut Mbar, String> {
        self.mbars.get_mut(&(b, addr)).ok_or_else(|| {
            format!("the mbarrier at shared address {addr:#x} is used before `init`")
        })
    }

    /// Thread `t` releases its clock into the barrier `(b, addr)` and starts
    /// a new epoch.
    fn release_into(&mut self, t: usize, b: usize, addr: u32) -> Result<(), String> {
        let clock = self.threads[t].clock.clone();
        join(&mut self.mbar(b, addr)?.release, &clock);
        self.threads[t].clock[t] += 1;
        Ok(())
    }

    /// Completes the phase when its arrivals and bytes are in.
    fn maybe_complete(&mut self, b: usize, addr: u32) -> Result<(), String> {
        let m = self.mbar(b, addr)?;
        if m.pending > 0 {
            return Ok(());
        }
        if m.tx < 0 {
            return Err(format!(
                "the mbarrier at {addr:#x} received {} transaction bytes more than its phase expected",
                -m.tx
            ));
        }
        if m.tx == 0 {
            m.completed += 1;
            m.done = core::mem::replace(&mut m.release, std::vec![0; m.done.len()]);
            m.pending = m.count;
        }
        Ok(())
    }

    fn arrive_at(&mut self, t: usize, b: usize, addr: u32, tx: u32) -> Result<(), String> {
        self.release_into(t, b, addr)?;
        let m = self.mbar(b, addr)?;
        if m.pending == 0 {
            return Err(format!(
                "the mbarrier at {addr:#x}: more arrivals than its count"
            ));
        }
        m.tx += i64::from(tx);
        m.pending -= 1;
        self.progress += 1;
        self.maybe_complete(b, addr)
    }

    /// `bytes` of transactions complete on the barrier `(b, addr)`, on
    /// behalf of thread `t` (the copy's issuer).
    pub(crate) fn complete_tx(
        &mut self,
        t: usize,
        b: usize,
        addr: u32,
        bytes: u32,
    ) -> Result<(), String> {
        let clock = self.threads[t].clock.clone();
        let m = self.mbar(b, addr)?;
        join(&mut m.release, &clock);
        m.tx -= i64::from(bytes);
        self.progress += 1;
        self.maybe_complete(b, addr)
    }
}

fn or_fail<T>(r: Option<Result<T, String>>, name: &str) -> T {
    match r {
        None => crate::host::gpu_only(name),
        Some(Ok(v)) => v,
        Some(Err(m)) => fail(ErrorKind::Mbarrier, m),
    }
}

/// `mbarrier.init`: a plain write of its 8 bytes by this thread.
pub(crate) fn mbar_init(addr: u32, count: u32) {
    let r = with(|s| {
        let (t, b) = (s.cur, s.threads[s.cur].block);
        s.shared_write_as(t, addr, &[0; 8]).map_err(|e| e.1)?;
        let n = s.threads.len();
        s.mbars.insert(
            (b, addr),
            Mbar {
                count,
                pending: count,
                tx: 0,
                completed: 0,
                release: std::vec![0; n],
                done: std::vec![0; n],
            },
        );
        Ok(())
    });
    or_fail(r, "Mbarrier::init")
}

/// `mbarrier.arrive` (with `expect_tx` bytes), on this block's barrier or
/// (`cta`) on block `cta` of the cluster's.
pub(crate) fn mbar_arrive(addr: u32, tx: u32, cta: Option<u32>) {
    let r = with(|s| {
        let t = s.cur;
        let b = match cta {
            None => s.threads[t].block,
            Some(c) if (c as usize) < s.blocks.len() => c as usize,
            Some(c) => {
                return Err(format!(
                    "block {c} is not in this cluster of {}",
                    s.blocks.len()
                ))
            }
        };
        s.arrive_at(t, b, addr, tx)
    });
    or_fail(r, "Mbarrier::arrive")
}

/// `mbarrier.try_wait.parity`: whether the phase of parity `phase` has
/// completed (then this thread acquires what the phase released); a
/// failed poll yields.
pub(crate) fn mbar_try_wait(addr: u32, phase: u32) -> bool {
    let r = with(|s| {
        let t = s.cur;
        let b = s.threads[t].block;
        let m = s.mbar(b, addr)?;
        if (m.completed % 2) as u32 == phase & 1 {
            return Ok(false);
        }
        let done = m.done.clone();
        join(&mut s.threads[t].clock, &done);
        Ok(true)
    });
    let ok = or_fail(r, "Mbarrier::try_wait");
    if !ok {
        spin("Mbarrier::try_wait");
    }
    ok
}
