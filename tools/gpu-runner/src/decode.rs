//! `gpu-runner decode`: one decode step on `.npy` files (Q, the paged K
//! and V caches, the block table and the context lengths in; O and
//! optionally LSE out), with the launch contract of
//! `layout_kernels::maps::decode`, optionally after appending new tokens'
//! K and V to the caches (`--append`). Inputs go to the kernels as stored:
//! another dtype, rank or shape is refused (one line, exit code 2).

use std::path::PathBuf;

use half::f16;
use layout_gpu::decode::{Decode, DecodeWorkspace, FAMILY};
use layout_kernels::maps::SplitPlan;
use layout_launch::Device;

use crate::attention::parse_scale;
use crate::files::read_ptx;
use crate::npy::{self, Array, Data, Order};
use crate::{text, timing};

/// What `gpu-runner decode --help` prints after the options.
pub const DECODE_HELP: &str = "\
KERNEL: decode_attn (entry decode_attn_d64 or decode_attn_d128, chosen by
d; naming the entry itself is accepted), in layout_kernels.ptx; it runs on
SM80 and later (Hopper included).
Tensors (.npy, C-order):
  Q: (batch, q_len, q_heads, d) float16, q_len 1 to 16, d 64 or 128.
  K_CACHE, V_CACHE: (blocks, block_size, kv_heads, d) float16; kv_heads
  divides q_heads; block_size 16, 32, 64, 128 or 256. Token t of sequence
  b is row TABLE[b, t / block_size] * block_size + t % block_size.
  TABLE: (batch, max_blocks) int32. LENS: (batch,) int32, each at most
  max_blocks * block_size (0 allowed: O = 0, LSE = -inf).
  O: Q's shape, float16. --lse: (batch, q_heads, q_len) float32.
  --causal: query i sees keys 0..=LENS[b] - q_len + i (bottom-right).
  --scale: default 1/sqrt(d). --split-keys N: keys per split (a multiple
  of the tile: 128 at d = 64, 64 at d = 128) instead of the plan's.
  --append K_NEW V_NEW SLOTS: first write the new tokens' K and V
  ((tokens, kv_heads, d) float16) into cache rows SLOTS ((tokens,) int32,
  negative: skipped), as kv_append does (the caches written back are not
  saved).
--time: 5 rounds (each after 100 ms idle: 2 warm-up steps, 10 timed);
prints ms per step (one launch; split, its merge included) and the K
and V bytes read per second.";

/// `gpu-runner decode`'s operands and options.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct Args {
    /// The PTX file (target/gpu/layout_kernels.ptx).
    pub ptx: PathBuf,
    /// The kernel: decode_attn (the entry point is chosen by d), or the
    /// entry point itself (decode_attn_d64, decode_attn_d128).
    pub kernel: String,
    /// Q (.npy).
    pub q: PathBuf,
    /// The K cache (.npy).
    pub k_cache: PathBuf,
    /// The V cache (.npy).
    pub v_cache: PathBuf,
    /// The block table (.npy, int32).
    pub table: PathBuf,
    /// The context lengths (.npy, int32).
    pub lens: PathBuf,
    /// Where to write O (.npy).
    pub o: PathBuf,
    /// The causal mask within the last q_len positions.
    #[arg(long)]
    pub causal: bool,
    /// The softmax scale (default 1/sqrt(d)).
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub scale: Option<String>,
    /// Also write the log-sum-exp: (batch, q_heads, q_len) float32.
    #[arg(long, value_name = "LSE.npy")]
    pub lse: Option<PathBuf>,
    /// Keys per split instead of the plan's.
    #[arg(long, value_name = "N")]
    pub split_keys: Option<usize>,
    /// New tokens' K, V and slots, appended before the attention.
    #[arg(long, num_args = 3, value_names = ["K_NEW", "V_NEW", "SLOTS"])]
    pub append: Option<Vec<PathBuf>>,
    /// Time the step and print ms and GB/s.
    #[arg(long)]
    pub time: bool,
}

