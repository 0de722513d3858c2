//! `gpu-runner attention`: a FlashAttention forward kernel on `.npy` files
//! (Q, K, V in, O and optionally LSE out), with the launch contract of
//! `layout_kernels::maps::attention`. As for `gemm`, the inputs go to the
//! kernel exactly as the files store them: another dtype, rank, storage
//! order or shape is refused (one line, exit code 2), never converted.
//! Everything but the run itself is checked here without a GPU
//! ([`prepare_attention`]).
//!
//! A kernel *family* (`layout_gpu::attention::FAMILIES`) is one name on the
//! command line and one entry point per head dimension and mask, all of one
//! signature and launch contract (`layout_gpu::attention`).

use crate::text;
use std::path::PathBuf;

use half::f16;
use layout_gpu::attention::{Family, Problem};
use layout_gpu::launch::AttentionLaunch;
use layout_launch::Device;

use crate::files::read_ptx;
use crate::npy::{self, Array, Data, Order};
use crate::timing;

/// The storage order and shapes `attention --help` prints.
pub const ATTENTION_HELP: &str = "\
Kernels (one family name; the entry point is chosen by d, the mask and
whether the sequences are packed):
  flash_attn_fwd  O = softmax(scale * Q K^T) V for each (batch, head).
                  Entry points flash_attn_fwd_d64, flash_attn_fwd_d128,
                  flash_attn_fwd_d256, their _causal forms, and
                  flash_attn_fwd_varlen_d64 ... for packed sequences.
                  Q: (batch, seq_q, heads, d) float16, C-order (BSHD).
                  K, V: (batch, seq_k, kv_heads, d) float16, C-order;
                  kv_heads divides heads (grouped-query attention: query
                  head h reads K/V head h / (heads / kv_heads); 1: MQA).
                  O: (batch, seq_q, heads, d) float16, C-order.
                  LSE (--lse): (batch, heads, seq_q) float32, C-order: the
                  natural log of each row's sum of exp(scale * q.k).
                  d = 64, 128 or 256; batch and heads 1..=65535;
                  seq_q, seq_k >= 1.
                  --causal [top-left|bottom-right]: query i sees keys
                  0..=i (top-left, torch's is_causal; the default), or
                  0..=i + seq_k - seq_q (bottom-right, FlashAttention's);
                  a row that sees no key gets O = 0 and LSE = -inf.
                  --window LEFT RIGHT: query i sees keys i - LEFT ..=
                  i + RIGHT (aligned as --causal says, top-left without
                  it); RIGHT 0 with --causal.
                  --scale: default 1/sqrt(d).
                  --seqlens-q FILE --seqlens-k FILE: packed sequences of
                  their own lengths (FlashAttention's varlen): cumulative
                  offsets, int32, batch + 1 each, from 0, never decreasing
                  (a sequence may be empty; one without keys gets O = 0
                  and LSE = -inf). Q, O: (total_q, heads, d); K, V:
                  (total_k, kv_heads, d); LSE: (heads, total_q); the last
                  offsets are the totals. The mask aligns per sequence.
  flash_attn_fwd_sm90
                  The same on Hopper (sm_90a: layout_kernels_sm90.ptx):
                  entry points flash_attn_fwd_sm90_d64, flash_attn_fwd_sm90_d128,
                  flash_attn_fwd_sm90_d256, their _causal and _varlen forms;
                  the same tensors and options.
Inputs go to the kernel as stored: another dtype, rank, storage order or
shape is refused (exit code 2), never converted or padded.
--time: after the run, 5 rounds (each after 100 ms idle: 2 warm-up launches,
10 timed by CUDA events); prints the median round's time per launch and
TFLOP/s of 4 * heads * d * (the sum over sequences of seq_q * seq_k) FLOPs
(half when causal).";

/// Refuses an array that is not a float16 C-order tensor of rank 4, or of
/// rank 3 when `packed` (taken as one plane: (1, rows, heads, d)); `what`
/// names it ("Q").
pub(crate) fn check_tensor(
    name: &str,
    what: &str,
    a: &Array,
    axes: &str,
    packed: bool,
) -> Result<[usize; 4], String> {
    let shape = match (a.shape.as_slice(), packed) {
        (&[b, s, h, d], false) => [b, s, h, d],
        (&[s, h, d], true) => [1, s, h, d],
        _ => {
            return Err(format!(
                "{name}: {what} must have rank {} {axes}; its shape is {:?}",
                if packed { 3 } else { 4 },
                a.shape
            ))
        }
    };
    if !matches!(a.data, Data::F16(_)) {
        return Err(format!(
            "{name}: {what} must be float16; it is {}",
            a.dtype_name()
        ));
    }
    if a.order != Order::C {
        return Err(format!(
            "{name}: {what} must be C-order; it is Fortran-order"
        ));
    }
    Ok(shape)
}

/// A shape as a tuple.
fn tuple(s: [usize; 4]) -> String {
    format!("({}, {}, {}, {})", s[0], s[1], s[2], s[3])
}

/// Q, K and V's checks for `family` (see [`ATTENTION_HELP`]): the problem,
/// or the first refusal, one line. `scale`: `--scale`, or `None` for
/// 1/sqrt(d).
pub fn check_attention(
    family: &Family,
    (q, k, v): (&Array, &Array, &Array),
    (causal, bottom_right, window): (bool, bool, Option<(usize, usize)>),
    scale: Option<f32>,
    seqlens: Option<(&[i32], &[i32])>,
) -> Result<Problem, String> {
    let name = family.name;
    let packed = seqlens.is_some();
    let (q_axes, kv_axes) = if packed {
        ("(total_q, heads, d)", "(total_k, kv_heads, d)")
    } else {
        ("(batch, seq_q, heads, d)", "(batch, seq_k, kv_heads, d)")
    };
    let qs = check_tensor(name, "Q", q, q_axes, packed)?;
    let ks = check_tensor(name, "K", k, kv_axes, packed)?;
    let vs = check_tensor(name, "V", v, kv_axes, packed)?;
    // Shapes in the files' own rank.
    let tuple = |s: [usize; 4]| {
        if packed {
            format!("({}, {}, {})", s[1], s[2], s[3])
        } else {
            tuple(s)
        }
    };
    let [batch, seq_q, heads, d] = qs;
    if !family.head_dims.contains(&d) {
        let built: Vec<String> = family.head_dims.iter().map(|d| d.to_string()).collect();
        return Err(format!(
            "{name}: head dimension d = {d} (Q's last axis) is not built (built: {})",
            built.join(", ")
        ));
    }
    for (axis, at) in [("batch", 0), ("d", 3)] {
        if ks[at] != qs[at] {
            return Err(format!(
                "{name}: Q is {} {q_axes} and K {} {kv_axes}: their {axis} differ",
                tuple(qs),
                tuple(ks)
            ));
        }
    }
    if vs != ks {
        return Err(format!(
            "{name}: K is {} and V {} {kv_axes}: V must have K's shape",
            tuple(ks),
            tuple(vs)
        ));
    }
    // Grouped-query attention: K's and V's heads divide Q's.
    let kv_heads = ks[2];
    if kv_heads != 0 && heads % kv_heads != 0 {
        return Err(format!(
            "{name}: Q is {} {q_axes} and K {} {kv_axes}: K's heads must divide Q's",
            tuple(qs),
            tuple(ks)
        ));
    }
    let p = Problem {
        batch,
        seq_q,
        seq_k: ks[1],
        heads,
        kv_heads,
        d,
        causal,
        bottom_right,
        window,
        scale: scale.unwrap_or(1.0 / (d as f32).sqrt()),
        packed: None,
    };
    let p = match seqlens {
        None => p,
        Some((cu_q, cu_k)) => {
            let p = Problem::packed(cu_q, cu_k, &p).map_err(|e| format!("{name}: {e}"))?;
            let t = p.packed.unwrap_or(layout_gpu::attention::Packed {
                total_q: 0,
                total_k: 0,
            });
            if (t.total_q, t.total_k) != (qs[1], ks[1]) {
                return Err(format!(
                    "{name}: the cumulative offsets end at {} (Q) and {} (K); Q holds {} rows and K {}",
                    t.total_q, t.total_k, qs[1], ks[1]
                ));
            }
            p
        }
    };
    family.launch_shape(&p).map_err(|e| e.to_string())?;
    Ok(p)
}

/// `--seqlens-q` or `--seqlens-k`'s file: a 1-D int32 array.
pub(crate) fn read_seqlens(path: &std::path::Path, what: &str) -> Result<Vec<i32>, String> {
    let a = npy::read(path)?;
    let dtype = a.dtype_name();
    match (a.shape.as_slice(), a.data) {
        (&[_], Data::I32(x)) => Ok(x),
        (shape, _) => Err(format!(
            "{what} ({}) must be a 1-D int32 array of cumulative offsets; it is {shape:?} {dtype}",
            path.display()
        )),
    }
}

/// `--causal`'s value: which diagonal the mask is aligned with.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Causal {
    /// Query i sees keys 0..=i (torch's `is_causal`).
    TopLeft,
    /// Query i sees keys 0..=i + seq_k - seq_q (FlashAttention's).
    BottomRight,
}

/// `--scale`'s value: a finite number.
pub fn parse_scale(s: &str) -> Result<f32, String> {
    let v: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("--scale '{s}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("--scale {s} must be finite"));
    }
    Ok(v)
}

/// The options `attention` and `attention-bwd` share: the mask, packed
/// sequences and the scale.
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct Masking {
    /// Causal mask: query i sees keys 0..=i (top-left, the default) or
    /// 0..=i + seq_k - seq_q (bottom-right).
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "top-left")]
    pub causal: Option<Causal>,
    /// A sliding window: query i sees keys i - LEFT ..= i + RIGHT (aligned
    /// as --causal says); RIGHT 0 with --causal.
    #[arg(long, num_args = 2, value_names = ["LEFT", "RIGHT"])]
    pub window: Option<Vec<usize>>,
    /// Packed sequences: Q's cumulative offsets (.npy, int32, batch + 1).
    #[arg(long, value_name = "FILE", requires = "seqlens_k")]
    pub seqlens_q: Option<PathBuf>,
    /// Packed sequences: K's cumulative offsets (.npy, int32, batch + 1).
    #[arg(long, value_name = "FILE", requires = "seqlens_q")]
    pub seqlens_k: Option<PathBuf>,
    /// The softmax scale (default 1/sqrt(d)).
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub scale: Option<String>,
}

