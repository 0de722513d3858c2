//! `gpu-runner gemm` and `gpu-runner transpose`: one kernel of
//! `layout-kernels` on `.npy` files. The inputs go to the kernel exactly as
//! the files store them and the output is the kernel's, written unchanged:
//! a file in another storage order, dtype or shape than the kernel takes is
//! refused (one line, exit code 2), never converted or padded. Everything
//! but the run itself is checked here without a GPU (`prepare_gemm`,
//! [`prepare_transpose`]).

use crate::text;
use std::path::{Path, PathBuf};

use half::{bf16, f16};
use layout_gpu::{Gpu, PTX_SM80};
use layout_kernels::maps::{GemmPlan, HGEMM_F16, HGEMM_F32, SGEMM, SGEMM_NT, TRANSPOSE_TILE};

use crate::npy::{self, Array, Data, Order};

/// The storage order, shapes and tiles of each kernel, as `gemm --help`
/// prints them (the sizes from each kernel's launch rules).
pub fn gemm_help() -> String {
    format!(
        "\
Kernels (C is always written C-order, M x N; M, N, K come from the files):
  sgemm_f32     C = A B. A: M x K float32, C-order (row-major).
                B: K x N float32, C-order. C: M x N float32.
                {}.
  sgemm_nt_f32  C = A B. A: M x K float32, Fortran-order (M-major, i.e.
                column-major: np.save(path, np.asfortranarray(a))).
                B: K x N float32, C-order. C: M x N float32.
                {}.
  hgemm_f32     C = A B^T on tensor cores, f32 accumulators.
                A: M x K float16, C-order. B: N x K float16, C-order
                (K-major: the rows of B are the columns of the product).
                C: M x N float32. {}.
  hgemm_f16     as hgemm_f32 with f16 accumulators; C: M x N float16.
  hgemm_sm90    C = A B^T on Hopper (wgmma, TMA; PTX of layout-kernels-sm90),
                f32 accumulators. A: M x K float16, C-order. B: N x K
                float16, C-order. C: M x N float16. Any M and N, K a
                multiple of 8 (TMA's 16-byte rows); partial tiles exact.
  gemm_bf16_sm90
                as hgemm_sm90 in bf16, with --dtype bfloat16: A, B and C
                hold bf16 bits as uint16 (a.view(np.uint16) of a bfloat16
                array; torch: a.view(torch.uint16)).
  gemm_bias_gelu_bf16_sm90
                C = GELU(A B^T + bias) (torch's exact GELU), as
                gemm_bf16_sm90 with --bias BIAS.npy: N bf16 as uint16.
  gemm_bias_gelu_tanh_bf16_sm90
                as gemm_bias_gelu_bf16_sm90 with GELU's tanh form
                (torch's approximate='tanh').
  gemm_bf16_tma_sm90
                as gemm_bf16_sm90, C stored by TMA from shared memory;
                N a multiple of 8 (TMA's 16-byte rows).
  gemm_e4m3_sm90
                C = scale_a scale_b A B^T, with --dtype float8_e4m3fn: A
                and B hold e4m3 bits as uint8, K a multiple of 16; C bf16
                bits as uint16. --scale-a and --scale-b (default 1).
Inputs go to the kernel as stored: another dtype, storage order or shape is
refused (exit code 2), never converted or padded. An empty problem is valid,
as BLAS has it: with M or N of 0 nothing runs (C is empty), with K of 0 C is
written as zeros.",
        SGEMM.sizes(),
        SGEMM_NT.sizes(),
        HGEMM_F32.sizes()
    )
}

/// See [`gemm_help`].
pub fn transpose_help() -> String {
    format!(
        "\
Kernels:
  transpose_f32  Y = X^T. X: N x N float32, C-order, N a multiple of {TRANSPOSE_TILE}.
                 Y: N x N float32, C-order.
Another dtype, storage order or shape is refused (exit code 2)."
    )
}

/// The GEMM kernels `gpu-runner gemm` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gemm {
    /// `sgemm_f32`: C = A · B, A and B row-major f32.
    Sgemm,
    /// `sgemm_nt_f32`: C = A · B, A M-major f32, B row-major.
    SgemmNt,
    /// `hgemm_f32`: C = A · Bᵀ, A m x k and B n x k row-major f16, C f32.
    HgemmF32,
    /// `hgemm_f16`: as [`Gemm::HgemmF32`] with an f16 C.
    HgemmF16,
    /// `hgemm_sm90`: as [`Gemm::HgemmF16`] on Hopper, f32 accumulators, any
    /// M and N.
    HgemmSm90,
    /// `gemm_bf16_sm90`: as [`Gemm::HgemmSm90`] in bf16.
    Bf16Sm90,
    /// `gemm_bias_gelu_bf16_sm90`: GELU(A · Bᵀ + bias) in bf16.
    BiasGeluBf16Sm90,
    /// `gemm_bias_gelu_tanh_bf16_sm90`: as [`Gemm::BiasGeluBf16Sm90`] with
    /// GELU's tanh form.
    BiasGeluTanhBf16Sm90,
    /// `gemm_bf16_tma_sm90`: [`Gemm::Bf16Sm90`] storing C by TMA.
    Bf16TmaSm90,
    /// `gemm_e4m3_sm90`: scale_a · scale_b · A · Bᵀ, FP8 e4m3 in, bf16 out.
    E4m3Sm90,
}

/// What A and B hold, as a kernel takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    F32,
    F16,
    /// bf16 bits in a uint16 file (`--dtype bfloat16`).
    Bf16,
    /// e4m3 bits in a uint8 file (`--dtype float8_e4m3fn`).
    E4m3,
}

impl Input {
    /// The file's dtype, and the `--dtype` that says what it holds.
    fn dtype(self) -> (&'static str, Option<&'static str>) {
        match self {
            Input::F32 => ("float32", None),
            Input::F16 => ("float16", None),
            Input::Bf16 => ("uint16", Some("bfloat16")),
            Input::E4m3 => ("uint8", Some("float8_e4m3fn")),
        }
    }

    fn holds(self, data: &Data) -> bool {
        matches!(
            (self, data),
            (Input::F32, Data::F32(_))
                | (Input::F16, Data::F16(_))
                | (Input::Bf16, Data::U16(_))
                | (Input::E4m3, Data::U8(_))
        )
    }
}

/// `gpu-runner gemm`'s options for the Hopper bf16 and FP8 GEMMs.
#[derive(clap::Args, Clone, Debug, Default, PartialEq)]
pub struct GemmOpts {
    /// What the uint16 or uint8 files hold: bfloat16 (gemm_bf16_sm90,
    /// gemm_bias_gelu_bf16_sm90) or float8_e4m3fn (gemm_e4m3_sm90).
    #[arg(long)]
    pub dtype: Option<String>,
    /// the bias + GELU kernels' bias (.npy): N bf16 as uint16.
    #[arg(long)]
    pub bias: Option<PathBuf>,
    /// gemm_e4m3_sm90's scale of A (default 1).
    #[arg(long = "scale-a")]
    pub scale_a: Option<f32>,
    /// gemm_e4m3_sm90's scale of B (default 1).
    #[arg(long = "scale-b")]
    pub scale_b: Option<f32>,
}

impl Gemm {
    /// Every GEMM kernel, in the order `--help` lists them.
    pub const ALL: [Gemm; 10] = [
        Gemm::Sgemm,
        Gemm::SgemmNt,
        Gemm::HgemmF32,
        Gemm::HgemmF16,
        Gemm::HgemmSm90,
        Gemm::Bf16Sm90,
        Gemm::BiasGeluBf16Sm90,
        Gemm::BiasGeluTanhBf16Sm90,
        Gemm::E4m3Sm90,
        Gemm::Bf16TmaSm90,
    ];

    /// The entry point's name.
    pub fn name(self) -> &'static str {
        match self {
            Gemm::Sgemm => "sgemm_f32",
            Gemm::SgemmNt => "sgemm_nt_f32",
            Gemm::HgemmF32 => "hgemm_f32",
            Gemm::HgemmF16 => "hgemm_f16",
            Gemm::HgemmSm90 => "hgemm_sm90",
            Gemm::Bf16Sm90 => "gemm_bf16_sm90",
            Gemm::BiasGeluBf16Sm90 => "gemm_bias_gelu_bf16_sm90",
            Gemm::BiasGeluTanhBf16Sm90 => "gemm_bias_gelu_tanh_bf16_sm90",
            Gemm::E4m3Sm90 => "gemm_e4m3_sm90",
            Gemm::Bf16TmaSm90 => "gemm_bf16_tma_sm90",
        }
    }

    /// The kernel called `name`, or a one-line refusal naming the others.
    pub fn parse(name: &str) -> Result<Gemm, String> {
        Gemm::ALL
            .into_iter()
            .find(|g| g.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Gemm::ALL.iter().map(|g| g.name()).collect();
                format!("unknown GEMM kernel '{name}' (known: {})", known.join(", "))
            })
    }

    /// What A and B hold.
    fn input(self) -> Input {
        match self {
            Gemm::Sgemm | Gemm::SgemmNt => Input::F32,
            Gemm::HgemmF32 | Gemm::HgemmF16 | Gemm::HgemmSm90 => Input::F16,
            Gemm::Bf16Sm90
            | Gemm::BiasGeluBf16Sm90
            | Gemm::BiasGeluTanhBf16Sm90
            | Gemm::Bf16TmaSm90 => Input::Bf16,
            Gemm::E4m3Sm90 => Input::E4m3,
        }
    }

    /// Whether this is a Hopper kernel (the PTX of layout-kernels-sm90).
    pub fn sm90(self) -> bool {
        self.plan().is_none()
    }

    /// The launch rules of an SM80 kernel; `None` for the Hopper kernels,
    /// which take any M and N (their partial tiles are their own).
    pub fn plan(self) -> Option<GemmPlan> {
        match self {
            Gemm::HgemmSm90
            | Gemm::Bf16Sm90
            | Gemm::BiasGeluBf16Sm90
            | Gemm::BiasGeluTanhBf16Sm90
            | Gemm::E4m3Sm90
            | Gemm::Bf16TmaSm90 => None,
            Gemm::HgemmF32 => Some(HGEMM_F32),
            Gemm::HgemmF16 => Some(HGEMM_F16),
            Gemm::Sgemm => Some(SGEMM),
            Gemm::SgemmNt => Some(SGEMM_NT),
        }
    }

    /// The block tile (M, N, K) that M, N and K must be multiples of.
    pub fn tile(self) -> (usize, usize, usize) {
        // Partial tiles are the Hopper kernels'; TMA's rows are 16 bytes.
        let k = if self.input() == Input::E4m3 { 16 } else { 8 };
        self.plan().map_or((1, 1, k), |p| p.tile)
    }
}

