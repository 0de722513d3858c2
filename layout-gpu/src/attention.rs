//! Attention's launch contract: the problem ([`Problem`]), the kernel
//! families that compute it ([`FAMILIES`]: the SM80 kernel of
//! `layout-kernels` and the Hopper kernel of `layout-kernels-sm90`), each
//! family's launch rules read from its plan, and the buffers' lengths.

use crate::Error;
use layout_kernels::maps::{
    bwd_kv_smem_bytes, bwd_smem_bytes, flash_bm, flash_smem_bytes, BWD_HEAD_DIMS, BWD_KEYS,
    BWD_ROWS, BWD_THREADS, FLASH_HEAD_DIMS, FLASH_THREADS,
};
use layout_kernels_sm90::attention as sm90;

/// A family of attention kernels: one name, one entry point per head
/// dimension and mask, one signature and launch contract.
#[derive(Debug)]
pub struct Family {
    /// The name given on the command line.
    pub name: &'static str,
    /// The entry point's name: `{d}` is replaced by the head dimension,
    /// `{causal}` by `_causal` or nothing, `{varlen}` by `_varlen` (packed
    /// sequences) or nothing.
    pub entry: &'static str,
    /// The head dimensions built.
    pub head_dims: &'static [usize],
    /// Threads per block.
    pub threads: fn(usize) -> usize,
    /// Query rows per block for a head dimension (grid x: ceil(seq_q /
    /// rows_per_block(d))).
    pub rows_per_block: fn(usize) -> usize,
    /// The longest query sequence for a head dimension (the kernel traps
    /// past it).
    pub max_seq_q: fn(usize) -> usize,
    /// Dynamic shared memory per block for a head dimension (bytes).
    pub smem_bytes: fn(usize) -> usize,
    /// How Q, K and V reach the kernel.
    pub kind: FamilyKind,
}

/// How a family's entry points take Q, K and V.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FamilyKind {
    /// `(q, k, v, o, lse, batch, seq_q, seq_k, heads, kv_heads, offset,
    /// lower, scale)`: pointers (`layout_kernels::maps::attention`'s
    /// contract); the `_varlen` entries `(q, k, v, o, lse, cu_q, cu_k,
    /// seq_q, seq_k, heads, kv_heads, offset, lower, bottom_right, scale)`.
    Pointers,
    /// `(map_q, map_k, map_v, o, lse, batch, seq_q, seq_k, heads,
    /// kv_heads, offset, lower, scale)`: TMA tensor maps of each as `batch`
    /// planes of `seq x heads · d` (`kv_heads · d` for K and V) with boxes
    /// of 64 columns and the 128-byte swizzle (`bm(d)` rows for Q, 128 for
    /// K and V), O and LSE as slices, the sizes as `u32`
    /// (`layout_kernels_sm90::attention`); the `_varlen` entries `(map_q,
    /// map_k, map_v, o, lse, cu_q, cu_k, batch, row_blocks, seq_q, seq_k,
    /// heads, kv_heads, offset, lower, bottom_right, scale)` on one plane.
    /// Persistent: a grid of (blocks, 1, 1)
    /// (`layout_kernels_sm90::attention::persistent_blocks`) shares out
    /// the launch shape's grid of row blocks x heads x sequences.
    TensorMaps,
}

/// Every family `gpu-runner attention` runs.
pub const FAMILIES: [Family; 2] = [
    Family {
        name: "flash_attn_fwd",
        entry: "flash_attn_fwd{varlen}_d{d}{causal}",
        head_dims: &FLASH_HEAD_DIMS,
        threads: |_| FLASH_THREADS,
        rows_per_block: flash_bm,
        max_seq_q: |_| SEQ_MAX,
        smem_bytes: flash_smem_bytes,
        kind: FamilyKind::Pointers,
    },
    Family {
        name: "flash_attn_fwd_sm90",
        entry: "flash_attn_fwd_sm90{varlen}_d{d}{causal}",
        head_dims: &sm90::HEAD_DIMS,
        threads: sm90::threads,
        rows_per_block: sm90::bm,
        max_seq_q: sm90::max_seq_q,
        smem_bytes: sm90::smem_bytes,
        kind: FamilyKind::TensorMaps,
    },
];

/// The backward kernels (`flash_attn_bwd_dot`, `flash_attn_bwd_dkdv_d*`,
/// `flash_attn_bwd_dq_d*` of `layout-kernels`; SM80 instructions, run on
/// Hopper too) as a family: [`Family::launch_shape`] checks a problem for
/// them and gives the dQ launch's shape (64-row tiles); the dK/dV launch
/// takes 128-key blocks along the keys and K/V heads ([`bwd_dkdv_grid`],
/// [`bwd_dkdv_block`]). Not one
/// of [`FAMILIES`] (no forward entry points).
pub const BWD: Family = Family {
    name: "flash_attn_bwd",
    entry: "flash_attn_bwd_dq_d{d}{causal}",
    head_dims: &BWD_HEAD_DIMS,
    threads: |_| BWD_THREADS,
    rows_per_block: |_| BWD_ROWS,
    max_seq_q: |_| SEQ_MAX,
    smem_bytes: bwd_smem_bytes,
    kind: FamilyKind::Pointers,
};