impl Masking {
    /// The problem `family` computes on Q, K and V under these options,
    /// and the packed sequences' offsets read; or the first refusal, one
    /// line (`--scale`, the offsets' files, [`check_attention`]).
    #[allow(clippy::type_complexity)]
    pub fn problem(
        &self,
        family: &Family,
        qkv: (&Array, &Array, &Array),
    ) -> Result<(Problem, Option<(Vec<i32>, Vec<i32>)>), String> {
        let scale = self.scale.as_deref().map(parse_scale).transpose()?;
        // (clap takes exactly two values.)
        let window = self.window.as_deref().map(|w| (w[0], w[1]));
        let seqlens = match (&self.seqlens_q, &self.seqlens_k) {
            (Some(q), Some(k)) => Some((
                read_seqlens(q, "--seqlens-q")?,
                read_seqlens(k, "--seqlens-k")?,
            )),
            _ => None,
        };
        let problem = check_attention(
            family,
            qkv,
            (
                self.causal.is_some(),
                self.causal == Some(Causal::BottomRight),
                window,
            ),
            scale,
            seqlens.as_ref().map(|(q, k)| (&q[..], &k[..])),
        )?;
        Ok((problem, seqlens))
    }
}

/// `gpu-runner attention`'s operands and options.
#[derive(clap::Args, Debug, PartialEq, Eq)]
pub struct Args {
    /// The PTX file (target/gpu/layout_kernels.ptx).
    pub ptx: PathBuf,
    /// flash_attn_fwd (the entry point is chosen by d and --causal).
    pub kernel: String,
    /// Q (.npy): (batch, seq_q, heads, d) float16, C-order.
    pub q: PathBuf,
    /// K (.npy): (batch, seq_k, kv_heads, d) float16, C-order.
    pub k: PathBuf,
    /// V (.npy): K's shape, float16, C-order.
    pub v: PathBuf,
    /// Where to write O (.npy): Q's shape, float16, C-order.
    pub o: PathBuf,
    /// The mask, packed sequences and the scale.
    #[command(flatten)]
    pub masking: Masking,
    /// Also write the log-sum-exp: (batch, heads, seq_q) float32.
    #[arg(long, value_name = "LSE.npy")]
    pub lse: Option<PathBuf>,
    /// After the run, time the kernel and print ms and TFLOP/s.
    #[arg(long)]
    pub time: bool,
}

