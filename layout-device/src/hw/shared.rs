//! Shared memory: buffers declared by [`shared_memory!`](crate::shared_memory)
//! in the kernel's crate, and [`Smem`] windows over them, 4-byte words
//! addressed from 0, every access checked against the window.

use super::thread::trap;
use super::{global::GlobalRun, GlobalColumn, F4};
#[cfg(target_arch = "nvptx64")]
use core::arch::asm;
use layout_core::tensor::memory::{Memory, MemoryMut};

/// A block's shared buffer, declared in the PTX by
/// [`shared_memory!`](crate::shared_memory) (Rust has no statics in the
/// shared address space).
///
/// # Safety
/// `BYTES` is the size of the buffer `base` gives the shared-window address
/// of, which is 16-byte aligned. The macro implements it so; nothing else
/// should.
pub unsafe trait SharedBuffer {
    /// The buffer's size in bytes.
    const BYTES: usize;
    /// The buffer's size in the 4-byte words [`Smem::window`] counts.
    const WORDS: usize = Self::BYTES / 4;
    /// The buffer's shared-window address.
    fn base() -> u32;
}

/// Declares a block's shared buffer: `shared_memory!(static TILE: [u8;
/// 16384]);` (any name; the size in **bytes**, a literal or a `const`
/// expression such as `[u8; 4 * TILE_WORDS]`) makes `TILE` a type to open
/// [`Smem`] windows in (`Smem::window::<TILE>(offset, len)`, which counts
/// 4-byte **words**: the buffer holds `TILE::WORDS` = `BYTES / 4` of
/// them). The buffer is 128-byte aligned. Each kernel that uses it gets its own copy (CUDA's
/// `__shared__`); a kernel that does not, pays nothing.
///
/// Invoke it in the kernel crate itself: the PTX declaration must be in the
/// crate that layout-ptx compiles.
///
/// A kernel that needs more than the 48 KiB a block may declare statically
/// (a TMA pipeline's stages) declares its buffer `extern`:
/// `shared_memory!(extern static STAGES: [u8; 197632])` is CUDA's `extern
/// __shared__` (the block's dynamic shared memory, aligned to 1024 in the
/// PTX), and the host launches with at least that many bytes of dynamic
/// shared memory (`Launch::shared_bytes`). The kernel checks it: a window
/// over a buffer the launch gave fewer bytes traps (`%dynamic_smem_size`
/// is read when a window is made). One such buffer per kernel crate: every
/// `extern` buffer starts at the same address.
///
/// ```
/// layout_device::shared_memory!(
///     /// The staging tile of my kernel.
///     static STAGE: [u8; 4096]
/// );
/// use layout_device::SharedBuffer;
/// assert_eq!((STAGE::BYTES, STAGE::WORDS), (4096, 1024));
///
/// // The size from constants: the window's words, times 4.
/// const TILE_WORDS: usize = 64 * 65;
/// layout_device::shared_memory!(static PADDED: [u8; 4 * TILE_WORDS]);
/// assert_eq!(PADDED::WORDS, TILE_WORDS);
///
/// layout_device::shared_memory!(
///     /// A pipeline's stages: 192 KiB of dynamic shared memory.
///     extern static STAGES: [u8; 196608]
/// );
/// assert_eq!(STAGES::BYTES, 196608);
/// ```
#[macro_export]
#[cfg_attr(
    target_arch = "nvptx64",
    allow_internal_unstable(asm_experimental_arch)
)]
#[cfg_attr(target_arch = "nvptx64", allow_internal_unsafe)]
macro_rules! shared_memory {
    ($(#[$meta:meta])* $vis:vis extern static $name:ident: [u8; $bytes:expr] $(;)?) => {
        $crate::shared_memory!(@buffer $(#[$meta])* $vis $name, $bytes, true);
        #[cfg(target_arch = "nvptx64")]
        ::core::arch::global_asm!(concat!(".extern .shared .align 1024 .b8 ", stringify!($name), "[];"));
    };
    ($(#[$meta:meta])* $vis:vis static $name:ident: [u8; $bytes:expr] $(;)?) => {
        $crate::shared_memory!(@buffer $(#[$meta])* $vis $name, $bytes, false);
        // The size as a constant operand: a literal or any `const`
        // expression.
        #[cfg(target_arch = "nvptx64")]
        ::core::arch::global_asm!(
            concat!(".shared .align 128 .b8 ", stringify!($name), "[{bytes}];"),
            bytes = const $bytes
        );
    };
    // Both forms: the type and the buffer's address (after checking the
    // launch's dynamic shared memory, for `extern`).
    (@buffer $(#[$meta:meta])* $vis:vis $name:ident, $bytes:expr, $dynamic:literal) => {
        $(#[$meta])*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug)]
        $vis struct $name;

        // SAFETY: a static buffer's PTX declaration has `$bytes` bytes,
        // aligned to 128; for an `extern` one, `base` traps unless the
        // launch gave the block at least `$bytes` bytes of dynamic shared
        // memory, which starts at the declaration (aligned to 1024).
        unsafe impl $crate::SharedBuffer for $name {
            const BYTES: usize = $bytes;
            #[inline(always)]
            fn base() -> u32 {
                #[cfg(target_arch = "nvptx64")]
                {
                    let b: u32;
                    // SAFETY: takes the buffer's shared-window address.
                    unsafe {
                        ::core::arch::asm!(
                            concat!("mov.u32 {b}, ", stringify!($name), ";"),
                            b = out(reg32) b,
                            options(pure, nomem, nostack)
                        )
                    };
                    if $dynamic {
                        let size: u32;
                        // SAFETY: reads the launch's dynamic shared memory
                        // size.
                        unsafe {
                            ::core::arch::asm!(
                                "mov.u32 {s}, %dynamic_smem_size;",
                                s = out(reg32) size,
                                options(pure, nomem, nostack)
                            )
                        };
                        if (size as usize) < <Self as $crate::SharedBuffer>::BYTES {
                            $crate::trap()
                        }
                    }
                    b
                }
                #[cfg(not(target_arch = "nvptx64"))]
                $crate::__shared_base(
                    ::core::any::type_name::<Self>(),
                    <Self as $crate::SharedBuffer>::BYTES,
                    $dynamic,
                )
            }
        }
    };
}

/// The host's address of a shared buffer: the emulator's (placed per
/// block), or a trap outside it.
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub fn __shared_base(name: &'static str, bytes: usize, dynamic: bool) -> u32 {
    #[cfg(feature = "emulator")]
    if crate::emulator::active() {
        return crate::emulator::ops::shared_base(name, bytes, dynamic);
    }
    let _ = (name, bytes, dynamic);
    trap()
}

/// A window of a block's shared buffer: `len` 4-byte words from word
/// `offset`. Accesses check their index against `len`; the window's bounds
/// are checked once, when it is made. A thread makes one window per
/// partition (its base offset from the layout, its length the partition's
/// cosize), so each access's index is a constant and its check folds away.
///
/// A [`Memory`](layout_core::tensor::memory::Memory) of `f32`: a `Tensor`
/// over shared memory is a tensor over a window.
#[derive(Clone, Copy, Debug)]
pub struct Smem {
    /// Shared-window address of word 0, hidden from the optimiser (see
    /// `make`).
    addr: u32,
    offset: usize,
    len: usize,
}

impl Smem {
    /// The window `offset .. offset + len` (in 4-byte words) of the buffer
    /// `B`; traps when it leaves the buffer.
    #[inline(always)]
    pub fn window<B: SharedBuffer>(offset: usize, len: usize) -> Smem {
        Smem::make(B::base(), B::BYTES / 4, offset, len)
    }

    /// The shared-window address of the window's word 0 (what a `wgmma`
    /// matrix descriptor or a TMA copy names shared memory by).
    #[inline(always)]
    pub fn address(self) -> u32 {
        self.addr
    }

    /// The window's length in words.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.len
    }

    /// Whether the window is empty.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The window's bounds checked against a buffer of `cap` words.
    #[inline(always)]
    fn make(raw: u32, cap: usize, offset: usize, len: usize) -> Smem {
        match offset.checked_add(len) {
            Some(end) if end <= cap => {}
            _ => trap(),
        }
        let at = raw + 4 * offset as u32;
        Smem {
            addr: opaque(at),
            offset,
            len,
        }
    }

    /// The shared address of word `i`, an access of `width` words: traps
    /// beyond the window, or for a vector access not aligned to its width
    /// in the buffer.
    // On the host, only the tests call it (the accesses are the GPU's).
    #[cfg_attr(not(target_arch = "nvptx64"), allow(dead_code))]
    #[inline(always)]
    fn addr(self, i: usize, width: usize) -> u32 {
        if !self.fits(i, width) {
            trap()
        }
        self.addr + 4 * i as u32
    }

    /// Whether an access of `width` words at `i` lies in the window and is
    /// aligned to its width in the buffer.
    #[inline(always)]
    fn fits(self, i: usize, width: usize) -> bool {
        i + width <= self.len && (self.offset + i) % width == 0
    }
}

/// A window of 16-bit elements (f16, bf16 bits) over an [`Smem`] window:
/// element `i` is the low (even `i`) or high half of word `i / 2`. A
/// [`Memory`](layout_core::tensor::memory::Memory) of `u16`, for tensors
/// over shared f16 data.
#[derive(Clone, Copy, Debug)]
pub struct SmemHalves {
    words: Smem,
}

impl Smem {
    /// The window as 16-bit elements (twice as many).
    #[inline(always)]
    pub fn halves(self) -> SmemHalves {
        SmemHalves { words: self }
    }
}

impl SmemHalves {
    /// The number of 16-bit elements.
    #[inline(always)]
    pub fn len(self) -> usize {
        2 * self.words.len
    }
    /// Whether it is empty.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.words.len == 0
    }
    /// The shared address of element `i`; traps past the window.
    #[inline(always)]
    fn addr(self, i: usize) -> u32 {
        if i >= self.len() {
            trap()
        }
        self.words.addr + 2 * i as u32
    }
    /// Element `i`.
    #[inline(always)]
    pub fn ld(self, i: usize) -> u16 {
        let a = self.addr(i);
        gpu!("SmemHalves::ld", {
            let v: u16;
            // SAFETY: `a` lies in the buffer, 2-byte aligned (the window is
            // word-aligned).
            unsafe {
                asm!("ld.shared.u16 {v}, [{a}];", v = out(reg16) v, a = in(reg32) a,
                     options(pure, readonly, nostack))
            };
            v
        }, emu: { u16::from_le_bytes(crate::emulator::ops::shared_ld::<2>("SmemHalves::ld", a)) })
    }
    /// Writes element `i`.
    #[inline(always)]
    pub fn st(self, i: usize, v: u16) {
        let a = self.addr(i);
        gpu!("SmemHalves::st", {
            // SAFETY: as `ld`.
            unsafe {
                asm!("st.shared.u16 [{a}], {v};", a = in(reg32) a, v = in(reg16) v,
                     options(nostack))
            }
        }, emu: { crate::emulator::ops::shared_st("SmemHalves::st", a, &v.to_le_bytes()) })
    }
}

impl Memory for SmemHalves {
    type Elem = u16;
    #[inline(always)]
    fn len(&self) -> usize {
        2 * self.words.len
    }
    #[inline(always)]
    fn load(&self, i: usize) -> Option<u16> {
        (i < self.len()).then(|| self.ld(i))
    }
    #[inline(always)]
    fn window(self, start: usize, len: usize) -> Option<Self> {
        // Whole words only: a window of halves starts and ends on a word.
        if start % 2 != 0 || len % 2 != 0 {
            return None;
        }
        self.words.window(start / 2, len / 2).map(Smem::halves)
    }
}

impl MemoryMut for SmemHalves {
    #[inline(always)]
    fn store(&self, i: usize, v: u16) -> Option<()> {
        (i < self.len()).then(|| self.st(i, v))
    }
}

/// The address through a register move: the optimiser then does not know
/// its low bits and keeps `addr + 4 i` an addition (which ptxas folds into
/// the load's immediate offset) instead of an `or`.
#[inline(always)]
fn opaque(at: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let addr: u32;
        // SAFETY: a register move.
        unsafe {
            asm!("mov.u32 {o}, {i};", o = out(reg32) addr, i = in(reg32) at, options(pure, nomem, nostack))
        };
        addr
    }
    #[cfg(not(target_arch = "nvptx64"))]
    at
}

impl Smem {
    /// The `f32` at word `i` of the window.
    #[inline(always)]
    pub fn ld(self, i: usize) -> f32 {
        gpu!("ld", {
            let a = self.addr(i, 1);
            let v: f32;
            // SAFETY: `a` lies in the buffer (the window and `addr` checks).
            unsafe {
                asm!("ld.shared.f32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) a,
                     options(pure, readonly, nostack))
            };
            v
        }, emu: { f32::from_le_bytes(crate::emulator::ops::shared_ld::<4>("ld", self.addr(i, 1))) })
    }

    /// Four `f32` at word `i` (16-byte aligned in the buffer).
    #[inline(always)]
    pub fn ld4(self, i: usize) -> F4 {
        gpu!("ld4", {
            let a = self.addr(i, 4);
            let (x, y, z, w): (f32, f32, f32, f32);
            // SAFETY: `a` lies in the buffer and is 16-byte aligned (checked).
            unsafe {
                asm!("ld.shared.v4.f32 {{{x}, {y}, {z}, {w}}}, [{a}];",
                     x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
                     a = in(reg32) a, options(pure, readonly, nostack))
            };
            F4([x, y, z, w])
        }, emu: {
            crate::emulator::ops::f4_of(crate::emulator::ops::shared_ld("ld4", self.addr(i, 4)))
        })
    }

    /// Writes the `f32` at word `i`.
    #[inline(always)]
    pub fn st(self, i: usize, v: f32) {
        gpu!("st", {
            let a = self.addr(i, 1);
            // SAFETY: `a` lies in the buffer (checked).
            unsafe {
                asm!("st.shared.f32 [{a}], {v};", a = in(reg32) a, v = in(reg32) v, options(nostack))
            }
        }, emu: { crate::emulator::ops::shared_st("st", self.addr(i, 1), &v.to_le_bytes()) })
    }

    /// Writes four `f32` at word `i` (16-byte aligned in the buffer).
    #[inline(always)]
    pub fn st4(self, i: usize, v: F4) {
        gpu!("st4", {
            let a = self.addr(i, 4);
            let [x, y, z, w] = v.0;
            // SAFETY: `a` lies in the buffer and is 16-byte aligned (checked).
            unsafe {
                asm!("st.shared.v4.f32 [{a}], {{{x}, {y}, {z}, {w}}};", a = in(reg32) a,
                     x = in(reg32) x, y = in(reg32) y, z = in(reg32) z, w = in(reg32) w,
                     options(nostack))
            }
        }, emu: {
            crate::emulator::ops::shared_st("st4", self.addr(i, 4), &crate::emulator::ops::bytes_of(v))
        })
    }

    /// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: this lane gives the
    /// address of word `i` (16-byte aligned; the row of 8 halves it names
    /// lies in the window) and receives four registers, as the copy atom
    /// `SM75_U32x4_LDSM_N` lays them out. The whole warp executes it
    /// together.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn ldmatrix_x4(self, i: usize) -> [u32; 4] {
        gpu!("ldmatrix_x4", {
            let a = self.addr(i, 4);
            let (r0, r1, r2, r3): (u32, u32, u32, u32);
            // SAFETY: `a` lies in the buffer, 16-byte aligned (checked); the
            // warp executes it converged (kernels call it with whole warps).
            unsafe {
                asm!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];",
                     r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3,
                     a = in(reg32) a, options(readonly, nostack))
            };
            [r0, r1, r2, r3]
        }, emu: {
            crate::emulator::ops::ldmatrix("ldmatrix_x4", core::panic::Location::caller(), self.addr(i, 4))
        })
    }

    /// `ldmatrix.sync.aligned.m8n8.x2.shared.b16`: as [`Smem::ldmatrix_x4`]
    /// with two matrices (`SM75_U32x2_LDSM_N`: lanes 0-15 give the rows;
    /// the others' addresses are checked but not used).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn ldmatrix_x2(self, i: usize) -> [u32; 2] {
        gpu!("ldmatrix_x2", {
            let a = self.addr(i, 4);
            let (r0, r1): (u32, u32);
            // SAFETY: as ldmatrix_x4.
            unsafe {
                asm!("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{{r0}, {r1}}}, [{a}];",
                     r0 = out(reg32) r0, r1 = out(reg32) r1,
                     a = in(reg32) a, options(readonly, nostack))
            };
            [r0, r1]
        }, emu: {
            let r = crate::emulator::ops::ldmatrix("ldmatrix_x2", core::panic::Location::caller(), self.addr(i, 4));
            [r[0], r[1]]
        })
    }

    /// `ldmatrix.sync.aligned.m8n8.x1.shared.b16`: one matrix, lanes 0-7
    /// give the rows (`SM75_U32x1_LDSM_N`).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn ldmatrix_x1(self, i: usize) -> u32 {
        gpu!("ldmatrix_x1", {
            let a = self.addr(i, 4);
            let r0: u32;
            // SAFETY: as ldmatrix_x4.
            unsafe {
                asm!("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{{r0}}}, [{a}];",
                     r0 = out(reg32) r0, a = in(reg32) a, options(readonly, nostack))
            };
            r0
        }, emu: {
            let r = crate::emulator::ops::ldmatrix("ldmatrix_x1", core::panic::Location::caller(), self.addr(i, 4));
            r[0]
        })
    }

    /// `ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16`: one matrix,
    /// transposed (`SM75_U16x2_LDSM_T`).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn ldmatrix_x1_trans(self, i: usize) -> u32 {
        gpu!("ldmatrix_x1_trans", {
            let a = self.addr(i, 4);
            let r0: u32;
            // SAFETY: as ldmatrix_x4.
            unsafe {
                asm!("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {{{r0}}}, [{a}];",
                     r0 = out(reg32) r0, a = in(reg32) a, options(readonly, nostack))
            };
            r0
        }, emu: {
            let r = crate::emulator::ops::ldmatrix("ldmatrix_x1_trans", core::panic::Location::caller(), self.addr(i, 4));
            r[0]
        })
    }

    /// `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`: two matrices,
    /// transposed (`SM75_U16x4_LDSM_T`).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn ldmatrix_x2_trans(self, i: usize) -> [u32; 2] {
        gpu!("ldmatrix_x2_trans", {
            let a = self.addr(i, 4);
            let (r0, r1): (u32, u32);
            // SAFETY: as ldmatrix_x4.
            unsafe {
                asm!("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{{r0}, {r1}}}, [{a}];",
                     r0 = out(reg32) r0, r1 = out(reg32) r1,
                     a = in(reg32) a, options(readonly, nostack))
            };
            [r0, r1]
        }, emu: {
            let r = crate::emulator::ops::ldmatrix("ldmatrix_x2_trans", core::panic::Location::caller(), self.addr(i, 4));
            [r[0], r[1]]
        })
    }

    /// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: four matrices,
    /// transposed (`SM75_U16x8_LDSM_T`).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn ldmatrix_x4_trans(self, i: usize) -> [u32; 4] {
        gpu!("ldmatrix_x4_trans", {
            let a = self.addr(i, 4);
            let (r0, r1, r2, r3): (u32, u32, u32, u32);
            // SAFETY: as ldmatrix_x4.
            unsafe {
                asm!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [{a}];",
                     r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3,
                     a = in(reg32) a, options(readonly, nostack))
            };
            [r0, r1, r2, r3]
        }, emu: {
            crate::emulator::ops::ldmatrix("ldmatrix_x4_trans", core::panic::Location::caller(), self.addr(i, 4))
        })
    }

    /// `cp.async.cg.shared.global` of 16 bytes (`SM80_CP_ASYNC_CACHEGLOBAL`):
    /// element `v` of the run `src` to word `i` (16-byte aligned) of the
    /// window, without registers. The data is there after a
    /// [`cp_async_wait`](crate::cp_async_wait) that covers it (and a
    /// barrier for other threads' copies).
    #[inline(always)]
    pub fn cp_async16<const N: usize>(self, i: usize, src: GlobalRun<F4, N>, v: usize) {
        gpu!("cp_async16", {
            let a = self.addr(i, 4);
            let g = src.ptr(v);
            // SAFETY: element v < N of the run is in its buffer (checked by
            // `ptr` and when the run was made), `a` in the shared buffer and
            // aligned (checked).
            unsafe {
                asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {g}; cp.async.cg.shared.global [{a}], [g], 16; }}",
                     a = in(reg32) a, g = in(reg64) g, options(nostack))
            }
        }, emu: {
            // The source is read at issue; the bytes land at the wait.
            let data = crate::emulator::ops::bytes_of(src.ld(v));
            crate::emulator::ops::cp_async("cp_async16", self.addr(i, 4), data)
        })
    }

    /// Row `row` of the column `src` (16 bytes) to word `i` (16-byte
    /// aligned) of the window, or 16 bytes of zeros when `row` lies past
    /// the matrix (a partial tile's rows past the edge): one `cp.async`,
    /// its source size 16 or 0, no branch. The matrix was checked when made
    /// ([`Global::rows`](crate::Global::rows)), so no access is checked
    /// here beyond the shared word.
    #[inline(always)]
    pub fn cp_async16_row_or_zero(self, i: usize, src: GlobalColumn<F4>, row: u32) {
        gpu!("cp_async16_row_or_zero", {
            let a = self.addr(i, 4);
            let (g, bytes) = src.ptr_or_start(row);
            // SAFETY: `g` is the column's element in row `row` < rows (in
            // the buffer, checked when the matrix was made) when `bytes` is
            // 16; with 0 nothing is read. `a` lies in the shared buffer,
            // aligned (checked).
            unsafe {
                asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {g}; cp.async.cg.shared.global [{a}], [g], 16, {n}; }}",
                     a = in(reg32) a, g = in(reg64) g, n = in(reg32) bytes, options(nostack))
            }
        }, emu: {
            // Zeros past the matrix, as the source size 0 gives.
            let data = crate::emulator::ops::bytes_of(src.ld(row).unwrap_or_default());
            crate::emulator::ops::cp_async("cp_async16_row_or_zero", self.addr(i, 4), data)
        })
    }
}