/// How the backward sums dQ over the key tiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BwdMode {
    /// In the dK/dV launch (`flash_attn_bwd_dkdvq_d*`): each block adds its
    /// keys' terms of dQ into f32 sums by atomics, which
    /// `flash_attn_bwd_dq_convert` scales into f16. Five matrix products
    /// (FlashAttention-2's); the order the additions land in varies, so
    /// dQ's last bits may differ from run to run (dK and dV do not).
    #[default]
    Atomic,
    /// By its own launch over each query tile's key tiles
    /// (`flash_attn_bwd_dq_d*`): S and dP computed again, seven matrix
    /// products, every gradient the same bits every run.
    Deterministic,
}

/// The floats of the atomic dQ's sums the backward of `p` takes in `mode`:
/// Q's elements with [`BwdMode::Atomic`]; one, unused, with
/// `Deterministic` (a buffer is passed either way).
///
/// ```
/// use layout_gpu::attention::{bwd_dq_acc_len, BwdMode, Problem};
/// let p = Problem {
///     batch: 2, seq_q: 8, seq_k: 8, heads: 4, kv_heads: 1, d: 64, causal: false,
///     bottom_right: false, window: None, scale: 0.125, packed: None,
/// };
/// assert_eq!(bwd_dq_acc_len(&p, BwdMode::Atomic).unwrap(), 2 * 8 * 4 * 64);
/// assert_eq!(bwd_dq_acc_len(&p, BwdMode::Deterministic).unwrap(), 1);
/// ```
///
/// # Errors
///
/// Sizes whose lengths overflow ([`Problem::lens`]).
pub fn bwd_dq_acc_len(p: &Problem, mode: BwdMode) -> Result<usize, Error> {
    Ok(match mode {
        BwdMode::Atomic => p.lens()?.q,
        BwdMode::Deterministic => 1,
    })
}

/// The backward's entry points for `p`, in launch order:
/// `flash_attn_bwd_dot`, then the dK/dV and the dQ entries of its head
/// dimension and mask (`_causal` for a mask or a window): with
/// [`BwdMode::Atomic`] the dK/dV entry that also sums dQ, then the dQ
/// conversion.
///
/// ```
/// use layout_gpu::attention::{bwd_entries, BwdMode, Problem};
/// let p = Problem {
///     batch: 1, seq_q: 8, seq_k: 8, heads: 2, kv_heads: 1, d: 128, causal: true,
///     bottom_right: false, window: None, scale: 0.088, packed: None,
/// };
/// assert_eq!(
///     bwd_entries(&p, BwdMode::Deterministic),
///     ["flash_attn_bwd_dot", "flash_attn_bwd_dkdv_d128_causal", "flash_attn_bwd_dq_d128_causal"]
/// );
/// assert_eq!(
///     bwd_entries(&p, BwdMode::Atomic),
///     ["flash_attn_bwd_dot", "flash_attn_bwd_dkdvq_d128_causal", "flash_attn_bwd_dq_convert"]
/// );
/// ```
pub fn bwd_entries(p: &Problem, mode: BwdMode) -> [String; 3] {
    let suffix = format!("_d{}{}", p.d, if p.masked() { "_causal" } else { "" });
    match mode {
        BwdMode::Atomic => [
            "flash_attn_bwd_dot".to_string(),
            format!("flash_attn_bwd_dkdvq{suffix}"),
            "flash_attn_bwd_dq_convert".to_string(),
        ],
        BwdMode::Deterministic => [
            "flash_attn_bwd_dot".to_string(),
            format!("flash_attn_bwd_dkdv{suffix}"),
            format!("flash_attn_bwd_dq{suffix}"),
        ],
    }
}

/// The dK/dV launch's grid of a problem [`BWD`] takes: (ceil(seq_k / 128),
/// kv_heads, batch) (the longest sequence's keys when packed; at least
/// one block).
pub fn bwd_dkdv_grid(p: &Problem) -> (u32, u32, u32) {
    let blocks = p.seq_k.div_ceil(BWD_KEYS).max(1);
    (blocks as u32, p.kv_heads as u32, p.batch as u32)
}

/// The dK/dV launch's threads and dynamic shared memory (bytes) at head
/// dimension `d`: 256 threads, `bwd_kv_smem_bytes(d)` (116,224 bytes at d
/// = 64, 198,144 at 128).
///
/// ```
/// assert_eq!(layout_gpu::attention::bwd_dkdv_block(128), (256, 198144));
/// ```
pub fn bwd_dkdv_block(d: usize) -> (u32, u32) {
    (BWD_THREADS as u32, bwd_kv_smem_bytes(d) as u32)
}