/// A checked GEMM: its kernel, (M, N, K), A and B as the kernel takes them.
#[derive(Debug)]
pub struct GemmJob {
    /// The kernel.
    pub kernel: Gemm,
    /// (M, N, K).
    pub dims: (usize, usize, usize),
    a: Data,
    b: Data,
    /// The bias (bf16 bits) of `gemm_bias_gelu_bf16_sm90`.
    bias: Option<Vec<u16>>,
    /// The scales of `gemm_e4m3_sm90`.
    scales: (f32, f32),
    ptx: PathBuf,
    c: PathBuf,
}

/// Refuses an array that is not a matrix of `dtype` in `order`; `what`
/// names it in the message ("A").
fn check_matrix(
    kernel: &str,
    what: &str,
    a: &Array,
    input: Input,
    order: Order,
) -> Result<(usize, usize), String> {
    let &[rows, cols] = a.shape.as_slice() else {
        return Err(format!(
            "{kernel}: {what} must be a matrix (rank 2); its shape is {:?}",
            a.shape
        ));
    };
    let want = input.dtype().0;
    if !input.holds(&a.data) {
        return Err(format!(
            "{kernel}: {what} must be {want}; it is {}",
            a.dtype_name()
        ));
    }
    if a.order != order {
        let (want, is) = match order {
            Order::C => ("C-order (row-major)", "Fortran-order"),
            Order::Fortran => (
                "Fortran-order (M-major: np.save(path, np.asfortranarray(a)))",
                "C-order",
            ),
        };
        return Err(format!("{kernel}: {what} must be {want}; it is {is}"));
    }
    Ok((rows, cols))
}

