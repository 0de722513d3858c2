//! Typed launches of the kernels' entry points: the crate's only `unsafe`
//! code, the safe layer over `layout_launch`'s raw launch. Each function
//! checks what its entry point requires (the launch rules of the kernel's
//! plan: `layout_kernels::maps::SGEMM`, `HGEMM_F32`, ...,
//! `layout_kernels_sm90::hgemm`, [`crate::attention::Family`]) and passes
//! exactly the arguments that entry point declares, in its order and types.
//!
//! They take the entry point as a [`Kernel`]: one of the embedded PTX's
//! ([`crate::Gpu`] calls them so), or another build's entry point of the
//! same contract (a form of a kernel under study, as `gpu-runner` runs
//! them). Sizes of 0 are the caller's ([`crate::Gpu`] handles them before).
#![allow(unsafe_code)]

use crate::attention::{BwdMode, Family, FamilyKind, LaunchShape, Lens, Problem};
use crate::decode::{Decode, DecodeWorkspace};
use crate::Error;
use half::f16;
use layout_kernels::maps::{
    decode_smem_bytes, transpose_divides, GemmPlan, SplitPlan, APPEND_THREADS, DECODE_THREADS,
    THREADS, TRANSPOSE_TILE,
};
use layout_launch::{DeviceBuffer, Dim3, Kernel, Stream, TensorMap};

/// A grid `(x, y)` of `u32` blocks.
fn grid(op: &'static str, (x, y): (usize, usize)) -> Result<Dim3, Error> {
    let dim = |v: usize| {
        u32::try_from(v)
            .map_err(|_| Error::refused(op, format!("a grid of {v} blocks is too large")))
    };
    Ok(Dim3::from((dim(x)?, dim(y)?)))
}

/// Refuses an entry point other than `name` (or, with `prefix`, one whose
/// name does not start with it): each function's checks are that entry
/// point's contract, so they hold for it alone.
fn expect(op: &'static str, f: &Kernel, name: &str) -> Result<(), Error> {
    if f.name() == name {
        Ok(())
    } else {
        Err(Error::refused(
            op,
            format!("launch of {name} given the entry point {}", f.name()),
        ))
    }
}

/// `transpose_f32(src, dst, n)`: `dst = srcᵀ`, both n x n f32 row-major,
/// n a positive multiple of 64.
pub fn transpose(
    stream: &Stream,
    f: &Kernel,
    src: &DeviceBuffer<f32>,
    dst: &mut DeviceBuffer<f32>,
    n: usize,
) -> Result<(), Error> {
    const OP: &str = "transpose";
    expect(OP, f, "transpose_f32")?;
    let len = n
        .checked_mul(n)
        .ok_or_else(|| Error::refused(OP, format!("n = {n}: n * n overflows")))?;
    if n == 0 || !transpose_divides(n) || src.len() != len || dst.len() != len {
        return Err(Error::refused(
            OP,
            format!(
                "n = {n} must be a positive multiple of {TRANSPOSE_TILE} and both buffers hold n * n floats (they hold {} and {})",
                src.len(),
                dst.len()
            ),
        ));
    }
    let g = grid(OP, (n / TRANSPOSE_TILE, n / TRANSPOSE_TILE))?;
    // SAFETY: the entry point's contract: src and dst hold n * n floats
    // (checked), n a multiple of the tile (checked), the buffers 256-byte
    // aligned (cudarc's allocations) and distinct (dst is borrowed mutably).
    unsafe {
        stream
            .launch(f)
            .grid(g)
            .block(THREADS as u32)
            .arg(src)
            .arg_mut(dst)
            .scalar(n)
            .launch()
    }
    .map_err(Error::Device)
}

/// A GEMM's launch conditions under `plan`: M, N and K positive multiples
/// of its tile, and buffers of exactly m·k (A), k·n (B) and m·n (C)
/// elements.
pub(crate) fn check_gemm(
    op: &'static str,
    plan: &GemmPlan,
    (m, n, k): (usize, usize, usize),
    (la, lb, lc): (usize, usize, usize),
) -> Result<(), Error> {
    let sizes = (m.checked_mul(k), k.checked_mul(n), m.checked_mul(n));
    let (Some(a), Some(b), Some(c)) = sizes else {
        return Err(Error::refused(
            op,
            format!("({m}, {n}, {k}): the sizes overflow"),
        ));
    };
    if m == 0 || n == 0 || !plan.divides(m, n, k) {
        return Err(Error::refused(
            op,
            format!("({m}, {n}, {k}): {} takes {}", plan.entry, plan.sizes()),
        ));
    }
    if (la, lb, lc) != (a, b, c) {
        return Err(Error::refused(
            op,
            format!(
                "({m}, {n}, {k}): A, B and C hold {la}, {lb} and {lc} elements, not {a}, {b} and {c}"
            ),
        ));
    }
    Ok(())
}

/// One SM80 GEMM launch, `(a, b, c, m, n, k)` under `plan`: `f` is the
/// plan's entry point or a form of it (the same contract); the operands
/// are checked here.
pub fn gemm<A, B, C>(
    stream: &Stream,
    f: &Kernel,
    plan: &GemmPlan,
    (a, b, c): (&DeviceBuffer<A>, &DeviceBuffer<B>, &mut DeviceBuffer<C>),
    (m, n, k): (usize, usize, usize),
) -> Result<(), Error> {
    const OP: &str = "gemm";
    check_gemm(OP, plan, (m, n, k), (a.len(), b.len(), c.len()))?;
    let g = grid(OP, plan.grid(m, n))?;
    // SAFETY: the plan's contract (its entry point, or a form of it with
    // the same signature: the caller names it): a, b, c hold the m·k,
    // k·n and m·n elements it addresses (checked), M, N, K multiples of
    // its tile (checked), 256-byte aligned (cudarc's allocations), c
    // distinct from a and b (a `&mut` buffer); the plan's threads.
    unsafe {
        stream
            .launch(f)
            .grid(g)
            .block(plan.threads as u32)
            .arg(a)
            .arg(b)
            .arg_mut(c)
            .scalar(m)
            .scalar(n)
            .scalar(k)
            .launch()
    }
    .map_err(Error::Device)
}

/// C's element type of an SM80 HGEMM: `f32` (f32 accumulators,
/// `hgemm_f32`) or `f16` (f16 accumulators, `hgemm_f16`).
pub trait HgemmOut: layout_launch::DeviceRepr + layout_launch::ValidAsZeroBits {
    /// The entry point whose C this type is, and its launch rules.
    const PLAN: GemmPlan;
}

impl HgemmOut for f32 {
    const PLAN: GemmPlan = layout_kernels::maps::HGEMM_F32;
}

impl HgemmOut for f16 {
    const PLAN: GemmPlan = layout_kernels::maps::HGEMM_F16;
}

/// The Hopper GEMM entries built on `hgemm_sm90`'s plan with its full form
/// (`layout_kernels_sm90::hgemm::FULL`), beside the forms of `FORMS`:
/// bf16, bf16 with bias and GELU, FP8 e4m3 with scales, and C stored by
/// TMA in bf16, f16, and bf16 with bias and GELU (and its form with three
/// stages and a whole tile of staging); bias and GELU's tanh form, C
/// stored directly and by TMA; FP8 e4m3 with C stored by TMA.
pub const SM90_GEMMS: [&str; 10] = [
    "gemm_bf16_sm90",
    "gemm_bias_gelu_bf16_sm90",
    "gemm_e4m3_sm90",
    "gemm_bf16_tma_sm90",
    "hgemm_tma_sm90",
    "gemm_bias_gelu_tma_bf16_sm90",
    "gemm_bias_gelu_tma_wide_bf16_sm90",
    "gemm_bias_gelu_tanh_bf16_sm90",
    "gemm_bias_gelu_tanh_tma_bf16_sm90",
    "gemm_e4m3_tma_sm90",
];

/// The split-K entries (the form `layout_kernels_sm90::hgemm::SPLIT_FORM`,
/// [`HgemmSm90Launch::with_splits`]), f16 and bf16.
pub const SM90_SPLIT_GEMMS: [&str; 2] = ["hgemm_splitk_sm90", "gemm_bf16_splitk_sm90"];
/// Whether the entry `name` is a split-K entry (launched after
/// [`HgemmSm90Launch::with_splits`]).
///
/// ```
/// use layout_gpu::launch::split_entry;
/// assert!(split_entry("gemm_bf16_splitk_sm90") && !split_entry("hgemm_sm90"));
/// ```
pub fn split_entry(name: &str) -> bool {
    SM90_SPLIT_GEMMS.contains(&name)
}

/// Whether the entry `name` stores C by TMA (a map of C in place of C's
/// slice, and the staging buffers' shared memory).
pub fn tma_store_entry(name: &str) -> bool {
    matches!(
        name,
        "gemm_bf16_tma_sm90"
            | "hgemm_tma_sm90"
            | "gemm_bias_gelu_tma_bf16_sm90"
            | "gemm_bias_gelu_tma_wide_bf16_sm90"
            | "gemm_bias_gelu_tanh_tma_bf16_sm90"
            | "gemm_e4m3_tma_sm90"
    )
}

/// The Hopper dense GEMM entry the plan picks for (m, n, k) on a GPU of
/// `sms` SMs, and its splits of K
/// (`layout_kernels_sm90::hgemm::plan_splits` states the rule): the
/// split-K entry where the tiles do not fill the GPU, else the cooperative
/// one, with the TMA-store epilogue when C's rows are 16-byte multiples.
/// `bf16` picks among the bf16 entries, else the f16 ones.
///
/// ```
/// use layout_gpu::launch::sm90_gemm_entry;
/// assert_eq!(sm90_gemm_entry(false, (4096, 4096, 4096), 132), ("hgemm_tma_sm90", 1));
/// assert_eq!(sm90_gemm_entry(false, (4096, 4100, 4096), 132), ("hgemm_sm90", 1));
/// assert_eq!(sm90_gemm_entry(true, (512, 4096, 4096), 132), ("gemm_bf16_splitk_sm90", 1));
/// ```
pub fn sm90_gemm_entry(
    bf16: bool,
    (m, n, k): (usize, usize, usize),
    sms: u32,
) -> (&'static str, usize) {
    use layout_kernels_sm90::hgemm::{ceil_div, plan_splits, BK};
    match plan_splits(m, n, ceil_div(k, BK), sms as usize) {
        Some(splits) => (SM90_SPLIT_GEMMS[usize::from(bf16)], splits),
        None => match (bf16, n % 8 == 0) {
            (false, true) => ("hgemm_tma_sm90", 1),
            (false, false) => ("hgemm_sm90", 1),
            (true, true) => ("gemm_bf16_tma_sm90", 1),
            (true, false) => ("gemm_bf16_sm90", 1),
        },
    }
}