/// The largest grid y and z (heads, batch).
const GRID_YZ: usize = 65535;
/// The largest grid x (blocks of query rows).
const GRID_X: usize = i32::MAX as usize;
/// The longest sequence the kernels take (their masks' coordinates are
/// 32-bit).
const SEQ_MAX: usize = i32::MAX as usize;

/// An attention problem: the sizes, the mask and the scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem {
    /// Batch size.
    pub batch: usize,
    /// Query rows (per batch and head).
    pub seq_q: usize,
    /// Keys (per batch and head).
    pub seq_k: usize,
    /// Query heads.
    pub heads: usize,
    /// K/V heads, dividing `heads`: query head h reads K/V head h / (heads
    /// / kv_heads) (grouped-query attention; `heads` for one each, 1 for
    /// multi-query).
    pub kv_heads: usize,
    /// Head dimension.
    pub d: usize,
    /// Query i sees keys 0..=i only (aligned top-left, torch's
    /// `is_causal`), or with `bottom_right` keys 0..=i + seq_k - seq_q.
    pub causal: bool,
    /// The causal mask aligned bottom-right (FlashAttention's: the last
    /// query sees every key; a chunk of new tokens over a cached prefix). A
    /// row that sees no key (seq_q > seq_k) gets O = 0 and LSE = -inf.
    /// Requires `causal` or `window`.
    pub bottom_right: bool,
    /// A sliding window `(left, right)` (Mistral's, Gemma 2's): query i sees
    /// keys i + a - left ..= i + a + right, a the alignment (0, or seq_k -
    /// seq_q with `bottom_right`); with `causal`, right must be 0. Each
    /// side at most 2^31 - 1.
    pub window: Option<(usize, usize)>,
    /// The factor of Q·Kᵀ in the softmax.
    pub scale: f32,
    /// Packed sequences of their own lengths (FlashAttention's
    /// variable-length batch): Q, O (`total_q`, heads, d), K, V (`total_k`,
    /// kv_heads, d), LSE (heads, `total_q`), sequence b the rows `cu_q[b]
    /// .. cu_q[b + 1]` and keys `cu_k[b] .. cu_k[b + 1]` of cumulative
    /// offsets given at launch; `batch` is then the number of sequences and
    /// `seq_q`, `seq_k` the longest's (`Problem::packed` makes it from the
    /// offsets). `None`: `batch` planes of `seq_q` rows and `seq_k` keys.
    pub packed: Option<Packed>,
}

/// The totals of a packed problem ([`Problem::packed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packed {
    /// Query rows of every sequence.
    pub total_q: usize,
    /// Keys of every sequence.
    pub total_k: usize,
}

/// The element counts of a problem's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lens {
    /// Q and O: batch · seq_q · heads · d halves.
    pub q: usize,
    /// K and V: batch · seq_k · kv_heads · d halves.
    pub kv: usize,
    /// LSE: batch · heads · seq_q floats.
    pub lse: usize,
}

/// A launch's grid, block and dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// (ceil(seq_q / rows per block), heads, batch).
    pub grid: (u32, u32, u32),
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory per block (bytes).
    pub shared_bytes: u32,
}

impl Problem {
    /// The element counts of Q (and O), K (and V) and LSE, or a refusal
    /// when one (or its bytes) overflows.
    pub fn lens(&self) -> Result<Lens, Error> {
        self.lens_for("attention")
    }

    fn lens_for(&self, op: &'static str) -> Result<Lens, Error> {
        let Problem {
            batch,
            seq_q,
            seq_k,
            heads,
            kv_heads,
            d,
            ..
        } = *self;
        let count = |dims: &[usize], bytes: usize| {
            dims.iter()
                .try_fold(1usize, |n, &x| n.checked_mul(x))
                .filter(|&n| {
                    n.checked_mul(bytes)
                        .is_some_and(|b| b <= isize::MAX as usize)
                })
        };
        let (planes, rows_q, rows_k) = self.planes();
        match (
            count(&[planes, rows_q, heads, d], 2),
            count(&[planes, rows_k, kv_heads, d], 2),
            count(&[planes, heads, rows_q], 4),
        ) {
            (Some(q), Some(kv), Some(lse)) => Ok(Lens { q, kv, lse }),
            _ => Err(Error::refused(
                op,
                format!("batch = {batch}, seq_q = {seq_q}, seq_k = {seq_k}, heads = {heads}, d = {d}: the tensors are too large"),
            )),
        }
    }