/// A checked attention run: the family, its entry point, the problem and
/// the inputs as the kernel takes them.
#[derive(Debug)]
pub struct AttentionJob {
    /// The family.
    pub family: &'static Family,
    /// The entry point (by d and the mask).
    pub entry: String,
    /// The sizes, mask and scale.
    pub problem: Problem,
    /// Packed sequences' cumulative offsets (Q's, K's).
    pub seqlens: Option<(Vec<i32>, Vec<i32>)>,
    q: Vec<f16>,
    k: Vec<f16>,
    v: Vec<f16>,
    ptx: PathBuf,
    o: PathBuf,
    lse: Option<PathBuf>,
    time: bool,
}

/// Everything `gpu-runner attention` checks before the GPU: the family,
/// `--scale`, the files it reads, their dtypes, orders and shapes.
pub fn prepare_attention(args: &Args) -> Result<AttentionJob, String> {
    let family = Family::parse(&args.kernel).map_err(|e| e.to_string())?;
    let (q, k, v) = (
        npy::read(&args.q)?,
        npy::read(&args.k)?,
        npy::read(&args.v)?,
    );
    let (problem, seqlens) = args.masking.problem(family, (&q, &k, &v))?;
    let half = |a: Array| match a.data {
        Data::F16(x) => Ok(x),
        _ => Err("an input passed the checks without f16 data".to_string()),
    };
    Ok(AttentionJob {
        family,
        entry: family.entry_for(&problem),
        problem,
        seqlens,
        q: half(q)?,
        k: half(k)?,
        v: half(v)?,
        ptx: read_ptx(&args.ptx).map(|_| args.ptx.clone())?,
        o: args.o.clone(),
        lse: args.lse.clone(),
        time: args.time,
    })
}

