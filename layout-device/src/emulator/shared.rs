//! A block's shared memory: the static buffers (placed as each is first
//! named, 128-byte aligned, from address 0) and the dynamic one (at
//! [`DYNAMIC_BASE`], 1024-byte aligned), their bytes, and the last
//! accesses of every 2-byte unit for the race check.

use super::error::ErrorKind;
use super::error::{BLOCK_LIMIT, DYNAMIC_BASE};
use super::state::{fail, with, Sim};
use std::format;
use std::string::String;

impl Sim {
    /// The address of the static buffer `name` of `bytes` (placed on first
    /// use), or of the dynamic buffer after checking the launch gave it
    /// `bytes`.
    pub fn shared_base(
        &mut self,
        name: &'static str,
        bytes: usize,
        dynamic: bool,
    ) -> Result<u32, String> {
        let dyn_bytes = self.dynamic_smem;
        let sh = &mut self.blocks[self.threads[self.cur].block].shared;
        if dynamic {
            if dyn_bytes < bytes {
                return Err(format!(
                    "`{name}` needs {bytes} bytes of dynamic shared memory; the launch gave {dyn_bytes}"
                ));
            }
            return Ok(DYNAMIC_BASE);
        }
        if let Some(&(_, start, _)) = sh.statics.iter().find(|b| b.0 == name) {
            return Ok(start);
        }
        let start = sh.static_top.next_multiple_of(128);
        let end = start as usize + bytes;
        if end > DYNAMIC_BASE as usize || end + dyn_bytes > BLOCK_LIMIT {
            return Err(format!(
                "`{name}` ({bytes} bytes) takes the block's static shared memory to {end} bytes (at most {} static, {BLOCK_LIMIT} with the dynamic)",
                DYNAMIC_BASE
            ));
        }
        sh.statics.push((name, start, bytes as u32));
        sh.static_top = end as u32;
        Ok(start)
    }

    /// Checks an access of thread `t` (cluster-wide) to `n` bytes at `addr`
    /// of block `b` against the others' since their last ordering, and
    /// records it.
    fn shared_access(
        &mut self,
        t: usize,
        b: usize,
        addr: u32,
        n: u32,
        write: bool,
    ) -> Result<(), (ErrorKind, String)> {
        let sh = &self.blocks[b].shared;
        let Some(_) = sh.buffer_of(addr, n) else {
            return Err((ErrorKind::Shared, format!(
                "shared access of {n} bytes at address {addr:#x} lies outside every shared buffer of the block"
            )));
        };
        let clock = &self.threads[t].clock;
        let epoch = clock[t];
        let mut race = None;
        let mut unfenced = None;
        let asynchronous = self.async_proxy;
        let fences = self.threads[t].proxy_fences;
        let sh = &mut self.blocks[b].shared;
        for u in addr / 2..(addr + n).div_ceil(2) {
            let unit = &mut sh.units[u as usize];
            // The async proxy (wgmma's operands, a TMA store's source)
            // sees an ordinary store only after its thread's
            // `fence.proxy.async`.
            if asynchronous && !write {
                if let Some((w, f)) = unit.generic {
                    if self.threads[w as usize].proxy_fences <= f {
                        unfenced = Some((w, u));
                    }
                }
            }
            if write {
                unit.generic = (!asynchronous).then_some((t as u32, fences));
            }
            if let Some((w, e)) = unit.write {
                if w as usize != t && clock[w as usize] < e {
                    race = Some((w, "write", u));
                }
            }
            if write {
                for &(r, e) in &unit.reads {
                    if r as usize != t && clock[r as usize] < e {
                        race = Some((r, "read", u));
                    }
                }
                unit.write = Some((t as u32, epoch));
                unit.reads.clear();
            } else {
                match unit.reads.iter_mut().find(|(r, _)| *r as usize == t) {
                    Some(r) => r.1 = epoch,
                    None => unit.reads.push((t as u32, epoch)),
                }
            }
            if race.is_some() {
                break;
            }
        }
        if let Some((w, u)) = unfenced {
            let at = u * 2;
            let (buf, off) = self.blocks[b].shared.buffer_of(at, 1).unwrap_or(("?", 0));
            return Err((ErrorKind::Race, format!(
                "the async proxy (a `wgmma` operand or a TMA store's source) reads the word at {:#x} ({buf} + {}), which {} stored without a `fence_proxy_async_shared` after the store: the tensor cores or the TMA unit may not see it",
                at & !3,
                off & !3,
                self.name(w as usize),
            )));
        }
        if let Some((other, what, u)) = race {
            let at = u * 2;
            let (buf, off) = self.blocks[b].shared.buffer_of(at, 1).unwrap_or(("?", 0));
            return Err((ErrorKind::Race, format!(
                "shared-memory race on the word at {:#x} ({buf} + {}): {} {} it, and {}'s {what} of it is not ordered before (no barrier between)",
                at & !3,
                off & !3,
                self.name(t),
                if write { "writes" } else { "reads" },
                self.name(other as usize),
            )));
        }
        Ok(())
    }

