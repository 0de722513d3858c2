//! TMA: loads (and cluster multicast), stores, reduce-adds and prefetches
//! through the emulator's tensor maps: the box, the swizzle of its shared
//! layout, zeros past the tensor on loads, nothing written past it.

use super::buffer::{read_global, write_global};
use super::error::ErrorKind;
use super::state::{fail, with};
use std::cell::RefCell;
use std::format;
use std::string::String;
use std::vec::Vec;

/// A tensor map's swizzle of the shared box (CUDA's
/// `CU_TENSOR_MAP_SWIZZLE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmaSwizzle {
    /// None.
    None,
    /// 32-byte swizzle.
    B32,
    /// 64-byte swizzle.
    B64,
    /// 128-byte swizzle.
    B128,
}

impl TmaSwizzle {
    /// The XOR mask of the 16-byte chunk bits (bits [4, 7) of the
    /// address take bits [7, 10) under this mask).
    fn mask(self) -> u32 {
        match self {
            TmaSwizzle::None => 0,
            TmaSwizzle::B32 => 1,
            TmaSwizzle::B64 => 3,
            TmaSwizzle::B128 => 7,
        }
    }
    /// A shared byte address under the swizzle: bits [4, 7) take the XOR
    /// of bits [7, 10) under the mask.
    fn apply(self, a: u32) -> u32 {
        a ^ (((a >> 7) & self.mask()) << 4)
    }
    fn span(self) -> usize {
        16 << self.mask().count_ones()
    }
}

/// A tensor map's element type, for the reduce-adds (CUDA's
/// `CU_TENSOR_MAP_DATA_TYPE_*`); the others move bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmaType {
    /// f32.
    F32,
    /// f16.
    F16,
    /// bf16.
    Bf16,
    /// Bytes only (a reduce-add on it is refused).
    Bits,
}

/// What a tensor map describes: a tensor of up to 3 modes over a buffer,
/// innermost first, and the box a copy moves.
#[derive(Clone, Copy, Debug)]
struct MapDesc {
    base: usize,
    elem: usize,
    ty: TmaType,
    dims: [usize; 3],
    strides: [usize; 2],
    boxes: [usize; 2],
    swizzle: TmaSwizzle,
}

impl MapDesc {
    /// The box's bytes.
    fn box_bytes(&self) -> usize {
        self.boxes[0] * self.boxes[1] * self.elem
    }
}

std::thread_local! {
    static MAPS: RefCell<Vec<(usize, MapDesc)>> = const { RefCell::new(Vec::new()) };
}

/// A tensor map for emulated TMA copies: the 128 bytes a kernel is given
/// the address of (as `layout-launch`'s `Stream::tensor_map_2d` /
/// `tensor_map_3d` make for the GPU), and what they describe, known to the
/// emulator.
///
/// ```
/// use layout_device::emulator::{Buffer, TensorMap, TmaSwizzle};
/// let a = Buffer::filled(0u16, 200 * 64);
/// // A 200 x 64 f16 matrix, boxes of 64 rows x 64 columns, 128-byte swizzle.
/// let map = TensorMap::tiled_2d(&a, (200, 64), 64, (64, 64), TmaSwizzle::B128).unwrap();
/// assert_eq!(map.ptr() as usize % 64, 0);
/// assert!(TensorMap::tiled_2d(&a, (201, 64), 64, (64, 64), TmaSwizzle::B128).is_err());
/// ```
pub struct TensorMap {
    bytes: super::Buffer<u64>,
}

impl TensorMap {
    /// The map of a row-major `rows x cols` matrix of `T` in `buffer`
    /// (`row_stride` elements from row to row), boxes of `box_rows x
    /// box_cols`. Refused (one line) when the matrix leaves the buffer, a
    /// box side is outside 1..=256, or a box row is not a multiple of 16
    /// bytes or exceeds the swizzle.
    pub fn tiled_2d<T: Copy>(
        buffer: &super::Buffer<T>,
        (rows, cols): (usize, usize),
        row_stride: usize,
        (box_rows, box_cols): (usize, usize),
        swizzle: TmaSwizzle,
    ) -> Result<TensorMap, String> {
        Self::tiled_3d(
            buffer,
            (1, rows, cols),
            (rows * row_stride, row_stride),
            (box_rows, box_cols),
            swizzle,
        )
    }

