//! Hopper: `mbarrier`s (arrivals, transaction bytes, phases by parity),
//! TMA loads from the emulator's tensor maps (box, swizzle, zeros past the
//! tensor, multicast to a cluster's blocks), and `wgmma` from its matrix
//! descriptors, decoded by `layout_core::atom::gmma`.

use super::buffer::{read_global, write_global};
use super::sched::{fail, spin, suspend, with, Sim, Site};
use super::ErrorKind;
use layout_core::atom::gmma::{GmmaDescriptor, Major};
use layout_core::atom::MmaAtom;
use layout_core::layout::Congruent;
use layout_core::{IntTuple, Layout};
use std::cell::RefCell;
use std::format;
use std::string::String;
use std::vec::Vec;

/// One `mbarrier`: the arrivals a phase expects, those still missing, the
/// transaction bytes still expected, the phases completed, and the clocks
/// released into the current phase and by the last completed one.
pub(crate) struct Mbar {
    count: u32,
    pending: u32,
    tx: i64,
    completed: u64,
    release: Vec<u32>,
    done: Vec<u32>,
}

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
    fn complete_tx(&mut self, t: usize, b: usize, addr: u32, bytes: u32) -> Result<(), String> {
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
        None => crate::hw::gpu_only(name),
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
    if !super::sched::active() {
        crate::hw::gpu_only(name)
    }
    let d = map_desc(name, map);
    let box_bytes = d.boxes[0] * d.boxes[1] * d.elem;
    check_box(name, &d, dst, window);
    // The box, gathered (zeros past the tensor) and laid out swizzled.
    let mut data = std::vec![0u8; box_bytes];
    for r in 0..d.boxes[1] {
        for c in 0..d.boxes[0] {
            if let Some(g) = global_of(&d, coords, r, c) {
                let at = (r * d.boxes[0] + c) * d.elem;
                if let Err(m) = read_global(g, &mut data[at..at + d.elem]) {
                    fail(ErrorKind::Global, format!("`{name}`: {m}"))
                }
            }
        }
    }
    let r = with(|s| {
        s.as_async(|s| {
            let t = s.cur;
            let own = s.threads[t].block;
            let targets: Vec<usize> = match mask {
                None => std::vec![own],
                Some(m) => (0..s.blocks.len()).filter(|b| m >> b & 1 == 1).collect(),
            };
            for b in targets {
                for chunk in 0..box_bytes / 16 {
                    let a = dst + 16 * chunk as u32;
                    let a = a ^ (((a >> 7) & d.swizzle.mask()) << 4);
                    s.shared_write_block(t, b, a, &data[16 * chunk..16 * chunk + 16])
                        .map_err(|e| (e.0, e.1))?;
                }
                s.complete_tx(t, b, bar, box_bytes as u32)
                    .map_err(|m| (ErrorKind::Mbarrier, m))?;
            }
            s.threads[t].clock[t] += 1;
            Ok(())
        })
    });
    match r.expect("emulating") {
        Ok(()) => {}
        Err((kind, m)) => fail(kind, m),
    }
}

/// A TMA store of the box at `coords` of the map at `map` from `src` (a
/// window of `window` bytes) of this block: the box read from shared
/// memory as a load lays it out (swizzled), each element inside the
/// tensor written to its buffer (the writer recorded), the rest dropped.
pub(crate) fn tma_store(name: &str, src: u32, window: usize, map: u64, coords: [i32; 3]) {
    if !super::sched::active() {
        crate::hw::gpu_only(name)
    }
    let d = map_desc(name, map);
    let box_bytes = d.boxes[0] * d.boxes[1] * d.elem;
    check_box(name, &d, src, window);
    let mut data = std::vec![0u8; box_bytes];
    let r = with(|s| {
        s.as_async(|s| {
            let t = s.cur;
            let b = s.threads[t].block;
            for chunk in 0..box_bytes / 16 {
                let a = src + 16 * chunk as u32;
                let a = a ^ (((a >> 7) & d.swizzle.mask()) << 4);
                s.shared_read_block(t, b, a, &mut data[16 * chunk..16 * chunk + 16])?;
            }
            Ok(())
        })
    });
    if let Err((kind, m)) = r.expect("emulating") {
        fail(kind, m)
    }
    for r in 0..d.boxes[1] {
        for c in 0..d.boxes[0] {
            if let Some(g) = global_of(&d, coords, r, c) {
                let at = (r * d.boxes[0] + c) * d.elem;
                if let Err(m) = write_global(g, &data[at..at + d.elem]) {
                    fail(ErrorKind::Global, format!("`{name}`: {m}"))
                }
            }
        }
    }
}

