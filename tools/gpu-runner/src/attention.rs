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
Kernels (one family name; the entry point is chosen by d and --causal):
  flash_attn_fwd  O = softmax(scale * Q K^T) V for each (batch, head).
                  Entry points flash_attn_fwd_d64, flash_attn_fwd_d128 and
                  their _causal forms.
                  Q: (batch, seq_q, heads, d) float16, C-order (BSHD).
                  K, V: (batch, seq_k, kv_heads, d) float16, C-order;
                  kv_heads divides heads (grouped-query attention: query
                  head h reads K/V head h / (heads / kv_heads)).
                  O: (batch, seq_q, heads, d) float16, C-order.
                  LSE (--lse): (batch, heads, seq_q) float32, C-order: the
                  natural log of each row's sum of exp(scale * q.k).
                  d = 64 or 128; batch and heads 1..=65535; seq_q, seq_k >= 1.
                  --causal: query i sees keys 0..=i (top-left aligned, as
                  torch's is_causal). --scale: default 1/sqrt(d).
                  --window LEFT,RIGHT: query i sees keys i - LEFT ..=
                  i + RIGHT (RIGHT 0 with --causal).
                  --bottom-right (with --causal or --window): query
                  i sees keys 0..=i + seq_k - seq_q (FlashAttention's); a
                  row that sees no key gets O = 0 and LSE = -inf.
  flash_attn_fwd_sm90
                  The same on Hopper (sm_90a: layout_kernels_sm90.ptx):
                  entry points flash_attn_fwd_sm90_d64, flash_attn_fwd_sm90_d128
                  and their _causal forms; the same tensors and options.
Inputs go to the kernel as stored: another dtype, rank, storage order or
shape is refused (exit code 2), never converted or padded.
--time: after the run, 5 rounds (each after 100 ms idle: 2 warm-up launches,
10 timed by CUDA events); prints the median round's time per launch and
TFLOP/s of 4 * batch * heads * seq_q * seq_k * d FLOPs (half when causal).";

/// Refuses an array that is not a rank-4 float16 C-order tensor; `what`
/// names it ("Q").
fn check_tensor(name: &str, what: &str, a: &Array, axes: &str) -> Result<[usize; 4], String> {
    let &[b, s, h, d] = a.shape.as_slice() else {
        return Err(format!(
            "{name}: {what} must have rank 4 {axes}; its shape is {:?}",
            a.shape
        ));
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
    Ok([b, s, h, d])
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
) -> Result<Problem, String> {
    let name = family.name;
    const Q_AXES: &str = "(batch, seq_q, heads, d)";
    const KV_AXES: &str = "(batch, seq_k, kv_heads, d)";
    let qs = check_tensor(name, "Q", q, Q_AXES)?;
    let ks = check_tensor(name, "K", k, KV_AXES)?;
    let vs = check_tensor(name, "V", v, KV_AXES)?;
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
                "{name}: Q is {} {Q_AXES} and K {} {KV_AXES}: their {axis} differ",
                tuple(qs),
                tuple(ks)
            ));
        }
    }
    if vs != ks {
        return Err(format!(
            "{name}: K is {} and V {} {KV_AXES}: V must have K's shape",
            tuple(ks),
            tuple(vs)
        ));
    }
    // Grouped-query attention: K's and V's heads divide Q's.
    let kv_heads = ks[2];
    if kv_heads != 0 && heads % kv_heads != 0 {
        return Err(format!(
            "{name}: Q is {} {Q_AXES} and K {} {KV_AXES}: K's heads must divide Q's",
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
    };
    family.launch_shape(&p).map_err(|e| e.to_string())?;
    Ok(p)
}

/// `--window`'s value: `LEFT,RIGHT`, two non-negative integers.
pub fn parse_window(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--window '{s}' must be LEFT,RIGHT (two non-negative integers)");
    let (l, r) = s.split_once(',').ok_or_else(bad)?;
    match (l.trim().parse(), r.trim().parse()) {
        (Ok(l), Ok(r)) => Ok((l, r)),
        _ => Err(bad()),
    }
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
    /// Causal mask: query i sees keys 0..=i (top-left aligned).
    #[arg(long)]
    pub causal: bool,
    /// With --causal or --window: aligned bottom-right (query i sees keys up
    /// to i + seq_k - seq_q).
    #[arg(long)]
    pub bottom_right: bool,
    /// A sliding window LEFT,RIGHT: query i sees keys i - LEFT ..= i +
    /// RIGHT (shifted by seq_k - seq_q with --bottom-right); RIGHT 0 with
    /// --causal.
    #[arg(long, value_name = "LEFT,RIGHT")]
    pub window: Option<String>,
    /// The softmax scale (default 1/sqrt(d)).
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub scale: Option<String>,
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
    q: Vec<f16>,
    k: Vec<f16>,
    v: Vec<f16>,
    ptx: String,
    o: PathBuf,
    lse: Option<PathBuf>,
    time: bool,
}

/// Everything `gpu-runner attention` checks before the GPU: the family,
/// `--scale`, the files it reads, their dtypes, orders and shapes.
pub fn prepare_attention(args: &Args) -> Result<AttentionJob, String> {
    let family = Family::parse(&args.kernel).map_err(|e| e.to_string())?;
    let scale = args.scale.as_deref().map(parse_scale).transpose()?;
    let (q, k, v) = (
        npy::read(&args.q)?,
        npy::read(&args.k)?,
        npy::read(&args.v)?,
    );
    let window = args.window.as_deref().map(parse_window).transpose()?;
    let problem = check_attention(
        family,
        (&q, &k, &v),
        (args.causal, args.bottom_right, window),
        scale,
    )?;
    let half = |a: Array| match a.data {
        Data::F16(x) => Ok(x),
        _ => Err("an input passed the checks without f16 data".to_string()),
    };
    Ok(AttentionJob {
        family,
        entry: family.entry_name(problem.d, problem.masked()),
        problem,
        q: half(q)?,
        k: half(k)?,
        v: half(v)?,
        ptx: read_ptx(&args.ptx)?,
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
    let module = gpu.load_ptx(&job.ptx).map_err(text)?;
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
    run.launch(stream, &f, operands, &mut o, &mut lse)
        .map_err(text)?;
    let out: Vec<f16> = stream.download(&o).map_err(text)?;
    npy::write(&job.o, &[p.batch, p.seq_q, p.heads, p.d], &out)?;
    if let Some(path) = &job.lse {
        let l = stream.download(&lse).map_err(text)?;
        npy::write(path, &[p.batch, p.heads, p.seq_q], &l)?;
    }
    if job.time {
        let ms = timing::median_round(stream, || {
            run.launch(stream, &f, operands, &mut o, &mut lse)
                .map_err(text)
        })?;
        println!("{}", p.timing_line(&job.entry, ms));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout_gpu::attention::{LaunchShape, Lens, FAMILIES};
    use layout_kernels::maps::{flash_smem_bytes, FLASH_BM, FLASH_HEAD_DIMS, FLASH_THREADS};

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
        check_attention(fam(), (q, k, v), (false, false, None), None)
    }

    /// Grouped-query heads: K and V with fewer heads than Q, dividing
    /// them, are taken by both families; heads that do not divide are
    /// refused.
    #[test]
    fn grouped_query_heads() {
        let (q, kv) = (f16s(&[2, 77, 8, 128]), f16s(&[2, 130, 2, 128]));
        let sm90 = &FAMILIES[1];
        let p = check_attention(sm90, (&q, &kv, &kv), (true, false, None), None).unwrap();
        assert_eq!((p.heads, p.kv_heads), (8, 2));
        assert_eq!(p.lens().unwrap().kv, 2 * 130 * 2 * 128);
        assert_eq!(check(&q, &kv, &kv).map(|p| p.kv_heads), Ok(2));
        let kv3 = f16s(&[2, 130, 3, 128]);
        assert_eq!(
            check_attention(sm90, (&q, &kv3, &kv3), (false, false, None), None),
            Err("flash_attn_fwd_sm90: Q is (2, 77, 8, 128) (batch, seq_q, heads, d) and K (2, 130, 3, 128) (batch, seq_k, kv_heads, d): K's heads must divide Q's".into())
        );
    }

    /// `--window`: two non-negative integers, or a one-line refusal.
    #[test]
    fn window_values() {
        assert_eq!(parse_window("4096,0"), Ok((4096, 0)));
        assert_eq!(parse_window(" 40 , 70 "), Ok((40, 70)));
        for bad in ["4096", "-1,0", "a,b", ""] {
            assert_eq!(
                parse_window(bad),
                Err(format!(
                    "--window '{bad}' must be LEFT,RIGHT (two non-negative integers)"
                ))
            );
        }
    }

    #[test]
    fn the_family_table() {
        let f = fam();
        // The contract's constants (maps::attention).
        assert_eq!(f.head_dims, FLASH_HEAD_DIMS);
        for d in FLASH_HEAD_DIMS {
            assert_eq!(
                ((f.threads)(d), (f.rows_per_block)(d)),
                (FLASH_THREADS, FLASH_BM)
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
        let blocks = |sq: usize| sq.div_ceil(FLASH_BM) as u32;
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
        let p = check_attention(fam(), (&q, &kv, &kv), (true, false, None), Some(-0.5)).unwrap();
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
                "flash_attn_fwd: head dimension d = 96 (Q's last axis) is not built (built: 64, 128)",
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
                check_attention(fam(), (&ok, &ok, &ok), (false, false, None), Some(f32::INFINITY)),
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
            causal: true,
            bottom_right: false,
            window: None,
            scale: scale.map(String::from),
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
