//! The instructions as the hardware layer (`crate::hw`) calls them on the
//! host: each computes the running emulated thread's result, or, outside
//! an emulation, panics naming the instruction (only the GPU, or the
//! emulator, executes it).

pub(crate) use super::copies::{cp_async, cp_async_commit, cp_async_wait};
use super::error::{ErrorKind, D3};
use super::sched;
use super::shared;
use super::state::{self, fail, with, Operand, Site};
use crate::host::gpu_only;
use std::format;

/// The running thread's (x, y, z) in its block.
pub(crate) fn thread_idx_xyz(name: &str) -> D3 {
    with(|s| {
        let (t, b) = (s.threads[s.cur].tid, s.block_dim);
        (t % b.0, t / b.0 % b.1, t / (b.0 * b.1))
    })
    .unwrap_or_else(|| gpu_only(name))
}

/// The running thread's block in the grid.
pub(crate) fn block_idx_xyz(name: &str) -> D3 {
    with(|s| s.blocks[s.threads[s.cur].block].idx).unwrap_or_else(|| gpu_only(name))
}

/// The block's extent.
pub(crate) fn block_dim(name: &str) -> D3 {
    with(|s| s.block_dim).unwrap_or_else(|| gpu_only(name))
}

/// The grid's extent.
pub(crate) fn grid_dim(name: &str) -> D3 {
    with(|s| s.grid).unwrap_or_else(|| gpu_only(name))
}

/// The block's rank in its cluster, the cluster's index along x and the
/// clusters along x.
pub(crate) fn cluster(name: &str) -> (u32, u32, u32) {
    with(|s| {
        let b = s.threads[s.cur].block;
        let (idx, c) = (s.blocks[b].idx, s.cluster);
        (b as u32, (idx.0 / c.0) as u32, (s.grid.0 / c.0) as u32)
    })
    .unwrap_or_else(|| gpu_only(name))
}

/// `fence.proxy.async.shared::cta`: this thread's earlier ordinary stores
/// to shared memory become visible to the async proxy.
pub(crate) fn proxy_fence(name: &str) {
    if with(|s| s.me().proxy_fences += 1).is_none() {
        gpu_only(name)
    }
}

/// An instruction with no effect on what the emulator computes (a fence
/// its ordering already gives, a register-file resize).
pub(crate) fn nop(name: &str) {
    if !state::active() {
        gpu_only(name)
    }
}

/// `setmaxnreg.dec` (`inc` false) or `.inc` to `n` registers a thread: a
/// decrease gives the thread's registers above `n` to its block's pool; an
/// increase polls until the pool holds what it takes (the hardware's
/// wait), so a split that asks for more than the block was launched with
/// ([`crate::launch_registers`] at most) is the scheduler's deadlock.
pub(crate) fn setmaxnreg(name: &'static str, inc: bool, n: u32) {
    if !state::active() {
        gpu_only(name)
    }
    loop {
        let done = state::with(|s| {
            let (b, t) = (s.threads[s.cur].block, s.threads[s.cur].tid);
            let block = &mut s.blocks[b];
            let cur = block.regs[t];
            match (inc, n.cmp(&cur)) {
                (false, std::cmp::Ordering::Greater) | (true, std::cmp::Ordering::Less) => Err(
                    format!("{name} to {n} registers from {cur}: the count must move the instruction's way"),
                ),
                (false, _) => {
                    block.free_regs += u64::from(cur - n);
                    block.regs[t] = n;
                    Ok(true)
                }
                (true, _) if block.free_regs >= u64::from(n - cur) => {
                    block.free_regs -= u64::from(n - cur);
                    block.regs[t] = n;
                    Ok(true)
                }
                (true, _) => Ok(false),
            }
        })
        .expect("emulating");
        match done {
            Ok(true) => return,
            Ok(false) => state::spin(name),
            Err(m) => state::fail(ErrorKind::Launch, m),
        }
    }
}

/// Polls the `u32` at `at` (a global access) until it holds `v`, letting
/// the cluster's other threads run between polls; a wait that nothing
/// ends is the scheduler's deadlock.
pub(crate) fn global_wait_eq(name: &'static str, at: *const u32, v: u32) {
    if !state::active() {
        gpu_only(name)
    }
    loop {
        global_access(at as usize, 4, false);
        // SAFETY: the caller's element, checked in bounds; under the
        // emulator one thread runs at a time.
        if unsafe { at.read() } == v {
            return;
        }
        state::spin(name);
    }
}

/// The block barrier.
pub(crate) fn barrier(name: &'static str, site: Site, aligned: bool) {
    if !state::active() {
        gpu_only(name)
    }
    sched::block_barrier(name, site, aligned)
}

/// A named barrier: `id` in 1..16, `count` threads, a multiple of 32 no
/// larger than the block (else an error, as the GPU's is undefined).
pub(crate) fn named_barrier(site: Site, id: u32, count: u32) {
    named_barrier_of("named_barrier", site, id, count, true)
}