/// Refuses a size that is not a multiple of the tile's (and, unless
/// `zero_ok`, a size of 0).
fn check_multiple(
    kernel: &str,
    dim: &str,
    v: usize,
    of: usize,
    zero_ok: bool,
) -> Result<(), String> {
    if v % of != 0 || (v == 0 && !zero_ok) {
        let what = if zero_ok {
            "a multiple"
        } else {
            "a positive multiple"
        };
        return Err(format!(
            "{kernel}: {dim} = {v} must be {what} of {of} (the kernel's tile; inputs are not padded)"
        ));
    }
    Ok(())
}

/// A and B's checks for `kernel` (see [`gemm_help`]): (M, N, K), or the
/// first refusal, one line.
pub fn check_gemm(kernel: Gemm, a: &Array, b: &Array) -> Result<(usize, usize, usize), String> {
    let name = kernel.name();
    let input = kernel.input();
    let a_order = if kernel == Gemm::SgemmNt {
        Order::Fortran
    } else {
        Order::C
    };
    let (m, k) = check_matrix(name, "A", a, input, a_order)?;
    let (b_rows, b_cols) = check_matrix(name, "B", b, input, Order::C)?;
    let (n, kb, b_shape) = if input != Input::F32 {
        (b_rows, b_cols, "N x K")
    } else {
        (b_cols, b_rows, "K x N")
    };
    if kb != k {
        return Err(format!(
            "{name}: A is {m} x {k} (M x K) and B is {b_rows} x {b_cols} ({b_shape}): their K differ"
        ));
    }
    if kernel.sm90() {
        // TMA fills partial tiles; its rows are 16-byte multiples.
        let per_row = kernel.tile().2;
        if k % per_row != 0 {
            return Err(format!(
                "{name}: M = {m}, N = {n}, K = {k}: K must be a multiple of {per_row} (TMA's 16-byte rows)"
            ));
        }
        return match (m.checked_mul(n), m.checked_mul(k), n.checked_mul(k)) {
            (Some(_), Some(_), Some(_)) => Ok((m, n, k)),
            _ => Err(format!("{name}: {m} x {n} x {k} is too large")),
        };
    }
    let (tm, tn, tk) = kernel.tile();
    // An empty problem is BLAS's: M or N of 0 computes nothing, K of 0
    // gives C = 0 (layout_gpu::Gpu, no launch).
    check_multiple(name, "M", m, tm, true)?;
    check_multiple(name, "N", n, tn, true)?;
    check_multiple(name, "K", k, tk, true)?;
    if m.checked_mul(n).is_none() {
        return Err(format!("{name}: C of {m} x {n} elements is too large"));
    }
    Ok((m, n, k))
}

/// Reads a PTX file's text (before any GPU is opened).
pub(crate) fn read_ptx(ptx: &Path) -> Result<String, String> {
    std::fs::read_to_string(ptx).map_err(|e| format!("cannot read {}: {e}", ptx.display()))
}

/// Everything `gpu-runner gemm` checks before the GPU: the kernel's name,
/// the files it reads, their dtypes, orders and shapes.
#[cfg(test)]
pub fn prepare_gemm(
    ptx: &Path,
    kernel: &str,
    a: &Path,
    b: &Path,
    c: &Path,
) -> Result<GemmJob, String> {
    prepare_gemm_with(ptx, kernel, (a, b, c), &GemmOpts::default())
}

