//! [`Gpu`]: a device with the kernels loaded, and the operations an
//! application calls.

use crate::attention::{Family, Problem, FAMILIES};
use crate::launch::{self, AttentionLaunch, HgemmOut, HgemmSm90Launch, Sm90Epilogue};
use crate::Error;
use half::{bf16, f16};
use layout_kernels::maps::{GemmPlan, SGEMM, SGEMM_NT};
use layout_launch::{Device, DeviceBuffer, Kernel, Module, Stream, ValidAsZeroBits};

/// The PTX of `layout-kernels` (sm_90 and newer): the transpose, the
/// SGEMM, the SM80 HGEMM and attention kernels.
pub const PTX_SM80: &str = include_str!("../ptx/layout_kernels.ptx");

/// The PTX of `layout-kernels-sm90` (sm_90a, Hopper only): the Hopper HGEMM
/// and attention kernels.
pub const PTX_SM90: &str = include_str!("../ptx/layout_kernels_sm90.ptx");

/// A GPU with the kernels loaded: the `layout-kernels` module on every
/// GPU of compute capability 9.0 or newer, the Hopper module on 9.0.
pub struct Gpu {
    device: Device,
    sm80: Module,
    sm90: Option<Module>,
    sms: u32,
    capability: (i32, i32),
    /// The split decode's partials, kept between steps (grown on demand).
    decode_ws: std::sync::Mutex<Option<crate::decode::DecodeWorkspace>>,
    /// The backward's rowsum(dO ∘ O), kept between steps (grown on
    /// demand).
    bwd_dot: std::sync::Mutex<Option<DeviceBuffer<f32>>>,
    /// The backward's atomic dQ sums, kept between steps (grown on
    /// demand).
    bwd_dq_acc: std::sync::Mutex<Option<DeviceBuffer<f32>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("ordinal", &self.device.ordinal())
            .field("capability", &self.capability)
            .field("sm90", &self.sm90.is_some())
            .finish()
    }
}

/// The element counts of a GEMM's A, B and C for (m, n, k), or a refusal
/// when one overflows.
fn gemm_lens(
    op: &'static str,
    (m, n, k): (usize, usize, usize),
) -> Result<(usize, usize, usize), Error> {
    match (m.checked_mul(k), k.checked_mul(n), m.checked_mul(n)) {
        (Some(a), Some(b), Some(c)) => Ok((a, b, c)),
        _ => Err(Error::refused(
            op,
            format!("({m}, {n}, {k}): the sizes overflow"),
        )),
    }
}

/// A buffer kept across calls in `slot`, locked: the one there when
/// `fits` it, else a new one from `make` (the old one freed first), so
/// that a step allocates only when it outgrows the last.
fn kept<'a, T>(
    slot: &'a std::sync::Mutex<Option<T>>,
    fits: impl FnOnce(&T) -> bool,
    make: impl FnOnce() -> Result<T, Error>,
) -> Result<std::sync::MutexGuard<'a, Option<T>>, Error> {
    let mut kept = slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !kept.as_ref().is_some_and(fits) {
        *kept = None;
        *kept = Some(make()?);
    }
    Ok(kept)
}

impl Gpu {
    /// GPU `ordinal` with this crate's kernels.
    ///
    /// # Errors
    ///
    /// No driver or no such GPU ([`Error::Device`]), or a GPU older than
    /// compute capability 9.0 ([`Error::Unsupported`]: the kernels are PTX
    /// for sm_90).
    pub fn new(ordinal: usize) -> Result<Self, Error> {
        Gpu::with_ptx(ordinal, PTX_SM80, Some(PTX_SM90))
    }

    /// GPU `ordinal` with other builds of the two kernel crates (a build
    /// under study): `sm80` as `layout_kernels.ptx`, `sm90` (loaded on
    /// compute capability 9.0 only) as `layout_kernels_sm90.ptx`.
    ///
    /// # Errors
    ///
    /// As [`Gpu::new`], and the driver's refusal of the PTX.
    pub fn with_ptx(ordinal: usize, sm80: &str, sm90: Option<&str>) -> Result<Self, Error> {
        Gpu::open(ordinal, |device, hopper| {
            let sm90 = match sm90 {
                Some(ptx) if hopper => Some(device.load_ptx(ptx)?),
                _ => None,
            };
            Ok((device.load_ptx(sm80)?, sm90))
        })
    }