/// The dynamic shared memory of the Hopper GEMM entry `name`.
fn sm90_smem(name: &str) -> usize {
    use layout_kernels_sm90::hgemm::{SMEM_BYTES, SMEM_BYTES_TMA_STORE};
    if tma_store_entry(name) {
        SMEM_BYTES_TMA_STORE
    } else {
        SMEM_BYTES
    }
}

/// What a Hopper GEMM entry takes after C, before (m, n, k): nothing
/// (`hgemm_sm90` and its forms, `gemm_bf16_sm90`), a bf16 bias per column
/// of C (`gemm_bias_gelu_bf16_sm90`), or A's and B's scales
/// (`gemm_e4m3_sm90`, `gemm_e4m3_tma_sm90`).
#[derive(Clone, Copy)]
pub enum Sm90Epilogue<'a> {
    /// No argument.
    Plain,
    /// The bias, one bf16 per column of C.
    Bias(&'a DeviceBuffer<half::bf16>),
    /// `(scale_a, scale_b)`: C = scale_a · scale_b · A · Bᵀ.
    Scales(f32, f32),
}

/// `hgemm_sm90(map_a, map_b, c, m, n, k)` of layout-kernels-sm90 (or one
/// of its forms, `layout_kernels_sm90::hgemm::FORMS`, or one of
/// [`SM90_GEMMS`]), made ready for one (m, n, k) and one pair of operands
/// of `T` (f16, bf16, or FP8 as `u8`): the tensor maps encoded and on the
/// GPU, the grid chosen. [`HgemmSm90Launch::launch`] then writes C = A · Bᵀ
/// (f32 accumulators, f16 C), as often as asked, and
/// [`HgemmSm90Launch::launch_epilogue`] the other entries' C.
pub struct HgemmSm90Launch {
    name: &'static str,
    form: layout_kernels_sm90::hgemm::Form,
    maps: (DeviceBuffer<TensorMap>, DeviceBuffer<TensorMap>),
    /// C's map and its buffer's address, for a TMA-store entry
    /// ([`HgemmSm90Launch::with_c`]).
    map_c: Option<(DeviceBuffer<TensorMap>, u64)>,
    /// A split-K entry's splits, running sums and flags, and the stream
    /// they serve ([`HgemmSm90Launch::with_splits`]).
    split: Option<Split>,
    /// The persistent grid's bound (`new`'s `sms`).
    sms: Option<u32>,
    dims: (usize, usize, usize),
    grid: u32,
}

/// A split-K plan's workspace: the splits, the running sums and the flags
/// the splits hand on through, and the stream whose launches, one at a
/// time, may use them.
struct Split {
    splits: u32,
    sums: DeviceBuffer<f32>,
    flags: DeviceBuffer<u32>,
    home: std::sync::Arc<layout_launch::cudarc::driver::CudaStream>,
}

impl HgemmSm90Launch {
    /// The maps of A (m x k) and B (n x k), row-major `T`, for the form
    /// `f` names: boxes of `bm` and `256 / cluster` rows of 128 bytes (64
    /// halves, 128 bytes of FP8) with the 128-byte swizzle (CuTe's K-major
    /// SW128 GMMA atom tiled to the block's tiles). `sms`: a persistent grid
    /// of at most that many blocks; `None`: one block per tile. Refuses an
    /// unknown form, M or N of 0, K not a positive multiple of 16 bytes
    /// (TMA's row strides), buffers of other lengths.
    pub fn new<T: layout_launch::TmaElement>(
        stream: &Stream,
        f: &Kernel,
        sms: Option<u32>,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        (m, n, k): (usize, usize, usize),
    ) -> Result<Self, Error> {
        use layout_kernels_sm90::hgemm::{ceil_div, BK_BYTES, BN, FORMS, FULL, SPLIT_FORM};
        use layout_launch::TmaSwizzle;
        const OP: &str = "hgemm_sm90";
        let form = FORMS
            .iter()
            .find(|(n, _)| *n == f.name())
            .copied()
            .or_else(|| {
                SM90_GEMMS
                    .iter()
                    .find(|n| **n == f.name())
                    .map(|&n| (n, FULL))
            })
            .or_else(|| {
                SM90_SPLIT_GEMMS
                    .iter()
                    .find(|n| **n == f.name())
                    .map(|&n| (n, FORMS[SPLIT_FORM].1))
            });
        let Some((name, form)) = form else {
            return Err(Error::refused(OP, format!("no form '{}'", f.name())));
        };
        let elem = std::mem::size_of::<T>();
        let per_row = 16 / elem;
        if m == 0 || n == 0 || k == 0 || k % per_row != 0 {
            return Err(Error::refused(
                name,
                format!(
                    "({m}, {n}, {k}): M and N must be positive, K a positive multiple of {per_row} (16 bytes)"
                ),
            ));
        }
        let bk = (BK_BYTES / elem) as u32;
        let (Some(la), Some(lb), Some(_)) = (m.checked_mul(k), n.checked_mul(k), m.checked_mul(n))
        else {
            return Err(Error::refused(
                OP,
                format!("({m}, {n}, {k}): the sizes overflow"),
            ));
        };
        if a.len() != la || b.len() != lb {
            return Err(Error::refused(
                name,
                format!(
                    "({m}, {n}, {k}): A holds {} elements and B {}, not {la} and {lb}",
                    a.len(),
                    b.len()
                ),
            ));
        }
        let map_a = stream.tensor_map_2d(a, (m, k), k, (form.bm() as u32, bk), TmaSwizzle::B128)?;
        // A cluster's blocks load B's tile in equal parts.
        let b_rows = (BN / form.cluster) as u32;
        let map_b = stream.tensor_map_2d(b, (n, k), k, (b_rows, bk), TmaSwizzle::B128)?;
        let maps = (stream.upload(&[map_a])?, stream.upload(&[map_b])?);
        // The work in clusters (of `form.cluster` tiles along M), and as
        // many clusters as run at once when persistent.
        let cluster = form.cluster as u32;
        let work = u32::try_from(ceil_div(m, form.bm() * form.cluster) * ceil_div(n, BN))
            .map_err(|_| Error::refused(OP, format!("({m}, {n}, {k}): too many tiles")))?;
        let clusters = match sms {
            None => work,
            Some(s) => {
                let resident = resident_clusters(stream, f, form, sm90_smem(name), s)?;
                work.min(resident.min(s / cluster).max(1))
            }
        };
        Ok(HgemmSm90Launch {
            name,
            form,
            maps,
            map_c: None,
            split: None,
            sms,
            dims: (m, n, k),
            grid: clusters * cluster,
        })
    }

    /// For a split-K entry: K cut into `splits` splits
    /// (`layout_kernels_sm90::hgemm::split_range`), with the running sums
    /// and the flags through which the splits hand on allocated on
    /// `stream` (the flags 0, as each launch leaves them). One split: the
    /// persistent grid `new` chose; more: one block per (tile, split) pair,
    /// the grid the body requires (a split waits on the one before it, a
    /// block of lower index). Its launches must then be on `stream`, one
    /// at a time. Refuses another entry, `splits` of 0 or over
    /// `layout_kernels_sm90::hgemm::MAX_SPLITS`.
    pub fn with_splits(mut self, stream: &Stream, splits: usize) -> Result<Self, Error> {
        use layout_kernels_sm90::hgemm::{split_flags, split_sums, MAX_SPLITS, SPLIT_FORM};
        if !split_entry(self.name) {
            return Err(Error::refused(
                self.name,
                "splits of K are the split-K entries'".to_string(),
            ));
        }
        if splits == 0 || splits > MAX_SPLITS {
            return Err(Error::refused(
                self.name,
                format!("{splits} splits of K: from 1 to {MAX_SPLITS}"),
            ));
        }
        let (m, n, _) = self.dims;
        let work = self.form.tiles(m, n) * splits;
        let work = u32::try_from(work)
            .map_err(|_| Error::refused(self.name, format!("({m}, {n}): too many tiles")))?;
        // One split stores C itself: no sums or flags (a buffer of one
        // element stands for none).
        let (sums, flags) = if splits == 1 {
            (stream.zeros::<f32>(1)?, stream.zeros::<u32>(1)?)
        } else {
            (
                stream.zeros::<f32>(split_sums(SPLIT_FORM, m, n))?,
                stream.zeros::<u32>(split_flags(SPLIT_FORM, m, n))?,
            )
        };
        self.grid = match (splits, self.sms) {
            (1, Some(s)) => work.min(s),
            _ => work,
        };
        self.split = Some(Split {
            splits: splits as u32,
            sums,
            flags,
            home: stream.cuda_stream().clone(),
        });
        Ok(self)
    }

    /// The plan made ready for its entry: a split-K entry's `splits`
    /// ([`HgemmSm90Launch::with_splits`]), a TMA-store entry's map of `c`
    /// ([`HgemmSm90Launch::with_c`]); any other entry as it is (`splits` is
    /// a split-K entry's only).
    pub fn ready<T: layout_launch::TmaElement>(
        self,
        stream: &Stream,
        splits: usize,
        c: &DeviceBuffer<T>,
    ) -> Result<Self, Error> {
        let plan = if split_entry(self.name) {
            self.with_splits(stream, splits)?
        } else {
            self
        };
        if tma_store_entry(plan.name) {
            plan.with_c(stream, c)
        } else {
            Ok(plan)
        }
    }