    /// The tensors' planes, rows of Q and keys per plane, as the pointer
    /// entry points take them (`batch`, `seq_q`, `seq_k`): the problem's
    /// for planes; packed, one plane of every sequence's rows and keys.
    ///
    /// ```
    /// use layout_gpu::attention::Problem;
    /// let t = Problem {
    ///     batch: 4, seq_q: 100, seq_k: 200, heads: 8, kv_heads: 2, d: 64,
    ///     causal: false, bottom_right: false, window: None, scale: 0.125, packed: None,
    /// };
    /// assert_eq!(t.planes(), (4, 100, 200));
    /// // Sequences of 3, 0 and 7 rows over 5, 4 and 0 keys.
    /// let p = Problem::packed(&[0, 3, 3, 10], &[0, 5, 9, 9], &t).unwrap();
    /// assert_eq!(p.planes(), (1, 10, 9));
    /// ```
    pub fn planes(&self) -> (usize, usize, usize) {
        match self.packed {
            Some(t) => (1, t.total_q, t.total_k),
            None => (self.batch, self.seq_q, self.seq_k),
        }
    }

    /// A packed problem (FlashAttention's variable-length batch) from its
    /// cumulative offsets: `cu_q` and `cu_k` of one length (sequences +
    /// 1, at least 2), each from 0 and never decreasing (a sequence may be
    /// empty); the mask, window and scale as `template`'s, whose sizes are
    /// replaced (batch: the sequences; seq_q, seq_k: the longest's).
    ///
    /// ```
    /// use layout_gpu::attention::{Packed, Problem};
    /// let t = Problem {
    ///     batch: 1, seq_q: 1, seq_k: 1, heads: 8, kv_heads: 2, d: 128,
    ///     causal: true, bottom_right: true, window: None, scale: 0.088, packed: None,
    /// };
    /// let p = Problem::packed(&[0, 3, 3, 10], &[0, 5, 9, 9], &t).unwrap();
    /// assert_eq!((p.batch, p.seq_q, p.seq_k), (3, 7, 5));
    /// assert_eq!(p.packed, Some(Packed { total_q: 10, total_k: 9 }));
    /// assert!(Problem::packed(&[0, 3, 2], &[0, 1, 2], &t).is_err()); // decreasing
    /// ```
    ///
    /// # Errors
    ///
    /// Offsets of other lengths, fewer than 2, not from 0, negative or
    /// decreasing.
    pub fn packed(cu_q: &[i32], cu_k: &[i32], template: &Problem) -> Result<Problem, Error> {
        let refuse = |why: String| Err(Error::refused("attention", why));
        if cu_q.len() != cu_k.len() || cu_q.len() < 2 {
            return refuse(format!(
                "the cumulative offsets hold {} (Q) and {} (K) values: they must be as many, at least 2 (sequences + 1)",
                cu_q.len(),
                cu_k.len()
            ));
        }
        let spans = |cu: &[i32], what: &str| -> Result<(usize, usize), Error> {
            if cu[0] != 0 {
                return Err(Error::refused(
                    "attention",
                    format!("the cumulative {what} offsets start at {}, not 0", cu[0]),
                ));
            }
            let mut longest = 0;
            for (i, w) in cu.windows(2).enumerate() {
                if w[1] < w[0] {
                    return Err(Error::refused(
                        "attention",
                        format!(
                            "the cumulative {what} offsets decrease at sequence {i} ({} then {})",
                            w[0], w[1]
                        ),
                    ));
                }
                longest = longest.max((w[1] - w[0]) as usize);
            }
            Ok((cu[cu.len() - 1] as usize, longest))
        };
        let ((total_q, seq_q), (total_k, seq_k)) = (spans(cu_q, "Q")?, spans(cu_k, "K")?);
        Ok(Problem {
            batch: cu_q.len() - 1,
            seq_q,
            seq_k,
            packed: Some(Packed { total_q, total_k }),
            ..*template
        })
    }

    /// Whether the masked entry points run it (causal or a window).
    pub fn masked(&self) -> bool {
        self.causal || self.window.is_some()
    }

    /// The masked entries' bounds `(offset, lower)`: query i sees keys i +
    /// lower ..= i + offset (lower `i32::MIN` for none). The sizes are
    /// those `Family::launch_shape` accepts (below 2^31). Packed, the
    /// bounds count from each sequence's diagonal: the `_varlen` entries
    /// align them (`bottom_right`), and these are the window's alone.
    pub fn mask_bounds(&self) -> (i32, i32) {
        let align = if self.bottom_right && self.packed.is_none() {
            self.seq_k as i64 - self.seq_q as i64
        } else {
            0
        };
        let clamp = |x: i64| x.clamp(i32::MIN as i64 + 1, i32::MAX as i64) as i32;
        match self.window {
            Some((left, right)) => (clamp(align + right as i64), clamp(align - left as i64)),
            None => (clamp(align), i32::MIN),
        }
    }