impl Memory for Smem {
    type Elem = f32;
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    fn load(&self, i: usize) -> Option<f32> {
        if !self.fits(i, 1) {
            return None;
        }
        Some(self.ld(i))
    }
    #[inline(always)]
    fn window(self, start: usize, len: usize) -> Option<Self> {
        match start.checked_add(len) {
            Some(end) if end <= self.len => Some(Smem {
                addr: opaque(self.addr + 4 * start as u32),
                offset: self.offset + start,
                len,
            }),
            _ => None,
        }
    }
}

impl MemoryMut for Smem {
    #[inline(always)]
    fn store(&self, i: usize, v: f32) -> Option<()> {
        if !self.fits(i, 1) {
            return None;
        }
        self.st(i, v);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::Smem;

    /// The checks, on the host: a window inside its buffer, accesses
    /// inside the window and aligned to their width.
    #[test]
    fn windows_and_accesses_are_checked() {
        let w = Smem::make(0x400, 1024, 8, 16);
        assert_eq!(
            (w.len(), w.addr(3, 1), w.addr(8, 4)),
            (16, 0x400 + 44, 0x400 + 64)
        );
        assert!(w.fits(12, 4) && !w.fits(13, 4) && !w.fits(14, 4) && !w.fits(16, 1));
        assert!(std::panic::catch_unwind(|| Smem::make(0, 1024, 1000, 25)).is_err());
        assert!(std::panic::catch_unwind(|| Smem::make(0, 1024, usize::MAX, 2)).is_err());
        assert!(std::panic::catch_unwind(|| w.addr(2, 4)).is_err()); // word 10: not 16-byte aligned
                                                                     // The same window as 16-bit elements: 32 of them, 2 bytes apart.
        use layout_core::tensor::memory::Memory;
        let h = w.halves();
        assert_eq!((h.len(), h.addr(3)), (32, 0x400 + 32 + 6));
        assert!(std::panic::catch_unwind(|| h.addr(32)).is_err());
        assert_eq!(h.window(2, 4).map(|x| x.len()), Some(4));
        assert!(h.window(1, 4).is_none() && h.window(30, 4).is_none());
    }
}