/// A TMA reduce-add: as [`tma_store`], each element of the box added to
/// the tensor's (in the map's element type, rounded once as the hardware's
/// add), the rest dropped.
pub(crate) fn tma_reduce_add(name: &str, src: u32, window: usize, map: u64, coords: [i32; 3]) {
    if !super::sched::active() {
        crate::hw::gpu_only(name)
    }
    let d = map_desc(name, map);
    if d.ty == TmaType::Bits {
        fail(
            ErrorKind::Tma,
            format!("`{name}`: the map's elements have no type to add in (`TensorMap::typed`)"),
        )
    }
    let box_bytes = d.boxes[0] * d.boxes[1] * d.elem;
    check_box(name, &d, src, window);
    let mut data = std::vec![0u8; box_bytes];
    let r = with(|s| {
        s.as_async(|s| {
            let t = s.cur;
            let b = s.threads[t].block;
            for chunk in 0..box_bytes / 16 {
                let a = src + 16 * chunk as u32;
                let a = a ^ (((a >> 7) & d.swizzle.mask()) << 4);
                s.shared_read_block(t, b, a, &mut data[16 * chunk..16 * chunk + 16])?;
            }
            Ok(())
        })
    });
    if let Err((kind, m)) = r.expect("emulating") {
        fail(kind, m)
    }
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
    for r in 0..d.boxes[1] {
        for c in 0..d.boxes[0] {
            if let Some(g) = global_of(&d, coords, r, c) {
                let at = (r * d.boxes[0] + c) * d.elem;
                let mut old = [0u8; 4];
                let done = read_global(g, &mut old[..d.elem]).and_then(|()| {
                    write_global(g, &add(&old[..d.elem], &data[at..at + d.elem])[..d.elem])
                });
                if let Err(m) = done {
                    fail(ErrorKind::Global, format!("`{name}`: {m}"))
                }
            }
        }
    }
}

/// A TMA prefetch: nothing to compute, the map checked.
pub(crate) fn tma_prefetch(name: &str, map: u64) {
    if !super::sched::active() {
        crate::hw::gpu_only(name)
    }
    let _ = map_desc(name, map);
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
    let box_bytes = d.boxes[0] * d.boxes[1] * d.elem;
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
    n: usize,
    elem: Elem,
    acc_kind: AccKind,
    c_pos: fn(usize) -> usize,
    a_pos: fn(usize) -> usize,
    a: Result<u64, [u32; 4]>,
    b: u64,
    b_mn: bool,
    acc: Vec<u32>,
    accumulate: bool,
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

/// A GMMA's input element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    S8,
    U8,
}

impl Elem {
    fn of(name: &str) -> Elem {
        match name {
            "bf16" => Elem::Bf16,
            "tf32" => Elem::Tf32,
            "e4m3" => Elem::E4m3,
            "e5m2" => Elem::E5m2,
            "s8" => Elem::S8,
            "u8" => Elem::U8,
            _ => Elem::F16,
        }
    }
    /// Its size in bytes.
    fn bytes(self) -> usize {
        match self {
            Elem::F16 | Elem::Bf16 => 2,
            Elem::Tf32 => 4,
            _ => 1,
        }
    }
    /// The instruction's K: 32 bytes of each operand row.
    fn k(self) -> usize {
        32 / self.bytes()
    }
    /// The value of an element's bits (little-endian bytes, `bytes()` of
    /// them), exactly: tf32 reads the 19 bits the instruction uses (the
    /// low 13 mantissa bits ignored); e4m3 (bias 7, no infinities, S.1111.111
    /// NaN) and e5m2 (bias 15, IEEE-like) with their subnormals.
    fn value(self, b: &[u8]) -> f64 {
        let fp8 = |x: u8, mant_bits: u32, bias: i32| {
            let sign = if x & 0x80 != 0 { -1.0 } else { 1.0 };
            let e = i32::from(x & 0x7f) >> mant_bits;
            let m = f64::from(x & ((1 << mant_bits) - 1));
            let scale = f64::from(1u32 << mant_bits);
            let max_e = (1 << (7 - mant_bits)) - 1;
            if mant_bits == 2 && e == max_e {
                return if m == 0.0 {
                    sign * f64::INFINITY
                } else {
                    f64::NAN
                };
            }
            if mant_bits == 3 && e == max_e && m == 7.0 {
                return f64::NAN;
            }
            if e == 0 {
                sign * m / scale * 2f64.powi(1 - bias)
            } else {
                sign * (1.0 + m / scale) * 2f64.powi(e - bias)
            }
        };
        match self {
            Elem::F16 => f64::from(half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()),
            Elem::Bf16 => {
                f64::from(half::bf16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32())
            }
            Elem::Tf32 => {
                let bits = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & 0xffff_e000;
                f64::from(f32::from_bits(bits))
            }
            Elem::E4m3 => fp8(b[0], 3, 7),
            Elem::E5m2 => fp8(b[0], 2, 15),
            Elem::S8 => f64::from(b[0] as i8),
            Elem::U8 => f64::from(b[0]),
        }
    }
}

