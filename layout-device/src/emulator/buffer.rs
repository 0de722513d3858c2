//! Global memory for emulated kernels: [`Buffer`]s, 256-byte aligned as
//! `cudaMalloc`'s, known to the emulator, which checks every global access
//! of a kernel against the live buffers and records which thread wrote
//! each element.

use super::error::{ErrorKind, D3};
use super::state::{fail, with};
use crate::{Global, GlobalMut};
use std::alloc::{alloc_zeroed, Layout};
use std::cell::RefCell;
use std::fmt;
use std::format;
use std::string::String;
use std::vec::Vec;

/// A live buffer: its bytes, and per 2-byte unit the last writer
/// (block in the grid, thread), if any.
struct Entry {
    start: usize,
    bytes: usize,
    alive: bool,
    writers: Vec<Option<(D3, u32)>>,
}

std::thread_local! {
    static BUFFERS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// Device memory for an emulated kernel: `len` elements of `T`, 256-byte
/// aligned. Its [`global`](Buffer::global) and
/// [`global_mut`](Buffer::global_mut) handles are a kernel's arguments;
/// under [`run`](super::run) every access through them is checked against
/// the buffers alive on this OS thread (a stale or forged handle is an
/// error naming the access, never a read of other memory).
///
/// The memory is never returned to the allocator (a handle may outlive
/// the buffer; after the buffer is dropped, an emulated access through it
/// is refused): buffers are for tests, small.
///
/// ```
/// use layout_device::emulator::Buffer;
/// let b = Buffer::from_slice(&[1.0f32, 2.0, 3.0]);
/// assert_eq!(b.to_vec(), [1.0, 2.0, 3.0]);
/// assert_eq!(b.global().len(), 3);
/// ```
pub struct Buffer<T> {
    ptr: *mut T,
    len: usize,
    entry: usize,
}

impl<T: Copy> Buffer<T> {
    /// A buffer holding a copy of `data`.
    pub fn from_slice(data: &[T]) -> Buffer<T> {
        let bytes = core::mem::size_of_val(data);
        let layout = Layout::from_size_align(bytes.max(1), 256.max(core::mem::align_of::<T>()))
            .expect("a buffer's size");
        // SAFETY: a non-zero size; the allocation is checked for null.
        let ptr = unsafe { alloc_zeroed(layout) }.cast::<T>();
        assert!(!ptr.is_null(), "out of memory for an emulated buffer");
        // SAFETY: `ptr` has room for `data.len()` elements, aligned, and
        // does not overlap `data`.
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len()) };
        let entry = BUFFERS.with(|b| {
            let mut b = b.borrow_mut();
            b.push(Entry {
                start: ptr as usize,
                bytes,
                alive: true,
                writers: std::vec![None; bytes.div_ceil(2)],
            });
            b.len() - 1
        });
        Buffer {
            ptr,
            len: data.len(),
            entry,
        }
    }

    /// `len` copies of `v`.
    pub fn filled(v: T, len: usize) -> Buffer<T> {
        Buffer::from_slice(&std::vec![v; len])
    }

    /// The buffer's address.
    pub(crate) fn addr(&self) -> usize {
        self.ptr as usize
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A read-only handle, a kernel argument.
    pub fn global(&self) -> Global<T> {
        // SAFETY: `len` elements at `ptr`, aligned, never freed (see the
        // type); emulated kernels' accesses are checked against the
        // registry, and on the host only this OS thread reaches them.
        unsafe { Global::new(self.ptr, self.len) }
    }

    /// A handle the kernel writes through.
    pub fn global_mut(&self) -> GlobalMut<T> {
        // SAFETY: as `global`; the emulator runs one thread at a time on
        // this OS thread, so no two writes are concurrent.
        unsafe { GlobalMut::new(self.ptr, self.len) }
    }

    /// The elements, copied out.
    pub fn to_vec(&self) -> Vec<T> {
        // SAFETY: `len` initialised elements (copied in or written by
        // kernels as `T`); nothing writes while this copies (one OS
        // thread, and no kernel runs).
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }.to_vec()
    }

    /// The block and thread that last wrote element `i` under the
    /// emulator, if one did.
    pub fn writer(&self, i: usize) -> Option<(D3, u32)> {
        let unit = i * core::mem::size_of::<T>() / 2;
        BUFFERS.with(|b| b.borrow()[self.entry].writers.get(unit).copied().flatten())
    }

    /// Compares the elements with `expected` by `same`: the first
    /// difference as a [`Mismatch`] naming the element, both values and
    /// the block and thread that wrote it (or that none did).
    pub fn check(&self, expected: &[T], same: impl Fn(T, T) -> bool) -> Result<(), Mismatch<T>> {
        let got = self.to_vec();
        if got.len() != expected.len() {
            return Err(Mismatch {
                index: got.len().min(expected.len()),
                got: None,
                expected: None,
                writer: None,
                lengths: Some((got.len(), expected.len())),
            });
        }
        match got.iter().zip(expected).position(|(g, e)| !same(*g, *e)) {
            None => Ok(()),
            Some(i) => Err(Mismatch {
                index: i,
                got: Some(got[i]),
                expected: Some(expected[i]),
                writer: self.writer(i),
                lengths: None,
            }),
        }
    }
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        BUFFERS.with(|b| b.borrow_mut()[self.entry].alive = false);
    }
}