/// The options' checks for `kernel`: `--dtype` naming what its uint16 or
/// uint8 files hold (and nothing for the others), `--bias` for the bias
/// kernel only, `--scale-a` and `--scale-b` (finite) for the FP8 one only.
fn check_opts(kernel: Gemm, o: &GemmOpts) -> Result<(f32, f32), String> {
    let name = kernel.name();
    match (kernel.input().dtype().1, o.dtype.as_deref()) {
        (Some(want), Some(d)) if d == want => {}
        (Some(want), d) => {
            return Err(format!(
                "{name}: --dtype {want} must say what the {} files hold{}",
                kernel.input().dtype().0,
                d.map_or(String::new(), |d| format!(" (not {d})"))
            ))
        }
        (None, Some(d)) => {
            return Err(format!(
                "{name}: --dtype {d}: the kernel takes {} files as they are",
                kernel.input().dtype().0
            ))
        }
        (None, None) => {}
    }
    let bias_kernel = matches!(kernel, Gemm::BiasGeluBf16Sm90 | Gemm::BiasGeluTanhBf16Sm90);
    if bias_kernel != o.bias.is_some() {
        return Err(if bias_kernel {
            format!("{name}: --bias BIAS.npy is required")
        } else {
            format!("{name}: --bias is the bias + GELU kernels'")
        });
    }
    let scaled = kernel == Gemm::E4m3Sm90;
    if !scaled && (o.scale_a.is_some() || o.scale_b.is_some()) {
        return Err(format!(
            "{name}: --scale-a and --scale-b are gemm_e4m3_sm90's"
        ));
    }
    let scales = (o.scale_a.unwrap_or(1.0), o.scale_b.unwrap_or(1.0));
    if !(scales.0.is_finite() && scales.1.is_finite()) {
        return Err(format!(
            "{name}: the scales {} and {} must be finite",
            scales.0, scales.1
        ));
    }
    Ok(scales)
}

/// The bias's checks: N bf16 as uint16, one dimension.
fn check_bias(name: &str, bias: &Array, n: usize) -> Result<Vec<u16>, String> {
    match (&bias.data, bias.shape.as_slice()) {
        (Data::U16(v), &[len]) if len == n => Ok(v.clone()),
        (Data::U16(_), shape) => Err(format!(
            "{name}: the bias must have shape [{n}] (N); its shape is {shape:?}"
        )),
        _ => Err(format!(
            "{name}: the bias must be uint16 (bf16 bits); it is {}",
            bias.dtype_name()
        )),
    }
}

/// `prepare_gemm` with the Hopper bf16 and FP8 kernels' options.
pub fn prepare_gemm_with(
    ptx: &Path,
    kernel: &str,
    (a, b, c): (&Path, &Path, &Path),
    opts: &GemmOpts,
) -> Result<GemmJob, String> {
    let kernel = Gemm::parse(kernel)?;
    let scales = check_opts(kernel, opts)?;
    let (a, b) = (npy::read(a)?, npy::read(b)?);
    let dims = check_gemm(kernel, &a, &b)?;
    let bias = match &opts.bias {
        Some(path) => Some(check_bias(kernel.name(), &npy::read(path)?, dims.1)?),
        None => None,
    };
    Ok(GemmJob {
        kernel,
        dims,
        a: a.data,
        b: b.data,
        bias,
        scales,
        ptx: read_ptx(ptx).map(|_| ptx.to_path_buf())?,
        c: c.to_path_buf(),
    })
}

/// Runs a checked GEMM on GPU 0 and writes C: `layout_gpu::Gpu` with
/// `job`'s PTX file (for `hgemm_sm90`, the Hopper crate's; the SM80
/// crate's is then `layout_kernels.ptx` beside it, or the one `layout-gpu`
/// ships), so an empty problem launches nothing.
pub fn run_gemm(job: &GemmJob) -> Result<(), String> {
    let gpu = if job.kernel.sm90() {
        // The SM80 module is not used: the build beside the Hopper PTX
        // (its cubin loads without a compile), else the one layout-gpu ships.
        let beside = job.ptx.with_file_name("layout_kernels.ptx");
        if beside.is_file() {
            Gpu::with_ptx_files(0, &beside, Some(&job.ptx))
        } else {
            Gpu::with_ptx(0, PTX_SM80, Some(&read_ptx(&job.ptx)?))
        }
    } else {
        Gpu::with_ptx_files(0, &job.ptx, None)
    }
    .map_err(text)?;
    let s = gpu.stream();
    let (m, n, _) = job.dims;
    let shape = [m, n];
    match (&job.a, &job.b) {
        (Data::F32(a), Data::F32(b)) => {
            let (da, db) = (s.upload(a).map_err(text)?, s.upload(b).map_err(text)?);
            let mut dc = s.zeros::<f32>(m * n).map_err(text)?;
            if job.kernel == Gemm::SgemmNt {
                gpu.sgemm_nt(&da, &db, &mut dc, job.dims).map_err(text)?;
            } else {
                gpu.sgemm(&da, &db, &mut dc, job.dims).map_err(text)?;
            }
            npy::write(&job.c, &shape, &s.download(&dc).map_err(text)?)
        }
        (Data::F16(a), Data::F16(b)) => {
            let (da, db) = (s.upload(a).map_err(text)?, s.upload(b).map_err(text)?);
            if job.kernel == Gemm::HgemmF32 {
                let mut dc = s.zeros::<f32>(m * n).map_err(text)?;
                gpu.hgemm_sm80(&da, &db, &mut dc, job.dims).map_err(text)?;
                return npy::write(&job.c, &shape, &s.download(&dc).map_err(text)?);
            }
            let mut dc = s.zeros::<f16>(m * n).map_err(text)?;
            if job.kernel == Gemm::HgemmSm90 {
                gpu.hgemm_sm90(&da, &db, &mut dc, job.dims).map_err(text)?;
            } else {
                gpu.hgemm_sm80(&da, &db, &mut dc, job.dims).map_err(text)?;
            }
            npy::write(&job.c, &shape, &s.download(&dc).map_err(text)?)
        }
        (Data::U16(a), Data::U16(b)) => {
            let bits = |v: &[u16]| v.iter().map(|&x| bf16::from_bits(x)).collect::<Vec<_>>();
            let (da, db) = (
                s.upload(&bits(a)).map_err(text)?,
                s.upload(&bits(b)).map_err(text)?,
            );
            let mut dc = s.zeros::<bf16>(m * n).map_err(text)?;
            match &job.bias {
                Some(bias) => {
                    let dbias = s.upload(&bits(bias)).map_err(text)?;
                    if job.kernel == Gemm::BiasGeluTanhBf16Sm90 {
                        gpu.gemm_bias_gelu_tanh_bf16_sm90((&da, &db), &dbias, &mut dc, job.dims)
                    } else {
                        gpu.gemm_bias_gelu_bf16_sm90((&da, &db), &dbias, &mut dc, job.dims)
                    }
                }
                None if job.kernel == Gemm::Bf16TmaSm90 => {
                    gpu.gemm_bf16_tma_sm90(&da, &db, &mut dc, job.dims)
                }
                None => gpu.gemm_bf16_sm90(&da, &db, &mut dc, job.dims),
            }
            .map_err(text)?;
            write_bf16(&job.c, &shape, &s.download(&dc).map_err(text)?)
        }
        (Data::U8(a), Data::U8(b)) => {
            let (da, db) = (s.upload(a).map_err(text)?, s.upload(b).map_err(text)?);
            let mut dc = s.zeros::<bf16>(m * n).map_err(text)?;
            gpu.gemm_e4m3_sm90((&da, &db), job.scales, &mut dc, job.dims)
                .map_err(text)?;
            write_bf16(&job.c, &shape, &s.download(&dc).map_err(text)?)
        }
        _ => Err("A and B of different dtypes passed the checks".into()),
    }
}

