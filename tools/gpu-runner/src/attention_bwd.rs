//! `gpu-runner attention-bwd`: the FlashAttention backward on `.npy` files
//! (Q, K, V, O, dO and the forward's LSE in; dQ, dK, dV out), with the
//! launch contract of `layout_kernels::attention_bwd` and the forward's
//! tensors, mask and packing (`attention.rs`). Everything but the run is
//! checked here without a GPU ([`prepare_attention_bwd`]).

use std::path::PathBuf;

use half::f16;
use layout_gpu::attention::{bwd_dq_acc_len, bwd_entries, BwdMode, Problem, BWD};
use layout_launch::Device;

use crate::attention::{check_tensor, Masking};
use crate::files::read_ptx;
use crate::npy::{self, Array, Data, Order};
use crate::{text, timing};

/// What `attention-bwd --help` prints after the options.
pub const ATTENTION_BWD_HELP: &str = "\
Kernel: flash_attn_bwd (entry points flash_attn_bwd_dot, then
flash_attn_bwd_dkdvq_d64 / _d128 and flash_attn_bwd_dq_convert, or with
--deterministic flash_attn_bwd_dkdv_d64 / _d128 and flash_attn_bwd_dq_d64 /
_d128; the _causal forms for --causal or --window; in layout_kernels.ptx,
SM80 and later, and in layout_kernels_sm90.ptx, built for sm_90a). The gradients of O = softmax(scale * Q K^T) V for the output
gradient dO, from the forward's O and LSE:
  Q, O, dO: (batch, seq_q, heads, d) float16, C-order (BSHD).
  K, V: (batch, seq_k, kv_heads, d) float16, C-order; kv_heads divides
  heads (dK, dV summed over each K/V head's query heads).
  LSE: (batch, heads, seq_q) float32 (the forward's --lse).
  dQ: Q's shape; dK, dV: K's shape; float16, C-order.
  d = 64 or 128. --causal, --window, --scale, --seqlens-q/-k as for
  `attention` (packed: Q, O, dO, dQ (total_q, heads, d), K, V, dK, dV
  (total_k, kv_heads, d), LSE (heads, total_q)).
dQ is summed across key tiles by f32 atomics (five matrix products; its
last bits may differ from run to run; dK and dV do not). --deterministic:
dQ by its own launch (seven products, the same bits every run).
--time: 5 rounds (each after 100 ms idle: 2 warm-up steps, 10 timed) of
the three launches; prints ms per step and TFLOP/s of 2.5 times the
forward's FLOPs (FlashAttention's count: five products).";

/// `gpu-runner attention-bwd`'s operands and options.
#[derive(clap::Args, Debug, PartialEq, Eq)]
pub struct Args {
    /// The PTX file (target/gpu/layout_kernels.ptx).
    pub ptx: PathBuf,
    /// flash_attn_bwd (the entry points are chosen by d and the mask).
    pub kernel: String,
    /// Q (.npy).
    pub q: PathBuf,
    /// K (.npy).
    pub k: PathBuf,
    /// V (.npy).
    pub v: PathBuf,
    /// The forward's O (.npy).
    pub o: PathBuf,
    /// The output gradient dO (.npy).
    pub d_o: PathBuf,
    /// The forward's LSE (.npy, float32).
    pub lse: PathBuf,
    /// Where to write dQ (.npy).
    pub dq: PathBuf,
    /// Where to write dK (.npy).
    pub dk: PathBuf,
    /// Where to write dV (.npy).
    pub dv: PathBuf,
    /// The mask, packed sequences and the scale, as for `attention`.
    #[command(flatten)]
    pub masking: Masking,
    /// After the run, time the step and print ms and TFLOP/s.
    #[arg(long)]
    pub time: bool,
    /// dQ by its own launch, without atomics: the same bits every run.
    #[arg(long)]
    pub deterministic: bool,
}

/// A checked backward run.
#[derive(Debug)]
pub struct BwdJob {
    /// The sizes, mask and scale.
    pub problem: Problem,
    /// Packed sequences' cumulative offsets (Q's, K's).
    pub seqlens: Option<(Vec<i32>, Vec<i32>)>,
    inputs: [Vec<f16>; 5],
    lse: Vec<f32>,
    ptx: PathBuf,
    outs: [PathBuf; 3],
    time: bool,
    mode: BwdMode,
}

/// Everything `gpu-runner attention-bwd` checks before the GPU.
pub fn prepare_attention_bwd(args: &Args) -> Result<BwdJob, String> {
    let name = BWD.name;
    if args.kernel != name {
        return Err(format!(
            "attention-bwd: unknown kernel '{}' (known: {name}; the entry points are chosen by d and the mask)",
            args.kernel
        ));
    }
    let read = |p: &PathBuf| npy::read(p);
    let (q, k, v, o, d_o, lse) = (
        read(&args.q)?,
        read(&args.k)?,
        read(&args.v)?,
        read(&args.o)?,
        read(&args.d_o)?,
        read(&args.lse)?,
    );
    let (p, seqlens) = args.masking.problem(&BWD, (&q, &k, &v))?;
    let packed = p.packed.is_some();
    let axes = if packed {
        "(total_q, heads, d)"
    } else {
        "(batch, seq_q, heads, d)"
    };
    for (what, a) in [("O", &o), ("dO", &d_o)] {
        check_tensor(name, what, a, axes, packed)?;
        if a.shape != q.shape {
            return Err(format!(
                "{name}: {what} is {:?} and Q {:?}: {what} must have Q's shape",
                a.shape, q.shape
            ));
        }
    }
    let want_lse = match p.packed {
        Some(t) => vec![p.heads, t.total_q],
        None => vec![p.batch, p.heads, p.seq_q],
    };
    let lse_data = match (&lse.data, lse.order) {
        (Data::F32(x), Order::C) if lse.shape == want_lse => x.clone(),
        _ => {
            return Err(format!(
                "{name}: LSE must be a C-order float32 array of shape {want_lse:?} (the forward's); it is {} {:?}",
                lse.dtype_name(),
                lse.shape
            ))
        }
    };
    let half = |a: Array| match a.data {
        Data::F16(x) => Ok(x),
        _ => Err("an input passed the checks without f16 data".to_string()),
    };
    Ok(BwdJob {
        problem: p,
        seqlens,
        inputs: [half(q)?, half(k)?, half(v)?, half(o)?, half(d_o)?],
        lse: lse_data,
        ptx: read_ptx(&args.ptx).map(|_| args.ptx.clone())?,
        outs: [args.dq.clone(), args.dk.clone(), args.dv.clone()],
        time: args.time,
        mode: if args.deterministic {
            BwdMode::Deterministic
        } else {
            BwdMode::Atomic
        },
    })
}

/// Runs a checked backward on GPU 0 and writes dQ, dK, dV; with `--time`
/// times the step and prints one line.
pub fn run_attention_bwd(job: &BwdJob) -> Result<(), String> {
    let gpu = Device::new(0).map_err(text)?;
    let module = gpu.load_ptx_file(&job.ptx).map_err(text)?;
    let p = job.problem;
    let names = bwd_entries(&p, job.mode);
    let kernel = |n: &str| module.kernel(n).map_err(text);
    let kernels = (kernel(&names[0])?, kernel(&names[1])?, kernel(&names[2])?);
    let s = gpu.stream();
    let lens = p.lens().map_err(text)?;
    let up = |x: &Vec<f16>| s.upload(x).map_err(text);
    let [q, k, v, o, d_o] = &job.inputs;
    let (q, k, v, o, d_o) = (up(q)?, up(k)?, up(v)?, up(o)?, up(d_o)?);
    let lse = s.upload(&job.lse).map_err(text)?;
    let cu = match &job.seqlens {
        Some((a, b)) => Some((s.upload(a).map_err(text)?, s.upload(b).map_err(text)?)),
        None => None,
    };
    // NaN wherever a kernel writes nothing.
    let mut dot = s.upload(&vec![f32::NAN; lens.lse]).map_err(text)?;
    let acc_len = bwd_dq_acc_len(&p, job.mode).map_err(text)?;
    let mut dq_acc = s.upload(&vec![f32::NAN; acc_len]).map_err(text)?;
    let mut dq = s.upload(&vec![f16::NAN; lens.q]).map_err(text)?;
    let mut dk = s.upload(&vec![f16::NAN; lens.kv]).map_err(text)?;
    let mut dv = s.upload(&vec![f16::NAN; lens.kv]).map_err(text)?;
    let mut once = || {
        layout_gpu::launch::attention_bwd(
            s,
            (&kernels.0, &kernels.1, &kernels.2),
            &p,
            job.mode,
            (&q, &k, &v, &o, &d_o),
            &lse,
            cu.as_ref().map(|(a, b)| (a, b)),
            (&mut dot, &mut dq_acc),
            (&mut dq, &mut dk, &mut dv),
        )
        .map_err(text)
    };
    once()?;
    let ms = if job.time {
        Some(timing::median_round(s, &mut once)?)
    } else {
        None
    };
    let (gq, gk, gv): (Vec<f16>, Vec<f16>, Vec<f16>) = (
        s.download(&dq).map_err(text)?,
        s.download(&dk).map_err(text)?,
        s.download(&dv).map_err(text)?,
    );
    let (q_shape, k_shape) = match p.packed {
        Some(t) => (
            vec![t.total_q, p.heads, p.d],
            vec![t.total_k, p.kv_heads, p.d],
        ),
        None => (
            vec![p.batch, p.seq_q, p.heads, p.d],
            vec![p.batch, p.seq_k, p.kv_heads, p.d],
        ),
    };
    npy::write(&job.outs[0], &q_shape, &gq)?;
    npy::write(&job.outs[1], &k_shape, &gk)?;
    npy::write(&job.outs[2], &k_shape, &gv)?;
    if let Some(ms) = ms {
        let flops = 2.5
            * match &job.seqlens {
                Some((a, b)) => p.packed_flops(a, b),
                None => p.flops(),
            };
        println!(
            "{} + {} b={} h={}/{} sq={} sk={}: {ms:.3} ms, {:.1} TFLOP/s",
            names[1],
            names[2],
            p.batch,
            p.heads,
            p.kv_heads,
            p.seq_q,
            p.seq_k,
            flops / (f64::from(ms) * 1e-3) / 1e12
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::Causal;

    /// What `attention-bwd` checks before the GPU: the problem from Q, K
    /// and V, O's and dO's shapes, LSE's; one-line refusals.
    #[test]
    fn prepare_checks_every_input() {
        let dir = std::env::temp_dir().join(format!("gpu-runner-bwd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = |n: &str| dir.join(n);
        std::fs::write(p("k.ptx"), ".version 8.0\n").unwrap();
        let q = vec![f16::ONE; 2 * 5 * 4 * 64];
        npy::write(&p("q.npy"), &[2, 5, 4, 64], &q).unwrap();
        npy::write(&p("k.npy"), &[2, 7, 2, 64], &vec![f16::ONE; 2 * 7 * 2 * 64]).unwrap();
        npy::write(
            &p("o6.npy"),
            &[2, 6, 4, 64],
            &vec![f16::ONE; 2 * 6 * 4 * 64],
        )
        .unwrap();
        npy::write(&p("lse.npy"), &[2, 4, 5], &[0.5f32; 40]).unwrap();
        npy::write(&p("lse_t.npy"), &[2, 5, 4], &[0.5f32; 40]).unwrap();
        npy::write(
            &p("q96.npy"),
            &[2, 5, 4, 96],
            &vec![f16::ONE; 2 * 5 * 4 * 96],
        )
        .unwrap();
        let args = |o: &str, lse: &str| Args {
            ptx: p("k.ptx"),
            kernel: "flash_attn_bwd".into(),
            q: p("q.npy"),
            k: p("k.npy"),
            v: p("k.npy"),
            o: p(o),
            d_o: p("q.npy"),
            lse: p(lse),
            dq: p("dq.npy"),
            dk: p("dk.npy"),
            dv: p("dv.npy"),
            masking: Masking {
                causal: Some(Causal::BottomRight),
                ..Masking::default()
            },
            time: false,
            deterministic: false,
        };
        let job = prepare_attention_bwd(&args("q.npy", "lse.npy")).unwrap();
        assert_eq!(job.mode, BwdMode::Atomic);
        let det = Args {
            deterministic: true,
            ..args("q.npy", "lse.npy")
        };
        assert_eq!(
            prepare_attention_bwd(&det).unwrap().mode,
            BwdMode::Deterministic
        );
        let pr = job.problem;
        assert_eq!(
            (pr.batch, pr.seq_q, pr.seq_k, pr.heads, pr.kv_heads, pr.d),
            (2, 5, 7, 4, 2, 64)
        );
        assert!(pr.causal && pr.bottom_right);
        assert_eq!(pr.scale, 0.125);
        for (a, want) in [
            (
                Args {
                    kernel: "flash_attn_fwd".into(),
                    ..args("q.npy", "lse.npy")
                },
                "attention-bwd: unknown kernel 'flash_attn_fwd' (known: flash_attn_bwd; the entry points are chosen by d and the mask)",
            ),
            (
                args("o6.npy", "lse.npy"),
                "flash_attn_bwd: O is [2, 6, 4, 64] and Q [2, 5, 4, 64]: O must have Q's shape",
            ),
            (
                args("q.npy", "lse_t.npy"),
                "flash_attn_bwd: LSE must be a C-order float32 array of shape [2, 4, 5] (the forward's); it is float32 [2, 5, 4]",
            ),
            (
                Args {
                    q: p("q96.npy"),
                    ..args("q.npy", "lse.npy")
                },
                "flash_attn_bwd: head dimension d = 96 (Q's last axis) is not built (built: 64, 128)",
            ),
        ] {
            assert_eq!(prepare_attention_bwd(&a).unwrap_err(), want);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
