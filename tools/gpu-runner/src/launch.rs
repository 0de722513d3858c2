//! Typed launches of the kernels of `layout-kernels`: the runner's only
//! `unsafe` code, the safe layer over `layout_launch`'s raw launch. Each
//! function checks what the kernel's entry point requires
//! (`kernels/sm80/src/device.rs`: buffer lengths, sizes that are multiples of
//! the tile) and then passes exactly the arguments that entry point
//! declares, in its order and types.
#![allow(unsafe_code)]

use layout_launch::{DeviceBuffer, Dim3, Kernel, Stream};

/// Threads per block of the transpose and the SGEMM
/// (`layout_kernels::maps::THREADS`, `SGEMM_THREADS`).
const THREADS: u32 = 256;

/// A launch's grid (x, y) and block (`threads` threads along x).
struct Shape {
    grid: Dim3,
    block: u32,
}

fn grid(x: usize, y: usize) -> Result<Shape, String> {
    grid_of(x, y, THREADS)
}

fn grid_of(x: usize, y: usize, threads: u32) -> Result<Shape, String> {
    let dim = |v: usize| u32::try_from(v).map_err(|_| format!("grid of {v} blocks is too large"));
    Ok(Shape {
        grid: Dim3::from((dim(x)?, dim(y)?)),
        block: threads,
    })
}

/// Refuses a kernel other than `name`: each wrapper's checks are that
/// entry point's contract, so they hold for it alone.
fn expect(f: &Kernel, name: &str) -> Result<(), String> {
    if f.name() == name {
        Ok(())
    } else {
        Err(format!("{name}'s launch given kernel {}", f.name()))
    }
}

/// `transpose_f32(src, dst, n)`: `dst = src^T`, both n x n row-major.
pub fn transpose(
    stream: &Stream,
    f: &Kernel,
    src: &DeviceBuffer<f32>,
    dst: &mut DeviceBuffer<f32>,
    n: usize,
) -> Result<(), String> {
    expect(f, "transpose_f32")?;
    let len = n.checked_mul(n).ok_or("n * n overflows")?;
    if n == 0 || n % 64 != 0 || src.len() < len || dst.len() < len {
        return Err(format!("transpose: n = {n} must be a positive multiple of 64 and both buffers hold n * n floats"));
    }
    let cfg = grid(n / 64, n / 64)?;
    // SAFETY: the entry point's contract: src and dst hold n * n floats
    // (checked), the buffers are 256-byte aligned and distinct (dst is
    // borrowed mutably).
    unsafe {
        stream
            .launch(f)
            .grid(cfg.grid)
            .block(cfg.block)
            .arg(src)
            .arg_mut(dst)
            .scalar(n)
            .launch()
    }
    .map_err(|e| format!("transpose launch: {e}"))
}

/// A GEMM's launch conditions: m, n positive multiples of the 128 x 128
/// block tile, k of `bk`, and buffers of at least m·k (A), k·n (B) and m·n
/// (C) elements.
fn check_gemm(
    op: &str,
    (m, n, k): (usize, usize, usize),
    bk: usize,
    (la, lb, lc): (usize, usize, usize),
) -> Result<(), String> {
    let sizes = (m.checked_mul(k), k.checked_mul(n), m.checked_mul(n));
    let (Some(a), Some(b), Some(c)) = sizes else {
        return Err(format!("{op}: sizes overflow"));
    };
    if m == 0 || n == 0 || k == 0 || m % 128 != 0 || n % 128 != 0 || k % bk != 0 {
        return Err(format!(
            "{op}: ({m}, {n}, {k}) must be positive multiples of (128, 128, {bk})"
        ));
    }
    if la < a || lb < b || lc < c {
        return Err(format!("{op}: a buffer is shorter than its matrix"));
    }
    Ok(())
}