/// An array's f16 data if it is a C-order float16 tensor of `rank`, else
/// the refusal naming it.
fn halves(a: Array, what: &str, rank: usize) -> Result<(Vec<usize>, Vec<f16>), String> {
    let (name, order) = (a.dtype_name(), a.order);
    match a.data {
        Data::F16(x) if order == Order::C && a.shape.len() == rank => Ok((a.shape, x)),
        _ => Err(format!(
            "decode: {what} must be a C-order float16 array of rank {rank} (it is {name} {:?}, {order:?})",
            a.shape
        )),
    }
}

/// An int32 array of `rank`.
fn ints(a: Array, what: &str, rank: usize) -> Result<(Vec<usize>, Vec<i32>), String> {
    let (name, order) = (a.dtype_name(), a.order);
    match a.data {
        Data::I32(x) if order == Order::C && a.shape.len() == rank => Ok((a.shape, x)),
        _ => Err(format!(
            "decode: {what} must be a C-order int32 array of rank {rank} (it is {name} {:?})",
            a.shape
        )),
    }
}

/// A checked decode step.
#[derive(Debug)]
pub struct DecodeJob {
    /// The problem.
    pub problem: Decode,
    /// The split plan forced by `--split-keys`.
    pub split_keys: Option<usize>,
    q: Vec<f16>,
    k: Vec<f16>,
    v: Vec<f16>,
    table: Vec<i32>,
    lens: Vec<i32>,
    append: Option<(Vec<f16>, Vec<f16>, Vec<i32>)>,
    ptx: PathBuf,
    o: PathBuf,
    lse: Option<PathBuf>,
    time: bool,
}

/// Everything `gpu-runner decode` checks before the GPU.
pub fn prepare_decode(args: &Args) -> Result<DecodeJob, String> {
    let (qs, q) = halves(npy::read(&args.q)?, "Q", 4)?;
    let (ks, k) = halves(npy::read(&args.k_cache)?, "K_CACHE", 4)?;
    let (vs, v) = halves(npy::read(&args.v_cache)?, "V_CACHE", 4)?;
    let (ts, table) = ints(npy::read(&args.table)?, "TABLE", 2)?;
    let (ls, lens) = ints(npy::read(&args.lens)?, "LENS", 1)?;
    let [batch, q_len, q_heads, d] = qs[..] else {
        unreachable!()
    };
    let [blocks, block_size, kv_heads, dk] = ks[..] else {
        unreachable!()
    };
    if vs != ks || dk != d || ts.first() != Some(&batch) || ls != [batch] {
        return Err(format!(
            "decode: the shapes disagree: Q {qs:?}, K_CACHE {ks:?}, V_CACHE {vs:?}, TABLE {ts:?}, LENS {ls:?} (want K_CACHE = V_CACHE = (blocks, block_size, kv_heads, {d}), TABLE ({batch}, max_blocks), LENS ({batch},))"
        ));
    }
    let max_blocks = ts[1];
    if let Some(&bad) = lens.iter().find(|&&x| x < 0) {
        return Err(format!("decode: a context length is negative ({bad})"));
    }
    let scale = match &args.scale {
        Some(s) => parse_scale(s)?,
        None => 1.0 / (d as f32).sqrt(),
    };
    let problem = Decode {
        batch,
        q_len,
        q_heads,
        kv_heads,
        d,
        blocks,
        block_size,
        max_blocks,
        max_context: lens.iter().map(|&x| x as usize).max().unwrap_or(0),
        causal: args.causal,
        scale,
    };
    let entry = problem.entry();
    if args.kernel != FAMILY && args.kernel != entry {
        return Err(format!(
            "decode: unknown kernel '{}' for d = {d} (known: {FAMILY}, whose entry point is chosen by d, or {entry})",
            args.kernel
        ));
    }
    problem.lens().map_err(text)?;
    if let Some(sk) = args.split_keys {
        problem.plan_every(sk).map_err(text)?;
    }
    let append = match &args.append {
        Some(files) => {
            let (kn_s, kn) = halves(npy::read(&files[0])?, "K_NEW", 3)?;
            let (vn_s, vn) = halves(npy::read(&files[1])?, "V_NEW", 3)?;
            let (ss, slots) = ints(npy::read(&files[2])?, "SLOTS", 1)?;
            if kn_s != vn_s || kn_s[1..] != [kv_heads, d] || ss != [kn_s[0]] {
                return Err(format!(
                    "decode: --append shapes disagree: K_NEW {kn_s:?}, V_NEW {vn_s:?}, SLOTS {ss:?} (want (tokens, {kv_heads}, {d}) and (tokens,))"
                ));
            }
            Some((kn, vn, slots))
        }
        None => None,
    };
    Ok(DecodeJob {
        problem,
        split_keys: args.split_keys,
        q,
        k,
        v,
        table,
        lens,
        append,
        ptx: read_ptx(&args.ptx).map(|_| args.ptx.clone())?,
        o: args.o.clone(),
        lse: args.lse.clone(),
        time: args.time,
    })
}

