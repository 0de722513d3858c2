//! The scheduler: one coroutine per GPU thread of a cluster, run in turn
//! on the calling OS thread until each blocks (a barrier, a warp-wide
//! instruction, a failed `mbarrier` wait) or exits; block barriers, warp
//! collectives and the vector clocks that order shared-memory accesses.

use super::error::{EmuError, ErrorKind, Launch, D3};
use super::state::{
    active, suspend, with, BlockState, Operand, SharedState, Sim, Site, ThreadState, Wait,
    WarpSlot, WgSlot, SIM,
};
use super::warp;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::boxed::Box;
use std::collections::VecDeque;
use std::format;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::string::{String, ToString};
use std::vec::Vec;

/// Each coroutine's stack (virtual memory, touched as used: the bodies'
/// frames are small, but unoptimised builds are deep).
const STACK_BYTES: usize = 16 << 20;

impl Sim {
    /// The running thread's arrival at its block's barrier 0; whether it
    /// completed the barrier (the others were there).
    fn arrive_block_barrier(&mut self, what: &'static str, site: Site, aligned: bool) -> bool {
        let me = self.cur;
        let b = self.threads[me].block;
        self.threads[me].wait = Wait::Barrier(what, site);
        self.blocks[b].at_barrier += 1;
        self.progress += 1;
        if self.blocks[b].at_barrier < self.per_block {
            return false;
        }
        let members: Vec<usize> = (0..self.per_block).map(|t| self.global(b, t)).collect();
        if aligned {
            // `.aligned`: every lane of a warp at the same instruction.
            for w in members.chunks(32) {
                let site_of = |t: usize| match self.threads[t].wait {
                    Wait::Barrier(_, s) => Some(s),
                    _ => None,
                };
                let first = site_of(w[0]);
                if let Some(&odd) = w.iter().find(|&&t| site_of(t) != first) {
                    let (a, o) = (first.unwrap(), site_of(odd).unwrap());
                    let msg = format!(
                        "`{what}` is `.aligned`, but the lanes of warp {} reached it at two sites: {a} and {o} ({})",
                        self.threads[w[0]].tid / 32,
                        self.name(odd)
                    );
                    self.fault = Some(self.error_at(Some(odd), ErrorKind::Divergence, msg));
                    return true;
                }
            }
        }
        self.join(&members);
        for &t in &members {
            self.threads[t].wait = Wait::Run;
        }
        self.blocks[b].at_barrier = 0;
        true
    }
}

impl Sim {
    /// The running thread's arrival at its block's named barrier `id` of
    /// `count` threads, waiting there with `wait` (else it runs on:
    /// `barrier.arrive`); whether it completed the barrier. Threads
    /// arriving with another count than the first's, or a thread arriving
    /// twice at one use of the barrier, is a fault.
    fn arrive_named_barrier(&mut self, id: u32, count: usize, site: Site, wait: bool) -> bool {
        let me = self.cur;
        let b = self.threads[me].block;
        if wait {
            self.threads[me].wait = Wait::Named(id, site);
        }
        self.progress += 1;
        let slot = &mut self.blocks[b].named[id as usize];
        if slot.1.is_empty() {
            slot.0 = count;
        } else if slot.0 != count || slot.1.contains(&me) {
            let first = slot.0;
            let msg = if slot.0 != count {
                format!(
                    "named barrier {id} of {first} threads reached with a count of {count} ({})",
                    self.name(me)
                )
            } else {
                format!(
                    "named barrier {id} reached twice by {} before it completed",
                    self.name(me)
                )
            };
            self.fault = Some(self.error_at(Some(me), ErrorKind::Divergence, msg));
            return true;
        }
        slot.1.push(me);
        if !wait {
            // What the waiters will have seen: this thread's past as of
            // now (it runs on, and its later writes are not ordered).
            let clock = &self.threads[me].clock;
            slot.2.resize(clock.len(), 0);
            for (m, c) in slot.2.iter_mut().zip(clock) {
                *m = (*m).max(*c);
            }
            // What it does from here on is after the arrival.
            self.threads[me].clock[me] += 1;
        }
        if slot.1.len() < count {
            return false;
        }
        let members = core::mem::take(&mut slot.1);
        let arrived = core::mem::take(&mut slot.2);
        // The arrivals that wait (`barrier.sync`) here; one that only
        // arrived may wait elsewhere by now.
        let waiters: Vec<usize> = members
            .into_iter()
            .filter(|&t| matches!(self.threads[t].wait, Wait::Named(i, _) if i == id))
            .collect();
        self.join(&waiters);
        for &t in &waiters {
            for (c, a) in self.threads[t].clock.iter_mut().zip(&arrived) {
                *c = (*c).max(*a);
            }
            self.threads[t].wait = Wait::Run;
        }
        true
    }
}