    /// The FLOPs counted: 4 · batch · heads · seq_q · seq_k · d (Q·Kᵀ and
    /// P·V, 2 each per multiply-add), half of it when causal.
    pub fn flops(&self) -> f64 {
        let f = 4.0
            * self.batch as f64
            * self.heads as f64
            * self.seq_q as f64
            * self.seq_k as f64
            * self.d as f64;
        if self.causal {
            f / 2.0
        } else {
            f
        }
    }

    /// The FLOPs of a packed problem, sequence by sequence (as
    /// [`Problem::flops`] for each: 4 · heads · its rows · its keys · d,
    /// half when causal).
    pub fn packed_flops(&self, cu_q: &[i32], cu_k: &[i32]) -> f64 {
        let len = |cu: &[i32], i: usize| f64::from(cu[i + 1] - cu[i]);
        let f: f64 = (0..cu_q.len().min(cu_k.len()).saturating_sub(1))
            .map(|i| 4.0 * self.heads as f64 * len(cu_q, i) * len(cu_k, i) * self.d as f64)
            .sum();
        if self.causal {
            f / 2.0
        } else {
            f
        }
    }

    /// A timing's line: the entry point, the sizes, ms per launch, TFLOP/s.
    pub fn timing_line(&self, entry: &str, ms: f32) -> String {
        let tflops = self.flops() / (f64::from(ms) * 1e-3) / 1e12;
        format!(
            "{entry} b={} h={} sq={} sk={}: {ms:.3} ms, {tflops:.1} TFLOP/s",
            self.batch, self.heads, self.seq_q, self.seq_k
        )
    }
}

