//! `cp.async`: copies pending per thread, committed in groups, landing in
//! shared memory when a wait covers their group (or when the thread ends).

use super::shared;
use super::state::{self, with, PendingCopy, Wait};
use crate::host::gpu_only;

/// `cp.async` of 16 bytes (`data`, read at issue) to `addr`, pending until
/// its group is waited for.
pub(crate) fn cp_async(name: &str, addr: u32, data: [u8; 16]) {
    let queued = with(|s| {
        s.progress += 1;
        s.me().cp_pending.push(PendingCopy { addr, data })
    });
    if queued.is_none() {
        gpu_only(name)
    }
}

/// `cp.async.commit_group`.
pub(crate) fn cp_async_commit(name: &str) {
    let done = with(|s| {
        let me = s.me();
        let group = core::mem::take(&mut me.cp_pending);
        me.cp_groups.push_back(group);
    });
    if done.is_none() {
        gpu_only(name)
    }
}

/// `cp.async.wait_group n`: the groups older than the newest `n` land.
pub(crate) fn cp_async_wait(name: &str, n: usize) {
    if !state::active() {
        gpu_only(name)
    }
    loop {
        let group = with(|s| {
            let me = s.me();
            if me.cp_groups.len() > n {
                me.cp_groups.pop_front()
            } else {
                None
            }
        })
        .flatten();
        let Some(group) = group else { break };
        for c in group {
            shared::write(c.addr, &c.data);
        }
    }
}

/// The end of a thread: its outstanding copies land (the hardware
/// completes them), and it is done.
pub(crate) fn thread_exit() {
    with(|s| {
        let me = s.me();
        let pending = core::mem::take(&mut me.cp_pending);
        me.cp_groups.push_back(pending);
    });
    cp_async_wait("cp_async", 0);
    with(|s| {
        s.me().wait = Wait::Done;
        s.progress += 1;
    });
}