    /// For a TMA-store entry: the map of C (m x n, row-major, 16-bit
    /// elements, 64 x 64 boxes, the 128-byte swizzle), which every launch
    /// then writes (and must be given). Refuses C of another length.
    pub fn with_c<T: layout_launch::TmaElement>(
        mut self,
        stream: &Stream,
        c: &DeviceBuffer<T>,
    ) -> Result<Self, Error> {
        use layout_kernels_sm90::hgemm::C_COLS;
        use layout_launch::TmaSwizzle;
        let (m, n, _) = self.dims;
        if c.len() != m * n || std::mem::size_of::<T>() != 2 {
            return Err(Error::refused(
                self.name,
                format!(
                    "C must hold m x n = {m} x {n} 16-bit elements; it holds {}",
                    c.len()
                ),
            ));
        }
        // TMA's rows are 16-byte multiples: C's rows hold N 2-byte values.
        if n % 8 != 0 {
            return Err(Error::refused(
                self.name,
                format!("N = {n}: C stored by TMA needs N a multiple of 8 (16-byte rows)"),
            ));
        }
        let map = stream.tensor_map_2d(c, (m, n), n, (64, C_COLS as u32), TmaSwizzle::B128)?;
        self.map_c = Some((stream.upload(&[map])?, address(stream, c)));
        Ok(self)
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
        operands: (&DeviceBuffer<f16>, &DeviceBuffer<f16>),
        c: &mut DeviceBuffer<f16>,
    ) -> Result<(), Error> {
        self.launch_epilogue(stream, f, operands, c, Sm90Epilogue::Plain)
    }

    /// C = epilogue(A · Bᵀ) for the operands the maps were made for (of
    /// `T`, borrowed so that they stay alive), C of m x n `Out` (f16 or
    /// bf16), with what the entry takes after C. Refuses C of another
    /// length, an epilogue argument the entry does not take, a bias of
    /// another length than n.
    pub fn launch_epilogue<T, Out: layout_launch::DeviceRepr>(
        &self,
        stream: &Stream,
        f: &Kernel,
        _operands: (&DeviceBuffer<T>, &DeviceBuffer<T>),
        c: &mut DeviceBuffer<Out>,
        epilogue: Sm90Epilogue<'_>,
    ) -> Result<(), Error> {
        let op = self.name;
        expect(op, f, self.name)?;
        let (m, n, k) = self.dims;
        if c.len() != m * n {
            return Err(Error::refused(
                op,
                format!("C holds {} elements, not {m} x {n}", c.len()),
            ));
        }
        let wanted = match self.name {
            "gemm_bias_gelu_bf16_sm90"
            | "gemm_bias_gelu_tma_bf16_sm90"
            | "gemm_bias_gelu_tma_wide_bf16_sm90"
            | "gemm_bias_gelu_tanh_bf16_sm90"
            | "gemm_bias_gelu_tanh_tma_bf16_sm90" => "a bias",
            "gemm_e4m3_sm90" | "gemm_e4m3_tma_sm90" => "scales",
            _ => "no argument",
        };
        let given = match epilogue {
            Sm90Epilogue::Plain => "no argument",
            Sm90Epilogue::Bias(bias) => {
                if bias.len() != n {
                    return Err(Error::refused(
                        op,
                        format!("the bias holds {} elements, not N = {n}", bias.len()),
                    ));
                }
                "a bias"
            }
            Sm90Epilogue::Scales(..) => "scales",
        };
        if wanted != given {
            return Err(Error::refused(
                op,
                format!("the epilogue takes {wanted}, not {given}"),
            ));
        }
        if std::mem::size_of::<Out>() != 2 {
            return Err(Error::refused(
                op,
                "C must be of 16-bit elements".to_string(),
            ));
        }
        let dim = |v: usize| {
            u32::try_from(v).map_err(|_| Error::refused(op, format!("{v} is too large")))
        };
        let (m32, n32, k32) = (dim(m)?, dim(n)?, dim(k)?);
        // SAFETY: the entry takes (map_a, map_b, c, [its epilogue's
        // argument,] m, n, k): the maps are the driver's encoding of A
        // (m x k) and B (n x k) with the boxes and swizzle of the form's
        // plan (`new`), over buffers of those lengths (checked there) that
        // the caller keeps alive (borrowed here); C is a slice of m x n
        // 16-bit elements (checked), whose every store the kernel checks;
        // or, for a TMA-store entry, the map of that very buffer (made by
        // `with_c` with 64 x 64 boxes, its address checked above);
        // the bias a slice of n bf16 (checked), the scales two f32, as
        // the entry's name requires (checked above); the form's threads
        // and the plan's dynamic shared memory, which the kernel checks too;
        // for a split-K entry, its sums and flags (`with_splits`, of their
        // lengths, the flags 0 as every launch leaves them), used by one
        // launch at a time (on their stream, checked here), and one block
        // per (tile, split) pair with more than one split.
        match &self.split {
            None if split_entry(self.name) => {
                return Err(Error::refused(
                    op,
                    "a split-K entry is launched after `with_splits`".to_string(),
                ))
            }
            Some(sp) if !std::sync::Arc::ptr_eq(&sp.home, stream.cuda_stream()) => {
                return Err(Error::refused(
                    op,
                    "a split-K plan launches on the stream `with_splits` was given (its flags serve one launch at a time)".to_string(),
                ))
            }
            _ => {}
        }
        let tma = tma_store_entry(self.name);
        let map_c = match &self.map_c {
            Some((map, at)) if *at == address(stream, c) => Some(map),
            _ if tma => {
                return Err(Error::refused(
                    op,
                    "C must be the buffer `with_c` made the map of".to_string(),
                ))
            }
            _ => None,
        };
        unsafe {
            let l = stream
                .launch(f)
                .grid(self.grid)
                .block(self.form.threads() as u32)
                .shared_bytes(sm90_smem(self.name) as u32)
                .arg(&self.maps.0)
                .arg(&self.maps.1);
            let l = match (&self.split, map_c) {
                (Some(sp), _) => l
                    .slice_mut(c)
                    .slice(&sp.sums)
                    .slice(&sp.flags)
                    .scalar(sp.splits),
                (None, Some(map)) if tma => l.arg(map),
                _ => l.slice_mut(c),
            };
            let l = match epilogue {
                Sm90Epilogue::Plain => l,
                Sm90Epilogue::Bias(bias) => l.slice(bias),
                Sm90Epilogue::Scales(sa, sb) => l.scalar(sa).scalar(sb),
            };
            l.scalar(m32).scalar(n32).scalar(k32).launch()?;
            Ok(())
        }
        .map_err(Error::Device)
    }
}

/// The grouped GEMM entry for groups of `offsets` (as
/// [`gemm_grouped_bf16_sm90`] takes them) and n columns:
/// `gemm_grouped_tma_bf16_sm90` (128-row tiles, clusters of two along a
/// group: 256 of its rows a cluster, C by TMA) or `gemm_grouped_bf16_sm90`
/// (64-row tiles: 128 rows a cluster). Each computes a group's rows
/// rounded up to its cluster's; the 128-row form streams
/// [`GROUPED_COOP_SPEEDUP`] times the rows per second of the 64-row one.
/// So the 128-row form where n is a multiple of 8 (C's map) and its
/// rounded rows over that speed-up are fewer than the 64-row form's.
///
/// ```
/// use layout_gpu::launch::grouped_entry;
/// // Large groups: 256-row clusters waste little.
/// assert_eq!(grouped_entry(&[0, 64, 2112, 2624], 4096), "gemm_grouped_tma_bf16_sm90");
/// // An expert's handful of tokens: 128-row clusters waste less.
/// assert_eq!(grouped_entry(&[0, 64, 192, 256], 4096), "gemm_grouped_bf16_sm90");
/// // C's rows not a whole number of 16 bytes: no map of C.
/// assert_eq!(grouped_entry(&[0, 2048], 4100), "gemm_grouped_bf16_sm90");
/// ```
pub fn grouped_entry(offsets: &[i32], n: usize) -> &'static str {
    let rounded = |per: usize| -> f64 {
        offsets
            .windows(2)
            .map(|w| (w[1].max(w[0]) - w[0]) as usize)
            .map(|m| (m.div_ceil(per) * per) as f64)
            .sum()
    };
    if n % 8 == 0 && rounded(256) < GROUPED_COOP_SPEEDUP * rounded(128) {
        "gemm_grouped_tma_bf16_sm90"
    } else {
        "gemm_grouped_bf16_sm90"
    }
}

/// How many times the rows per second of the 64-row grouped entry the
/// 128-row one streams ([`grouped_entry`]): the cooperative TMA-store
/// GEMM's TFLOP/s over the one-consumer form's at 4096³ on an H100
/// (docs/gpu.md).
pub const GROUPED_COOP_SPEEDUP: f64 = 1.4;

/// `gemm_grouped_bf16_sm90(map_a, map_b, c, offsets, groups, n, k)` or
/// `gemm_grouped_tma_bf16_sm90(map_a, map_b, map_c, c, offsets, groups, n,
/// k)` (or its form without clusters,
/// `gemm_grouped_tma_nocluster_bf16_sm90`, the same arguments), as `f` is
/// ([`grouped_entry`] picks one of the first two): for each group g, rows
/// `offsets[g]..offsets[g + 1]` of C (bf16, n columns) are the same rows
/// of A (bf16, k columns) times B_gᵀ, B_g the g-th n x k matrix of B; a
/// persistent grid of at most `sms` blocks. [`GroupedSm90Launch::new`]
/// then [`GroupedSm90Launch::launch`]; its refusals.
pub fn gemm_grouped_bf16_sm90(
    stream: &Stream,
    f: &Kernel,
    sms: u32,
    (a, b): (&DeviceBuffer<half::bf16>, &DeviceBuffer<half::bf16>),
    offsets: &[i32],
    c: &mut DeviceBuffer<half::bf16>,
    (n, k): (usize, usize),
) -> Result<(), Error> {
    GroupedSm90Launch::new(stream, f, sms, (a, b), offsets, c, (n, k))?.launch(stream, f, (a, b), c)
}

/// A grouped GEMM launch (`gemm_grouped_bf16_sm90`,
/// `gemm_grouped_tma_bf16_sm90` or `gemm_grouped_tma_nocluster_bf16_sm90`)
/// made ready for one problem list and one
/// set of operands: the tensor maps encoded and on the GPU with the
/// offsets, the grid chosen. [`GroupedSm90Launch::launch`] then writes C,
/// as often as asked.
pub struct GroupedSm90Launch {
    name: &'static str,
    form: layout_kernels_sm90::hgemm::Form,
    smem: usize,
    /// A's and B's maps (none when no group has rows), and C's for the
    /// TMA entry with C's address.
    maps: Option<(DeviceBuffer<TensorMap>, DeviceBuffer<TensorMap>)>,
    map_c: Option<(DeviceBuffer<TensorMap>, u64)>,
    offsets: DeviceBuffer<i32>,
    /// Groups, n and k, and C's length.
    dims: (u32, u32, u32),
    c_len: usize,
    /// Blocks launched; 0 when no group has rows.
    grid: u32,
    /// Cluster tiles.
    tiles: usize,
    /// The TMA entry's tail ([`grouped_tail_splits`]): its splits (1:
    /// none), its running sums and flags, and the stream whose launches,
    /// one at a time, may use them.
    tail: (u32, DeviceBuffer<f32>, DeviceBuffer<u32>),
    home: std::sync::Arc<layout_launch::cudarc::driver::CudaStream>,
}