    /// [`Gpu::with_ptx`] from files, each loaded by
    /// [`Device::load_ptx_file`]: where `layout-ptx`'s cubin lies beside a
    /// file, the driver loads that code instead of compiling the PTX.
    ///
    /// # Errors
    ///
    /// As [`Gpu::with_ptx`], and a file that cannot be read.
    pub fn with_ptx_files(
        ordinal: usize,
        sm80: &std::path::Path,
        sm90: Option<&std::path::Path>,
    ) -> Result<Self, Error> {
        Gpu::open(ordinal, |device, hopper| {
            let sm90 = match sm90 {
                Some(path) if hopper => Some(device.load_ptx_file(path)?),
                _ => None,
            };
            Ok((device.load_ptx_file(sm80)?, sm90))
        })
    }

    /// GPU `ordinal` with the modules `load` gives (the SM80 crate's, and
    /// the Hopper crate's where the flag, compute capability 9.0, is set).
    fn open(
        ordinal: usize,
        load: impl FnOnce(&Device, bool) -> Result<(Module, Option<Module>), Error>,
    ) -> Result<Self, Error> {
        let device = Device::new(ordinal)?;
        let capability = device.compute_capability()?;
        if capability < (9, 0) {
            return Err(Error::Unsupported {
                op: "Gpu::new",
                why: format!(
                    "GPU {ordinal} has compute capability {}.{}: the kernels are PTX for sm_90 and newer",
                    capability.0, capability.1
                ),
            });
        }
        let (sm80, sm90) = load(&device, capability == (9, 0))?;
        let sms = device.sm_count()?;
        Ok(Gpu {
            device,
            sm80,
            sm90,
            sms,
            capability,
            decode_ws: std::sync::Mutex::new(None),
            bwd_dot: std::sync::Mutex::new(None),
            bwd_dq_acc: std::sync::Mutex::new(None),
        })
    }

    /// The device: its name, its streams, buffers from other code.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The stream every operation here runs on (in order; a download
    /// waits for them).
    pub fn stream(&self) -> &Stream {
        self.device.stream()
    }

    /// The compute capability (major, minor).
    pub fn capability(&self) -> (i32, i32) {
        self.capability
    }

    /// Whether the Hopper kernels are loaded (compute capability 9.0).
    pub fn has_sm90(&self) -> bool {
        self.sm90.is_some()
    }

    /// An entry point of the `layout-kernels` module.
    ///
    /// # Errors
    ///
    /// No entry point of that name.
    pub fn sm80_kernel(&self, name: &str) -> Result<Kernel, Error> {
        Ok(self.sm80.kernel(name)?)
    }

    /// An entry point of the Hopper module.
    ///
    /// # Errors
    ///
    /// Not a Hopper GPU ([`Error::Unsupported`]), or no entry point of
    /// that name.
    pub fn sm90_kernel(&self, name: &str) -> Result<Kernel, Error> {
        match &self.sm90 {
            Some(m) => Ok(m.kernel(name)?),
            None => Err(Error::Unsupported {
                op: "sm90",
                why: format!(
                    "{name} runs on compute capability 9.0 (this GPU is {}.{})",
                    self.capability.0, self.capability.1
                ),
            }),
        }
    }

    /// The common part of every GEMM: the buffers' lengths for (m, n, k),
    /// then `true` when the product is empty and done (M or N of 0: nothing
    /// to write; K of 0: C = 0, written here).
    fn empty_gemm<C: layout_launch::DeviceRepr + ValidAsZeroBits>(
        &self,
        op: &'static str,
        (la, lb): (usize, usize),
        c: &mut DeviceBuffer<C>,
        dims: (usize, usize, usize),
    ) -> Result<bool, Error> {
        let (a, b, cl) = gemm_lens(op, dims)?;
        if (la, lb, c.len()) != (a, b, cl) {
            let (m, n, k) = dims;
            return Err(Error::refused(
                op,
                format!(
                    "({m}, {n}, {k}): A, B and C hold {la}, {lb} and {} elements, not {a}, {b} and {cl}",
                    c.len()
                ),
            ));
        }
        let (m, n, k) = dims;
        if m == 0 || n == 0 {
            return Ok(true);
        }
        if k == 0 {
            self.stream()
                .cuda_stream()
                .memset_zeros(c.as_cuda_slice_mut())
                .map_err(|error| {
                    Error::Device(layout_launch::Error::Driver {
                        during: format!("{op}: C = 0 (K = 0)"),
                        error,
                    })
                })?;
            return Ok(true);
        }
        Ok(false)
    }