/// A named barrier (`barrier.sync id, count`) for the running thread.
pub(crate) fn named_barrier(id: u32, count: usize, site: Site, wait: bool) {
    let completed = with(|s| s.arrive_named_barrier(id, count, site, wait)).unwrap_or(false);
    if (wait && !completed) || with(|s| s.fault.is_some()).unwrap_or(false) {
        suspend();
    }
}

/// A block barrier (`bar.sync 0`, `.aligned` or not) for the running
/// thread.
pub(crate) fn block_barrier(what: &'static str, site: Site, aligned: bool) {
    let completed = with(|s| s.arrive_block_barrier(what, site, aligned)).unwrap_or(false);
    // Waits for the others, or stops at a fault the arrival found.
    if !completed || with(|s| s.fault.is_some()).unwrap_or(false) {
        suspend();
    }
}

/// The cluster barrier (`barrier.cluster.arrive` + `wait`).
pub(crate) fn cluster_barrier(site: Site) {
    let done = with(|s| {
        s.me().wait = Wait::Cluster(site);
        s.at_cluster_barrier += 1;
        s.progress += 1;
        if s.at_cluster_barrier < s.threads.len() {
            return false;
        }
        let all: Vec<usize> = (0..s.threads.len()).collect();
        s.join(&all);
        for t in &mut s.threads {
            t.wait = Wait::Run;
        }
        s.at_cluster_barrier = 0;
        true
    })
    .unwrap_or(false);
    if !done {
        suspend();
    }
}

/// The running thread's part in a warp-wide instruction: its operand in,
/// its result out, once all 32 lanes have given theirs.
pub(crate) fn warp_collective(
    name: &'static str,
    site: Site,
    aligned: bool,
    input: Operand,
    mask: u32,
) -> [u32; 4] {
    let done = with(|s| {
        let me = s.cur;
        let (b, tid) = (s.threads[me].block, s.threads[me].tid);
        let (w, lane) = (tid / 32, tid % 32);
        let lanes = (s.per_block - w * 32).min(32);
        let existing = if lanes == 32 { u32::MAX } else { (1u32 << lanes) - 1 };
        if mask & !existing != 0 {
            let msg = format!(
                "`{name}`'s member mask {mask:#010x} names lanes that warp {w} does not have (it has {lanes}, a block of {} threads)",
                s.per_block
            );
            s.fault = Some(s.error_at(Some(me), ErrorKind::Divergence, msg));
            return true;
        }
        if mask & (1 << lane) == 0 {
            let msg = format!("lane {lane} executes `{name}` with a member mask {mask:#010x} that leaves it out");
            s.fault = Some(s.error_at(Some(me), ErrorKind::Divergence, msg));
            return true;
        }
        // Disjoint groups of a warp (member masks) collect apart; a lane of
        // a pending group arriving with another mask is an error.
        let groups = &mut s.blocks[b].warps[w];
        if let Some(g) = groups.iter().find(|g| g.mask != mask && g.mask & mask != 0) {
            let msg = format!(
                "lanes of warp {w} at `{name}` ({site}) with overlapping member masks {mask:#010x} and {:#010x}",
                g.mask
            );
            s.fault = Some(s.error_at(Some(me), ErrorKind::Divergence, msg));
            return true;
        }
        let at_group = match groups.iter().position(|g| g.mask == mask) {
            Some(i) => i,
            None => {
                let mut g = WarpSlot::new();
                g.mask = mask;
                groups.push(g);
                groups.len() - 1
            }
        };
        let slot = &mut s.blocks[b].warps[w][at_group];
        if let (Some(other), Some(at)) = (slot.name, slot.site) {
            if other != name || (aligned && at != site) {
                let first = slot.arrived.trailing_zeros();
                let msg = format!(
                    "lanes of warp {w} diverged: lane {lane} is at `{name}` ({site}) while lane {first} is at `{other}` ({at})"
                );
                s.fault = Some(s.error_at(Some(me), ErrorKind::Divergence, msg));
                return true;
            }
        }
        slot.name = Some(name);
        slot.site = Some(site);
        slot.mask = mask;
        slot.arrived |= 1 << lane;
        slot.inputs[lane] = input;
        s.threads[me].wait = Wait::Warp(name, site);
        s.progress += 1;
        if slot.arrived != mask {
            return false;
        }
        let inputs = slot.inputs;
        s.blocks[b].warps[w].remove(at_group);
        let base = s.global(b, w * 32);
        match warp::execute(s, b, name, &inputs, mask) {
            Ok(outs) => {
                for (l, o) in outs.iter().enumerate().filter(|(l, _)| mask >> l & 1 == 1) {
                    s.threads[base + l].out = *o;
                    s.threads[base + l].wait = Wait::Run;
                }
                if name == "sync_warp" {
                    let lanes: Vec<usize> = (0..32).filter(|l| mask >> l & 1 == 1).map(|l| base + l).collect();
                    s.join(&lanes);
                }
            }
            Err((kind, msg)) => s.fault = Some(s.error_at(Some(me), kind, msg)),
        }
        true
    })
    .expect("emulating");
    if !done || with(|s| s.fault.is_some()).unwrap_or(false) {
        suspend();
    }
    with(|s| s.me().out).expect("emulating")
}