/// The split plan: every `split_keys` keys where given, else the rule's
/// for `sms` SMs.
fn plan_of(p: &Decode, split_keys: Option<usize>, sms: usize) -> Result<SplitPlan, String> {
    match split_keys {
        Some(sk) => p.plan_every(sk),
        None => p.plan(sms),
    }
    .map_err(text)
}

/// Runs a checked decode step on GPU 0, writes O (and LSE); with `--time`
/// times the step and prints one line.
pub fn run_decode(job: &DecodeJob) -> Result<(), String> {
    let gpu = Device::new(0).map_err(text)?;
    let module = gpu.load_ptx_file(&job.ptx).map_err(text)?;
    let p = job.problem;
    let attn = module.kernel(&p.entry()).map_err(text)?;
    let s = gpu.stream();
    let sms = gpu.sm_count().map_err(text)? as usize;
    let plan = plan_of(&p, job.split_keys, sms)?;
    let (dq, mut dk, mut dv) = (
        s.upload(&job.q).map_err(text)?,
        s.upload(&job.k).map_err(text)?,
        s.upload(&job.v).map_err(text)?,
    );
    if let Some((kn, vn, slots)) = &job.append {
        let f = module.kernel("kv_append").map_err(text)?;
        let (kn, vn, sl) = (
            s.upload(kn).map_err(text)?,
            s.upload(vn).map_err(text)?,
            s.upload(slots).map_err(text)?,
        );
        layout_gpu::launch::kv_append(
            s,
            &f,
            (&kn, &vn, &sl),
            (&mut dk, &mut dv),
            (p.kv_heads, p.d),
        )
        .map_err(text)?;
    }
    let (dt, dl) = (
        s.upload(&job.table).map_err(text)?,
        s.upload(&job.lens).map_err(text)?,
    );
    let lens = p.lens().map_err(text)?;
    let mut o = s.upload(&vec![f16::NAN; lens.q]).map_err(text)?;
    let mut lse = s.upload(&vec![f32::NAN; lens.lse]).map_err(text)?;
    // NaN partials: a split that wrote none would show in O.
    let (wo, wl) = p.workspace_lens(plan).map_err(text)?;
    let mut ws = DecodeWorkspace::from_buffers(
        s.upload(&vec![f32::NAN; wo]).map_err(text)?,
        s.upload(&vec![f32::NAN; wl]).map_err(text)?,
    );
    let mut once = || {
        layout_gpu::launch::decode(
            s,
            &attn,
            &p,
            plan,
            (&dq, &dk, &dv),
            (&dt, &dl),
            &mut o,
            Some(&mut lse),
            &mut ws,
        )
        .map_err(text)
    };
    once()?;
    let ms = if job.time {
        Some(timing::median_round(s, &mut once)?)
    } else {
        None
    };
    let out: Vec<f16> = s.download(&o).map_err(text)?;
    npy::write(&job.o, &[p.batch, p.q_len, p.q_heads, p.d], &out)?;
    if let Some(path) = &job.lse {
        let l = s.download(&lse).map_err(text)?;
        npy::write(path, &[p.batch, p.q_heads, p.q_len], &l)?;
    }
    if let Some(ms) = ms {
        // K and V bytes of every sequence's context, read once.
        let tokens: usize = job.lens.iter().map(|&x| x as usize).sum();
        let bytes = (tokens * p.kv_heads * p.d * 2 * 2) as f64;
        println!(
            "{} batch={} q_len={} q_heads={} kv_heads={} block_size={} tokens={tokens} splits={}: {ms:.4} ms, {:.1} GB/s of K and V",
            p.entry(),
            p.batch,
            p.q_len,
            p.q_heads,
            p.kv_heads,
            p.block_size,
            plan.splits,
            bytes / (f64::from(ms) * 1e-3) / 1e9
        );
    }
    Ok(())
}