/// Launches a GEMM entry point `(a, b, c, m, n, k)` whose operands the
/// caller has checked (`check_gemm`): `a`, `b`, `c` hold the elements the
/// entry point reads and writes for `m`, `n`, `k`.
fn launch_gemm<A, B, C>(
    stream: &Stream,
    f: &Kernel,
    cfg: Shape,
    (a, b, c): (&DeviceBuffer<A>, &DeviceBuffer<B>, &mut DeviceBuffer<C>),
    (m, n, k): (usize, usize, usize),
    what: &str,
) -> Result<(), String> {
    // SAFETY: the entry point's contract: a, b, c hold the m*k, k*n (or
    // n*k) and m*n elements it addresses (checked by the caller with
    // `check_gemm`), 256-byte aligned (cudarc's allocations), c distinct
    // from a and b (a `&mut` buffer).
    unsafe {
        stream
            .launch(f)
            .grid(cfg.grid)
            .block(cfg.block)
            .arg(a)
            .arg(b)
            .arg_mut(c)
            .scalar(m)
            .scalar(n)
            .scalar(k)
            .launch()
    }
    .map_err(|e| format!("{what} launch: {e}"))
}

/// `sgemm_f32(a, b, c, m, n, k)`: `C = A · B`, row-major, A m x k, B k x n
/// (or `sgemm_nt_f32`, the same with A M-major: `f` is either, or one of
/// the forms `--sgemm-forms` / `--sgemm-nt-forms` name, entry points of
/// the same contract).
pub fn sgemm(
    stream: &Stream,
    f: &Kernel,
    a: &DeviceBuffer<f32>,
    b: &DeviceBuffer<f32>,
    c: &mut DeviceBuffer<f32>,
    (m, n, k): (usize, usize, usize),
) -> Result<(), String> {
    check_gemm("sgemm", (m, n, k), 8, (a.len(), b.len(), c.len()))?;
    launch_gemm(
        stream,
        f,
        grid(n / 128, m / 128)?,
        (a, b, c),
        (m, n, k),
        "sgemm",
    )
}

/// `mma_atom(a, b, c, f16acc)`: one warp's m16n8k16 tensor-core atom,
/// c = a · bᵀ (a 16 x 16, b 8 x 16, c 16 x 8, row-major; f16 inputs as
/// bits; c f32, or f16 bits in its low 128 halves when `f16acc` is 1).
pub fn mma_atom(
    stream: &Stream,
    f: &Kernel,
    a: &DeviceBuffer<u16>,
    b: &DeviceBuffer<u16>,
    c: &mut DeviceBuffer<u32>,
    f16acc: u32,
) -> Result<(), String> {
    expect(f, "mma_atom")?;
    if a.len() < 256 || b.len() < 128 || c.len() < 128 {
        return Err("mma_atom: a holds 256 halves, b 128, c 128 words".into());
    }
    // SAFETY: the entry point's contract: the lengths (checked), 256-byte
    // aligned, distinct allocations; one block of one warp.
    unsafe {
        stream
            .launch(f)
            .block(32)
            .arg(a)
            .arg(b)
            .arg_mut(c)
            .scalar(f16acc)
            .launch()
    }
    .map_err(|e| format!("mma_atom launch: {e}"))
}

/// `mma_tile(a, b, c)`: the same product through `cp.async`, shared memory
/// and `ldmatrix` (a 16 x 16, b 8 x 16 f16 bits, c 16 x 8 f32).
pub fn mma_tile(
    stream: &Stream,
    f: &Kernel,
    a: &DeviceBuffer<u16>,
    b: &DeviceBuffer<u16>,
    c: &mut DeviceBuffer<f32>,
) -> Result<(), String> {
    expect(f, "mma_tile")?;
    if a.len() < 256 || b.len() < 128 || c.len() < 128 {
        return Err("mma_tile: a holds 256 halves, b 128, c 128 floats".into());
    }
    // SAFETY: the entry point's contract: the lengths (checked), 256-byte
    // aligned, distinct allocations; one block of one warp.
    unsafe { stream.launch(f).block(32).arg(a).arg(b).arg_mut(c).launch() }
        .map_err(|e| format!("mma_tile launch: {e}"))
}

/// `ldsm_atoms(src, out)`: every `ldmatrix` form on 32 rows of 8 halves,
/// 14 registers per lane out.
pub fn ldsm_atoms(
    stream: &Stream,
    f: &Kernel,
    src: &DeviceBuffer<u16>,
    out: &mut DeviceBuffer<u32>,
) -> Result<(), String> {
    expect(f, "ldsm_atoms")?;
    if src.len() < 256 || out.len() < 448 {
        return Err("ldsm_atoms: src holds 256 halves, out 448 words".into());
    }
    // SAFETY: the entry point's contract: the lengths (checked), 256-byte
    // aligned, distinct allocations; one block of one warp.
    unsafe { stream.launch(f).block(32).arg(src).arg_mut(out).launch() }
        .map_err(|e| format!("ldsm_atoms launch: {e}"))
}