    /// The map of `planes` row-major `rows x cols` matrices (plane `p`'s
    /// row `r` at `p plane_stride + r row_stride` elements), boxes of one
    /// plane's `box_rows x box_cols`; refused as [`TensorMap::tiled_2d`].
    pub fn tiled_3d<T: Copy>(
        buffer: &super::Buffer<T>,
        (planes, rows, cols): (usize, usize, usize),
        (plane_stride, row_stride): (usize, usize),
        (box_rows, box_cols): (usize, usize),
        swizzle: TmaSwizzle,
    ) -> Result<TensorMap, String> {
        let elem = core::mem::size_of::<T>();
        let reach = planes
            .checked_sub(1)
            .and_then(|p| p.checked_mul(plane_stride))
            .and_then(|x| x.checked_add(rows.checked_sub(1)?.checked_mul(row_stride)?))
            .and_then(|x| x.checked_add(cols));
        if cols > row_stride || reach.is_none_or(|r| r > buffer.len()) {
            return Err(format!(
                "tensor map: {planes} x {rows} x {cols} with strides ({plane_stride}, {row_stride}) leaves the buffer of {}",
                buffer.len()
            ));
        }
        if !(1..=256).contains(&box_rows) || !(1..=256).contains(&box_cols) {
            return Err(format!(
                "tensor map: box {box_rows} x {box_cols}: each side 1 to 256"
            ));
        }
        let row_bytes = box_cols * elem;
        if row_bytes % 16 != 0 || (swizzle != TmaSwizzle::None && row_bytes > swizzle.span()) {
            return Err(format!(
                "tensor map: a box row of {row_bytes} bytes (a multiple of 16, at most the swizzle's {})",
                swizzle.span()
            ));
        }
        let bytes = super::Buffer::filled(0u64, 16);
        let desc = MapDesc {
            base: buffer.addr(),
            elem,
            ty: match elem {
                4 => TmaType::F32,
                2 => TmaType::F16,
                _ => TmaType::Bits,
            },
            dims: [cols, rows, planes],
            strides: [row_stride * elem, plane_stride * elem],
            boxes: [box_cols, box_rows],
            swizzle,
        };
        MAPS.with(|m| m.borrow_mut().push((bytes.addr(), desc)));
        Ok(TensorMap { bytes })
    }

    /// The map with element type `ty` for reduce-adds (by default f32 for
    /// 4-byte elements, f16 for 2-byte ones: bf16 data says so here).
    pub fn typed(self, ty: TmaType) -> TensorMap {
        let at = self.bytes.addr();
        MAPS.with(|m| {
            if let Some(e) = m.borrow_mut().iter_mut().rev().find(|e| e.0 == at) {
                e.1.ty = ty;
            }
        });
        self
    }

    /// The map's address: the kernel's `*const u64` argument.
    pub fn ptr(&self) -> *const u64 {
        self.bytes.addr() as *const u64
    }
}

/// A TMA load of the box at `coords` (innermost first) of the map at
/// `map`, into `dst` (a window of `window` bytes) of this block, or of
/// every block of the cluster in `mask`, completing on the barrier at
/// `bar` of each.
pub(crate) fn tma_load(
    name: &str,
    dst: u32,
    window: usize,
    map: u64,
    coords: [i32; 3],
    bar: u32,
    mask: Option<u16>,
) {
    let d = open(name, map, dst, window);
    // The box, gathered (zeros past the tensor) and laid out swizzled.
    let mut data = std::vec![0u8; d.box_bytes()];
    each_inside(name, &d, coords, |g, at| {
        read_global(g, &mut data[at..at + d.elem])
    });
    let r = with(|s| {
        s.as_async(|s| {
            let t = s.cur;
            let own = s.threads[t].block;
            let targets: Vec<usize> = match mask {
                None => std::vec![own],
                Some(m) => (0..s.blocks.len()).filter(|b| m >> b & 1 == 1).collect(),
            };
            for b in targets {
                for (chunk, bytes) in data.chunks(16).enumerate() {
                    let a = d.swizzle.apply(dst + 16 * chunk as u32);
                    s.shared_write_block(t, b, a, bytes)?;
                }
                s.complete_tx(t, b, bar, d.box_bytes() as u32)
                    .map_err(|m| (ErrorKind::Mbarrier, m))?;
            }
            s.threads[t].clock[t] += 1;
            Ok(())
        })
    });
    if let Err((kind, m)) = r.expect("emulating") {
        fail(kind, m)
    }
}

/// A TMA store of the box at `coords` of the map at `map` from `src` (a
/// window of `window` bytes) of this block: the box read from shared
/// memory as a load lays it out (swizzled), each element inside the
/// tensor written to its buffer (the writer recorded), the rest dropped.
pub(crate) fn tma_store(name: &str, src: u32, window: usize, map: u64, coords: [i32; 3]) {
    let d = open(name, map, src, window);
    let data = read_box(&d, src);
    each_inside(name, &d, coords, |g, at| {
        write_global(g, &data[at..at + d.elem])
    });
}