/// A grouped plan's tail: `splits`, and a region of running sums and a
/// flag (0) per consumer's 64 rows of each tile that `tiles` leave over on
/// a grid of `grid` blocks (one word each when unsplit).
fn tail_workspace(
    stream: &Stream,
    form: layout_kernels_sm90::hgemm::Form,
    tiles: usize,
    grid: u32,
    splits: usize,
) -> Result<(u32, DeviceBuffer<f32>, DeviceBuffer<u32>), Error> {
    let (regions, floats) = if splits > 1 {
        let clusters = (grid as usize / form.cluster).max(1);
        let regions = tiles % clusters * form.cluster * form.consumers;
        (regions, layout_kernels_sm90::hgemm::SPLIT_REGION)
    } else {
        (1, 1)
    };
    Ok((
        splits as u32,
        stream.zeros::<f32>(regions * floats)?,
        stream.zeros::<u32>(regions)?,
    ))
}

/// The splits of K for the tiles of a grouped GEMM's last round
/// (`gemm_grouped_tma_bf16_sm90`'s `tail_splits`): with `tiles` cluster
/// tiles on `clusters` clusters, `r = tiles % clusters` are left over
/// after the full rounds, and each is cut into `s = min(clusters / r,
/// kblocks / 8, 4)` units along K (1: none) when that is 2 or more. The
/// units fill one round, so the last round lasts about 1/s of a tile and
/// the hand-on of each split (about 3 µs, the split-K entries' figure);
/// a split keeps at least 8 K-blocks of 64 elements.
///
/// ```
/// use layout_gpu::launch::grouped_tail_splits;
/// // 416 tiles on 66 clusters: 20 left over, each split in 3 (60 units).
/// assert_eq!(grouped_tail_splits(416, 66, 64), 3);
/// // Full rounds: nothing left over.
/// assert_eq!(grouped_tail_splits(132, 66, 64), 1);
/// // 40 left over: no room for two units each.
/// assert_eq!(grouped_tail_splits(106, 66, 64), 1);
/// // Short K: a split keeps 8 K-blocks.
/// assert_eq!(grouped_tail_splits(416, 66, 16), 2);
/// ```
pub fn grouped_tail_splits(tiles: usize, clusters: usize, kblocks: usize) -> usize {
    let left = tiles % clusters.max(1);
    if left == 0 {
        return 1;
    }
    (clusters / left).min(kblocks / 8).clamp(1, 4)
}

impl GroupedSm90Launch {
    /// The plan for `f` (either grouped entry) on A (`offsets[G]` x k), B
    /// (G n x k) and C (`offsets[G]` x n), bf16 row-major, and a
    /// persistent grid of at most `sms` blocks. Refuses another entry,
    /// offsets that do not start at 0 or decrease, buffers of other
    /// lengths, n of 0, K not a positive multiple of 8, and for the TMA
    /// entry n not a multiple of 8.
    pub fn new(
        stream: &Stream,
        f: &Kernel,
        sms: u32,
        (a, b): (&DeviceBuffer<half::bf16>, &DeviceBuffer<half::bf16>),
        offsets: &[i32],
        c: &DeviceBuffer<half::bf16>,
        (n, k): (usize, usize),
    ) -> Result<Self, Error> {
        use layout_kernels_sm90::hgemm::{ceil_div, Bf16In, Inputs, BN, FORMS, NOCLUSTER};
        use layout_kernels_sm90::hgemm::{SMEM_BYTES, SMEM_BYTES_TMA_STORE};
        use layout_launch::TmaSwizzle;
        const OP: &str = "gemm_grouped_bf16_sm90";
        const TMA: &str = "gemm_grouped_tma_bf16_sm90";
        const TMA_NOCLUSTER: &str = "gemm_grouped_tma_nocluster_bf16_sm90";
        // The entries' forms: `hgemm_sm90`'s, `hgemm_sm90_nocluster`'s and
        // `hgemm_sm90_1wg`'s.
        let (name, tma, form, smem) = match f.name() {
            TMA => (TMA, true, FORMS[0].1, SMEM_BYTES_TMA_STORE),
            TMA_NOCLUSTER => (
                TMA_NOCLUSTER,
                true,
                FORMS[NOCLUSTER].1,
                SMEM_BYTES_TMA_STORE,
            ),
            _ => (OP, false, FORMS[1].1, SMEM_BYTES),
        };
        expect(OP, f, name)?;
        let refuse = |why: String| Err(Error::refused(name, why));
        let Some((&first, rest)) = offsets.split_first() else {
            return refuse("the offsets are empty: one per group and one more".into());
        };
        if first != 0 || rest.iter().zip(offsets).any(|(b, a)| b < a) {
            return refuse(format!(
                "the offsets {offsets:?} must start at 0 and not decrease"
            ));
        }
        let (groups, rows) = (rest.len(), *offsets.last().unwrap_or(&0) as usize);
        if n == 0 || k == 0 || k % 8 != 0 {
            return refuse(format!(
                "n = {n}, k = {k}: n must be positive, K a positive multiple of 8"
            ));
        }
        if tma && n % 8 != 0 {
            return refuse(format!(
                "n = {n}: C is stored by TMA, whose rows must be a multiple of 8 elements"
            ));
        }
        let lens = (
            rows.checked_mul(k),
            groups.checked_mul(n).and_then(|x| x.checked_mul(k)),
            rows.checked_mul(n),
        );
        if lens != (Some(a.len()), Some(b.len()), Some(c.len())) {
            return refuse(format!(
                "A, B and C hold {}, {} and {} elements, not {rows} x {k}, {groups} x {n} x {k} and {rows} x {n}",
                a.len(),
                b.len(),
                c.len()
            ));
        }
        let per_tile = form.bm() * form.cluster;
        let tiles: usize = offsets
            .windows(2)
            .map(|w| ceil_div((w[1] - w[0]) as usize, per_tile) * ceil_div(n, BN))
            .sum();
        let dim = |v: usize| {
            u32::try_from(v).map_err(|_| Error::refused(name, format!("{v} is too large")))
        };
        let dims = (dim(groups)?, dim(n)?, dim(k)?);
        let bk = <Bf16In as Inputs>::BK as u32;
        let c_len = c.len();
        // No group has rows: nothing to map or launch.
        let maps = if tiles == 0 {
            None
        } else {
            let map_a =
                stream.tensor_map_2d(a, (rows, k), k, (form.bm() as u32, bk), TmaSwizzle::B128)?;
            let b_rows = (BN / form.cluster) as u32;
            let map_b =
                stream.tensor_map_2d(b, (groups * n, k), k, (b_rows, bk), TmaSwizzle::B128)?;
            Some((stream.upload(&[map_a])?, stream.upload(&[map_b])?))
        };
        let map_c = if tma && tiles > 0 {
            let map = stream.tensor_map_2d(c, (rows, n), n, (64, 64), TmaSwizzle::B128)?;
            Some((stream.upload(&[map])?, address(stream, c)))
        } else {
            None
        };
        let offsets_dev = stream.upload(offsets)?;
        let (grid, tail_splits) = if tiles == 0 {
            (0, 1)
        } else {
            let cluster = form.cluster as u32;
            let resident = resident_clusters(stream, f, form, smem, sms)?;
            let clusters = (tiles as u32).min(resident.min(sms / cluster).max(1));
            let kblocks = k.div_ceil(<Bf16In as Inputs>::BK);
            let splits = if tma {
                grouped_tail_splits(tiles, clusters as usize, kblocks)
            } else {
                1
            };
            (clusters * cluster, splits)
        };
        let tail = tail_workspace(stream, form, tiles, grid, tail_splits)?;
        Ok(GroupedSm90Launch {
            name,
            form,
            smem,
            maps,
            map_c,
            offsets: offsets_dev,
            dims,
            c_len,
            grid,
            tiles,
            tail,
            home: stream.cuda_stream().clone(),
        })
    }

    /// The splits of the last round's tiles (1: none;
    /// [`grouped_tail_splits`]).
    pub fn tail_splits(&self) -> u32 {
        self.tail.0
    }

    /// The plan with the last round's tiles split `splits` ways (1: none)
    /// in place of [`grouped_tail_splits`]'s choice, for the TMA entry.
    /// Refuses 0, more than the tail's units fit in one round
    /// (`splits` x the tiles left over > the grid's clusters), and a split
    /// tail for the 64-row entry.
    pub fn with_tail_splits(mut self, stream: &Stream, splits: usize) -> Result<Self, Error> {
        let clusters = (self.grid as usize / self.form.cluster).max(1);
        let left = self.tiles % clusters;
        if splits == 0 || (splits > 1 && (self.map_c.is_none() || left * splits > clusters)) {
            return Err(Error::refused(
                self.name,
                format!(
                    "{splits} tail splits: {left} tiles are left over on {clusters} clusters, and only the TMA entry splits them"
                ),
            ));
        }
        self.tail = tail_workspace(stream, self.form, self.tiles, self.grid, splits)?;
        self.home = stream.cuda_stream().clone();
        Ok(self)
    }

    /// The blocks launched (0 when no group has rows: no launch).
    pub fn grid(&self) -> u32 {
        self.grid
    }