    fn sm80_gemm<A, B, C: layout_launch::DeviceRepr + ValidAsZeroBits>(
        &self,
        op: &'static str,
        plan: &GemmPlan,
        (a, b, c): (&DeviceBuffer<A>, &DeviceBuffer<B>, &mut DeviceBuffer<C>),
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        if self.empty_gemm(op, (a.len(), b.len()), c, dims)? {
            return Ok(());
        }
        let f = self.sm80_kernel(plan.entry)?;
        launch::gemm(self.stream(), &f, plan, (a, b, c), dims)
    }

    /// C = A · B in f32: A m x k, B k x n, C m x n, all row-major
    /// (`sgemm_f32`, the SIMT kernel with 128 x 128 x 8 block tiles).
    ///
    /// # Errors
    ///
    /// Buffers of other lengths than m·k, k·n, m·n; M and N not multiples
    /// of 128, K not of 8 (`layout_kernels::maps::SGEMM`); the driver's.
    pub fn sgemm(
        &self,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &mut DeviceBuffer<f32>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        self.sm80_gemm("sgemm", &SGEMM, (a, b, c), dims)
    }

    /// [`Gpu::sgemm`] with A M-major (column-major, CuTe's NT): element
    /// (i, p) of A at `p * m + i` (`sgemm_nt_f32`).
    ///
    /// # Errors
    ///
    /// As [`Gpu::sgemm`].
    pub fn sgemm_nt(
        &self,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &mut DeviceBuffer<f32>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        self.sm80_gemm("sgemm_nt", &SGEMM_NT, (a, b, c), dims)
    }

    /// C = A · Bᵀ on tensor cores (`mma.sync`): A m x k and B n x k f16,
    /// row-major; C m x n row-major, f32 (f32 accumulators, `hgemm_f32`)
    /// or f16 (f16 accumulators, `hgemm_f16`).
    ///
    /// # Errors
    ///
    /// Buffers of other lengths than m·k, n·k, m·n; M and N not multiples
    /// of 128, K not of 32 (`layout_kernels::maps::HGEMM_F32`); the
    /// driver's.
    pub fn hgemm_sm80<C: HgemmOut>(
        &self,
        a: &DeviceBuffer<f16>,
        b: &DeviceBuffer<f16>,
        c: &mut DeviceBuffer<C>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        self.sm80_gemm("hgemm_sm80", &C::PLAN, (a, b, c), dims)
    }

    /// C = A · Bᵀ on Hopper (`wgmma`, TMA, persistent): A m x k and B n x
    /// k f16, row-major, f32 accumulators, C m x n f16 row-major. Any M and
    /// N (the edge tiles are the kernel's), K a multiple of 8 (TMA's
    /// 16-byte rows). The entry is chosen per shape
    /// ([`launch::sm90_gemm_entry`]): split-K (`hgemm_splitk_sm90`) where
    /// the 128 x 256 tiles do not fill the GPU, else clusters of two
    /// (`hgemm_sm90`), C stored by TMA when N is a multiple of 8
    /// (`hgemm_tma_sm90`).
    ///
    /// # Errors
    ///
    /// Not a Hopper GPU; buffers of other lengths; K not a multiple of 8;
    /// the driver's.
    pub fn hgemm_sm90(
        &self,
        a: &DeviceBuffer<f16>,
        b: &DeviceBuffer<f16>,
        c: &mut DeviceBuffer<f16>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        let entry = launch::sm90_gemm_entry(false, dims, self.sms);
        self.sm90_gemm(entry, (a, b), c, dims, Sm90Epilogue::Plain)
    }