/// A TMA reduce-add: as [`tma_store`], each element of the box added to
/// the tensor's (in the map's element type, rounded once as the hardware's
/// add), the rest dropped.
pub(crate) fn tma_reduce_add(name: &str, src: u32, window: usize, map: u64, coords: [i32; 3]) {
    let d = open(name, map, src, window);
    if d.ty == TmaType::Bits {
        fail(
            ErrorKind::Tma,
            format!("`{name}`: the map's elements have no type to add in (`TensorMap::typed`)"),
        )
    }
    let data = read_box(&d, src);
    let add = |old: &[u8], new: &[u8]| -> [u8; 4] {
        let mut out = [0u8; 4];
        match d.ty {
            TmaType::F32 => {
                let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                out.copy_from_slice(&(f(old) + f(new)).to_le_bytes());
            }
            TmaType::F16 => {
                let f = |b: &[u8]| half::f16::from_le_bytes([b[0], b[1]]).to_f32();
                out[..2].copy_from_slice(&half::f16::from_f32(f(old) + f(new)).to_le_bytes());
            }
            TmaType::Bf16 => {
                let f = |b: &[u8]| half::bf16::from_le_bytes([b[0], b[1]]).to_f32();
                out[..2].copy_from_slice(&half::bf16::from_f32(f(old) + f(new)).to_le_bytes());
            }
            TmaType::Bits => {}
        }
        out
    };
    each_inside(name, &d, coords, |g, at| {
        let mut old = [0u8; 4];
        read_global(g, &mut old[..d.elem])?;
        write_global(g, &add(&old[..d.elem], &data[at..at + d.elem])[..d.elem])
    });
}

/// A TMA prefetch: nothing to compute, the map checked.
pub(crate) fn tma_prefetch(name: &str, map: u64) {
    if !super::state::active() {
        crate::host::gpu_only(name)
    }
    let _ = map_desc(name, map);
}

/// What every TMA copy starts with: an emulated run, the map at `map`,
/// and a box that fits the shared window at `at` (of `window` bytes).
fn open(name: &str, map: u64, at: u32, window: usize) -> MapDesc {
    if !super::state::active() {
        crate::host::gpu_only(name)
    }
    let d = map_desc(name, map);
    check_box(name, &d, at, window);
    d
}

/// The box from shared memory at `src` (laid out as a load lays it,
/// swizzled), read by the running thread as the async proxy.
fn read_box(d: &MapDesc, src: u32) -> Vec<u8> {
    let mut data = std::vec![0u8; d.box_bytes()];
    let r = with(|s| {
        s.as_async(|s| {
            let t = s.cur;
            let b = s.threads[t].block;
            for (chunk, bytes) in data.chunks_mut(16).enumerate() {
                s.shared_read_block(t, b, d.swizzle.apply(src + 16 * chunk as u32), bytes)?;
            }
            Ok(())
        })
    });
    if let Err((kind, m)) = r.expect("emulating") {
        fail(kind, m)
    }
    data
}

/// `f(global address, offset in the box)` for each box element at
/// `coords` that lies in the tensor; an error of `f` stops the run.
fn each_inside(
    name: &str,
    d: &MapDesc,
    coords: [i32; 3],
    mut f: impl FnMut(usize, usize) -> Result<(), String>,
) {
    for r in 0..d.boxes[1] {
        for c in 0..d.boxes[0] {
            if let Some(g) = global_of(d, coords, r, c) {
                if let Err(m) = f(g, (r * d.boxes[0] + c) * d.elem) {
                    fail(ErrorKind::Global, format!("`{name}`: {m}"))
                }
            }
        }
    }
}

/// The map at `map`, or a failed run.
fn map_desc(name: &str, map: u64) -> MapDesc {
    let desc = MAPS.with(|m| {
        m.borrow()
            .iter()
            .rev()
            .find(|(a, _)| *a as u64 == map)
            .map(|e| e.1)
    });
    match desc {
        Some(d) => d,
        None => fail(
            ErrorKind::Tma,
            format!("`{name}`: {map:#x} is not a tensor map the emulator made"),
        ),
    }
}

/// The box fits the window, and the window is aligned for the swizzle.
fn check_box(name: &str, d: &MapDesc, at: u32, window: usize) {
    let box_bytes = d.box_bytes();
    if box_bytes > window {
        fail(
            ErrorKind::Tma,
            format!(
                "`{name}`: the map's box of {box_bytes} bytes overruns the {window}-byte window"
            ),
        )
    }
    let repeat = 128 * (d.swizzle.mask() as usize + 1);
    if d.swizzle != TmaSwizzle::None && at as usize % repeat != 0 {
        fail(
            ErrorKind::Tma,
            format!("`{name}`: the shared address {at:#x} is not aligned to the swizzle's {repeat} bytes"),
        )
    }
}

/// The global address of box element (r, c) at `coords`, when it lies in
/// the tensor.
fn global_of(d: &MapDesc, coords: [i32; 3], r: usize, c: usize) -> Option<usize> {
    let (cc, rr, pp) = (
        i64::from(coords[0]) + c as i64,
        i64::from(coords[1]) + r as i64,
        i64::from(coords[2]),
    );
    let inside = |x: i64, n: usize| x >= 0 && (x as usize) < n;
    (inside(cc, d.dims[0]) && inside(rr, d.dims[1]) && inside(pp, d.dims[2])).then(|| {
        d.base + pp as usize * d.strides[1] + rr as usize * d.strides[0] + cc as usize * d.elem
    })
}