/// C's element type of an HGEMM entry point: `f32` for `hgemm_f32`, `u16`
/// (f16 bits) for `hgemm_f16`.
pub trait HgemmOut {
    /// The entry point whose C this type is.
    const KERNEL: &'static str;
}

impl HgemmOut for f32 {
    const KERNEL: &'static str = "hgemm_f32";
}

impl HgemmOut for u16 {
    const KERNEL: &'static str = "hgemm_f16";
}

/// `hgemm_f32(a, b, c, m, n, k)` (C f32) or `hgemm_f16` (C f16 bits, `T`
/// = u16): C = A · Bᵀ, A m x k and B n x k f16 (bits), row-major.
pub fn hgemm<T: HgemmOut>(
    stream: &Stream,
    f: &Kernel,
    a: &DeviceBuffer<u16>,
    b: &DeviceBuffer<u16>,
    c: &mut DeviceBuffer<T>,
    (m, n, k): (usize, usize, usize),
) -> Result<(), String> {
    expect(f, T::KERNEL)?;
    check_gemm("hgemm", (m, n, k), 32, (a.len(), b.len(), c.len()))?;
    // 4 warps (`layout_kernels::maps::HGEMM_THREADS`).
    let cfg = grid_of(n / 128, m / 128, 128)?;
    launch_gemm(stream, f, cfg, (a, b, c), (m, n, k), "hgemm")
}

/// `wgmma_atom(a, b, c)` of layout-kernels-sm90: one warpgroup, C (64 x 64
/// f32) = A · Bᵀ for 64 x 16 f16 A and B.
pub fn wgmma_atom(
    stream: &Stream,
    k: &Kernel,
    a: &DeviceBuffer<u16>,
    b: &DeviceBuffer<u16>,
    c: &mut DeviceBuffer<f32>,
) -> Result<(), String> {
    if a.len() < 1024 || b.len() < 1024 || c.len() < 4096 {
        return Err("wgmma_atom: A and B hold 1024 halves, C 4096 floats".into());
    }
    // SAFETY: wgmma_atom takes (a, b, c) and reads 1024 u16 of each of a
    // and b, writes 4096 f32 of c (checked); c distinct (a `&mut`).
    unsafe {
        stream
            .launch(k)
            .block(128)
            .arg(a)
            .arg(b)
            .arg_mut(c)
            .launch()
    }
    .map_err(|e| e.to_string())
}

/// `tma_tile(map, out, col, row)` of layout-kernels-sm90: one TMA load of
/// the 64 x 64 f16 box at (col, row) through the tensor map, into `out`.
pub fn tma_tile(
    stream: &Stream,
    k: &Kernel,
    map: &DeviceBuffer<layout_launch::TensorMap>,
    out: &mut DeviceBuffer<u32>,
    (col, row): (i32, i32),
) -> Result<(), String> {
    if map.is_empty() || out.len() < 2048 {
        return Err("tma_tile: one tensor map, 2048 words of output".into());
    }
    // SAFETY: tma_tile takes (map, out, col, row): a tensor map (encoded by
    // the driver for a live buffer, 64-byte aligned in its 256-byte
    // aligned allocation) and 2048 u32 of output (checked).
    unsafe {
        stream
            .launch(k)
            .block(128)
            .arg(map)
            .arg_mut(out)
            .scalar(col)
            .scalar(row)
            .launch()
    }
    .map_err(|e| e.to_string())
}

/// `hgemm_sm90(map_a, map_b, c, m, n, k)` of layout-kernels-sm90 (or one
/// of its forms, `layout_kernels_sm90::hgemm::FORMS`), made ready for one
/// (m, n, k) and one pair of operands: the tensor maps encoded and on the
/// GPU, the grid chosen. [`HgemmSm90::launch`] then writes C = A · Bᵀ.
pub struct HgemmSm90 {
    name: &'static str,
    form: layout_kernels_sm90::hgemm::Form,
    maps: (
        DeviceBuffer<layout_launch::TensorMap>,
        DeviceBuffer<layout_launch::TensorMap>,
    ),
    dims: (usize, usize, usize),
    grid: u32,
}