    /// C = A · Bᵀ on Hopper as [`Gpu::hgemm_sm90`], in bf16: A m x k and B
    /// n x k bf16, row-major, f32 accumulators, C m x n bf16, the entry
    /// chosen per shape as there (`gemm_bf16_splitk_sm90`,
    /// `gemm_bf16_tma_sm90` or `gemm_bf16_sm90`).
    ///
    /// # Errors
    ///
    /// As [`Gpu::hgemm_sm90`].
    pub fn gemm_bf16_sm90(
        &self,
        a: &DeviceBuffer<bf16>,
        b: &DeviceBuffer<bf16>,
        c: &mut DeviceBuffer<bf16>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        let entry = launch::sm90_gemm_entry(true, dims, self.sms);
        self.sm90_gemm(entry, (a, b), c, dims, Sm90Epilogue::Plain)
    }

    /// [`Gpu::gemm_bf16_sm90`] with the TMA-store epilogue
    /// (`gemm_bf16_tma_sm90`): C staged in shared memory and stored by TMA.
    ///
    /// # Errors
    ///
    /// As [`Gpu::hgemm_sm90`], and N not a multiple of 8 (TMA's rows are
    /// 16-byte multiples).
    pub fn gemm_bf16_tma_sm90(
        &self,
        a: &DeviceBuffer<bf16>,
        b: &DeviceBuffer<bf16>,
        c: &mut DeviceBuffer<bf16>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        self.sm90_gemm(
            ("gemm_bf16_tma_sm90", 1),
            (a, b),
            c,
            dims,
            Sm90Epilogue::Plain,
        )
    }

    /// C = GELU(A · Bᵀ + bias) on Hopper, in bf16: A m x k and B n x k
    /// bf16, row-major, `bias` n bf16 (one per column of C: a linear
    /// layer's `x @ W.T + b`), torch's exact GELU (`x/2 (1 + erf(x/√2))`)
    /// in f32, C m x n bf16: `gemm_bias_gelu_tma_bf16_sm90` (C stored by
    /// TMA) where N is a multiple of 8, else `gemm_bias_gelu_bf16_sm90`.
    /// The TMA entry applies GELU to the sum rounded to bf16 (as torch's
    /// `F.gelu(F.linear(..))` does), the other to the f32 sum.
    ///
    /// # Errors
    ///
    /// As [`Gpu::hgemm_sm90`], and K of 0 (C would be GELU of the bias, not
    /// a product), a bias of another length than n.
    pub fn gemm_bias_gelu_bf16_sm90(
        &self,
        (a, b): (&DeviceBuffer<bf16>, &DeviceBuffer<bf16>),
        bias: &DeviceBuffer<bf16>,
        c: &mut DeviceBuffer<bf16>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        let entries = ("gemm_bias_gelu_bf16_sm90", "gemm_bias_gelu_tma_bf16_sm90");
        self.sm90_bias_gemm(entries, (a, b), bias, c, dims)
    }

    /// [`Gpu::gemm_bias_gelu_bf16_sm90`] with GELU's tanh form (torch's
    /// `F.gelu(.., approximate='tanh')`, cuBLASLt's GELU epilogue; within
    /// 4.8e-4 of the exact GELU): `gemm_bias_gelu_tanh_tma_bf16_sm90`
    /// where N is a multiple of 8, else `gemm_bias_gelu_tanh_bf16_sm90`.
    /// One `tanh.approx` a value, where the exact form takes an `ex2` and
    /// an `rcp`: the cheaper epilogue.
    ///
    /// # Errors
    ///
    /// As [`Gpu::gemm_bias_gelu_bf16_sm90`].
    pub fn gemm_bias_gelu_tanh_bf16_sm90(
        &self,
        (a, b): (&DeviceBuffer<bf16>, &DeviceBuffer<bf16>),
        bias: &DeviceBuffer<bf16>,
        c: &mut DeviceBuffer<bf16>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        let entries = (
            "gemm_bias_gelu_tanh_bf16_sm90",
            "gemm_bias_gelu_tanh_tma_bf16_sm90",
        );
        self.sm90_bias_gemm(entries, (a, b), bias, c, dims)
    }