    /// The running thread reads `out.len()` bytes at `addr`.
    pub fn shared_read_as(
        &mut self,
        t: usize,
        addr: u32,
        out: &mut [u8],
    ) -> Result<(), (ErrorKind, String)> {
        let b = self.threads[t].block;
        self.shared_access(t, b, addr, out.len() as u32, false)?;
        let sh = &self.blocks[b].shared;
        out.copy_from_slice(&sh.bytes[addr as usize..addr as usize + out.len()]);
        Ok(())
    }

    /// Thread `t` reads `out.len()` bytes at `addr` of block `b` of the
    /// cluster (an asynchronous unit's read on its behalf).
    pub fn shared_read_block(
        &mut self,
        t: usize,
        b: usize,
        addr: u32,
        out: &mut [u8],
    ) -> Result<(), (ErrorKind, String)> {
        self.shared_access(t, b, addr, out.len() as u32, false)?;
        let sh = &self.blocks[b].shared;
        out.copy_from_slice(&sh.bytes[addr as usize..addr as usize + out.len()]);
        Ok(())
    }

    /// Thread `t` (or a copy it issued) writes `data` at `addr` of block
    /// `b` of the cluster.
    pub fn shared_write_block(
        &mut self,
        t: usize,
        b: usize,
        addr: u32,
        data: &[u8],
    ) -> Result<(), (ErrorKind, String)> {
        self.shared_access(t, b, addr, data.len() as u32, true)?;
        self.progress += 1;
        let sh = &mut self.blocks[b].shared;
        sh.bytes[addr as usize..addr as usize + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Thread `t` writes `data` at `addr` of its block.
    pub fn shared_write_as(
        &mut self,
        t: usize,
        addr: u32,
        data: &[u8],
    ) -> Result<(), (ErrorKind, String)> {
        let b = self.threads[t].block;
        self.shared_access(t, b, addr, data.len() as u32, true)?;
        self.progress += 1;
        let sh = &mut self.blocks[b].shared;
        sh.bytes[addr as usize..addr as usize + data.len()].copy_from_slice(data);
        Ok(())
    }
}

/// The running thread reads `N` bytes of shared memory at `addr`.
pub(crate) fn read<const N: usize>(addr: u32) -> [u8; N] {
    let mut out = [0u8; N];
    let r = with(|s| s.shared_read_as(s.cur, addr, &mut out)).expect("emulating");
    if let Err((kind, m)) = r {
        fail(kind, m)
    }
    out
}

/// The running thread writes `data` to shared memory at `addr`.
pub(crate) fn write(addr: u32, data: &[u8]) {
    let r = with(|s| s.shared_write_as(s.cur, addr, data)).expect("emulating");
    if let Err((kind, m)) = r {
        fail(kind, m)
    }
}