/// `gpu-runner decode-time`: a decode step timed on synthetic data made on
/// the GPU (no files: a serving batch's cache does not fit one), next to a
/// device-to-device copy of the same K and V bytes.
#[derive(clap::Args, Debug, PartialEq, Eq)]
pub struct TimeArgs {
    /// The PTX file (target/gpu/layout_kernels.ptx).
    pub ptx: PathBuf,
    /// Sequences.
    #[arg(long)]
    pub batch: usize,
    /// Tokens of context per sequence.
    #[arg(long)]
    pub context: usize,
    /// New queries per sequence.
    #[arg(long, default_value_t = 1)]
    pub q_len: usize,
    /// Query heads.
    #[arg(long, default_value_t = 32)]
    pub q_heads: usize,
    /// K/V heads.
    #[arg(long, default_value_t = 8)]
    pub kv_heads: usize,
    /// Head dimension.
    #[arg(long, default_value_t = 128)]
    pub d: usize,
    /// Tokens per cache block.
    #[arg(long, default_value_t = 64)]
    pub block_size: usize,
    /// The causal mask within the last q_len positions.
    #[arg(long)]
    pub causal: bool,
    /// Keys per split (a positive multiple of the tile: 128 at d = 64, 64
    /// at d = 128) instead of the plan's rule.
    #[arg(long)]
    pub split_keys: Option<usize>,
}