/// A named barrier's arrival without waiting (`barrier.arrive`).
pub(crate) fn named_barrier_arrive(site: Site, id: u32, count: u32) {
    named_barrier_of("named_barrier_arrive", site, id, count, false)
}

/// A named barrier's arrival, waiting for the others with `wait`.
fn named_barrier_of(name: &'static str, site: Site, id: u32, count: u32, wait: bool) {
    if !state::active() {
        gpu_only(name)
    }
    let per_block = state::with(|s| s.per_block).unwrap_or(0);
    if !(1..16).contains(&id) || count == 0 || count % 32 != 0 || count as usize > per_block {
        fail(
            ErrorKind::Trap,
            format!(
                "{name}({id}, {count}): the id must be 1 to 15 and the count a positive multiple of 32 up to the block's {per_block} threads"
            ),
        );
    }
    sched::named_barrier(id, count as usize, site, wait)
}

/// The cluster barrier.
pub(crate) fn cluster_barrier(name: &'static str, site: Site) {
    if !state::active() {
        gpu_only(name)
    }
    sched::cluster_barrier(site)
}

/// A warp-wide instruction of all 32 lanes.
fn collective(name: &'static str, site: Site, aligned: bool, op: Operand) -> [u32; 4] {
    collective_of(name, site, aligned, op, u32::MAX)
}

/// A warp-wide instruction of the lanes in `mask`.
fn collective_of(
    name: &'static str,
    site: Site,
    aligned: bool,
    op: Operand,
    mask: u32,
) -> [u32; 4] {
    if !state::active() {
        gpu_only(name)
    }
    sched::warp_collective(name, site, aligned, op, mask)
}

/// `shfl.sync` of the lanes in `mask`.
pub(crate) fn shfl_of(name: &'static str, site: Site, v: u32, x: u32, mask: u32) -> u32 {
    collective_of(name, site, false, Operand::Shfl(v, x), mask)[0]
}

/// `vote.sync` (`warp_any`, `warp_all` or `warp_ballot`) of the lanes in
/// `mask`.
pub(crate) fn vote_of(name: &'static str, site: Site, p: bool, mask: u32) -> u32 {
    collective_of(name, site, false, Operand::Vote(p), mask)[0]
}

/// `shfl.sync` (`name` says which) of `v` with the lane operand `x`.
pub(crate) fn shfl(name: &'static str, site: Site, v: u32, x: u32) -> u32 {
    collective(name, site, false, Operand::Shfl(v, x))[0]
}

/// `vote.sync.any`.
pub(crate) fn vote_any(site: Site, p: bool) -> bool {
    collective("warp_any", site, false, Operand::Vote(p))[0] != 0
}

/// `elect.sync`: lane 0 elected.
pub(crate) fn elect_one(site: Site) -> bool {
    collective("elect_one", site, false, Operand::None)[0] != 0
}

/// `bar.warp.sync`.
pub(crate) fn sync_warp(site: Site) {
    collective("sync_warp", site, false, Operand::None);
}

/// `ldmatrix` (`name` says which): this lane's address, its registers.
pub(crate) fn ldmatrix(name: &'static str, site: Site, addr: u32) -> [u32; 4] {
    collective(name, site, true, Operand::Ldsm(addr))
}

/// `mma.sync` m16n8k16 (`name` says the accumulator type).
pub(crate) fn mma(
    name: &'static str,
    site: Site,
    a: [u32; 4],
    b: [u32; 2],
    c: [u32; 4],
) -> [u32; 4] {
    collective(name, site, true, Operand::Mma(a, b, c))
}

/// The address of a `shared_memory!` buffer.
pub(crate) fn shared_base(name: &'static str, bytes: usize, dynamic: bool) -> u32 {
    match with(|s| s.shared_base(name, bytes, dynamic)) {
        None => gpu_only("shared memory"),
        Some(Ok(a)) => a,
        Some(Err(m)) => fail(ErrorKind::Trap, m),
    }
}

/// Four floats as the 16 bytes memory holds them.
pub(crate) fn bytes_of(v: crate::F4) -> [u8; 16] {
    let mut b = [0u8; 16];
    for (chunk, x) in b.chunks_mut(4).zip(v.0) {
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    b
}

/// 16 bytes of memory as four floats.
pub(crate) fn f4_of(b: [u8; 16]) -> crate::F4 {
    crate::F4(core::array::from_fn(|k| {
        f32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
    }))
}

/// `N` bytes of shared memory.
pub(crate) fn shared_ld<const N: usize>(name: &str, addr: u32) -> [u8; N] {
    if !state::active() {
        gpu_only(name)
    }
    shared::read(addr)
}

/// Writes shared memory.
pub(crate) fn shared_st(name: &str, addr: u32, data: &[u8]) {
    if !state::active() {
        gpu_only(name)
    }
    shared::write(addr, data)
}

/// A global access of a kernel (checked under the emulator; nothing
/// outside it).
#[inline]
pub(crate) fn global_access(addr: usize, bytes: usize, write: bool) {
    super::buffer::access(addr, bytes, write)
}