    /// A bias + activation GEMM: `direct` (C stored directly, any N) or
    /// `tma` (C stored by TMA) where N is a multiple of 8; K of 0 refused.
    fn sm90_bias_gemm(
        &self,
        (direct, tma): (&'static str, &'static str),
        (a, b): (&DeviceBuffer<bf16>, &DeviceBuffer<bf16>),
        bias: &DeviceBuffer<bf16>,
        c: &mut DeviceBuffer<bf16>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        let (m, n, k) = dims;
        if k == 0 && m > 0 && n > 0 {
            return Err(Error::refused(
                direct,
                format!("({m}, {n}, {k}): K must be positive"),
            ));
        }
        let entry = if n % 8 == 0 { tma } else { direct };
        self.sm90_gemm((entry, 1), (a, b), c, dims, Sm90Epilogue::Bias(bias))
    }

    /// C = scale_a · scale_b · A · Bᵀ on Hopper for FP8: A m x k and B n x k
    /// e4m3 (their bits, one byte each), row-major, per-tensor scales, f32
    /// accumulators, C m x n bf16 (the FP8 inference GEMM):
    /// `gemm_e4m3_tma_sm90` (C stored by TMA) where N is a multiple of 8,
    /// else `gemm_e4m3_sm90`.
    ///
    /// # Errors
    ///
    /// As [`Gpu::hgemm_sm90`] with K a multiple of 16 (TMA's 16-byte rows),
    /// and scales that are not finite.
    pub fn gemm_e4m3_sm90(
        &self,
        (a, b): (&DeviceBuffer<u8>, &DeviceBuffer<u8>),
        (scale_a, scale_b): (f32, f32),
        c: &mut DeviceBuffer<bf16>,
        dims: (usize, usize, usize),
    ) -> Result<(), Error> {
        let op = if dims.1 % 8 == 0 {
            "gemm_e4m3_tma_sm90"
        } else {
            "gemm_e4m3_sm90"
        };
        if !(scale_a.is_finite() && scale_b.is_finite()) {
            return Err(Error::refused(
                op,
                format!("the scales {scale_a} and {scale_b} must be finite"),
            ));
        }
        self.sm90_gemm(
            (op, 1),
            (a, b),
            c,
            dims,
            Sm90Epilogue::Scales(scale_a, scale_b),
        )
    }

    /// A grouped GEMM in bf16 on Hopper (a mixture-of-experts layer, torch's
    /// `_grouped_mm` with offsets): for each group g, rows `offsets[g]..
    /// offsets[g + 1]` of C (n columns) = the same rows of A (k columns)
    /// times B_gᵀ, B_g the g-th n x k matrix of B; one launch of the entry
    /// [`launch::grouped_entry`] picks for the groups' sizes
    /// (`gemm_grouped_tma_bf16_sm90`, 128 x 256 tiles and C by TMA, or
    /// `gemm_grouped_bf16_sm90`, 64 x 256 tiles). A group of no rows is
    /// allowed.
    ///
    /// # Errors
    ///
    /// Offsets that do not start at 0 or decrease, buffers of other
    /// lengths, n of 0, K not a positive multiple of 8; the driver's.
    pub fn gemm_grouped_bf16_sm90(
        &self,
        (a, b): (&DeviceBuffer<bf16>, &DeviceBuffer<bf16>),
        offsets: &[i32],
        c: &mut DeviceBuffer<bf16>,
        (n, k): (usize, usize),
    ) -> Result<(), Error> {
        let f = self.sm90_kernel(launch::grouped_entry(offsets, n))?;
        launch::gemm_grouped_bf16_sm90(self.stream(), &f, self.sms, (a, b), offsets, c, (n, k))
    }

    /// A Hopper GEMM entry on `hgemm_sm90`'s plan: the empty problem as
    /// BLAS has it, then the maps, the grid and the launch; a split-K entry
    /// with `splits` splits and their workspace, a TMA-store entry with C's
    /// map (`splits` is a split-K entry's only).
    fn sm90_gemm<T: layout_launch::TmaElement, C: layout_launch::TmaElement + ValidAsZeroBits>(
        &self,
        (op, splits): (&'static str, usize),
        (a, b): (&DeviceBuffer<T>, &DeviceBuffer<T>),
        c: &mut DeviceBuffer<C>,
        dims: (usize, usize, usize),
        epilogue: Sm90Epilogue<'_>,
    ) -> Result<(), Error> {
        let f = self.sm90_kernel(op)?;
        if self.empty_gemm(op, (a.len(), b.len()), c, dims)? {
            return Ok(());
        }
        HgemmSm90Launch::new(self.stream(), &f, Some(self.sms), a, b, dims)?
            .ready(self.stream(), splits, c)?
            .launch_epilogue(self.stream(), &f, (a, b), c, epilogue)
    }

    /// The attention family this GPU runs: the Hopper kernel on compute
    /// capability 9.0, the SM80 kernel elsewhere.
    pub fn attention_family(&self) -> &'static Family {
        &FAMILIES[usize::from(self.has_sm90())]
    }