    /// C for the operands the maps were made for (borrowed so that they
    /// stay alive). Refuses another entry than the plan's, C of another
    /// length, and for the TMA entry another C than the one its map is of.
    pub fn launch(
        &self,
        stream: &Stream,
        f: &Kernel,
        _operands: (&DeviceBuffer<half::bf16>, &DeviceBuffer<half::bf16>),
        c: &mut DeviceBuffer<half::bf16>,
    ) -> Result<(), Error> {
        expect(self.name, f, self.name)?;
        if c.len() != self.c_len {
            return Err(Error::refused(
                self.name,
                format!(
                    "C holds {} elements, not the plan's {}",
                    c.len(),
                    self.c_len
                ),
            ));
        }
        let Some(maps) = &self.maps else {
            return Ok(());
        };
        let map_c = match &self.map_c {
            Some((map, at)) if *at == address(stream, c) => Some(map),
            Some(_) => {
                return Err(Error::refused(
                    self.name,
                    "C must be the buffer the plan made the map of".to_string(),
                ))
            }
            None => None,
        };
        if self.tail.0 > 1 && !std::sync::Arc::ptr_eq(&self.home, stream.cuda_stream()) {
            return Err(Error::refused(
                self.name,
                "a plan with a split tail launches on the stream it was made on (its flags serve one launch at a time)".to_string(),
            ));
        }
        let (g32, n32, k32) = self.dims;
        // SAFETY: the entry takes (map_a, map_b, [map_c,] c, [sums, flags,]
        // offsets, groups, [tail_splits,] n, k), as its name says (checked
        // in `new` and above): the maps are the driver's encoding of A
        // (rows x k) and B (groups n x k) with the boxes and swizzle of the
        // entry's form, and of this C (rows x n, 64 x 64 boxes, the 128-byte
        // swizzle; its address checked above) for the TMA entry, over
        // buffers of those lengths (checked in `new`) that the caller keeps
        // alive (borrowed here); C a slice of rows x n bf16 (checked), every
        // store by each thread checked by the kernel; the tail's sums and
        // flags a region and a word for each consumer of each tile left
        // over by this grid (`new`), the flags 0 as every launch leaves
        // them, used by one launch at a time (on their stream, checked
        // above), the grid's clusters all resident (`new` sizes it by the
        // occupancy); the offsets groups + 1 nondecreasing int32 from 0 to
        // rows (checked in `new`), on the GPU for the launch; the form's
        // threads and its plan's shared memory.
        unsafe {
            let l = stream
                .launch(f)
                .grid(self.grid)
                .block(self.form.threads() as u32)
                .shared_bytes(self.smem as u32)
                .arg(&maps.0)
                .arg(&maps.1);
            match map_c {
                Some(m) => l
                    .arg(m)
                    .slice_mut(c)
                    .slice(&self.tail.1)
                    .slice(&self.tail.2)
                    .slice(&self.offsets)
                    .scalar(g32)
                    .scalar(self.tail.0),
                None => l.slice_mut(c).slice(&self.offsets).scalar(g32),
            }
            .scalar(n32)
            .scalar(k32)
            .launch()
        }
        .map_err(Error::Device)
    }
}

/// How many clusters of `f` (a Hopper GEMM entry of form `form`, with
/// `smem` bytes of dynamic shared memory) run at once on a GPU of `sms`
/// SMs: the driver's occupancy of clusters, or without clusters (which
/// that occupancy says nothing of) one block an SM.
fn resident_clusters(
    stream: &Stream,
    f: &Kernel,
    form: layout_kernels_sm90::hgemm::Form,
    smem: usize,
    sms: u32,
) -> Result<u32, Error> {
    if form.cluster > 1 {
        max_active_clusters(stream, f, form.threads() as u32, smem)
    } else {
        Ok(sms)
    }
}