/// Runs a checked attention on GPU 0, writes O (and LSE), and with
/// `--time` times the kernel ([`timing::median_round`]) and prints one
/// line ([`Problem::timing_line`]).
pub fn run_attention(job: &AttentionJob) -> Result<(), String> {
    let gpu = Device::new(0).map_err(text)?;
    let module = gpu.load_ptx_file(&job.ptx).map_err(text)?;
    let f = module.kernel(&job.entry).map_err(text)?;
    let stream = gpu.stream();
    let p = job.problem;
    let lens = p.lens().map_err(text)?;
    let dq = stream.upload(&job.q).map_err(text)?;
    let dk = stream.upload(&job.k).map_err(text)?;
    let dv = stream.upload(&job.v).map_err(text)?;
    // NaN wherever the kernel writes nothing.
    let mut o = stream.upload(&vec![f16::NAN; lens.q]).map_err(text)?;
    let mut lse = stream.upload(&vec![f32::NAN; lens.lse]).map_err(text)?;
    let operands = (&dq, &dk, &dv);
    let run = AttentionLaunch::new(stream, &f, job.family, &p, operands).map_err(text)?;
    let cu = match &job.seqlens {
        Some((q, k)) => Some((
            stream.upload(q).map_err(text)?,
            stream.upload(k).map_err(text)?,
        )),
        None => None,
    };
    let mut once = || match &cu {
        Some((cq, ck)) => run.launch_packed(stream, &f, operands, (cq, ck), &mut o, &mut lse),
        None => run.launch(stream, &f, operands, &mut o, &mut lse),
    };
    once().map_err(text)?;
    let ms = if job.time {
        Some(timing::median_round(stream, || once().map_err(text))?)
    } else {
        None
    };
    let out: Vec<f16> = stream.download(&o).map_err(text)?;
    let l = stream.download(&lse).map_err(text)?;
    match (&job.seqlens, p.packed) {
        (Some((q, k)), Some(t)) => {
            npy::write(&job.o, &[t.total_q, p.heads, p.d], &out)?;
            if let Some(path) = &job.lse {
                npy::write(path, &[p.heads, t.total_q], &l)?;
            }
            if let Some(ms) = ms {
                let tflops = p.packed_flops(q, k) / (f64::from(ms) * 1e-3) / 1e12;
                println!(
                    "{} sequences={} h={} total_q={} total_k={}: {ms:.3} ms, {tflops:.1} TFLOP/s",
                    job.entry, p.batch, p.heads, t.total_q, t.total_k
                );
            }
        }
        _ => {
            npy::write(&job.o, &[p.batch, p.seq_q, p.heads, p.d], &out)?;
            if let Some(path) = &job.lse {
                npy::write(path, &[p.batch, p.heads, p.seq_q], &l)?;
            }
            if let Some(ms) = ms {
                println!("{}", p.timing_line(&job.entry, ms));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout_gpu::attention::{LaunchShape, Lens, FAMILIES};
    use layout_kernels::maps::{flash_bm, flash_smem_bytes, FLASH_HEAD_DIMS, FLASH_THREADS};

    fn f16s(shape: &[usize]) -> Array {
        let len = shape.iter().product();
        Array {
            shape: shape.to_vec(),
            order: Order::C,
            descr: "<f2".into(),
            data: Data::F16(vec![f16::ZERO; len]),
        }
    }

    /// A float16 array of `shape` whose data is not held (sizes too large
    /// to allocate; the checks read only the shape and dtype).
    fn f16_shape(shape: &[usize]) -> Array {
        Array {
            shape: shape.to_vec(),
            order: Order::C,
            descr: "<f2".into(),
            data: Data::F16(Vec::new()),
        }
    }

    fn fam() -> &'static Family {
        Family::parse("flash_attn_fwd").unwrap()
    }

    fn check(q: &Array, k: &Array, v: &Array) -> Result<Problem, String> {
        check_attention(fam(), (q, k, v), (false, false, None), None, None)
    }

    /// Grouped-query heads: K and V with fewer heads than Q, dividing
    /// them, are taken by both families; heads that do not divide are
    /// refused.
    #[test]
    fn grouped_query_heads() {
        let (q, kv) = (f16s(&[2, 77, 8, 128]), f16s(&[2, 130, 2, 128]));
        let sm90 = &FAMILIES[1];
        let p = check_attention(sm90, (&q, &kv, &kv), (true, false, None), None, None).unwrap();
        assert_eq!((p.heads, p.kv_heads), (8, 2));
        assert_eq!(p.lens().unwrap().kv, 2 * 130 * 2 * 128);
        assert_eq!(check(&q, &kv, &kv).map(|p| p.kv_heads), Ok(2));
        let kv3 = f16s(&[2, 130, 3, 128]);
        assert_eq!(
            check_attention(sm90, (&q, &kv3, &kv3), (false, false, None), None, None),
            Err("flash_attn_fwd_sm90: Q is (2, 77, 8, 128) (batch, seq_q, heads, d) and K (2, 130, 3, 128) (batch, seq_k, kv_heads, d): K's heads must divide Q's".into())
        );
    }

    /// The mask's options as the issue spells them: `--causal` alone
    /// (top-left), `--causal top-left|bottom-right`, `--window LEFT
    /// RIGHT` (two non-negative integers), and the two offset files
    /// together or not at all; anything else is clap's refusal.
    #[test]
    fn mask_and_packing_options() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            a: Args,
        }
        let parse = |extra: &[&str]| {
            let mut argv = vec!["x", "k.ptx", "flash_attn_fwd", "q", "k", "v", "o"];
            argv.extend_from_slice(extra);
            Cli::try_parse_from(argv).map(|c| {
                (
                    c.a.masking.causal,
                    c.a.masking.window,
                    c.a.masking.seqlens_q.is_some(),
                )
            })
        };
        assert_eq!(parse(&[]).unwrap(), (None, None, false));
        assert_eq!(parse(&["--causal"]).unwrap().0, Some(Causal::TopLeft));
        assert_eq!(
            parse(&["--causal", "top-left"]).unwrap().0,
            Some(Causal::TopLeft)
        );
        assert_eq!(
            parse(&["--causal", "bottom-right"]).unwrap().0,
            Some(Causal::BottomRight)
        );
        assert_eq!(
            parse(&["--window", "4096", "0"]).unwrap().1,
            Some(vec![4096, 0])
        );
        assert!(
            parse(&["--seqlens-q", "a.npy", "--seqlens-k", "b.npy"])
                .unwrap()
                .2
        );
        for bad in [
            &["--causal", "diagonal"][..],
            &["--window", "4096"],
            &["--window", "-1", "0"],
            &["--window", "40,70"],
            &["--seqlens-q", "a.npy"],
            &["--bottom-right"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    /// Packed sequences: rank-3 tensors, offsets whose last values are
    /// the tensors' rows, the `_varlen` entry; refusals name the mismatch.
    #[test]
    fn packed_sequences() {
        let sm90 = &FAMILIES[1];
        let (q, kv) = (f16s(&[305, 8, 128]), f16s(&[17, 2, 128]));
        let (cq, ck) = ([0, 300, 300, 305], [0, 10, 17, 17]);
        let p = check_attention(
            sm90,
            (&q, &kv, &kv),
            (true, true, None),
            None,
            Some((&cq, &ck)),
        )
        .unwrap();
        assert_eq!((p.batch, p.seq_q, p.seq_k, p.kv_heads), (3, 300, 10, 2));
        assert_eq!(sm90.entry_for(&p), "flash_attn_fwd_sm90_varlen_d128_causal");
        assert_eq!(
            check_attention(sm90, (&q, &kv, &kv), (false, false, None), None, Some((&cq, &[0, 10, 17, 18]))),
            Err("flash_attn_fwd_sm90: the cumulative offsets end at 305 (Q) and 18 (K); Q holds 305 rows and K 17".into())
        );
        assert_eq!(
            check_attention(sm90, (&f16s(&[1, 305, 8, 128]), &kv, &kv), (false, false, None), None, Some((&cq, &ck))),
            Err("flash_attn_fwd_sm90: Q must have rank 3 (total_q, heads, d); its shape is [1, 305, 8, 128]".into())
        );
        assert_eq!(
            check_attention(sm90, (&q, &kv, &kv), (false, false, None), None, Some((&cq, &[0, 10, 9, 17]))),
            Err("flash_attn_fwd_sm90: attention: the cumulative K offsets decrease at sequence 1 (10 then 9)".into())
        );
    }

    #[test]
    fn the_family_table() {
        let f = fam();
        // The contract's constants (maps::attention).
        assert_eq!(f.head_dims, FLASH_HEAD_DIMS);
        for d in FLASH_HEAD_DIMS {
            assert_eq!(
                ((f.threads)(d), (f.rows_per_block)(d)),
                (FLASH_THREADS, if d == 256 { 64 } else { 128 })
            );
            assert_eq!((f.smem_bytes)(d), flash_smem_bytes(d));
        }
        let names: Vec<String> = [(64, false), (64, true), (128, false), (128, true)]
            .iter()
            .map(|&(d, c)| f.entry_name(d, c))
            .collect();
        assert_eq!(
            names,
            [
                "flash_attn_fwd_d64",
                "flash_attn_fwd_d64_causal",
                "flash_attn_fwd_d128",
                "flash_attn_fwd_d128_causal"
            ]
        );
        // Every family in --help; names unique.
        for (i, f) in FAMILIES.iter().enumerate() {
            assert!(ATTENTION_HELP.contains(f.name), "{}", f.name);
            assert!(FAMILIES[..i].iter().all(|g| g.name != f.name));
            for &d in f.head_dims {
                assert!(ATTENTION_HELP.contains(&f.entry_name(d, false)));
            }
        }
        assert_eq!(
            Family::parse("flash_attn_fwd_d64").unwrap_err().to_string(),
            "attention: unknown kernel family 'flash_attn_fwd_d64' (known: flash_attn_fwd, flash_attn_fwd_sm90; the entry point is chosen by d and the mask)"
        );
    }

    /// The launch of `grid` for head dimension `d`, per the contract.
    fn shape(grid: (u32, u32, u32), d: usize) -> LaunchShape {
        LaunchShape {
            grid,
            block: FLASH_THREADS as u32,
            shared_bytes: flash_smem_bytes(d) as u32,
        }
    }

    #[test]
    fn accepted_shapes_and_the_launch() {
        let blocks = |sq: usize| sq.div_ceil(flash_bm(64)) as u32;
        let q = f16s(&[2, 77, 3, 64]);
        let kv = f16s(&[2, 130, 3, 64]);
        let p = check(&q, &kv, &kv).unwrap();
        assert_eq!(
            p,
            Problem {
                batch: 2,
                seq_q: 77,
                seq_k: 130,
                heads: 3,
                kv_heads: 3,
                d: 64,
                causal: false,
                bottom_right: false,
                window: None,
                scale: 0.125,
                packed: None,
            }
        );
        assert_eq!(
            p.lens().ok(),
            Some(Lens {
                q: 2 * 77 * 3 * 64,
                kv: 2 * 130 * 3 * 64,
                lse: 2 * 3 * 77
            })
        );
        assert_eq!(
            fam().launch_shape(&p).ok(),
            Some(shape((blocks(77), 3, 2), 64))
        );
        // d = 128, causal, an explicit scale, seq_q = 129, one key.
        let (q, kv) = (f16s(&[1, 129, 5, 128]), f16s(&[1, 1, 5, 128]));
        let p =
            check_attention(fam(), (&q, &kv, &kv), (true, false, None), Some(-0.5), None).unwrap();
        assert_eq!((p.seq_q, p.seq_k, p.causal, p.scale), (129, 1, true, -0.5));
        assert_eq!(
            fam().launch_shape(&p).ok(),
            Some(shape((blocks(129), 5, 1), 128))
        );
        assert_eq!(
            check(&f16s(&[1, 1, 1, 128]), &kv, &kv).map(|p| p.scale),
            Err("flash_attn_fwd: Q is (1, 1, 1, 128) (batch, seq_q, heads, d) and K (1, 1, 5, 128) (batch, seq_k, kv_heads, d): K's heads must divide Q's".into())
        );
        let p = check(&f16s(&[1, 1, 5, 128]), &kv, &kv).unwrap();
        assert_eq!(p.scale, 1.0 / 128f32.sqrt());
        // The grid's limits, at and past them (the data is not needed).
        let (q, kv) = (
            f16_shape(&[65535, 1, 65535, 64]),
            f16_shape(&[65535, 1, 65535, 64]),
        );
        assert_eq!(
            check(&q, &kv, &kv).map(|p| fam().launch_shape(&p).ok()),
            Ok(Some(shape((1, 65535, 65535), 64)))
        );
    }

    #[test]
    fn refusals() {
        let ok = f16s(&[2, 8, 3, 64]);
        let f32s = Array {
            shape: vec![2, 8, 3, 64],
            order: Order::C,
            descr: "<f4".into(),
            data: Data::F32(vec![0.0; 2 * 8 * 3 * 64]),
        };
        let f64s = Array {
            descr: "<f8".into(),
            data: Data::Other,
            ..f32s.clone()
        };
        let fortran = Array {
            order: Order::Fortran,
            ..ok.clone()
        };
        let cases: Vec<(Result<Problem, String>, &str)> = vec![
            (
                check(&f32s, &ok, &ok),
                "flash_attn_fwd: Q must be float16; it is float32",
            ),
            (
                check(&ok, &ok, &f64s),
                "flash_attn_fwd: V must be float16; it is '<f8'",
            ),
            (
                check(&ok, &fortran, &ok),
                "flash_attn_fwd: K must be C-order; it is Fortran-order",
            ),
            (
                check(&f16s(&[8, 3, 64]), &ok, &ok),
                "flash_attn_fwd: Q must have rank 4 (batch, seq_q, heads, d); its shape is [8, 3, 64]",
            ),
            (
                check(&ok, &f16s(&[1, 2, 8, 3, 64]), &ok),
                "flash_attn_fwd: K must have rank 4 (batch, seq_k, kv_heads, d); its shape is [1, 2, 8, 3, 64]",
            ),
            (
                check(&f16s(&[2, 8, 3, 96]), &f16s(&[2, 8, 3, 96]), &f16s(&[2, 8, 3, 96])),
                "flash_attn_fwd: head dimension d = 96 (Q's last axis) is not built (built: 64, 128, 256)",
            ),
            (
                check(&ok, &f16s(&[2, 8, 4, 64]), &f16s(&[2, 8, 4, 64])),
                "flash_attn_fwd: Q is (2, 8, 3, 64) (batch, seq_q, heads, d) and K (2, 8, 4, 64) (batch, seq_k, kv_heads, d): K's heads must divide Q's",
            ),
            (
                check(&ok, &f16s(&[1, 8, 3, 64]), &f16s(&[1, 8, 3, 64])),
                "flash_attn_fwd: Q is (2, 8, 3, 64) (batch, seq_q, heads, d) and K (1, 8, 3, 64) (batch, seq_k, kv_heads, d): their batch differ",
            ),
            (
                check(&ok, &f16s(&[2, 8, 3, 128]), &f16s(&[2, 8, 3, 128])),
                "flash_attn_fwd: Q is (2, 8, 3, 64) (batch, seq_q, heads, d) and K (2, 8, 3, 128) (batch, seq_k, kv_heads, d): their d differ",
            ),
            (
                check(&ok, &ok, &f16s(&[2, 9, 3, 64])),
                "flash_attn_fwd: K is (2, 8, 3, 64) and V (2, 9, 3, 64) (batch, seq_k, kv_heads, d): V must have K's shape",
            ),
            (
                check(&f16s(&[2, 0, 3, 64]), &ok, &ok),
                "flash_attn_fwd: batch = 2, heads = 3, seq_q = 0, seq_k = 8: each must be positive",
            ),
            (
                check(&ok, &f16s(&[2, 0, 3, 64]), &f16s(&[2, 0, 3, 64])),
                "flash_attn_fwd: batch = 2, heads = 3, seq_q = 8, seq_k = 0: each must be positive",
            ),
            (
                check(&f16s(&[0, 8, 0, 64]), &f16s(&[0, 8, 0, 64]), &f16s(&[0, 8, 0, 64])),
                "flash_attn_fwd: batch = 0, heads = 0, seq_q = 8, seq_k = 8: each must be positive",
            ),
            (
                check(
                    &f16_shape(&[1, 1, 65536, 64]),
                    &f16_shape(&[1, 1, 65536, 64]),
                    &f16_shape(&[1, 1, 65536, 64]),
                ),
                "flash_attn_fwd: heads = 65536 is beyond the grid's limit of 65535 (grid y)",
            ),
            (
                check(
                    &f16_shape(&[65536, 1, 1, 128]),
                    &f16_shape(&[65536, 1, 1, 128]),
                    &f16_shape(&[65536, 1, 1, 128]),
                ),
                "flash_attn_fwd: batch = 65536 is beyond the grid's limit of 65535 (grid z)",
            ),
            (
                check(
                    &f16_shape(&[1, 1 << 30, 1, 64]),
                    &f16_shape(&[1, 1 << 60, 1, 64]),
                    &f16_shape(&[1, 1 << 60, 1, 64]),
                ),
                "flash_attn_fwd: seq_q = 1073741824, seq_k = 1152921504606846976: at d = 64 the kernels take seq_q up to 2147483647 and seq_k up to 2147483647",
            ),
            (
                check(
                    &f16_shape(&[65535, 1 << 30, 65535, 128]),
                    &f16_shape(&[65535, 1, 65535, 128]),
                    &f16_shape(&[65535, 1, 65535, 128]),
                ),
                "flash_attn_fwd: batch = 65535, seq_q = 1073741824, seq_k = 1, heads = 65535, d = 128: the tensors are too large",
            ),
            (
                // 2^62 halves: elements that fit a usize, bytes that do not
                // fit an isize.
                check(
                    &f16_shape(&[1 << 14, 1 << 30, 1 << 12, 64]),
                    &f16_shape(&[1 << 14, 1, 1 << 12, 64]),
                    &f16_shape(&[1 << 14, 1, 1 << 12, 64]),
                ),
                "flash_attn_fwd: batch = 16384, seq_q = 1073741824, seq_k = 1, heads = 4096, d = 64: the tensors are too large",
            ),
            (
                check_attention(fam(), (&ok, &ok, &ok), (false, false, None), Some(f32::INFINITY), None),
                "flash_attn_fwd: the scale inf must be finite",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, Err(want.to_string()));
            assert!(!want.contains('\n'));
        }
        let (q, kv) = (f16_shape(&[1, 1 << 40, 1, 64]), f16_shape(&[1, 1, 1, 64]));
        assert_eq!(
            check(&q, &kv, &kv),
            Err(format!(
                "flash_attn_fwd: seq_q = {}, seq_k = 1: at d = 64 the kernels take seq_q up to 2147483647 and seq_k up to 2147483647",
                1usize << 40
            ))
        );
        // One key past the 32-bit range.
        let (q, kv) = (f16_shape(&[1, 1, 1, 64]), f16_shape(&[1, 1 << 31, 1, 64]));
        assert_eq!(
            check(&q, &kv, &kv),
            Err("flash_attn_fwd: seq_q = 1, seq_k = 2147483648: at d = 64 the kernels take seq_q up to 2147483647 and seq_k up to 2147483647".to_string())
        );
    }

    #[test]
    fn scales() {
        assert_eq!(parse_scale("0.3"), Ok(0.3));
        assert_eq!(parse_scale("-2"), Ok(-2.0));
        assert_eq!(parse_scale("1e-2"), Ok(0.01));
        assert_eq!(parse_scale("nan"), Err("--scale nan must be finite".into()));
        assert_eq!(parse_scale("inf"), Err("--scale inf must be finite".into()));
        assert_eq!(
            parse_scale("1e39"),
            Err("--scale 1e39 must be finite".into())
        );
        assert_eq!(parse_scale("x"), Err("--scale 'x' is not a number".into()));
    }

    #[test]
    fn flops_and_the_timing_line() {
        let p = Problem {
            batch: 4,
            seq_q: 4096,
            seq_k: 4096,
            heads: 16,
            kv_heads: 16,
            d: 128,
            causal: true,
            bottom_right: false,
            window: None,
            scale: 0.1,
            packed: None,
        };
        assert_eq!(p.flops(), 2.0 * 4.0 * 16.0 * 4096.0 * 4096.0 * 128.0);
        let full = Problem { causal: false, ..p };
        assert_eq!(full.flops(), 2.0 * p.flops());
        // 274.9 GFLOP in 0.812 ms.
        assert_eq!(
            p.timing_line("flash_attn_fwd_d128_causal", 0.812),
            "flash_attn_fwd_d128_causal b=4 h=16 sq=4096 sk=4096: 0.812 ms, 338.5 TFLOP/s"
        );
    }

    /// The whole path before the GPU, on files: read, checked, or refused
    /// with the file named.
    #[test]
    fn prepare_from_files() {
        let dir = std::env::temp_dir().join(format!("gpu-runner-attn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = |name: &str| dir.join(name);
        std::fs::write(p("k.ptx"), ".version 8.0\n").unwrap();
        let q: Vec<f16> = (0..2 * 5 * 3 * 64)
            .map(|i| f16::from_f32(i as f32))
            .collect();
        npy::write(&p("q.npy"), &[2, 5, 3, 64], &q).unwrap();
        let kv = vec![f16::ONE; 2 * 7 * 3 * 64];
        npy::write(&p("k.npy"), &[2, 7, 3, 64], &kv).unwrap();
        npy::write(
            &p("k4.npy"),
            &[2, 7, 4, 64],
            &vec![f16::ONE; 2 * 7 * 4 * 64],
        )
        .unwrap();
        npy::write(&p("f.npy"), &[2, 5, 3, 64], &vec![0.5f32; 2 * 5 * 3 * 64]).unwrap();
        let args = |q: &str, k: &str, scale: Option<&str>| Args {
            ptx: p("k.ptx"),
            kernel: "flash_attn_fwd".into(),
            q: p(q),
            k: p(k),
            v: p(k),
            o: p("o.npy"),
            masking: Masking {
                causal: Some(Causal::TopLeft),
                scale: scale.map(String::from),
                ..Masking::default()
            },
            lse: Some(p("lse.npy")),
            time: false,
        };

        let job = prepare_attention(&args("q.npy", "k.npy", None)).unwrap();
        assert_eq!(job.entry, "flash_attn_fwd_d64_causal");
        assert_eq!(
            (job.problem.batch, job.problem.seq_q, job.problem.seq_k),
            (2, 5, 7)
        );
        assert_eq!((job.problem.heads, job.problem.d), (3, 64));
        assert_eq!(job.problem.scale, 0.125);
        assert_eq!(job.q, q);
        assert_eq!(job.k, kv);
        assert_eq!(job.lse.as_deref(), Some(p("lse.npy").as_path()));
        let job = prepare_attention(&args("q.npy", "k.npy", Some("0.25"))).unwrap();
        assert_eq!(job.problem.scale, 0.25);

        for (a, want) in [
            (
                args("f.npy", "k.npy", None),
                "flash_attn_fwd: Q must be float16; it is float32".to_string(),
            ),
            (
                args("q.npy", "k4.npy", None),
                "flash_attn_fwd: Q is (2, 5, 3, 64) (batch, seq_q, heads, d) and K (2, 7, 4, 64) (batch, seq_k, kv_heads, d): K's heads must divide Q's".into(),
            ),
            (
                args("q.npy", "k.npy", Some("nan")),
                "--scale nan must be finite".into(),
            ),
            (
                Args {
                    kernel: "flash_attn".into(),
                    ..args("q.npy", "k.npy", None)
                },
                "attention: unknown kernel family 'flash_attn' (known: flash_attn_fwd, flash_attn_fwd_sm90; the entry point is chosen by d and the mask)".into(),
            ),
        ] {
            assert_eq!(prepare_attention(&a).unwrap_err(), want);
        }
        let e = prepare_attention(&args("none.npy", "k.npy", None)).unwrap_err();
        assert!(
            e.starts_with(&format!("cannot read {}: ", p("none.npy").display())),
            "{e}"
        );
        let e = prepare_attention(&Args {
            ptx: p("none.ptx"),
            ..args("q.npy", "k.npy", None)
        })
        .unwrap_err();
        assert!(
            e.starts_with(&format!("cannot read {}: ", p("none.ptx").display())),
            "{e}"
        );
        let e = prepare_attention(&args("k.ptx", "k.npy", None)).unwrap_err();
        assert!(
            e.starts_with(&format!("{}: not a .npy array", p("k.ptx").display())),
            "{e}"
        );
        assert!(!e.contains('\n'));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