impl HgemmSm90 {
    /// The maps of A (m x k) and B (n x k), row-major f16 (bits), for the
    /// form `name`: boxes of `bm x 64` and 256 x 64 with the 128-byte
    /// swizzle (CuTe's K-major SW128 GMMA atom tiled to the block's tiles).
    /// `sms`: a persistent grid of at most that many blocks; `None`: one
    /// block per tile. Refuses an unknown form, m or n of 0, k not a
    /// positive multiple of 8 (TMA's 16-byte row strides), buffers of
    /// other lengths.
    pub fn new(
        stream: &Stream,
        f: &Kernel,
        sms: Option<u32>,
        a: &DeviceBuffer<u16>,
        b: &DeviceBuffer<u16>,
        (m, n, k): (usize, usize, usize),
    ) -> Result<Self, String> {
        use layout_kernels_sm90::hgemm::{ceil_div, BK, BN, FORMS};
        use layout_launch::TmaSwizzle;
        let Some(&(name, form)) = FORMS.iter().find(|(n, _)| *n == f.name()) else {
            return Err(format!("hgemm_sm90: no form '{}'", f.name()));
        };
        if m == 0 || n == 0 || k == 0 || k % 8 != 0 {
            return Err(format!(
                "{name}: ({m}, {n}, {k}): M and N must be positive, K a positive multiple of 8"
            ));
        }
        let (Some(la), Some(lb), Some(_)) = (m.checked_mul(k), n.checked_mul(k), m.checked_mul(n))
        else {
            return Err(format!("{name}: sizes overflow"));
        };
        if a.len() != la || b.len() != lb {
            return Err(format!(
                "{name}: A holds {} halves and B {}; ({m}, {n}, {k}) needs {la} and {lb}",
                a.len(),
                b.len()
            ));
        }
        let e = |e: layout_launch::Error| format!("{name}: {e}");
        let map_a = stream
            .tensor_map_2d(
                a,
                (m, k),
                k,
                (form.bm() as u32, BK as u32),
                TmaSwizzle::B128,
            )
            .map_err(e)?;
        // A cluster's blocks load B's tile in equal parts.
        let b_rows = (BN / form.cluster) as u32;
        let map_b = stream
            .tensor_map_2d(b, (n, k), k, (b_rows, BK as u32), TmaSwizzle::B128)
            .map_err(e)?;
        let maps = (
            stream.upload(&[map_a]).map_err(e)?,
            stream.upload(&[map_b]).map_err(e)?,
        );
        // The work in clusters (of `form.cluster` tiles along M), and as
        // many clusters as run at once when persistent.
        let cluster = form.cluster as u32;
        let work = u32::try_from(ceil_div(m, form.bm() * form.cluster) * ceil_div(n, BN))
            .map_err(|_| format!("{name}: too many tiles"))?;
        let clusters = match sms {
            None => work,
            Some(s) => {
                let resident = if cluster > 1 {
                    max_active_clusters(stream, f, form.threads() as u32)?
                } else {
                    s
                };
                work.min(resident.min(s / cluster).max(1))
            }
        };
        let grid = clusters * cluster;
        Ok(HgemmSm90 {
            name,
            form,
            maps,
            dims: (m, n, k),
            grid,
        })
    }

    /// The blocks launched.
    pub fn grid(&self) -> u32 {
        self.grid
    }

    /// C = A · Bᵀ for the operands the maps were made for; `c` holds m x n
    /// halves. The operands must still be alive (the maps point into them):
    /// borrowed here so that they are.
    pub fn launch(
        &self,
        stream: &Stream,
        f: &Kernel,
        _operands: (&DeviceBuffer<u16>, &DeviceBuffer<u16>),
        c: &mut DeviceBuffer<u16>,
    ) -> Result<(), String> {
        use layout_kernels_sm90::hgemm::SMEM_BYTES;
        expect(f, self.name)?;
        let (m, n, k) = self.dims;
        if c.len() != m * n {
            return Err(format!(
                "{}: C holds {} halves, not {m} x {n}",
                self.name,
                c.len()
            ));
        }
        let dim =
            |v: usize| u32::try_from(v).map_err(|_| format!("{}: {v} is too large", self.name));
        let (m32, n32, k32) = (dim(m)?, dim(n)?, dim(k)?);
        // SAFETY: the form takes (map_a, map_b, c, m, n, k): the maps are the
        // driver's encoding of A (m x k) and B (n x k) with the boxes and
        // swizzle of the form's plan (`new`), over buffers of those lengths
        // (checked there) that the caller keeps alive (borrowed here); C is
        // a slice of m x n halves (checked), whose every store the kernel
        // checks; the form's threads and the plan's dynamic shared memory,
        // which the kernel checks too.
        unsafe {
            stream
                .launch(f)
                .grid(self.grid)
                .block(self.form.threads() as u32)
                .shared_bytes(SMEM_BYTES as u32)
                .arg(&self.maps.0)
                .arg(&self.maps.1)
                .slice_mut(c)
                .scalar(m32)
                .scalar(n32)
                .scalar(k32)
                .launch()
        }
        .map_err(|e| e.to_string())
    }
}