/// A GMMA's accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AccKind {
    F32,
    /// f16 pairs in 32-bit registers.
    F16,
    S32,
}

impl AccBits for u32 {
    fn bits(self) -> u32 {
        self
    }
    fn of_bits(b: u32) -> Self {
        b
    }
}

/// This thread's part of `wgmma.mma_async` m64nNk16 (f16 inputs, f32
/// accumulators): A by descriptor (`Ok`) or registers, B by descriptor.
/// Computed once the warpgroup's 128 threads are in: each output's 16
/// products (exact) and its accumulator summed exactly and rounded once.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gmma<Atom, T, CS, CD, AS, AD>(
    _: Atom,
    site: Site,
    ty: &'static str,
    a: Result<u64, [u32; 4]>,
    (b, b_mn): (u64, bool),
    acc: &mut [T],
    accumulate: bool,
) where
    Atom: MmaAtom<CLayout = Layout<CS, CD>, ALayout = Layout<AS, AD>>,
    CS: Congruent<CD> + Default,
    CD: IntTuple + Default,
    AS: Congruent<AD> + Default,
    AD: IntTuple + Default,
    T: AccBits,
{
    let full = core::any::type_name::<Atom>();
    let name = full.rsplit("::").next().unwrap_or(full);
    if !super::sched::active() {
        crate::hw::gpu_only(name)
    }
    fn c_pos<Atom, CS, CD>(i: usize) -> usize
    where
        Atom: MmaAtom<CLayout = Layout<CS, CD>>,
        CS: Congruent<CD> + Default,
        CD: IntTuple + Default,
    {
        <Atom::CLayout as Default>::default().call(i)
    }
    fn a_pos<Atom, AS, AD>(i: usize) -> usize
    where
        Atom: MmaAtom<ALayout = Layout<AS, AD>>,
        AS: Congruent<AD> + Default,
        AD: IntTuple + Default,
    {
        <Atom::ALayout as Default>::default().call(i)
    }
    // "acc.a.b": the accumulator type, then the inputs'.
    let mut parts = ty.split('.');
    let acc_kind = match parts.next() {
        Some("f16") => AccKind::F16,
        Some("s32") => AccKind::S32,
        _ => AccKind::F32,
    };
    let elem = Elem::of(parts.next().unwrap_or("f16"));
    let mine = WgOperand {
        n: if acc_kind == AccKind::F16 {
            4 * acc.len()
        } else {
            2 * acc.len()
        },
        elem,
        acc_kind,
        c_pos: c_pos::<Atom, CS, CD>,
        a_pos: a_pos::<Atom, AS, AD>,
        a,
        b,
        b_mn,
        acc: acc.iter().map(|x| x.bits()).collect(),
        accumulate,
    };
    let done = with(|s| {
        let t = s.cur;
        let (blk, tid) = (s.threads[t].block, s.threads[t].tid);
        let (g, lane) = (tid / 128, tid % 128);
        if (g + 1) * 128 > s.per_block {
            s.fault = Some(s.error_at(
                Some(t),
                ErrorKind::Divergence,
                format!(
                    "`{name}` needs a whole warpgroup; warpgroup {g} has fewer than 128 threads"
                ),
            ));
            return true;
        }
        if let Some(other) = s.blocks[blk].warpgroups[g].site.filter(|x| *x != site) {
            s.fault = Some(s.error_at(
                Some(t),
                ErrorKind::Divergence,
                format!("threads of warpgroup {g} at two `wgmma`s: {site} and {other}"),
            ));
            return true;
        }
        let slot = &mut s.blocks[blk].warpgroups[g];
        slot.site = Some(site);
        slot.arrived |= 1 << lane;
        slot.ops[lane] = Some(mine);
        s.threads[t].wait = super::sched::Wait::Warp(name, site);
        s.progress += 1;
        if slot.arrived != u128::MAX {
            return false;
        }
        let ops: Vec<WgOperand> = core::mem::replace(slot, WgSlot::new())
            .ops
            .into_iter()
            .map(|o| o.expect("all arrived"))
            .collect();
        let first = s.global(blk, 128 * g);
        match s.as_async(|s| compute(s, blk, first, &ops)) {
            Ok(outs) => {
                for (l, o) in outs.into_iter().enumerate() {
                    s.threads[first + l].wide = o;
                    s.threads[first + l].wait = super::sched::Wait::Run;
                }
            }
            Err((kind, m)) => s.fault = Some(s.error_at(Some(t), kind, m)),
        }
        true
    })
    .expect("emulating");
    if !done || with(|s| s.fault.is_some()).unwrap_or(false) {
        suspend();
    }
    let out = with(|s| core::mem::take(&mut s.threads[s.cur].wide)).expect("emulating");
    for (x, b) in acc.iter_mut().zip(out) {
        *x = T::of_bits(b);
    }
}