/// Runs the launch, cluster by cluster.
pub(crate) fn run(launch: &Launch, body: Rc<dyn Fn()>) -> Result<(), EmuError> {
    if active() {
        return Err(launch.error(
            ErrorKind::Launch,
            "a kernel is already being emulated on this thread".to_string(),
        ));
    }
    let (g, c, bd) = (launch.grid, launch.cluster, launch.block);
    let mut stacks: Vec<DefaultStack> = Vec::new();
    let mut origins = Vec::new();
    for cz in 0..g.2 / c.2 {
        for cy in 0..g.1 / c.1 {
            for cx in 0..g.0 / c.0 {
                origins.push((cx * c.0, cy * c.1, cz * c.2));
            }
        }
    }
    if launch.reversed {
        origins.reverse();
    }
    for (x0, y0, z0) in origins {
        let mut blocks = Vec::new();
        for z in 0..c.2 {
            for y in 0..c.1 {
                for x in 0..c.0 {
                    blocks.push((x0 + x, y0 + y, z0 + z));
                }
            }
        }
        run_cluster(launch, &blocks, bd, &body, &mut stacks)?;
    }
    Ok(())
}

/// One cluster's blocks, to the end or the first error.
fn run_cluster(
    launch: &Launch,
    blocks: &[D3],
    bd: D3,
    body: &Rc<dyn Fn()>,
    stacks: &mut Vec<DefaultStack>,
) -> Result<(), EmuError> {
    let per_block = bd.0 * bd.1 * bd.2;
    let n = per_block * blocks.len();
    let sim = Sim {
        kernel: launch.kernel.clone(),
        block_dim: bd,
        grid: launch.grid,
        cluster: launch.cluster,
        per_block,
        dynamic_smem: launch.dynamic_smem,
        blocks: blocks
            .iter()
            .map(|&idx| BlockState {
                idx,
                shared: SharedState::new(launch.dynamic_smem),
                at_barrier: 0,
                named: Default::default(),
                warps: (0..per_block.div_ceil(32)).map(|_| Vec::new()).collect(),
                warpgroups: (0..per_block / 128).map(|_| WgSlot::new()).collect(),
                regs: std::vec![crate::launch_registers(per_block); per_block],
                free_regs: 0,
            })
            .collect(),
        threads: (0..n)
            .map(|t| {
                let mut clock = std::vec![0; n];
                clock[t] = 1;
                ThreadState {
                    block: t / per_block,
                    tid: t % per_block,
                    wait: Wait::Run,
                    clock,
                    yielder: core::ptr::null(),
                    out: [0; 4],
                    wide: Vec::new(),
                    proxy_fences: 0,
                    cp_pending: Vec::new(),
                    cp_groups: VecDeque::new(),
                }
            })
            .collect(),
        cur: 0,
        fault: None,
        progress: 0,
        at_cluster_barrier: 0,
        async_proxy: false,
        mbars: std::collections::HashMap::new(),
    };
    SIM.with(|s| *s.borrow_mut() = Some(sim));
    let mut fibers: Vec<Coroutine<(), (), (), DefaultStack>> = (0..n)
        .map(|_| {
            let stack = match stacks.pop() {
                Some(s) => s,
                None => DefaultStack::new(STACK_BYTES).expect("a coroutine stack"),
            };
            let body = body.clone();
            Coroutine::with_stack(stack, move |y: &Yielder<(), ()>, ()| {
                with(|s| s.me().yielder = y as *const _);
                body();
                super::copies::thread_exit();
            })
        })
        .collect();
    let result = schedule(&mut fibers);
    // Unfinished coroutines (after an error) unwind their stacks here,
    // while the emulation is still installed.
    for f in fibers {
        if f.done() {
            stacks.push(f.into_stack());
        }
    }
    let sim = SIM.with(|s| s.borrow_mut().take()).expect("installed");
    match (result, sim.fault) {
        (_, Some(e)) => Err(e),
        (Err(e), None) => Err(e),
        (Ok(()), None) => Ok(()),
    }
}