/// Writes a bf16 C as its bits (uint16).
fn write_bf16(path: &Path, shape: &[usize], c: &[bf16]) -> Result<(), String> {
    let bits: Vec<u16> = c.iter().map(|x| x.to_bits()).collect();
    npy::write(path, shape, &bits)
}

/// A checked transpose: n and X's elements.
#[derive(Debug)]
pub struct TransposeJob {
    /// The side of X.
    pub n: usize,
    x: Vec<f32>,
    ptx: PathBuf,
    y: PathBuf,
}

/// X's checks for `transpose_f32` (see [`transpose_help`]): n, or the
/// first refusal, one line.
pub fn check_transpose(x: &Array) -> Result<usize, String> {
    let name = "transpose_f32";
    let (rows, cols) = check_matrix(name, "X", x, Input::F32, Order::C)?;
    if rows != cols {
        return Err(format!("{name}: X must be square; it is {rows} x {cols}"));
    }
    check_multiple(name, "N", rows, TRANSPOSE_TILE, false)?;
    Ok(rows)
}

/// Everything `gpu-runner transpose` checks before the GPU.
pub fn prepare_transpose(
    ptx: &Path,
    kernel: &str,
    x: &Path,
    y: &Path,
) -> Result<TransposeJob, String> {
    if kernel != "transpose_f32" {
        return Err(format!(
            "unknown transpose kernel '{kernel}' (known: transpose_f32)"
        ));
    }
    let x = npy::read(x)?;
    let n = check_transpose(&x)?;
    let Data::F32(x) = x.data else {
        return Err("X passed the checks without f32 data".into());
    };
    Ok(TransposeJob {
        n,
        x,
        ptx: read_ptx(ptx).map(|_| ptx.to_path_buf())?,
        y: y.to_path_buf(),
    })
}