/// D = A·Bᵀ (+ C) for the warpgroup whose thread 0 is `first`.
fn compute(
    s: &mut Sim,
    blk: usize,
    first: usize,
    ops: &[WgOperand],
) -> Result<Vec<Vec<u32>>, (ErrorKind, String)> {
    let o0 = &ops[0];
    if ops.iter().any(|o| {
        o.a.is_ok() != o0.a.is_ok()
            || o.a.ok() != o0.a.ok()
            || o.b != o0.b
            || o.accumulate != o0.accumulate
            || o.n != o0.n
            || o.elem != o0.elem
            || o.acc_kind != o0.acc_kind
    }) {
        return Err((
            ErrorKind::Divergence,
            "the threads of a warpgroup gave different descriptors or scale-d to one `wgmma`"
                .into(),
        ));
    }
    let (n, elem) = (o0.n, o0.elem);
    let (kk, bytes) = (elem.k(), elem.bytes());
    // An operand element read from shared memory, as the warpgroup's
    // first thread.
    let read = |s: &mut Sim, addr: u32| -> Result<f64, (ErrorKind, String)> {
        let mut b = [0u8; 4];
        s.shared_read_block(first, blk, addr, &mut b[..bytes])?;
        Ok(elem.value(&b[..bytes]))
    };
    // Element (mn, k)'s address: the 16-bit forms by major; the others are
    // K-major only.
    let address = |d: GmmaDescriptor, major: Major, mn: usize, k: usize| {
        if bytes == 2 {
            d.element_address(major, (mn, k))
        } else {
            d.element_address_k_major(bytes, (mn, k))
        }
    };
    let mut a = std::vec![std::vec![0f64; kk]; 64];
    match o0.a {
        Ok(desc) => {
            let d = GmmaDescriptor::from_bits(desc);
            for (m, row) in a.iter_mut().enumerate() {
                for (k, x) in row.iter_mut().enumerate() {
                    *x = read(s, address(d, Major::K, m, k))?;
                }
            }
        }
        Err(_) => {
            // Each thread's four registers hold its 16 / bytes... values in
            // the atom's A value order, packed from the low byte up.
            let values = 16 / bytes;
            for (t, o) in ops.iter().enumerate() {
                let Err(regs) = o.a else {
                    unreachable!("checked uniform")
                };
                let mut raw = [0u8; 16];
                for (r, reg) in regs.iter().enumerate() {
                    raw[4 * r..4 * r + 4].copy_from_slice(&reg.to_le_bytes());
                }
                for v in 0..values {
                    let p = (o0.a_pos)(t + 128 * v);
                    a[p % 64][p / 64] = elem.value(&raw[v * bytes..(v + 1) * bytes]);
                }
            }
        }
    }
    let db = GmmaDescriptor::from_bits(o0.b);
    let major = if o0.b_mn { Major::MN } else { Major::K };
    let mut bm = std::vec![std::vec![0f64; kk]; n];
    for (j, row) in bm.iter_mut().enumerate() {
        for (k, x) in row.iter_mut().enumerate() {
            *x = read(s, address(db, major, j, k))?;
        }
    }
    let mut outs = Vec::with_capacity(128);
    for (t, o) in ops.iter().enumerate() {
        let mut d = std::vec![0u32; o.acc.len()];
        for v in 0..n / 2 {
            let p = (o0.c_pos)(t + 128 * v);
            let (m, j) = (p % 64, p / 64);
            // Value v: a 32-bit register, or half v % 2 of f16 pair v / 2.
            let c = match (o0.accumulate, o0.acc_kind) {
                (false, _) => 0.0,
                (true, AccKind::F32) => f64::from(f32::from_bits(o.acc[v])),
                (true, AccKind::S32) => f64::from(o.acc[v] as i32),
                (true, AccKind::F16) => {
                    let h = (o.acc[v / 2] >> (16 * (v % 2))) as u16;
                    f64::from(half::f16::from_bits(h).to_f32())
                }
            };
            let x = (0..kk).fold(c, |acc, k| acc + a[m][k] * bm[j][k]);
            match o0.acc_kind {
                AccKind::F32 => d[v] = (x as f32).to_bits(),
                // Integer sums are exact in f64 (|x| < 2^53); the register
                // wraps as the instruction's (no `.satfinite`).
                AccKind::S32 => d[v] = (x as i64) as i32 as u32,
                AccKind::F16 => {
                    let h = u32::from(half::f16::from_f64(x).to_bits());
                    d[v / 2] |= h << (16 * (v % 2));
                }
            }
        }
        outs.push(d);
    }
    Ok(outs)
}