/// The first element where a buffer differs from what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch<T> {
    /// The element's index.
    pub index: usize,
    /// Its value.
    pub got: Option<T>,
    /// The value expected.
    pub expected: Option<T>,
    /// The block (in the grid) and thread that wrote it last, if any did.
    pub writer: Option<(D3, u32)>,
    /// The two lengths, when they differ.
    pub lengths: Option<(usize, usize)>,
}

impl<T: fmt::Debug> fmt::Display for Mismatch<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((g, e)) = self.lengths {
            return write!(f, "the buffer has {g} elements, {e} expected");
        }
        write!(
            f,
            "element {} is {:?}, expected {:?}; ",
            self.index, self.got, self.expected
        )?;
        match self.writer {
            Some((b, t)) => write!(
                f,
                "written by thread {t} (warp {}, lane {}) of block ({},{},{})",
                t / 32,
                t % 32,
                b.0,
                b.1,
                b.2
            ),
            None => write!(f, "no thread wrote it"),
        }
    }
}

/// Checks a kernel's global access of `bytes` at `addr` against the live
/// buffers (an error stops the run), recording the writer.
pub(crate) fn access(addr: usize, bytes: usize, write: bool) {
    let Some((block, tid)) = with(|s| {
        let t = &s.threads[s.cur];
        (s.blocks[t.block].idx, t.tid as u32)
    }) else {
        return;
    };
    let found = BUFFERS.with(|b| {
        let mut b = b.borrow_mut();
        let e = b
            .iter_mut()
            .rev()
            .find(|e| addr >= e.start && addr + bytes <= e.start + e.bytes && bytes > 0)?;
        if !e.alive {
            return Some(false);
        }
        if write {
            let first = (addr - e.start) / 2;
            for w in &mut e.writers[first..(addr - e.start + bytes).div_ceil(2)] {
                *w = Some((block, tid));
            }
        }
        Some(true)
    });
    let msg: String = match found {
        Some(true) => return,
        Some(false) => format!(
            "global {} of {bytes} bytes at {addr:#x}: its buffer was dropped",
            if write { "write" } else { "read" }
        ),
        None => format!(
            "global {} of {bytes} bytes at {addr:#x} lies outside every live emulator Buffer",
            if write { "write" } else { "read" }
        ),
    };
    fail(ErrorKind::Global, msg)
}

/// Copies `out.len()` bytes at `addr` of a live buffer (a TMA copy's
/// read); an error naming the access outside them.
pub(crate) fn read_global(addr: usize, out: &mut [u8]) -> Result<(), String> {
    let n = out.len();
    match lookup(addr, n) {
        Some(true) => {
            // SAFETY: `addr .. addr + n` lies in a live buffer's allocation
            // (never freed; see `Buffer`), and no kernel thread writes
            // while this one runs (one OS thread).
            let src = unsafe { core::slice::from_raw_parts(addr as *const u8, n) };
            out.copy_from_slice(src);
            Ok(())
        }
        Some(false) => Err(format!(
            "a read of {n} bytes at {addr:#x}: its buffer was dropped"
        )),
        None => Err(format!(
            "a read of {n} bytes at {addr:#x} lies outside every live emulator Buffer"
        )),
    }
}

/// Writes `data` at `addr` of a live buffer (a TMA store's write), as the
/// running thread (recorded as the elements' writer).
pub(crate) fn write_global(addr: usize, data: &[u8]) -> Result<(), String> {
    let n = data.len();
    match lookup(addr, n) {
        Some(true) => {
            access(addr, n, true);
            // SAFETY: `addr .. addr + n` lies in a live buffer's allocation
            // (never freed); one OS thread runs the kernel's threads, and
            // nothing else holds a reference into the buffer meanwhile.
            let dst = unsafe { core::slice::from_raw_parts_mut(addr as *mut u8, n) };
            dst.copy_from_slice(data);
            Ok(())
        }
        Some(false) => Err(format!(
            "a write of {n} bytes at {addr:#x}: its buffer was dropped"
        )),
        None => Err(format!(
            "a write of {n} bytes at {addr:#x} lies outside every live emulator Buffer"
        )),
    }
}

/// Whether `addr .. addr + n` lies in a buffer (`Some`), and whether that
/// buffer is alive.
fn lookup(addr: usize, n: usize) -> Option<bool> {
    BUFFERS.with(|b| {
        b.borrow()
            .iter()
            .rev()
            .find(|e| addr >= e.start && addr + n <= e.start + e.bytes)
            .map(|e| e.alive)
    })
}