/// How many clusters of `f` (its cluster size compiled in) fit on the GPU
/// at once with `threads` per block and hgemm_sm90's shared memory
/// (`cuOccupancyMaxActiveClusters`).
fn max_active_clusters(stream: &Stream, f: &Kernel, threads: u32) -> Result<u32, String> {
    use layout_kernels_sm90::hgemm::SMEM_BYTES;
    use layout_launch::cudarc::driver::{sys::CUfunction_attribute, LaunchConfig};
    let func = f.cuda_function();
    let e = |e: layout_launch::cudarc::driver::DriverError| format!("{}: occupancy: {e}", f.name());
    func.set_attribute(
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        SMEM_BYTES as i32,
    )
    .map_err(e)?;
    let cfg = LaunchConfig {
        grid_dim: (132, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: SMEM_BYTES as u32,
    };
    let n = func
        .occupancy_max_active_clusters(cfg, stream.cuda_stream())
        .map_err(e)?;
    Ok(n.max(1))
}

/// An attention entry point of `family` made ready for one problem and
/// one Q, K, V: the problem checked against the buffers, and for a
/// [`FamilyKind::TensorMaps`] family the three tensor maps encoded and on
/// the GPU (once, not per launch). [`FlashAttn::launch`] then writes O =
/// softmax(scale · Q·Kᵀ) · V and LSE per (batch, head). Q and O hold batch
/// · seq_q · heads · d halves (bits), K and V batch · seq_k · heads · d,
/// LSE batch · heads · seq_q floats. `f` must be the family's entry point
/// for `p.d` and `p.causal`.
pub struct FlashAttn {
    name: String,
    kind: FamilyKind,
    shape: crate::attention::LaunchShape,
    p: crate::attention::Problem,
    lens: crate::attention::Lens,
    maps: Option<[DeviceBuffer<layout_launch::TensorMap>; 3]>,
}

use crate::attention::FamilyKind;

impl FlashAttn {
    /// The launch of `f` (`family`'s entry point for `p`) on Q, K, V:
    /// refused (one line) for another entry point, a problem the family
    /// does not take, or buffers of other lengths.
    pub fn new(
        stream: &Stream,
        f: &Kernel,
        family: &crate::attention::Family,
        p: &crate::attention::Problem,
        (q, k, v): (&DeviceBuffer<u16>, &DeviceBuffer<u16>, &DeviceBuffer<u16>),
    ) -> Result<Self, String> {
        expect(f, &family.entry_name(p.d, p.causal))?;
        // The head dimension built, positive sizes, the grid's limits, a
        // finite scale.
        let shape = family.launch_shape(p)?;
        let lens = p.lens()?;
        if (q.len(), k.len(), v.len()) != (lens.q, lens.kv, lens.kv) {
            return Err(format!(
                "{}: Q, K, V hold {:?} elements; the problem needs {:?}",
                f.name(),
                (q.len(), k.len(), v.len()),
                (lens.q, lens.kv, lens.kv)
            ));
        }
        let maps = match family.kind {
            FamilyKind::Pointers => None,
            FamilyKind::TensorMaps => {
                use layout_kernels_sm90::attention::{bm, BN, CHUNK};
                let e = |e: layout_launch::Error| format!("{}: {e}", f.name());
                // Each tensor as `batch` planes of seq x heads · d (plane
                // b's rows past seq read zeros, not plane b + 1's).
                let ld = p.heads * p.d;
                let map = |x: &DeviceBuffer<u16>, seq: usize, rows: usize| {
                    stream
                        .tensor_map_3d(
                            x,
                            (p.batch, seq, ld),
                            (seq * ld, ld),
                            (rows as u32, CHUNK as u32),
                            layout_launch::TmaSwizzle::B128,
                        )
                        .map_err(e)
                        .and_then(|m| stream.upload(&[m]).map_err(e))
                };
                Some([
                    map(q, p.seq_q, bm(p.d))?,
                    map(k, p.seq_k, BN)?,
                    map(v, p.seq_k, BN)?,
                ])
            }
        };
        Ok(FlashAttn {
            name: f.name().to_string(),
            kind: family.kind,
            shape,
            p: *p,
            lens,
            maps,
        })
    }

    /// One launch on the Q, K, V the launch was made for (borrowed here so
    /// that they are alive: the maps point into them), writing `o` and
    /// `lse`.
    pub fn launch(
        &self,
        stream: &Stream,
        f: &Kernel,
        (q, k, v): (&DeviceBuffer<u16>, &DeviceBuffer<u16>, &DeviceBuffer<u16>),
        o: &mut DeviceBuffer<u16>,
        lse: &mut DeviceBuffer<f32>,
    ) -> Result<(), String> {
        expect(f, &self.name)?;
        let (p, lens, shape) = (&self.p, self.lens, self.shape);
        let given = (q.len(), k.len(), v.len(), o.len(), lse.len());
        if given != (lens.q, lens.kv, lens.kv, lens.q, lens.lse) {
            return Err(format!(
                "{}: Q, K, V, O, LSE hold {given:?} elements; the problem needs {:?}",
                self.name,
                (lens.q, lens.kv, lens.kv, lens.q, lens.lse)
            ));
        }
        let launch = stream
            .launch(f)
            .grid(shape.grid)
            .block(shape.block)
            .shared_bytes(shape.shared_bytes);
        let r = match (self.kind, &self.maps) {
            // SAFETY: the family's contract (`maps::attention`): the entry
            // point for this d and mask (checked by name) takes (q, k, v:
            // *const u16, o: *mut u16, lse: *mut f32, batch, seq_q, seq_k,
            // heads: usize, scale: f32), passed in that order and type; the
            // buffers hold exactly the elements those sizes address
            // (checked), 256-byte aligned (cudarc's allocations; the
            // kernels need 16); O and LSE are written only, each distinct
            // from the others (`&mut`); the grid is (ceil(seq_q / rows),
            // heads, batch) with the family's threads and dynamic shared
            // memory for d (`launch_shape`).
            (FamilyKind::Pointers, _) => unsafe {
                launch
                    .arg(q)
                    .arg(k)
                    .arg(v)
                    .arg_mut(o)
                    .arg_mut(lse)
                    .scalar(p.batch)
                    .scalar(p.seq_q)
                    .scalar(p.seq_k)
                    .scalar(p.heads)
                    .scalar(p.scale)
                    .launch()
            },
            // SAFETY: `layout_kernels_sm90::attention`'s contract: (map_q,
            // map_k, map_v: *const u64, o: GlobalMut<u16>, lse:
            // GlobalMut<f32>, seq_q, seq_k, heads: u32, scale: f32), in that
            // order and type; the maps are the driver's encoding of Q, K, V
            // (checked lengths, alive: borrowed) as (batch, seq, heads · d)
            // with the contract's boxes and swizzle (`new`); O and LSE are
            // slices of the problem's lengths (checked), written only, each
            // store checked by the kernel; the sizes fit in u32 and i32
            // (`launch_shape` refuses sequences beyond i32, and heads
            // beyond the grid's 65535); the grid, threads and dynamic
            // shared memory are the family's.
            (FamilyKind::TensorMaps, Some([mq, mk, mv])) => unsafe {
                launch
                    .arg(mq)
                    .arg(mk)
                    .arg(mv)
                    .slice_mut(o)
                    .slice_mut(lse)
                    .scalar(p.seq_q as u32)
                    .scalar(p.seq_k as u32)
                    .scalar(p.heads as u32)
                    .scalar(p.scale)
                    .launch()
            },
            (FamilyKind::TensorMaps, None) => {
                return Err(format!("{}: no tensor maps were made", self.name))
            }
        };
        r.map_err(|e| format!("{} launch: {e}", self.name))
    }
}