/// How many clusters of `f` (its cluster size compiled in) fit on the GPU
/// at once with `threads` per block and hgemm_sm90's shared memory
/// (`cuOccupancyMaxActiveClusters`).
fn max_active_clusters(
    stream: &Stream,
    f: &Kernel,
    threads: u32,
    smem: usize,
) -> Result<u32, Error> {
    use layout_launch::cudarc::driver::{sys::CUfunction_attribute, LaunchConfig};
    let func = f.cuda_function();
    let e = |e: layout_launch::cudarc::driver::DriverError| Error::Unsupported {
        op: "hgemm_sm90",
        why: format!("{}: occupancy: {e}", f.name()),
    };
    func.set_attribute(
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        smem as i32,
    )
    .map_err(e)?;
    let cfg = LaunchConfig {
        grid_dim: (132, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    let n = func
        .occupancy_max_active_clusters(cfg, stream.cuda_stream())
        .map_err(e)?;
    Ok(n.max(1))
}

/// An attention entry point of a [`Family`] made ready for one problem
/// and one Q, K, V: the problem checked against the buffers, and for a
/// [`FamilyKind::TensorMaps`] family the three tensor maps encoded and on
/// the GPU (once, not per launch). [`AttentionLaunch::launch`] then writes
/// O = softmax(scale · Q·Kᵀ) · V and LSE per (batch, head). Q and O hold
/// batch · seq_q · heads · d halves, K and V batch · seq_k · heads · d,
/// LSE batch · heads · seq_q floats.
pub struct AttentionLaunch {
    name: String,
    family: &'static Family,
    shape: LaunchShape,
    p: Problem,
    lens: Lens,
    maps: Option<[DeviceBuffer<TensorMap>; 3]>,
    /// A persistent family's ([`FamilyKind::TensorMaps`]) blocks
    /// (`layout_kernels_sm90::attention::persistent_blocks`), which share
    /// out the units of work, the shape's grid of row blocks x heads x
    /// sequences.
    blocks: Option<u32>,
}

impl AttentionLaunch {
    /// The launch of `f` (`family`'s entry point for `p`) on Q, K, V:
    /// refused for another entry point, a problem the family does not
    /// take, or buffers of other lengths.
    pub fn new(
        stream: &Stream,
        f: &Kernel,
        family: &'static Family,
        p: &Problem,
        (q, k, v): (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
    ) -> Result<Self, Error> {
        expect(family.name, f, &family.entry_for(p))?;
        // The head dimension built, positive sizes, the grid's limits, a
        // finite scale.
        let shape = family.launch_shape(p)?;
        let lens = p.lens()?;
        if (q.len(), k.len(), v.len()) != (lens.q, lens.kv, lens.kv) {
            return Err(Error::refused(
                family.name,
                format!(
                    "Q, K, V hold {:?} elements; the problem needs {:?}",
                    (q.len(), k.len(), v.len()),
                    (lens.q, lens.kv, lens.kv)
                ),
            ));
        }
        let maps = match family.kind {
            FamilyKind::Pointers => None,
            FamilyKind::TensorMaps => {
                use layout_kernels_sm90::attention::{bm, BN, CHUNK};
                // Each tensor as `batch` planes of seq x heads · d (kv_heads
                // · d for K and V; plane b's rows past seq read zeros, not
                // plane b + 1's).
                let map = |x: &DeviceBuffer<f16>,
                           seq: usize,
                           rows: usize,
                           heads: usize|
                 -> Result<_, Error> {
                    let ld = heads * p.d;
                    // Packed: one plane of every row.
                    let planes = if p.packed.is_some() { 1 } else { p.batch };
                    let m = stream.tensor_map_3d(
                        x,
                        (planes, seq, ld),
                        (seq * ld, ld),
                        (rows as u32, CHUNK as u32),
                        layout_launch::TmaSwizzle::B128,
                    )?;
                    Ok(stream.upload(&[m])?)
                };
                let (rows_q, rows_k) = match p.packed {
                    Some(t) => (t.total_q, t.total_k),
                    None => (p.seq_q, p.seq_k),
                };
                Some([
                    map(q, rows_q, bm(p.d), p.heads)?,
                    map(k, rows_k, BN, p.kv_heads)?,
                    map(v, rows_k, BN, p.kv_heads)?,
                ])
            }
        };
        let blocks = match family.kind {
            FamilyKind::Pointers => None,
            FamilyKind::TensorMaps => {
                let (x, y, z) = shape.grid;
                // (`launch_shape` refuses 2^31 units or more.)
                let units = x as usize * y as usize * z as usize;
                let blocks = layout_kernels_sm90::attention::persistent_blocks(
                    p.d,
                    units,
                    x as usize,
                    (p.masked(), p.packed.is_some()),
                    stream.sm_count()? as usize,
                );
                Some(blocks as u32)
            }
        };
        Ok(AttentionLaunch {
            name: f.name().to_string(),
            family,
            shape,
            p: *p,
            lens,
            maps,
            blocks,
        })
    }

    /// One launch on the Q, K, V the launch was made for (borrowed here so
    /// that they are alive: the maps point into them), writing `o` and
    /// `lse`; refused for a packed problem (its offsets:
    /// [`AttentionLaunch::launch_packed`]).
    pub fn launch(
        &self,
        stream: &Stream,
        f: &Kernel,
        qkv: (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
        o: &mut DeviceBuffer<f16>,
        lse: &mut DeviceBuffer<f32>,
    ) -> Result<(), Error> {
        self.launch_with(stream, f, qkv, None, o, lse)
    }

    /// [`AttentionLaunch::launch`] for a packed problem
    /// ([`Problem::packed`]), with its cumulative offsets on the GPU (the
    /// values the problem was made from: each is checked by the kernel
    /// against the tensors, a wrong one traps); refused for planes.
    pub fn launch_packed(
        &self,
        stream: &Stream,
        f: &Kernel,
        qkv: (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
        (cu_q, cu_k): (&DeviceBuffer<i32>, &DeviceBuffer<i32>),
        o: &mut DeviceBuffer<f16>,
        lse: &mut DeviceBuffer<f32>,
    ) -> Result<(), Error> {
        self.launch_with(stream, f, qkv, Some((cu_q, cu_k)), o, lse)
    }

    fn launch_with(
        &self,
        stream: &Stream,
        f: &Kernel,
        (q, k, v): (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
        cu: Option<(&DeviceBuffer<i32>, &DeviceBuffer<i32>)>,
        o: &mut DeviceBuffer<f16>,
        lse: &mut DeviceBuffer<f32>,
    ) -> Result<(), Error> {
        let op = self.family.name;
        expect(op, f, &self.name)?;
        let (p, lens, shape) = (&self.p, self.lens, self.shape);
        check_offsets(op, p, cu)?;
        let given = (q.len(), k.len(), v.len(), o.len(), lse.len());
        if given != (lens.q, lens.kv, lens.kv, lens.q, lens.lse) {
            return Err(Error::refused(
                op,
                format!(
                    "Q, K, V, O, LSE hold {given:?} elements; the problem needs {:?}",
                    (lens.q, lens.kv, lens.kv, lens.q, lens.lse)
                ),
            ));
        }
        // A persistent family: its blocks.
        let grid = self.blocks.map_or(shape.grid, |b| (b, 1, 1));
        let launch = stream
            .launch(f)
            .grid(grid)
            .block(shape.block)
            .shared_bytes(shape.shared_bytes);
        // The masked entries' bounds: query i sees keys i + lower ..= i +
        // offset.
        let (offset, lower) = p.mask_bounds();
        let bottom_right = u32::from(p.bottom_right);
        let r = match (self.family.kind, &self.maps, cu) {
            // SAFETY: the family's contract (`maps::attention`): the entry
            // point for this d and mask (checked by name) takes (q, k, v:
            // *const u16, o: *mut u16, lse: *mut f32, batch, seq_q, seq_k,
            // heads, kv_heads: usize, offset, lower: i32, scale: f32), passed in
            // that order and type (kv_heads dividing heads: `launch_shape`); the
            // buffers hold exactly the elements those sizes address
            // (checked), 256-byte aligned (cudarc's allocations; the
            // kernels need 16); O and LSE are written only, each distinct
            // from the others (`&mut`); the grid is (ceil(seq_q / rows),
            // heads, batch) with the family's threads and dynamic shared
            // memory for d (`launch_shape`).
            (FamilyKind::Pointers, _, None) => unsafe {
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
                    .scalar(p.kv_heads)
                    .scalar(offset)
                    .scalar(lower)
                    .scalar(p.scale)
                    .launch()
            },
            // SAFETY: `layout_kernels_sm90::attention`'s contract: (map_q,
            // map_k, map_v: *const u64, o: GlobalMut<u16>, lse:
            // GlobalMut<f32>, batch, seq_q, seq_k, heads, kv_heads: u32,
            // offset, lower: i32, scale: f32), in that order and type, the
            // grid (blocks, 1, 1); the maps are the driver's
            // encoding of Q, K, V (checked lengths, alive: borrowed) as
            // (batch, seq, heads · d) (kv_heads · d for K and V, kv_heads
            // dividing heads: `launch_shape`)
            // with the contract's boxes and swizzle (`new`); O and LSE are
            // slices of the problem's lengths (checked), written only, each
            // store checked by the kernel; the sizes fit in u32 and i32
            // (`launch_shape` refuses sequences beyond i32, and heads
            // beyond the grid's 65535); the grid, threads and dynamic
            // shared memory are the family's.
            (FamilyKind::TensorMaps, Some([mq, mk, mv]), None) => unsafe {
                launch
                    .arg(mq)
                    .arg(mk)
                    .arg(mv)
                    .slice_mut(o)
                    .slice_mut(lse)
                    .scalar(p.batch as u32)
                    .scalar(p.seq_q as u32)
                    .scalar(p.seq_k as u32)
                    .scalar(p.heads as u32)
                    .scalar(p.kv_heads as u32)
                    .scalar(offset)
                    .scalar(lower)
                    .scalar(p.scale)
                    .launch()
            },
            // SAFETY: as the planes form, with the `_varlen` entries'
            // (q, k, v, o, lse, cu_q, cu_k: *const i32, seq_q, seq_k, heads,
            // kv_heads: usize, offset, lower: i32, bottom_right: u32,
            // scale: f32): one plane of the totals (the lengths checked
            // against them), the offsets grid z + 1 each (checked above;
            // their values checked by the kernel against the plane).
            (FamilyKind::Pointers, _, Some((cu_q, cu_k))) => unsafe {
                let t = p.packed.unwrap_or(crate::attention::Packed {
                    total_q: 0,
                    total_k: 0,
                });
                launch
                    .arg(q)
                    .arg(k)
                    .arg(v)
                    .arg_mut(o)
                    .arg_mut(lse)
                    .arg(cu_q)
                    .arg(cu_k)
                    .scalar(t.total_q)
                    .scalar(t.total_k)
                    .scalar(p.heads)
                    .scalar(p.kv_heads)
                    .scalar(offset)
                    .scalar(lower)
                    .scalar(bottom_right)
                    .scalar(p.scale)
                    .launch()
            },
            // SAFETY: as the planes form, with the `_varlen` entries'
            // (map_q, map_k, map_v, o, lse, cu_q, cu_k: *const i32, batch,
            // row_blocks, seq_q, seq_k, heads, kv_heads: u32,
            // offset, lower: i32, bottom_right: u32, scale: f32): maps of
            // one plane of the totals, the offsets batch + 1 each (checked
            // above), the row blocks the shape's grid x (the longest
            // sequence's).
            (FamilyKind::TensorMaps, Some([mq, mk, mv]), Some((cu_q, cu_k))) => unsafe {
                let t = p.packed.unwrap_or(crate::attention::Packed {
                    total_q: 0,
                    total_k: 0,
                });
                launch
                    .arg(mq)
                    .arg(mk)
                    .arg(mv)
                    .slice_mut(o)
                    .slice_mut(lse)
                    .arg(cu_q)
                    .arg(cu_k)
                    .scalar(p.batch as u32)
                    .scalar(shape.grid.0)
                    .scalar(t.total_q as u32)
                    .scalar(t.total_k as u32)
                    .scalar(p.heads as u32)
                    .scalar(p.kv_heads as u32)
                    .scalar(offset)
                    .scalar(lower)
                    .scalar(bottom_right)
                    .scalar(p.scale)
                    .launch()
            },
            (FamilyKind::TensorMaps, None, _) => {
                return Err(Error::refused(op, "no tensor maps were made"));
            }
        };
        r.map_err(Error::Device)
    }
}

/// The device address of `buffer`'s first element.
fn address<T>(stream: &Stream, buffer: &DeviceBuffer<T>) -> u64 {
    use layout_launch::cudarc::driver::DevicePtr;
    let (ptr, _sync) = buffer.as_cuda_slice().device_ptr(stream.cuda_stream());
    ptr
}

/// Whether `cu` fits `p`: the cumulative offsets of a packed problem
/// (sequences + 1 each), none for planes.
fn check_offsets(
    op: &'static str,
    p: &Problem,
    cu: Option<(&DeviceBuffer<i32>, &DeviceBuffer<i32>)>,
) -> Result<(), Error> {
    match (p.packed, cu) {
        (Some(_), Some((cu_q, cu_k)))
            if cu_q.len() == p.batch + 1 && cu_k.len() == p.batch + 1 =>
        {
            Ok(())
        }
        (None, None) => Ok(()),
        (Some(_), Some((cu_q, cu_k))) => Err(Error::refused(
            op,
            format!(
                "the cumulative offsets hold {} (Q) and {} (K) values; the problem's {} sequences need {} each",
                cu_q.len(),
                cu_k.len(),
                p.batch,
                p.batch + 1
            ),
        )),
        (Some(_), None) => Err(Error::refused(
            op,
            "a packed problem needs its cumulative offsets",
        )),
        (None, Some(_)) => Err(Error::refused(
            op,
            "cumulative offsets given for a problem of planes",
        )),
    }
}

/// The FlashAttention backward of `p` (the forward's problem: planes or
/// packed, grouped heads, the mask and its alignment, a window): from Q,
/// K, V, O, dO (f16, the forward's layouts) and the forward's LSE, `Dot`
/// = rowsum(dO ∘ O) into `dot` (at least LSE's length: a buffer kept
/// across steps), then dK and dV (f16, as K) and dQ (f16, as Q): three
/// launches of `kernels`, [`bwd_entries`](crate::attention::bwd_entries)
/// of `p` and `mode`. [`BwdMode::Atomic`] sums dQ in `dq_acc` (f32, at
/// least [`bwd_dq_acc_len`](crate::attention::bwd_dq_acc_len): Q's length,
/// a buffer kept across steps; `Dot`'s launch zeroes it);
/// [`BwdMode::Deterministic`] leaves `dq_acc` alone (any length).
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn attention_bwd(
    stream: &Stream,
    (dot_f, dkdv_f, dq_f): (&Kernel, &Kernel, &Kernel),
    p: &Problem,
    mode: BwdMode,
    (q, k, v, o, d_o): (
        &DeviceBuffer<f16>,
        &DeviceBuffer<f16>,
        &DeviceBuffer<f16>,
        &DeviceBuffer<f16>,
        &DeviceBuffer<f16>,
    ),
    lse: &DeviceBuffer<f32>,
    cu: Option<(&DeviceBuffer<i32>, &DeviceBuffer<i32>)>,
    (dot, dq_acc): (&mut DeviceBuffer<f32>, &mut DeviceBuffer<f32>),
    (dq, dk, dv): (
        &mut DeviceBuffer<f16>,
        &mut DeviceBuffer<f16>,
        &mut DeviceBuffer<f16>,
    ),
) -> Result<(), Error> {
    use crate::attention::{bwd_dkdv_block, bwd_dkdv_grid, bwd_entries, BWD};
    use layout_kernels::maps::{BWD_CONVERT_THREADS, BWD_DOT_THREADS};
    let op = BWD.name;
    let atomic = mode == BwdMode::Atomic;
    for (f, name) in [dot_f, dkdv_f, dq_f].into_iter().zip(bwd_entries(p, mode)) {
        expect(op, f, &name)?;
    }
    // The head dimension built, positive sizes, kv_heads dividing heads,
    // the grid's limits, a finite scale, the lengths' bytes.
    let shape = BWD.launch_shape(p)?;
    let lens = p.lens()?;
    check_offsets(op, p, cu)?;
    let given = [
        q.len(),
        k.len(),
        v.len(),
        o.len(),
        d_o.len(),
        lse.len(),
        dq.len(),
        dk.len(),
        dv.len(),
    ];
    let want = [
        lens.q, lens.kv, lens.kv, lens.q, lens.q, lens.lse, lens.q, lens.kv, lens.kv,
    ];
    if given != want || dot.len() < lens.lse {
        return Err(Error::refused(
            op,
            format!(
                "Q, K, V, O, dO, LSE, dQ, dK, dV hold {given:?} elements and Dot {}; the problem needs {want:?} and at least {}",
                dot.len(),
                lens.lse
            ),
        ));
    }
    let sums = crate::attention::bwd_dq_acc_len(p, mode)?;
    if atomic && dq_acc.len() < sums {
        return Err(Error::refused(
            op,
            format!(
                "the atomic dQ's sums hold {} floats; the problem needs at least {sums}",
                dq_acc.len()
            ),
        ));
    }
    // Dot: one thread per (row, head).
    let (rows, plane_rows) = match p.packed {
        Some(t) => (t.total_q, 0),
        None => (p.batch * p.seq_q, p.seq_q),
    };
    let dot_blocks = (rows * p.heads).div_ceil(BWD_DOT_THREADS).max(1);
    if dot_blocks > i32::MAX as usize {
        return Err(Error::refused(
            op,
            format!(
                "{rows} rows of {} heads: the Dot grid is too large",
                p.heads
            ),
        ));
    }
    let dot_grid = grid(op, (dot_blocks, 1))?;
    // SAFETY: `flash_attn_bwd_dot(o, d_o: *const u16, dot, dq_acc: *mut
    // f32, rows, heads, d, seq_q: usize)`, in that order and type; O and dO
    // hold rows · heads · d halves, Dot rows · heads floats, `dq_acc` (or
    // null) rows · heads · d (checked), 256-byte aligned; Dot and `dq_acc`
    // are written only (`&mut`); seq_q 0 for packed rows.
    unsafe {
        let l = stream
            .launch(dot_f)
            .grid(dot_grid)
            .block(BWD_DOT_THREADS as u32)
            .arg(o)
            .arg(d_o)
            .arg_mut(&mut *dot);
        let l = if atomic {
            l.arg_mut(&mut *dq_acc)
        } else {
            l.null()
        };
        l.scalar(rows)
            .scalar(p.heads)
            .scalar(p.d)
            .scalar(plane_rows)
            .launch()
    }
    .map_err(Error::Device)?;
    let (offset, lower) = p.mask_bounds();
    // Packed, each sequence's bounds are aligned by the kernel.
    let bottom_right = u32::from(p.bottom_right && p.packed.is_some());
    // (For both launches below.) The entries' contract
    // (`layout_kernels::attention_bwd`): (q, k, v, d_o: *const u16, lse, dot:
    // *const f32, outputs: *mut u16 (dk, dv or dq), [dq_acc: *mut f32 for
    // the atomic dQ's], cu_q, cu_k: *const i32 (null for
    // planes), batch, seq_q, seq_k, heads, kv_heads: usize, offset, lower:
    // i32, bottom_right: u32, scale: f32), in that order and type, the
    // sizes those of the planes (packed: one plane of the totals,
    // `Problem::planes`); every buffer holds what the sizes address
    // (`Problem::lens` counts the same planes; checked above), 256-byte
    // aligned; the offsets, when packed, batch + 1 each (checked); the
    // outputs written only and distinct (`&mut`); the grids and shared
    // memory of `BWD` (`launch_shape`: sizes within the kernels' 32-bit
    // limits and the grid's) for dQ, `bwd_dkdv_grid` and `bwd_dkdv_block`
    // for dK/dV.
    let (block, smem) = (shape.block, shape.shared_bytes);
    let (cu_q, cu_k) = match cu {
        Some((a, b)) => (Some(a), Some(b)),
        None => (None, None),
    };
    let kv = (bwd_dkdv_grid(p), bwd_dkdv_block(p.d));
    let launches: &[_] = if atomic {
        &[(dkdv_f, kv, true)]
    } else {
        &[
            (dkdv_f, kv, true),
            (dq_f, (shape.grid, (block, smem)), false),
        ]
    };
    for &(f, (grid, (block, smem)), dkdv) in launches {
        let l = stream.launch(f).grid(grid).block(block).shared_bytes(smem);
        let l = {
            let l = l.arg(q).arg(k).arg(v).arg(d_o).arg(lse).arg(&*dot);
            let l = match (dkdv, atomic) {
                (true, false) => l.arg_mut(&mut *dk).arg_mut(&mut *dv),
                (true, true) => l.arg_mut(&mut *dk).arg_mut(&mut *dv).arg_mut(&mut *dq_acc),
                _ => l.arg_mut(&mut *dq),
            };
            let l = match (cu_q, cu_k) {
                (Some(a), Some(b)) => l.arg(a).arg(b),
                _ => l.null().null(),
            };
            // Packed: one plane of the totals (the entries' contract).
            let (planes, rows_q, rows_k) = p.planes();
            l.scalar(planes)
                .scalar(rows_q)
                .scalar(rows_k)
                .scalar(p.heads)
                .scalar(p.kv_heads)
                .scalar(offset)
                .scalar(lower)
                .scalar(bottom_right)
                .scalar(p.scale)
        };
        // SAFETY: the arguments are the entry's, as stated above.
        unsafe { l.launch() }.map_err(Error::Device)?;
    }
    if atomic {
        let pairs = lens.q / 2;
        let convert_grid = grid(op, (pairs.div_ceil(BWD_CONVERT_THREADS).max(1), 1))?;
        // SAFETY: `flash_attn_bwd_dq_convert(dq_acc: *const f32, dq: *mut
        // u16, n: usize, scale: f32)`, in that order and type; `dq_acc`
        // holds at least n = Q's length floats and dQ n halves (checked;
        // n is even: d is), 256-byte aligned; dQ is written only (`&mut`).
        unsafe {
            stream
                .launch(dq_f)
                .grid(convert_grid)
                .block(BWD_CONVERT_THREADS as u32)
                .arg(&*dq_acc)
                .arg_mut(&mut *dq)
                .scalar(lens.q)
                .scalar(p.scale)
                .launch()
        }
        .map_err(Error::Device)?;
    }
    Ok(())
}

/// One decode launch: `q` (batch, q_len, q_heads, d), the caches (blocks,
/// block_size, kv_heads, d), the block table (batch, max_blocks) and
/// context lengths (batch) int32; O like Q; LSE (batch, q_heads, q_len),
/// or `None`; the split partials in `ws` ([`DecodeWorkspace::fits`] `p`
/// and `plan`). Split, the last split of each row block merges the
/// partials in the same launch. Each sequence's context length must be at
/// most `p.max_context` (the kernel traps otherwise, as for a block table
/// entry outside the cache). Nothing is allocated but the workspace's
/// split counters, at the first split step that needs more of them: a
/// step is its launch.
#[allow(clippy::too_many_arguments)]
pub fn decode(
    stream: &Stream,
    attn: &Kernel,
    p: &Decode,
    plan: SplitPlan,
    (q, k, v): (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
    (table, lens): (&DeviceBuffer<i32>, &DeviceBuffer<i32>),
    o: &mut DeviceBuffer<f16>,
    lse: Option<&mut DeviceBuffer<f32>>,
    ws: &mut DecodeWorkspace,
) -> Result<(), Error> {
    const OP: &str = "decode";
    let l = p.lens()?;
    let got = [q.len(), k.len(), v.len(), table.len(), lens.len(), o.len()];
    let want = [l.q, l.cache, l.cache, l.table, p.batch, l.q];
    if got != want {
        return Err(Error::refused(
            OP,
            format!("Q, K cache, V cache, block table, context lengths and O hold {got:?} elements, not {want:?}"),
        ));
    }
    if let Some(x) = &lse {
        if x.len() != l.lse {
            return Err(Error::refused(
                OP,
                format!("LSE holds {} elements, not {}", x.len(), l.lse),
            ));
        }
    }
    p.check_plan(plan)?;
    let (slabs, bg) = p.grid_yz();
    if !ws.fits(p, plan) {
        return Err(Error::refused(
            OP,
            format!(
                "the workspace holds {} + {} partials, not the {:?} that {plan:?} writes",
                ws.o_part.len(),
                ws.lse_part.len(),
                p.workspace_lens(plan)?
            ),
        ));
    }
    let split = plan.splits > 1;
    // One counter a (row block, sequence, K/V head); zeros, which every
    // launch leaves as it found them.
    let groups = slabs * bg;
    if split && ws.count.as_ref().is_none_or(|c| c.len() < groups) {
        ws.count = Some(stream.zeros::<u32>(groups).map_err(Error::Device)?);
    }
    let DecodeWorkspace {
        o_part,
        lse_part,
        count,
    } = ws;
    // SAFETY: the entry's contract: every buffer holds what the sizes say
    // (checked above; the counters at least grid y * grid z, zeros), 256-byte
    // aligned (cudarc's), the outputs distinct (`&mut`); the grid and threads
    // the plan's; a null pointer for an output the launch does not write.
    let launched = unsafe {
        let l = stream
            .launch(attn)
            .grid((plan.splits as u32, slabs as u32, bg as u32))
            .block(DECODE_THREADS as u32)
            .shared_bytes(decode_smem_bytes(p.d) as u32)
            .arg(q)
            .arg(k)
            .arg(v)
            .arg(table)
            .arg(lens)
            .arg_mut(o);
        let l = match lse {
            Some(x) => l.arg_mut(x),
            None => l.null(),
        };
        let l = match (split, count.as_mut()) {
            (true, Some(c)) => l.arg_mut(o_part).arg_mut(lse_part).arg_mut(c),
            _ => l.null().null().null(),
        };
        l.scalar(p.batch)
            .scalar(p.q_len)
            .scalar(p.q_heads)
            .scalar(p.kv_heads)
            .scalar(p.blocks)
            .scalar(p.block_size)
            .scalar(p.max_blocks)
            .scalar(plan.split_keys)
            .scalar(u32::from(p.causal))
            .scalar(p.scale)
            .launch()
    };
    launched.map_err(Error::Device)
}

/// `kv_append`: the new tokens' K and V, (tokens, kv_heads, d) f16, into
/// the caches' rows `slots[token]` (`slots` int32, one per token; a
/// negative slot skips its token, a slot past the caches' rows traps).
pub fn kv_append(
    stream: &Stream,
    f: &Kernel,
    (k_new, v_new, slots): (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<i32>),
    (k_cache, v_cache): (&mut DeviceBuffer<f16>, &mut DeviceBuffer<f16>),
    (kv_heads, d): (usize, usize),
) -> Result<(), Error> {
    const OP: &str = "kv_append";
    let row = kv_heads.checked_mul(d).filter(|&r| r > 0 && d % 8 == 0);
    let Some(row) = row else {
        return Err(Error::refused(
            OP,
            format!("kv_heads = {kv_heads}, d = {d}: d must be a positive multiple of 8"),
        ));
    };
    let tokens = slots.len();
    let cache_rows = k_cache.len() / row;
    if k_new.len() != tokens * row
        || v_new.len() != k_new.len()
        || k_cache.len() % row != 0
        || v_cache.len() != k_cache.len()
    {
        return Err(Error::refused(
            OP,
            format!(
                "{tokens} slots: the new K and V hold {} and {} elements (want {}), the caches {} and {} (a multiple of {row})",
                k_new.len(),
                v_new.len(),
                tokens * row,
                k_cache.len(),
                v_cache.len()
            ),
        ));
    }
    if tokens == 0 {
        return Ok(());
    }
    let blocks = (tokens * row / 8).div_ceil(APPEND_THREADS);
    if blocks > i32::MAX as usize {
        return Err(Error::refused(OP, format!("{tokens} tokens: too many")));
    }
    // SAFETY: kv_append's contract: sizes checked above, 256-byte aligned
    // buffers, the caches distinct from the inputs (`&mut`).
    unsafe {
        stream
            .launch(f)
            .grid(blocks as u32)
            .block(APPEND_THREADS as u32)
            .arg(k_new)
            .arg(v_new)
            .arg_mut(k_cache)
            .arg_mut(v_cache)
            .arg(slots)
            .scalar(tokens)
            .scalar(kv_heads)
            .scalar(d)
            .scalar(cache_rows)
            .launch()
    }
    .map_err(Error::Device)
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout_kernels::maps::{HGEMM_F32, SGEMM};

    /// The SM80 GEMMs' conditions, each refusal naming the sizes and the
    /// kernel's rule (from its plan).
    #[test]
    fn gemm_conditions() {
        let lens = |m: usize, n: usize, k: usize| (m * k, k * n, m * n);
        assert!(check_gemm("sgemm", &SGEMM, (128, 256, 8), lens(128, 256, 8)).is_ok());
        let e = check_gemm("sgemm", &SGEMM, (100, 256, 8), lens(100, 256, 8)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "sgemm: (100, 256, 8): sgemm_f32 takes M and N multiples of 128, K a positive multiple of 8"
        );
        let e = check_gemm("hgemm", &HGEMM_F32, (128, 128, 16), lens(128, 128, 16)).unwrap_err();
        assert!(e.to_string().contains("K a positive multiple of 32"), "{e}");
        let e =
            check_gemm("hgemm", &HGEMM_F32, (128, 128, 32), (128 * 32, 128 * 32, 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "hgemm: (128, 128, 32): A, B and C hold 4096, 4096 and 1 elements, not 4096, 4096 and 16384"
        );
        let big = 1usize << 40;
        let e = check_gemm("sgemm", &SGEMM, (big, big, 8), (0, 0, 0)).unwrap_err();
        assert!(e.to_string().ends_with("the sizes overflow"), "{e}");
        // M or N of 0 is not a launch (the caller's empty problem).
        assert!(check_gemm("sgemm", &SGEMM, (0, 128, 8), (0, 1024, 0)).is_err());
    }

    /// The parameters (bytes, kind) the PTX `ptx` declares for an entry
    /// point, by name.
    fn declared_params(
        ptx: &str,
    ) -> impl Fn(&str) -> Option<Vec<(usize, layout_launch::ParamKind)>> {
        let entries = layout_launch::entry_points(ptx);
        move |name| {
            entries
                .iter()
                .find(|e| e.name == name)
                .and_then(|e| e.params.as_ref())
                .map(|ps| ps.iter().map(|q| (q.bytes, q.kind)).collect())
        }
    }

    /// The attention launches' arguments, as `launch_with` passes them, are
    /// the parameters the shipped PTX declares for every entry the families
    /// name (a launch checks this too, but only on a GPU).
    #[test]
    fn attention_arguments_are_the_entries_parameters() {
        use crate::attention::FAMILIES;
        use layout_launch::ParamKind::*;
        let (p, i, f, b) = ((8, Pointer), (8, Int), (4, Float), (16, Bytes));
        let u32_ = (4, Int);
        // (q, k, v, o, lse, batch, seq_q, seq_k, heads, kv_heads, offset,
        // lower, scale); packed: cu_q, cu_k after lse, no batch,
        // bottom_right before scale.
        let sm80 = [p, p, p, p, p, i, i, i, i, i, u32_, u32_, f];
        let sm80_packed = [p, p, p, p, p, p, p, i, i, i, i, u32_, u32_, u32_, f];
        // (map_q, map_k, map_v, o, lse, batch, seq_q, seq_k, heads,
        // kv_heads, offset, lower, scale); packed: cu_q, cu_k, batch,
        // row_blocks after lse, bottom_right before scale.
        let sm90 = [p, p, p, b, b, u32_, u32_, u32_, u32_, u32_, u32_, u32_, f];
        let sm90_packed = [
            p, p, p, b, b, p, p, u32_, u32_, u32_, u32_, u32_, u32_, u32_, u32_, u32_, f,
        ];
        for (family, ptx, planes, packed) in [
            (&FAMILIES[0], crate::PTX_SM80, &sm80[..], &sm80_packed[..]),
            (&FAMILIES[1], crate::PTX_SM90, &sm90[..], &sm90_packed[..]),
        ] {
            let params = declared_params(ptx);
            for &d in family.head_dims {
                for masked in [false, true] {
                    let t = crate::attention::Problem {
                        batch: 1,
                        seq_q: 1,
                        seq_k: 1,
                        heads: 1,
                        kv_heads: 1,
                        d,
                        causal: masked,
                        bottom_right: false,
                        window: None,
                        scale: 1.0,
                        packed: None,
                    };
                    let pk = crate::attention::Problem::packed(&[0, 1], &[0, 1], &t).unwrap();
                    for (problem, want) in [(t, planes), (pk, packed)] {
                        let name = family.entry_for(&problem);
                        assert_eq!(params(&name).as_deref(), Some(want), "{name}");
                    }
                }
            }
        }
    }

    /// The grouped GEMM launches' arguments, as
    /// `GroupedSm90Launch::launch` passes them (maps as pointers, buffers
    /// as a pointer and a length, then u32 scalars), are the parameters
    /// the shipped PTX declares.
    #[test]
    fn grouped_arguments_are_the_entries_parameters() {
        use layout_launch::ParamKind::*;
        let (p, b, u32_) = ((8, Pointer), (16, Bytes), (4, Int));
        let params = declared_params(crate::PTX_SM90);
        // (map_a, map_b, c, offsets, groups, n, k)
        let direct = [p, p, b, b, u32_, u32_, u32_];
        // (map_a, map_b, map_c, c, sums, flags, offsets, groups,
        // tail_splits, n, k)
        let tma = [p, p, p, b, b, b, b, u32_, u32_, u32_, u32_];
        assert_eq!(
            params("gemm_grouped_bf16_sm90").as_deref(),
            Some(&direct[..])
        );
        assert_eq!(
            params("gemm_grouped_tma_bf16_sm90").as_deref(),
            Some(&tma[..])
        );
        assert_eq!(
            params("gemm_grouped_tma_nocluster_bf16_sm90").as_deref(),
            Some(&tma[..])
        );
    }

    /// The decode launches' arguments (`decode`, `kv_append`: buffers or
    /// `null` for pointers, `usize`, `u32`, `f32` scalars, in that order)
    /// are the parameters the shipped PTX declares.
    #[test]
    fn decode_arguments_are_the_entries_parameters() {
        use layout_launch::ParamKind::*;
        let (p, i, u32_, f) = ((8, Pointer), (8, Int), (4, Int), (4, Float));
        let params = declared_params(crate::PTX_SM80);
        // (q, k_cache, v_cache, table, lens, o, lse, o_part, lse_part,
        // count, batch, q_len, q_heads, kv_heads, blocks, block_size,
        // max_blocks, split_keys, causal, scale)
        let attn = [
            p, p, p, p, p, p, p, p, p, p, i, i, i, i, i, i, i, i, u32_, f,
        ];
        // (k_new, v_new, k_cache, v_cache, slots, tokens, kv_heads, d,
        // cache_rows)
        let append = [p, p, p, p, p, i, i, i, i];
        for (name, want) in [
            ("decode_attn_d64", &attn[..]),
            ("decode_attn_d128", &attn[..]),
            ("kv_append", &append[..]),
        ] {
            assert_eq!(params(name).as_deref(), Some(want), "{name}");
        }
    }

    /// The backward launches' arguments, as `attention_bwd` passes them
    /// (pointers, `null` for planes' offsets, `usize`, `i32`, `u32`, `f32`
    /// scalars, in that order), are the parameters both shipped PTX files
    /// declare (the sm_90a one has the same entry points).
    #[test]
    fn backward_arguments_are_the_entries_parameters() {
        for ptx in [crate::PTX_SM80, crate::PTX_SM90] {
            backward_parameters_of(ptx);
        }
    }

    fn backward_parameters_of(ptx: &str) {
        use layout_launch::ParamKind::*;
        let (p, i, i32_, f) = ((8, Pointer), (8, Int), (4, Int), (4, Float));
        let params = declared_params(ptx);
        // (o, d_o, dot, dq_acc, rows, heads, d, seq_q)
        let dot = [p, p, p, p, i, i, i, i];
        // (dq_acc, dq, n, scale)
        let convert = [p, p, i, f];
        // (q, k, v, d_o, lse, dot, dk, dv, cu_q, cu_k, batch, seq_q, seq_k,
        // heads, kv_heads, offset, lower, bottom_right, scale)
        let dkdv = [
            p, p, p, p, p, p, p, p, p, p, i, i, i, i, i, i32_, i32_, i32_, f,
        ];
        // The same with dq for dk, dv.
        let dq = [
            p, p, p, p, p, p, p, p, p, i, i, i, i, i, i32_, i32_, i32_, f,
        ];
        // dK/dV's with dq_acc after dv.
        let dkdvq = [
            p, p, p, p, p, p, p, p, p, p, p, i, i, i, i, i, i32_, i32_, i32_, f,
        ];
        assert_eq!(params("flash_attn_bwd_dot").as_deref(), Some(&dot[..]));
        assert_eq!(
            params("flash_attn_bwd_dq_convert").as_deref(),
            Some(&convert[..])
        );
        for d in [64, 128] {
            for causal in ["", "_causal"] {
                let (a, b, c) = (
                    format!("flash_attn_bwd_dkdv_d{d}{causal}"),
                    format!("flash_attn_bwd_dq_d{d}{causal}"),
                    format!("flash_attn_bwd_dkdvq_d{d}{causal}"),
                );
                assert_eq!(params(&a).as_deref(), Some(&dkdv[..]), "{a}");
                assert_eq!(params(&b).as_deref(), Some(&dq[..]), "{b}");
                assert_eq!(params(&c).as_deref(), Some(&dkdvq[..]), "{c}");
            }
        }
    }
}