/// A pseudo-random permutation of `0..n` (a fixed seed): the block table
/// of a cache filled in no particular order.
fn shuffled(n: usize, seed: u64) -> Vec<i32> {
    let mut v: Vec<i32> = (0..n as i32).collect();
    let mut x = seed | 1;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

/// Times a decode step on a cache of `batch * ceil(context / block_size)`
/// blocks laid out in a random order (K and V zeros; Q normal values) and
/// a copy of the K and V bytes; prints both.
pub fn time_decode(a: &TimeArgs) -> Result<(), String> {
    let per = a.context.div_ceil(a.block_size).max(1);
    let p = Decode {
        batch: a.batch,
        q_len: a.q_len,
        q_heads: a.q_heads,
        kv_heads: a.kv_heads,
        d: a.d,
        blocks: a.batch * per,
        block_size: a.block_size,
        max_blocks: per,
        max_context: a.context,
        causal: a.causal,
        scale: 1.0 / (a.d as f32).sqrt(),
    };
    let lens = p.lens().map_err(text)?;
    let gpu = Device::new(0).map_err(text)?;
    let module = gpu.load_ptx_file(&a.ptx).map_err(text)?;
    let attn = module.kernel(&p.entry()).map_err(text)?;
    let s = gpu.stream();
    let plan = plan_of(&p, a.split_keys, gpu.sm_count().map_err(text)? as usize)?;
    let q: Vec<f16> = (0..lens.q)
        .map(|i| f16::from_f32(crate::sm90::normal(i, 7)))
        .collect();
    let dq = s.upload(&q).map_err(text)?;
    let (dk, dv) = (
        s.zeros::<f16>(lens.cache).map_err(text)?,
        s.zeros::<f16>(lens.cache).map_err(text)?,
    );
    let dt = s.upload(&shuffled(p.blocks, 11)).map_err(text)?;
    let dl = s.upload(&vec![a.context as i32; a.batch]).map_err(text)?;
    let mut o = s.zeros::<f16>(lens.q).map_err(text)?;
    let mut ws = DecodeWorkspace::new(s, &p, plan).map_err(text)?;
    let mut step = || {
        layout_gpu::launch::decode(
            s,
            &attn,
            &p,
            plan,
            (&dq, &dk, &dv),
            (&dt, &dl),
            &mut o,
            None,
            &mut ws,
        )
        .map_err(text)
    };
    let ms = timing::median_round(s, &mut step)?;
    // The host's side of a step: issuing it (argument checks, the driver
    // call), timed over steps that queue without waiting. When it is
    // close to the GPU's time per step, small steps are bound by the host.
    s.synchronize().map_err(text)?;
    const ISSUED: u32 = 100;
    let t0 = std::time::Instant::now();
    for _ in 0..ISSUED {
        step()?;
    }
    let host_us = t0.elapsed().as_secs_f64() * 1e6 / f64::from(ISSUED);
    s.synchronize().map_err(text)?;
    // K and V bytes read: each sequence's context of each K/V head.
    let bytes = (a.batch * a.context * a.kv_heads * a.d * 2 * 2) as f64;
    let mut dst = s.zeros::<f16>(lens.cache).map_err(text)?;
    let copy_ms = timing::median_round(s, || s.copy(&dk, &mut dst).map_err(text))?;
    // The copy reads and writes K's bytes (the cache: every block).
    let copy_gbs = 2.0 * (lens.cache * 2) as f64 / (f64::from(copy_ms) * 1e-3) / 1e9;
    let gbs = bytes / (f64::from(ms) * 1e-3) / 1e9;
    println!(
        "{} batch={} context={} q_len={} heads={}/{} block_size={} splits={}: {ms:.4} ms, {gbs:.1} GB/s of K and V ({:.1} MB); copy {copy_gbs:.1} GB/s; ratio {:.3}; host {host_us:.1} us to issue a step",
        p.entry(),
        a.batch,
        a.context,
        a.q_len,
        a.q_heads,
        a.kv_heads,
        a.block_size,
        plan.splits,
        bytes / 1e6,
        gbs / copy_gbs
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(shape: &[usize], data: Data) -> Array {
        Array {
            shape: shape.to_vec(),
            order: Order::C,
            descr: "<f2".into(),
            data,
        }
    }

    #[test]
    fn refusals_name_the_tensor() {
        let q = arr(&[1, 1, 4], Data::F16(vec![f16::ZERO; 4]));
        assert_eq!(
            halves(q, "Q", 4).unwrap_err(),
            "decode: Q must be a C-order float16 array of rank 4 (it is float16 [1, 1, 4], C)"
        );
        let t = arr(&[2, 3], Data::F32(vec![0.0; 6]));
        assert_eq!(
            ints(t, "TABLE", 2).unwrap_err(),
            "decode: TABLE must be a C-order int32 array of rank 2 (it is float32 [2, 3])"
        );
    }

    /// A forced split must be a multiple of the tile (64 keys at d = 128)
    /// and make no more splits than a launch merges (1597 at d = 128):
    /// 70000 keys in splits of 64 are ceil(70000 / 64) = 1094 splits,
    /// 128000 keys are 2000.
    #[test]
    fn forced_splits_are_checked() {
        let p = |max_context| Decode {
            batch: 1,
            q_len: 1,
            q_heads: 8,
            kv_heads: 8,
            d: 128,
            blocks: 2000,
            block_size: 64,
            max_blocks: 2000,
            max_context,
            causal: false,
            scale: 1.0,
        };
        assert_eq!(
            plan_of(&p(1000), Some(100), 132).unwrap_err(),
            "decode: 100 keys a split must be a positive multiple of 64"
        );
        assert_eq!(
            plan_of(&p(70000), Some(64), 132),
            Ok(SplitPlan {
                splits: 1094,
                split_keys: 64
            })
        );
        assert_eq!(
            plan_of(&p(128000), Some(64), 132).unwrap_err(),
            "decode: 2000 splits: 1 to 1597 merge at d = 128"
        );
    }
}