    /// O = softmax(scale · Q·Kᵀ) · V and the log-sum-exp of each row, for
    /// every (batch, head): Q and O (batch, seq_q, heads, d) f16, K and V
    /// (batch, seq_k, kv_heads, d) f16 (grouped-query attention: query
    /// head h reads K/V head h / (heads / kv_heads)), all C-order (BSHD);
    /// LSE (batch, heads, seq_q) f32, natural log. Causal: query i sees
    /// keys 0..=i, or 0..=i + seq_k - seq_q with `p.bottom_right`; a
    /// window narrows that (`p.window`); a row that sees no key gets O = 0
    /// and LSE -inf.
    ///
    /// # Errors
    ///
    /// A head dimension the family does not build (64, 128 and 256), a
    /// size of 0, sizes beyond the kernels' grid or 32-bit
    /// coordinates, a scale that is not finite, buffers of other lengths, a
    /// packed problem (its offsets: [`Gpu::attention_packed`]); the
    /// driver's.
    pub fn attention(
        &self,
        (q, k, v): (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
        o: &mut DeviceBuffer<f16>,
        lse: &mut DeviceBuffer<f32>,
        p: &Problem,
    ) -> Result<(), Error> {
        let (f, run) = self.attention_launch(p, (q, k, v))?;
        run.launch(self.stream(), &f, (q, k, v), o, lse)
    }

    /// [`Gpu::attention`] on packed sequences of their own lengths
    /// (FlashAttention's variable-length batch, `p` from
    /// [`Problem::packed`]): Q and O (total rows, heads, d), K and V (total
    /// keys, kv_heads, d), LSE (heads, total rows); sequence b the rows
    /// `cu_q[b] .. cu_q[b + 1]` and keys `cu_k[b] .. cu_k[b + 1]` (the
    /// offsets `p` was made from, on the GPU). A sequence may be empty; one
    /// without keys gets O = 0 and LSE -inf. With `p.bottom_right`, each
    /// sequence's mask is aligned bottom-right.
    ///
    /// ```no_run
    /// use layout_gpu::{attention::Problem, f16, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let (cu_q, cu_k) = ([0, 100, 100, 357], [0, 300, 310, 357]);
    /// let t = Problem {
    ///     batch: 1, seq_q: 1, seq_k: 1, heads: 8, kv_heads: 2, d: 64,
    ///     causal: true, bottom_right: true, window: None, scale: 0.125, packed: None,
    /// };
    /// let p = Problem::packed(&cu_q, &cu_k, &t)?;
    /// let s = gpu.stream();
    /// let q = s.upload(&vec![f16::ZERO; 357 * 8 * 64])?;
    /// let kv = s.upload(&vec![f16::ZERO; 357 * 2 * 64])?;
    /// let (mut o, mut lse) = (s.zeros::<f16>(357 * 8 * 64)?, s.zeros::<f32>(8 * 357)?);
    /// let cu = (s.upload(&cu_q)?, s.upload(&cu_k)?);
    /// gpu.attention_packed((&q, &kv, &kv), (&cu.0, &cu.1), &mut o, &mut lse, &p)?;
    /// # Ok::<(), layout_gpu::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Gpu::attention`], and offsets of other lengths than the
    /// problem's sequences + 1.
    pub fn attention_packed(
        &self,
        (q, k, v): (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
        (cu_q, cu_k): (&DeviceBuffer<i32>, &DeviceBuffer<i32>),
        o: &mut DeviceBuffer<f16>,
        lse: &mut DeviceBuffer<f32>,
        p: &Problem,
    ) -> Result<(), Error> {
        let (f, run) = self.attention_launch(p, (q, k, v))?;
        run.launch_packed(self.stream(), &f, (q, k, v), (cu_q, cu_k), o, lse)
    }

    /// The entry point of this GPU's family for `p`, and its launch.
    fn attention_launch(
        &self,
        p: &Problem,
        qkv: (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
    ) -> Result<(Kernel, AttentionLaunch), Error> {
        let family = self.attention_family();
        family.launch_shape(p)?;
        let entry = family.entry_for(p);
        let f = if self.has_sm90() {
            self.sm90_kernel(&entry)?
        } else {
            self.sm80_kernel(&entry)?
        };
        let run = AttentionLaunch::new(self.stream(), &f, family, p, qkv)?;
        Ok((f, run))
    }

    /// The FlashAttention backward of `p` (the forward's problem: planes or
    /// packed with their cumulative offsets `cu`, grouped heads, the mask,
    /// its alignment, a window; d = 64 or 128): dQ, dK, dV (f16, Q's and
    /// K's layouts) from Q, K, V, O, dO and the forward's LSE
    /// (`flash_attn_bwd_*`, three launches; dQ summed as `mode` says:
    /// [`BwdMode::Atomic`](crate::attention::BwdMode) by atomics, its last
    /// bits varying from run to run, or `Deterministic`, the same bits every
    /// run). dK and dV are summed over each K/V head's query heads.
    ///
    /// ```no_run
    /// use layout_gpu::{attention::{BwdMode, Problem}, f16, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let p = Problem {
    ///     batch: 1, seq_q: 128, seq_k: 128, heads: 4, kv_heads: 2, d: 64, causal: true,
    ///     bottom_right: false, window: None, scale: 0.125, packed: None,
    /// };
    /// let s = gpu.stream();
    /// let l = p.lens()?;
    /// let (q, kv) = (s.upload(&vec![f16::ONE; l.q])?, s.upload(&vec![f16::ONE; l.kv])?);
    /// let (mut o, mut lse) = (s.zeros::<f16>(l.q)?, s.zeros::<f32>(l.lse)?);
    /// gpu.attention((&q, &kv, &kv), &mut o, &mut lse, &p)?;
    /// let (mut dq, mut dk, mut dv) = (s.zeros::<f16>(l.q)?, s.zeros::<f16>(l.kv)?, s.zeros::<f16>(l.kv)?);
    /// let grads = (&mut dq, &mut dk, &mut dv);
    /// gpu.attention_bwd(&p, BwdMode::Atomic, (&q, &kv, &kv, &o, &q), &lse, None, grads)?;
    /// # Ok::<(), layout_gpu::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The refusals of [`crate::attention::BWD`]'s `launch_shape`, buffers
    /// of other lengths, offsets that do not fit `p`; the driver's.
    #[allow(clippy::type_complexity)]
    pub fn attention_bwd(
        &self,
        p: &Problem,
        mode: crate::attention::BwdMode,
        qkvo: (
            &DeviceBuffer<f16>,
            &DeviceBuffer<f16>,
            &DeviceBuffer<f16>,
            &DeviceBuffer<f16>,
            &DeviceBuffer<f16>,
        ),
        lse: &DeviceBuffer<f32>,
        cu: Option<(&DeviceBuffer<i32>, &DeviceBuffer<i32>)>,
        grads: (
            &mut DeviceBuffer<f16>,
            &mut DeviceBuffer<f16>,
            &mut DeviceBuffer<f16>,
        ),
    ) -> Result<(), Error> {
        crate::attention::BWD.launch_shape(p)?;
        let [dot, dkdv, dq] = crate::attention::bwd_entries(p, mode);
        let kernels = (
            self.sm80_kernel(&dot)?,
            self.sm80_kernel(&dkdv)?,
            self.sm80_kernel(&dq)?,
        );
        let need = p.lens()?.lse;
        let mut dot = kept(
            &self.bwd_dot,
            |d| d.len() >= need,
            || self.stream().zeros::<f32>(need).map_err(Error::Device),
        )?;
        let dot = dot.as_mut().expect("kept sets it");
        let need = crate::attention::bwd_dq_acc_len(p, mode)?;
        let mut acc = kept(
            &self.bwd_dq_acc,
            |d| d.len() >= need,
            || self.stream().zeros::<f32>(need).map_err(Error::Device),
        )?;
        let acc = acc.as_mut().expect("kept sets it");
        launch::attention_bwd(
            self.stream(),
            (&kernels.0, &kernels.1, &kernels.2),
            p,
            mode,
            qkvo,
            lse,
            cu,
            (dot, acc),
            grads,
        )
    }

    /// Attention of each sequence's `p.q_len` new queries over its paged
    /// context (`layout_gpu::decode`): Q (batch, q_len, q_heads, d), the
    /// caches (blocks, block_size, kv_heads, d), the block table (batch,
    /// max_blocks) and the context lengths (batch, each at most
    /// `p.max_context`) int32 on the GPU; O like Q; LSE (batch, q_heads,
    /// q_len) when given. With `p.causal`, query i of a sequence of
    /// context c sees keys 0..=c - q_len + i (a row that sees none gets O =
    /// 0 and LSE = -inf). Split along the context by
    /// [`Decode::plan`](crate::decode::Decode::plan) for this GPU's SMs.
    ///
    /// ```no_run
    /// use layout_gpu::{decode::Decode, f16, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let p = Decode {
    ///     batch: 1, q_len: 1, q_heads: 32, kv_heads: 8, d: 128, blocks: 8, block_size: 64,
    ///     max_blocks: 8, max_context: 500, causal: false, scale: 0.088,
    /// };
    /// let s = gpu.stream();
    /// let q = s.upload(&vec![f16::ZERO; 32 * 128])?;
    /// let kv = s.upload(&vec![f16::ZERO; 8 * 64 * 8 * 128])?;
    /// let table = s.upload(&[7i32, 6, 5, 4, 3, 2, 1, 0])?;
    /// let lens = s.upload(&[500i32])?;
    /// let mut o = s.zeros::<f16>(32 * 128)?;
    /// gpu.decode((&q, &kv, &kv), (&table, &lens), &mut o, None, &p)?;
    /// # Ok::<(), layout_gpu::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The refusals of [`Decode::lens`](crate::decode::Decode::lens),
    /// buffers of other lengths; the driver's.
    pub fn decode(
        &self,
        qkv: (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<f16>),
        table_lens: (&DeviceBuffer<i32>, &DeviceBuffer<i32>),
        o: &mut DeviceBuffer<f16>,
        lse: Option<&mut DeviceBuffer<f32>>,
        p: &crate::decode::Decode,
    ) -> Result<(), Error> {
        let plan = p.plan(self.sms as usize)?;
        let attn = self.sm80_kernel(&p.entry())?;
        let mut ws = kept(
            &self.decode_ws,
            |w| w.fits(p, plan),
            || crate::decode::DecodeWorkspace::new(self.stream(), p, plan),
        )?;
        let ws = ws.as_mut().expect("kept sets it");
        launch::decode(self.stream(), &attn, p, plan, qkv, table_lens, o, lse, ws)
    }

    /// The new tokens' K and V, (tokens, kv_heads, d) f16, into the
    /// caches' rows `slots[token]` (int32; a negative slot skips its
    /// token), the caches (rows, kv_heads, d) f16 (`kv_append`).
    ///
    /// # Errors
    ///
    /// Buffers whose lengths disagree, d not a multiple of 8; the
    /// driver's (a slot past the caches stops the kernel).
    pub fn kv_append(
        &self,
        new: (&DeviceBuffer<f16>, &DeviceBuffer<f16>, &DeviceBuffer<i32>),
        caches: (&mut DeviceBuffer<f16>, &mut DeviceBuffer<f16>),
        (kv_heads, d): (usize, usize),
    ) -> Result<(), Error> {
        let f = self.sm80_kernel("kv_append")?;
        launch::kv_append(self.stream(), &f, new, caches, (kv_heads, d))
    }

    /// `dst = srcᵀ`, n x n f32 row-major, n a multiple of 64
    /// (`transpose_f32`; n of 0 does nothing).
    ///
    /// # Errors
    ///
    /// n not a multiple of 64, buffers of other lengths than n·n; the
    /// driver's.
    pub fn transpose(
        &self,
        src: &DeviceBuffer<f32>,
        dst: &mut DeviceBuffer<f32>,
        n: usize,
    ) -> Result<(), Error> {
        if n == 0 && src.is_empty() && dst.is_empty() {
            return Ok(());
        }
        let f = self.sm80_kernel("transpose_f32")?;
        launch::transpose(self.stream(), &f, src, dst, n)
    }
}