/// Resumes runnable threads in order until all are done, an error, or a
/// round without progress (a deadlock).
fn schedule(fibers: &mut [Coroutine<(), (), (), DefaultStack>]) -> Result<(), EmuError> {
    loop {
        let before = with(|s| s.progress).expect("installed");
        let mut live = false;
        for (i, f) in fibers.iter_mut().enumerate() {
            let runnable = with(|s| match s.threads[i].wait {
                Wait::Run | Wait::Spin(_) => {
                    s.cur = i;
                    s.threads[i].wait = Wait::Run;
                    true
                }
                Wait::Done => false,
                _ => {
                    live = true;
                    false
                }
            })
            .expect("installed");
            if !runnable {
                continue;
            }
            live = true;
            match catch_unwind(AssertUnwindSafe(|| f.resume(()))) {
                Ok(CoroutineResult::Yield(())) => {}
                Ok(CoroutineResult::Return(())) => {}
                Err(payload) => {
                    let msg = panic_text(payload);
                    with(|s| {
                        if s.fault.is_none() {
                            let kind = if msg == "device check failed" {
                                ErrorKind::Trap
                            } else {
                                ErrorKind::Panic
                            };
                            let text = if kind == ErrorKind::Trap {
                                "trap (a failed device check)".to_string()
                            } else {
                                format!("panic: {msg}")
                            };
                            s.fault = Some(s.error_at(Some(i), kind, text));
                        }
                    });
                }
            }
            if with(|s| s.fault.is_some()).expect("installed") {
                return Ok(());
            }
        }
        if !live {
            return Ok(());
        }
        let stalled = with(|s| s.progress == before).expect("installed");
        if stalled {
            return Err(with(deadlock).expect("installed"));
        }
    }
}

fn panic_text(p: Box<dyn core::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

/// What each waiting thread waits at, when none can go on.
fn deadlock(s: &mut Sim) -> EmuError {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut exited = Vec::new();
    for (t, th) in s.threads.iter().enumerate() {
        let what = match th.wait {
            Wait::Done => {
                exited.push(t);
                continue;
            }
            Wait::Run => continue,
            Wait::Spin(w) => format!("polling `{w}`, which no thread will complete"),
            Wait::Barrier(w, site) => format!("at the block barrier `{w}` ({site})"),
            Wait::Named(id, site) => format!("at named barrier {id} ({site})"),
            Wait::Warp(w, site) => format!("at the warp-wide `{w}` ({site})"),
            Wait::Cluster(site) => format!("at the cluster barrier ({site})"),
        };
        match groups.iter_mut().find(|g| g.0 == what) {
            Some(g) => g.1.push(t),
            None => groups.push((what, std::vec![t])),
        }
    }
    let mut parts: Vec<String> = groups
        .iter()
        .map(|(what, ts)| {
            format!(
                "{} thread{} {what} (first: {})",
                ts.len(),
                if ts.len() == 1 { "" } else { "s" },
                s.name(ts[0])
            )
        })
        .collect();
    if !exited.is_empty() {
        parts.push(format!(
            "{} thread{} exited without reaching it (first: {})",
            exited.len(),
            if exited.len() == 1 { "" } else { "s" },
            s.name(exited[0])
        ));
    }
    let first = groups.first().map(|g| g.1[0]);
    s.error_at(
        first,
        ErrorKind::Deadlock,
        format!("deadlock: {}", parts.join("; ")),
    )
}