/// Runs a checked transpose on GPU 0 (`layout_gpu::Gpu` with `job`'s
/// PTX) and writes Y.
pub fn run_transpose(job: &TransposeJob) -> Result<(), String> {
    let gpu = Gpu::with_ptx_files(0, &job.ptx, None).map_err(text)?;
    let s = gpu.stream();
    let n = job.n;
    let src = s.upload(&job.x).map_err(text)?;
    let mut dst = s.zeros::<f32>(n * n).map_err(text)?;
    gpu.transpose(&src, &mut dst, n).map_err(text)?;
    npy::write(&job.y, &[n, n], &s.download(&dst).map_err(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(shape: &[usize], order: Order) -> Array {
        let len = shape.iter().product();
        Array {
            shape: shape.to_vec(),
            order,
            descr: "<f4".into(),
            data: Data::F32(vec![0.0; len]),
        }
    }

    fn f16s(shape: &[usize], order: Order) -> Array {
        let len = shape.iter().product();
        Array {
            shape: shape.to_vec(),
            order,
            descr: "<f2".into(),
            data: Data::F16(vec![f16::ZERO; len]),
        }
    }

    fn f64s(shape: &[usize]) -> Array {
        Array {
            shape: shape.to_vec(),
            order: Order::C,
            descr: "<f8".into(),
            data: Data::Other,
        }
    }

    use Order::{Fortran as F, C};

    #[test]
    fn the_kernels_tiles() {
        assert_eq!(Gemm::Sgemm.tile(), (128, 128, 8));
        assert_eq!(Gemm::SgemmNt.tile(), (128, 128, 8));
        assert_eq!(Gemm::HgemmF32.tile(), (128, 128, 32));
        assert_eq!(Gemm::HgemmF16.tile(), (128, 128, 32));
        assert_eq!(Gemm::HgemmSm90.tile(), (1, 1, 8));
        assert_eq!(TRANSPOSE_TILE, 64);
    }

    #[test]
    fn kernel_names() {
        for g in Gemm::ALL {
            assert_eq!(Gemm::parse(g.name()), Ok(g));
            assert!(gemm_help().contains(g.name()));
        }
        assert_eq!(
            Gemm::parse("sgemm").unwrap_err(),
            "unknown GEMM kernel 'sgemm' (known: sgemm_f32, sgemm_nt_f32, hgemm_f32, hgemm_f16, hgemm_sm90, gemm_bf16_sm90, gemm_bias_gelu_bf16_sm90, gemm_bias_gelu_tanh_bf16_sm90, gemm_e4m3_sm90, gemm_bf16_tma_sm90)"
        );
        assert_eq!(
            Gemm::parse("transpose_f32").unwrap_err(),
            "unknown GEMM kernel 'transpose_f32' (known: sgemm_f32, sgemm_nt_f32, hgemm_f32, hgemm_f16, hgemm_sm90, gemm_bf16_sm90, gemm_bias_gelu_bf16_sm90, gemm_bias_gelu_tanh_bf16_sm90, gemm_e4m3_sm90, gemm_bf16_tma_sm90)"
        );
    }

    #[test]
    fn accepted_shapes_and_orders() {
        let ok = |g, a: Array, b: Array| check_gemm(g, &a, &b);
        assert_eq!(
            ok(Gemm::Sgemm, f32s(&[384, 96], C), f32s(&[96, 256], C)),
            Ok((384, 256, 96))
        );
        assert_eq!(
            ok(Gemm::SgemmNt, f32s(&[384, 96], F), f32s(&[96, 256], C)),
            Ok((384, 256, 96))
        );
        assert_eq!(
            ok(Gemm::HgemmF32, f16s(&[384, 96], C), f16s(&[256, 96], C)),
            Ok((384, 256, 96))
        );
        assert_eq!(
            ok(Gemm::HgemmF16, f16s(&[128, 32], C), f16s(&[128, 32], C)),
            Ok((128, 128, 32))
        );
        // Hopper's: any M and N (partial tiles), K a multiple of 8.
        assert_eq!(
            ok(Gemm::HgemmSm90, f16s(&[129, 8], C), f16s(&[3, 8], C)),
            Ok((129, 3, 8))
        );
        assert_eq!(
            ok(Gemm::Sgemm, f32s(&[128, 8], C), f32s(&[8, 128], C)),
            Ok((128, 128, 8))
        );
        // Empty problems, as BLAS has them: M or N of 0 (C empty), K of 0
        // (C = 0); the tiles' multiples still hold for the other sizes.
        assert_eq!(
            ok(Gemm::HgemmF32, f16s(&[0, 32], C), f16s(&[128, 32], C)),
            Ok((0, 128, 32))
        );
        assert_eq!(
            ok(Gemm::Sgemm, f32s(&[128, 0], C), f32s(&[0, 128], C)),
            Ok((128, 128, 0))
        );
        assert_eq!(
            ok(Gemm::HgemmSm90, f16s(&[0, 8], C), f16s(&[7, 8], C)),
            Ok((0, 7, 8))
        );
        assert_eq!(
            ok(Gemm::HgemmSm90, f16s(&[5, 0], C), f16s(&[7, 0], C)),
            Ok((5, 7, 0))
        );
    }

    #[test]
    fn refusals_per_kernel() {
        let no = |g, a: Array, b: Array| check_gemm(g, &a, &b).unwrap_err();
        let cases = [
            (
                no(Gemm::Sgemm, f32s(&[384, 96, 1], C), f32s(&[96, 256], C)),
                "sgemm_f32: A must be a matrix (rank 2); its shape is [384, 96, 1]",
            ),
            (
                no(Gemm::Sgemm, f32s(&[384, 96], C), f32s(&[256], C)),
                "sgemm_f32: B must be a matrix (rank 2); its shape is [256]",
            ),
            (
                no(Gemm::Sgemm, f64s(&[384, 96]), f32s(&[96, 256], C)),
                "sgemm_f32: A must be float32; it is '<f8'",
            ),
            (
                no(Gemm::Sgemm, f32s(&[384, 96], C), f16s(&[96, 256], C)),
                "sgemm_f32: B must be float32; it is float16",
            ),
            (
                no(Gemm::HgemmF32, f32s(&[384, 96], C), f16s(&[256, 96], C)),
                "hgemm_f32: A must be float16; it is float32",
            ),
            (
                no(Gemm::Sgemm, f32s(&[384, 96], F), f32s(&[96, 256], C)),
                "sgemm_f32: A must be C-order (row-major); it is Fortran-order",
            ),
            (
                no(Gemm::SgemmNt, f32s(&[384, 96], C), f32s(&[96, 256], C)),
                "sgemm_nt_f32: A must be Fortran-order (M-major: np.save(path, np.asfortranarray(a))); it is C-order",
            ),
            (
                no(Gemm::SgemmNt, f32s(&[384, 96], F), f32s(&[96, 256], F)),
                "sgemm_nt_f32: B must be C-order (row-major); it is Fortran-order",
            ),
            (
                no(Gemm::HgemmF16, f16s(&[384, 96], C), f16s(&[256, 96], F)),
                "hgemm_f16: B must be C-order (row-major); it is Fortran-order",
            ),
            (
                no(Gemm::Sgemm, f32s(&[384, 96], C), f32s(&[64, 256], C)),
                "sgemm_f32: A is 384 x 96 (M x K) and B is 64 x 256 (K x N): their K differ",
            ),
            (
                // B given as K x N to an HGEMM, which takes N x K.
                no(Gemm::HgemmF32, f16s(&[384, 96], C), f16s(&[96, 256], C)),
                "hgemm_f32: A is 384 x 96 (M x K) and B is 96 x 256 (N x K): their K differ",
            ),
            (
                no(Gemm::Sgemm, f32s(&[100, 96], C), f32s(&[96, 256], C)),
                "sgemm_f32: M = 100 must be a multiple of 128 (the kernel's tile; inputs are not padded)",
            ),
            (
                no(Gemm::Sgemm, f32s(&[384, 96], C), f32s(&[96, 200], C)),
                "sgemm_f32: N = 200 must be a multiple of 128 (the kernel's tile; inputs are not padded)",
            ),
            (
                no(Gemm::Sgemm, f32s(&[384, 12], C), f32s(&[12, 256], C)),
                "sgemm_f32: K = 12 must be a multiple of 8 (the kernel's tile; inputs are not padded)",
            ),
            (
                // K = 8 suits the SGEMM, not the HGEMM's k-block of 32.
                no(Gemm::HgemmF16, f16s(&[128, 8], C), f16s(&[128, 8], C)),
                "hgemm_f16: K = 8 must be a multiple of 32 (the kernel's tile; inputs are not padded)",
            ),
            (
                // TMA's rows: 12 halves are 24 bytes, not a multiple of 16.
                no(Gemm::HgemmSm90, f16s(&[5, 12], C), f16s(&[7, 12], C)),
                "hgemm_sm90: M = 5, N = 7, K = 12: K must be a multiple of 8 (TMA's 16-byte rows)",
            ),
            (
                no(Gemm::HgemmSm90, f16s(&[5, 8], C), f16s(&[8, 7], C)),
                "hgemm_sm90: A is 5 x 8 (M x K) and B is 8 x 7 (N x K): their K differ",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn transpose_refusals() {
        assert_eq!(check_transpose(&f32s(&[128, 128], C)), Ok(128));
        let cases = [
            (f32s(&[128, 64], C), "transpose_f32: X must be square; it is 128 x 64"),
            (
                f32s(&[96, 96], C),
                "transpose_f32: N = 96 must be a positive multiple of 64 (the kernel's tile; inputs are not padded)",
            ),
            (
                f32s(&[128, 128], F),
                "transpose_f32: X must be C-order (row-major); it is Fortran-order",
            ),
            (f16s(&[64, 64], C), "transpose_f32: X must be float32; it is float16"),
            (f32s(&[4096], C), "transpose_f32: X must be a matrix (rank 2); its shape is [4096]"),
        ];
        for (x, want) in cases {
            assert_eq!(check_transpose(&x).unwrap_err(), want);
        }
    }

    fn bits16(shape: &[usize]) -> Array {
        Array {
            shape: shape.to_vec(),
            order: Order::C,
            descr: "<u2".into(),
            data: Data::U16(vec![0; shape.iter().product()]),
        }
    }

    fn bits8(shape: &[usize]) -> Array {
        Array {
            shape: shape.to_vec(),
            order: Order::C,
            descr: "|u1".into(),
            data: Data::U8(vec![0; shape.iter().product()]),
        }
    }

    /// The Hopper bf16 and FP8 kernels: bits in uint16 / uint8 files, any
    /// M and N, K a multiple of 16 bytes; their options each kernel's own.
    #[test]
    fn bf16_and_fp8_kernels_checks() {
        let ok = |g, a: Array, b: Array| check_gemm(g, &a, &b);
        assert_eq!(
            ok(Gemm::Bf16Sm90, bits16(&[129, 8]), bits16(&[3, 8])),
            Ok((129, 3, 8))
        );
        assert_eq!(
            ok(Gemm::E4m3Sm90, bits8(&[7, 32]), bits8(&[1, 32])),
            Ok((7, 1, 32))
        );
        let no = |g, a: Array, b: Array| check_gemm(g, &a, &b).unwrap_err();
        assert_eq!(
            no(Gemm::E4m3Sm90, bits8(&[7, 24]), bits8(&[1, 24])),
            "gemm_e4m3_sm90: M = 7, N = 1, K = 24: K must be a multiple of 16 (TMA's 16-byte rows)"
        );
        assert_eq!(
            no(Gemm::Bf16Sm90, f16s(&[8, 8], C), bits16(&[8, 8])),
            "gemm_bf16_sm90: A must be uint16; it is float16"
        );
        assert_eq!(
            no(Gemm::E4m3Sm90, bits8(&[8, 16]), bits16(&[8, 16])),
            "gemm_e4m3_sm90: B must be uint8; it is uint16"
        );
        let opts = |dtype: Option<&str>, bias: bool, sa: Option<f32>| GemmOpts {
            dtype: dtype.map(String::from),
            bias: bias.then(|| PathBuf::from("bias.npy")),
            scale_a: sa,
            scale_b: None,
        };
        let bf = Some("bfloat16");
        assert_eq!(
            check_opts(Gemm::Bf16Sm90, &opts(bf, false, None)),
            Ok((1.0, 1.0))
        );
        assert_eq!(
            check_opts(
                Gemm::E4m3Sm90,
                &opts(Some("float8_e4m3fn"), false, Some(0.5))
            ),
            Ok((0.5, 1.0))
        );
        for (g, o, want) in [
            (
                Gemm::Bf16Sm90,
                opts(None, false, None),
                "gemm_bf16_sm90: --dtype bfloat16 must say what the uint16 files hold",
            ),
            (
                Gemm::Bf16Sm90,
                opts(Some("float16"), false, None),
                "gemm_bf16_sm90: --dtype bfloat16 must say what the uint16 files hold (not float16)",
            ),
            (
                Gemm::HgemmSm90,
                opts(bf, false, None),
                "hgemm_sm90: --dtype bfloat16: the kernel takes float16 files as they are",
            ),
            (
                Gemm::BiasGeluBf16Sm90,
                opts(bf, false, None),
                "gemm_bias_gelu_bf16_sm90: --bias BIAS.npy is required",
            ),
            (
                Gemm::Bf16Sm90,
                opts(bf, true, None),
                "gemm_bf16_sm90: --bias is the bias + GELU kernels'",
            ),
            (
                Gemm::Bf16Sm90,
                opts(bf, false, Some(2.0)),
                "gemm_bf16_sm90: --scale-a and --scale-b are gemm_e4m3_sm90's",
            ),
            (
                Gemm::E4m3Sm90,
                opts(Some("float8_e4m3fn"), false, Some(f32::INFINITY)),
                "gemm_e4m3_sm90: the scales inf and 1 must be finite",
            ),
        ] {
            assert_eq!(check_opts(g, &o).unwrap_err(), want);
        }
        let name = "gemm_bias_gelu_bf16_sm90";
        assert_eq!(check_bias(name, &bits16(&[5]), 5), Ok(vec![0; 5]));
        assert_eq!(
            check_bias(name, &bits16(&[1, 5]), 5).unwrap_err(),
            "gemm_bias_gelu_bf16_sm90: the bias must have shape [5] (N); its shape is [1, 5]"
        );
        assert_eq!(
            check_bias(name, &f16s(&[5], C), 5).unwrap_err(),
            "gemm_bias_gelu_bf16_sm90: the bias must be uint16 (bf16 bits); it is float16"
        );
    }

    /// The whole path before the GPU, on files: read, checked, or refused
    /// with the file named.
    #[test]
    fn prepare_from_files() {
        let dir = std::env::temp_dir().join(format!("gpu-runner-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = |name: &str| dir.join(name);
        std::fs::write(p("k.ptx"), ".version 8.0\n").unwrap();
        let a: Vec<f32> = (0..128 * 16).map(|i| i as f32).collect();
        npy::write(&p("a.npy"), &[128, 16], &a).unwrap();
        npy::write(&p("b.npy"), &[16, 128], &vec![1.0f32; 16 * 128]).unwrap();
        let h = vec![f16::ONE; 128 * 32];
        npy::write(&p("h.npy"), &[128, 32], &h).unwrap();

        let job = prepare_gemm(
            &p("k.ptx"),
            "sgemm_f32",
            &p("a.npy"),
            &p("b.npy"),
            &p("c.npy"),
        )
        .unwrap();
        assert_eq!((job.kernel, job.dims), (Gemm::Sgemm, (128, 128, 16)));
        assert_eq!(job.a, Data::F32(a));
        let job = prepare_gemm(
            &p("k.ptx"),
            "hgemm_f16",
            &p("h.npy"),
            &p("h.npy"),
            &p("c.npy"),
        )
        .unwrap();
        assert_eq!(job.dims, (128, 128, 32));

        let e = prepare_gemm(
            &p("k.ptx"),
            "hgemm_f32",
            &p("a.npy"),
            &p("b.npy"),
            &p("c.npy"),
        )
        .unwrap_err();
        assert_eq!(e, "hgemm_f32: A must be float16; it is float32");
        let e = prepare_gemm(
            &p("k.ptx"),
            "sgemm_f32",
            &p("none.npy"),
            &p("b.npy"),
            &p("c.npy"),
        )
        .unwrap_err();
        assert!(
            e.starts_with(&format!("cannot read {}: ", p("none.npy").display())),
            "{e}"
        );
        let e = prepare_gemm(
            &p("none.ptx"),
            "sgemm_f32",
            &p("a.npy"),
            &p("b.npy"),
            &p("c.npy"),
        )
        .unwrap_err();
        assert!(
            e.starts_with(&format!("cannot read {}: ", p("none.ptx").display())),
            "{e}"
        );
        let e =
            prepare_gemm(&p("k.ptx"), "gemm", &p("a.npy"), &p("b.npy"), &p("c.npy")).unwrap_err();
        assert!(e.starts_with("unknown GEMM kernel 'gemm'"), "{e}");
        let e = prepare_gemm(
            &p("k.ptx"),
            "sgemm_f32",
            &p("k.ptx"),
            &p("b.npy"),
            &p("c.npy"),
        )
        .unwrap_err();
        assert!(
            e.starts_with(&format!("{}: not a .npy array", p("k.ptx").display())),
            "{e}"
        );

        let x: Vec<f32> = (0..64 * 64).map(|i| i as f32).collect();
        npy::write(&p("x.npy"), &[64, 64], &x).unwrap();
        let job =
            prepare_transpose(&p("k.ptx"), "transpose_f32", &p("x.npy"), &p("y.npy")).unwrap();
        assert_eq!((job.n, &job.x), (64, &x));
        let e = prepare_transpose(&p("k.ptx"), "sgemm_f32", &p("x.npy"), &p("y.npy")).unwrap_err();
        assert_eq!(
            e,
            "unknown transpose kernel 'sgemm_f32' (known: transpose_f32)"
        );
        let e =
            prepare_transpose(&p("k.ptx"), "transpose_f32", &p("a.npy"), &p("y.npy")).unwrap_err();
        assert_eq!(e, "transpose_f32: X must be square; it is 128 x 16");
        assert!(!e.contains('\n'));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