impl Family {
    /// The family called `name`, or a one-line refusal naming the others.
    pub fn parse(name: &str) -> Result<&'static Family, Error> {
        FAMILIES.iter().find(|f| f.name == name).ok_or_else(|| {
            let known: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
            Error::refused(
                "attention",
                format!(
                    "unknown kernel family '{name}' (known: {}; the entry point is chosen by d and the mask)",
                    known.join(", ")
                ),
            )
        })
    }

    /// The entry point for head dimension `d`, causal or not, on planes
    /// of equal lengths.
    pub fn entry_name(&self, d: usize, causal: bool) -> String {
        self.entry
            .replace("{varlen}", "")
            .replace("{d}", &d.to_string())
            .replace("{causal}", if causal { "_causal" } else { "" })
    }

    /// The entry point that computes `p`: by its head dimension, its mask
    /// and whether its sequences are packed (the `_varlen` entries).
    pub fn entry_for(&self, p: &Problem) -> String {
        let name = self.entry_name(p.d, p.masked());
        match p.packed {
            Some(_) => {
                let at = self.entry.find("{varlen}").unwrap_or(0);
                format!("{}_varlen{}", &name[..at], &name[at..])
            }
            None => name,
        }
    }

    /// The grid, block and shared memory of `p`'s launch, or a one-line
    /// refusal: a head dimension not built, a size of 0, a grid beyond the
    /// hardware's limits, a scale that is not finite, tensors too large.
    pub fn launch_shape(&self, p: &Problem) -> Result<LaunchShape, Error> {
        let name = self.name;
        if !self.head_dims.contains(&p.d) {
            let built: Vec<String> = self.head_dims.iter().map(|d| d.to_string()).collect();
            return Err(Error::refused(
                name,
                format!(
                    "head dimension d = {} is not built (built: {})",
                    p.d,
                    built.join(", ")
                ),
            ));
        }
        // Packed: sequences may be empty, not the whole problem.
        let (rows_q, rows_k) = match p.packed {
            Some(t) => (t.total_q, t.total_k),
            None => (p.seq_q, p.seq_k),
        };
        if p.batch == 0 || p.heads == 0 || rows_q == 0 || rows_k == 0 {
            return Err(Error::refused(
                name,
                format!(
                    "batch = {}, heads = {}, seq_q = {rows_q}, seq_k = {rows_k}: each must be positive{}",
                    p.batch,
                    p.heads,
                    if p.packed.is_some() { " (in all, packed)" } else { "" }
                ),
            ));
        }
        if p.kv_heads == 0 || p.heads % p.kv_heads != 0 {
            return Err(Error::refused(
                name,
                format!("kv_heads = {} must divide heads = {}", p.kv_heads, p.heads),
            ));
        }
        if p.bottom_right && !p.masked() {
            return Err(Error::refused(
                name,
                "bottom_right aligns the causal mask or a window: it needs one".to_string(),
            ));
        }
        if let Some((left, right)) = p.window {
            if left > SEQ_MAX || right > SEQ_MAX || (p.causal && right != 0) {
                return Err(Error::refused(
                    name,
                    format!(
                        "window ({left}, {right}): each side at most {SEQ_MAX}, and right 0 with causal"
                    ),
                ));
            }
        }
        if !p.scale.is_finite() {
            return Err(Error::refused(
                name,
                format!("the scale {} must be finite", p.scale),
            ));
        }
        // The kernels compare 32-bit key and row coordinates (and trap
        // beyond them).
        let max_q = (self.max_seq_q)(p.d);
        if rows_q > max_q || rows_k > SEQ_MAX {
            return Err(Error::refused(
                name,
                format!(
                    "seq_q = {rows_q}, seq_k = {rows_k}{}: at d = {} the kernels take seq_q up to {max_q} and seq_k up to {SEQ_MAX}",
                    if p.packed.is_some() { " (in all, packed)" } else { "" },
                    p.d
                ),
            ));
        }
        // Packed: enough row blocks for the longest sequence (at least one).
        let blocks = p.seq_q.div_ceil((self.rows_per_block)(p.d)).max(1);
        for (what, v, limit, axis) in [
            ("heads", p.heads, GRID_YZ, "y"),
            ("batch", p.batch, GRID_YZ, "z"),
            ("ceil(seq_q / rows per block)", blocks, GRID_X, "x"),
        ] {
            if v > limit {
                return Err(Error::refused(
                    name,
                    format!("{what} = {v} is beyond the grid's limit of {limit} (grid {axis})"),
                ));
            }
        }
        // A persistent family counts its units of work (row blocks x
        // heads x sequences) in 31 bits.
        if self.kind == FamilyKind::TensorMaps && blocks * p.heads * p.batch >= 1 << 31 {
            return Err(Error::refused(
                name,
                format!(
                    "{blocks} row blocks x {} heads x {} sequences: the kernels take fewer than 2^31",
                    p.heads, p.batch
                ),
            ));
        }
        p.lens_for(name)?;
        let bytes = (self.smem_bytes)(p.d);
        let (Ok(block), Ok(shared_bytes)) =
            (u32::try_from((self.threads)(p.d)), u32::try_from(bytes))
        else {
            return Err(Error::refused(
                name,
                "the block's threads or shared memory overflow",
            ));
        };
        // Within the limits checked above.
        let dim = |v: usize| v as u32;
        Ok(LaunchShape {
            grid: (dim(blocks), dim(p.heads), dim(p.batch)),
            block,
            shared_bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(batch: usize, seq_q: usize, seq_k: usize, heads: usize, d: usize) -> Problem {
        Problem {
            batch,
            seq_q,
            seq_k,
            heads,
            kv_heads: heads,
            d,
            causal: false,
            bottom_right: false,
            window: None,
            scale: 0.125,
            packed: None,
        }
    }

    proptest::proptest! {
        /// `Problem::packed` on any offsets: a problem exactly when both
        /// start at 0, never decrease and are as many (at least 2), and
        /// then its sequences, longest lengths and totals are the
        /// offsets'; a launch shape or a refusal, never a panic.
        #[test]
        fn packed_problems_from_any_offsets(
            cu_q in proptest::collection::vec(-3i32..400, 0..6),
            cu_k in proptest::collection::vec(-3i32..400, 0..6),
        ) {
            let t = problem(1, 1, 1, 4, 128);
            let valid = |cu: &[i32]| cu.first() == Some(&0) && cu.windows(2).all(|w| w[0] <= w[1]);
            let ok = cu_q.len() == cu_k.len() && cu_q.len() >= 2 && valid(&cu_q) && valid(&cu_k);
            match Problem::packed(&cu_q, &cu_k, &t) {
                Ok(p) => {
                    proptest::prop_assert!(ok);
                    let longest = |cu: &[i32]| cu.windows(2).map(|w| (w[1] - w[0]) as usize).max().unwrap();
                    proptest::prop_assert_eq!(p.batch, cu_q.len() - 1);
                    proptest::prop_assert_eq!((p.seq_q, p.seq_k), (longest(&cu_q), longest(&cu_k)));
                    proptest::prop_assert_eq!(
                        p.packed,
                        Some(Packed { total_q: *cu_q.last().unwrap() as usize, total_k: *cu_k.last().unwrap() as usize })
                    );
                    for f in &FAMILIES {
                        if let Ok(s) = f.launch_shape(&p) {
                            proptest::prop_assert_eq!(s.grid.2 as usize, p.batch);
                            proptest::prop_assert!(s.grid.0 as usize * (f.rows_per_block)(128) >= p.seq_q.max(1));
                        }
                    }
                }
                Err(e) => {
                    proptest::prop_assert!(!ok, "{}", e);
                    proptest::prop_assert!(e.to_string().starts_with("attention: the cumulative"));
                }
            }
        }
    }

    /// Packed sequences: one plane of every row (the lengths), a grid of
    /// the longest sequence's row blocks by the sequences, the `_varlen`
    /// entries, the window's bounds left to the kernel's alignment.
    #[test]
    fn packed_problems() {
        let [sm80, hopper] = &FAMILIES;
        let t = Problem {
            causal: true,
            bottom_right: true,
            ..problem(1, 1, 1, 4, 64)
        };
        // Sequences of 300, 0 and 5 rows; 10, 7 and 0 keys.
        let p = Problem::packed(&[0, 300, 300, 305], &[0, 10, 17, 17], &t).unwrap();
        assert_eq!((p.batch, p.seq_q, p.seq_k), (3, 300, 10));
        assert_eq!(
            p.lens().unwrap(),
            Lens {
                q: 305 * 4 * 64,
                kv: 17 * 4 * 64,
                lse: 4 * 305
            }
        );
        assert_eq!(sm80.launch_shape(&p).unwrap().grid, (3, 4, 3));
        assert_eq!(hopper.launch_shape(&p).unwrap().grid, (2, 4, 3));
        assert_eq!(sm80.entry_for(&p), "flash_attn_fwd_varlen_d64_causal");
        assert_eq!(
            hopper.entry_for(&p),
            "flash_attn_fwd_sm90_varlen_d64_causal"
        );
        assert_eq!(hopper.entry_for(&t), "flash_attn_fwd_sm90_d64_causal");
        // Planes fold the alignment into the bounds; packed entries align
        // each sequence themselves.
        assert_eq!(p.mask_bounds(), (0, i32::MIN));
        let w = Problem {
            causal: false,
            window: Some((40, 7)),
            ..p
        };
        assert_eq!(w.mask_bounds(), (7, -40));
        // 4 heads x (300 x 10 + 0 + 5 x 0) x 64 x 4, halved (causal).
        assert_eq!(
            p.packed_flops(&[0, 300, 300, 305], &[0, 10, 17, 17]),
            4.0 * 4.0 * 3000.0 * 64.0 / 2.0
        );
        let refused = |q: &[i32], k: &[i32]| Problem::packed(q, k, &t).unwrap_err().to_string();
        assert_eq!(
            refused(&[0, 3], &[0, 3, 4]),
            "attention: the cumulative offsets hold 2 (Q) and 3 (K) values: they must be as many, at least 2 (sequences + 1)"
        );
        assert_eq!(
            refused(&[1, 3], &[0, 3]),
            "attention: the cumulative Q offsets start at 1, not 0"
        );
        assert_eq!(
            refused(&[0, 3], &[0, -1]),
            "attention: the cumulative K offsets decrease at sequence 0 (0 then -1)"
        );
        // No key in any sequence: nothing to map.
        let none = Problem::packed(&[0, 3], &[0, 0], &t).unwrap();
        assert_eq!(
            sm80.launch_shape(&none).unwrap_err().to_string(),
            "flash_attn_fwd: batch = 1, heads = 4, seq_q = 3, seq_k = 0: each must be positive (in all, packed)"
        );
    }

    /// Each family's launch: the grid from its plan's rows per block, its
    /// threads and shared memory; the entry points by d and the mask.
    #[test]
    fn launch_shapes_from_the_plans() {
        let [sm80, hopper] = &FAMILIES;
        let p = problem(2, 300, 77, 3, 64);
        let s = sm80.launch_shape(&p).unwrap();
        assert_eq!(s.grid, (300u32.div_ceil(flash_bm(64) as u32), 3, 2));
        assert_eq!(
            (s.block, s.shared_bytes as usize),
            (FLASH_THREADS as u32, flash_smem_bytes(64))
        );
        // The Hopper kernel: 192 query rows and 4 warpgroups at d = 64 (3
        // consumers and the producer), 128 rows and 3 at d = 128.
        let s = hopper.launch_shape(&p).unwrap();
        assert_eq!((s.grid, s.block), ((2, 3, 2), 4 * 128));
        let s = hopper.launch_shape(&problem(1, 300, 77, 1, 128)).unwrap();
        assert_eq!((s.grid, s.block), ((3, 1, 1), 3 * 128));
        assert_eq!(sm80.entry_name(128, true), "flash_attn_fwd_d128_causal");
        assert_eq!(hopper.entry_name(64, false), "flash_attn_fwd_sm90_d64");
        assert_eq!(
            Family::parse("flash_attn_fwd_sm90").unwrap().name,
            hopper.name
        );
    }

    /// Every refusal names the family and the value.
    #[test]
    fn refusals() {
        let f = &FAMILIES[0];
        let msg = |p: Problem| f.launch_shape(&p).unwrap_err().to_string();
        assert_eq!(
            msg(problem(1, 8, 8, 1, 96)),
            "flash_attn_fwd: head dimension d = 96 is not built (built: 64, 128, 256)"
        );
        assert_eq!(
            msg(problem(1, 0, 8, 1, 64)),
            "flash_attn_fwd: batch = 1, heads = 1, seq_q = 0, seq_k = 8: each must be positive"
        );
        assert_eq!(
            msg(Problem {
                scale: f32::NAN,
                ..problem(1, 8, 8, 1, 64)
            }),
            "flash_attn_fwd: the scale NaN must be finite"
        );
        assert_eq!(
            msg(problem(65536, 8, 8, 1, 64)),
            "flash_attn_fwd: batch = 65536 is beyond the grid's limit of 65535 (grid z)"
        );
        assert_eq!(
            msg(problem(1, 1 << 31, 8, 1, 64)),
            "flash_attn_fwd: seq_q = 2147483648, seq_k = 8: at d = 64 the kernels take seq_q up to 2147483647 and seq_k up to 2147483647"
        );
        // The Hopper kernel's rows reach the last row block's start plus
        // its 192 rows (d = 64: 3 consumer warpgroups of 64), all below
        // 2^31: seq_q up to 2^31 - 1 - 192.
        let hopper = &FAMILIES[1];
        let max_q = (1usize << 31) - 1 - 192;
        assert!(hopper.launch_shape(&problem(1, max_q, 8, 1, 64)).is_ok());
        assert_eq!(
            hopper
                .launch_shape(&problem(1, max_q + 1, 8, 1, 64))
                .unwrap_err()
                .to_string(),
            "flash_attn_fwd_sm90: seq_q = 2147483456, seq_k = 8: at d = 64 the kernels take seq_q up to 2147483455 and seq_k up to 2147483647"
        );
        assert!(f.launch_shape(&problem(1, max_q + 1, 8, 1, 64)).is_ok());
        // Within every limit, but 2^62 halves of Q: the bytes overflow isize.
        assert_eq!(
            msg(problem(1 << 14, 1 << 30, 1, 1 << 12, 64)),
            "flash_attn_fwd: batch = 16384, seq_q = 1073741824, seq_k = 1, heads = 4096, d = 64: the tensors are too large"
        );
        assert_eq!(
            problem(2, 3, 5, 7, 64).lens().unwrap(),
            Lens {
                q: 2 * 3 * 7 * 64,
                kv: 2 * 5 * 7 * 64,
                lse: 2 * 7 * 3
            }
        );
    }

    /// Grouped-query heads: kv_heads dividing heads is taken by both
    /// families (K and V sized by kv_heads); kv_heads of 0 or not dividing
    /// heads is refused.
    #[test]
    fn grouped_query_heads() {
        let gqa = Problem {
            kv_heads: 2,
            ..problem(1, 100, 300, 8, 128)
        };
        assert_eq!(gqa.lens().unwrap().kv, 300 * 2 * 128);
        for f in &FAMILIES {
            assert!(f.launch_shape(&gqa).is_ok());
            for kv in [0, 3] {
                let p = Problem {
                    kv_heads: kv,
                    ..gqa
                };
                assert_eq!(
                    f.launch_shape(&p).unwrap_err().to_string(),
                    format!("{}: kv_heads = {kv} must divide heads = 8", f.name)
                );
            }
        }
    }

    /// Bottom-right alignment: both families', with `causal`; refused
    /// without it.
    #[test]
    fn bottom_right_causal() {
        let p = Problem {
            causal: true,
            bottom_right: true,
            ..problem(1, 300, 100, 2, 64)
        };
        for f in &FAMILIES {
            assert!(f.launch_shape(&p).is_ok());
            let q = Problem { causal: false, ..p };
            assert_eq!(
                f.launch_shape(&q).unwrap_err().to_string(),
                format!(
                    "{}: bottom_right aligns the causal mask or a window: it needs one",
                    f.name
                )
            );
        }
    }

    /// The masked entries' bounds: causal top-left (keys up to i),
    /// bottom-right (up to i + seq_k - seq_q), windows on either alignment
    /// (from i + a - left to i + a + right); a causal window with a right
    /// side, or a side past 2^31 - 1, refused.
    #[test]
    fn mask_bounds_and_windows() {
        let p = |causal, bottom_right, window| Problem {
            causal,
            bottom_right,
            window,
            ..problem(1, 300, 500, 2, 64)
        };
        assert_eq!(p(true, false, None).mask_bounds(), (0, i32::MIN));
        assert_eq!(p(true, true, None).mask_bounds(), (200, i32::MIN));
        assert_eq!(p(true, false, Some((100, 0))).mask_bounds(), (0, -100));
        assert_eq!(p(true, true, Some((100, 0))).mask_bounds(), (200, 100));
        assert_eq!(p(false, false, Some((40, 70))).mask_bounds(), (70, -40));
        assert!(!p(false, false, None).masked() && p(false, false, Some((1, 1))).masked());
        for f in &FAMILIES {
            assert!(f.launch_shape(&p(false, true, Some((40, 70)))).is_ok());
            assert_eq!(
                f.launch_shape(&p(true, false, Some((40, 70))))
                    .unwrap_err()
                    .to_string(),
                format!(
                    "{}: window (40, 70): each side at most 2147483647, and right 0 with causal",
                    f.name
                )
            );
        }
    }
}
