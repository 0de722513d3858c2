//! `gpu-runner PTX`: loads the PTX that `kernels/scripts/build-ptx.sh` writes, runs
//! each kernel of `layout-kernels` on GPU 0, checks its result against the
//! CPU and times it with CUDA events next to a device-to-device copy (the
//! bandwidth anchor), then prints one table.
//!
//! ```text
//! kernels/scripts/build-ptx.sh target/ptx && cargo build --release -p layout-gpu-runner
//! target/release/gpu-runner target/ptx/layout_kernels.ptx
//! ```
//!
//! `gpu-runner gemm PTX KERNEL A.npy B.npy C.npy` and `gpu-runner transpose
//! PTX KERNEL X.npy Y.npy` run one kernel on `.npy` files instead
//! (`files.rs`; `--help` states each kernel's storage order and shapes);
//! `gpu-runner attention PTX flash_attn_fwd Q.npy K.npy V.npy O.npy
//! [--causal] [--scale S] [--lse LSE.npy] [--time]` a FlashAttention
//! forward kernel (`attention.rs`); `gpu-runner decode PTX decode_attn Q.npy K_CACHE.npy
//! V_CACHE.npy TABLE.npy LENS.npy O.npy` a decode step over a paged KV
//! cache (`decode.rs`); `gpu-runner attention-bwd PTX flash_attn_bwd Q K V O
//! dO LSE dQ dK dV` the backward (`attention_bwd.rs`).

mod attention;
mod attention_bwd;
mod bench;
mod decode;
mod files;
mod launch;
mod npy;
mod sm90;
mod timing;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Run, check and time the kernels of layout-kernels on GPU 0 (`gpu-runner
/// PTX`), or run one kernel on .npy files (`gpu-runner gemm`, `gpu-runner
/// transpose`, `gpu-runner attention`).
#[derive(Parser, Debug)]
#[command(
    name = "gpu-runner",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    bench: bench::Args,
}

/// Running one kernel on .npy files.
#[derive(Subcommand, Debug, PartialEq)]
enum Command {
    /// Run one GEMM kernel on A.npy and B.npy on GPU 0 and write its C to
    /// C.npy.
    #[command(after_help = files::gemm_help())]
    Gemm {
        /// The PTX file (target/ptx/layout_kernels.ptx).
        ptx: PathBuf,
        /// sgemm_f32, sgemm_nt_f32, hgemm_f32, hgemm_f16, hgemm_sm90,
        /// gemm_bf16_sm90, gemm_bias_gelu_bf16_sm90 or gemm_e4m3_sm90.
        kernel: String,
        /// A (.npy), in the kernel's storage order.
        a: PathBuf,
        /// B (.npy), in the kernel's storage order.
        b: PathBuf,
        /// Where to write C (.npy, C-order).
        c: PathBuf,
        #[command(flatten)]
        opts: files::GemmOpts,
    },
    /// Run the transpose kernel on X.npy on GPU 0 and write Y = Xᵀ to
    /// Y.npy.
    #[command(after_help = files::transpose_help())]
    Transpose {
        /// The PTX file (target/ptx/layout_kernels.ptx).
        ptx: PathBuf,
        /// transpose_f32.
        kernel: String,
        /// X (.npy).
        x: PathBuf,
        /// Where to write Y (.npy, C-order).
        y: PathBuf,
    },
    /// Run a FlashAttention forward kernel on Q.npy, K.npy and V.npy on GPU
    /// 0 and write O to O.npy (and the log-sum-exp to LSE.npy).
    #[command(after_help = attention::ATTENTION_HELP)]
    Attention(attention::Args),
    /// Run the FlashAttention backward (dQ, dK, dV from Q, K, V, O, dO and
    /// the forward's LSE) on GPU 0 and write dQ.npy, dK.npy, dV.npy.
    #[command(name = "attention-bwd", after_help = attention_bwd::ATTENTION_BWD_HELP)]
    AttentionBwd(attention_bwd::Args),
    /// Run one decode step (attention of a few new queries over a paged
    /// KV cache) on GPU 0 and write O to O.npy.
    #[command(after_help = decode::DECODE_HELP)]
    Decode(decode::Args),
    /// Time a decode step on synthetic data made on GPU 0 (a random block
    /// table), next to a device copy of the same bytes, and the host's
    /// time to issue one.
    DecodeTime(decode::TimeArgs),
    /// Time the Hopper dense GEMM the host's plan picks (split-K, or
    /// clusters with C stored by TMA) at each --shape, on normal operands.
    #[command(name = "gemm-time")]
    GemmTime(sm90::sweep::TimeArgs),
    /// Run every warpgroup MMA atom of the GMMA table once (the entries
    /// of layout-kernels-sm90-gmma: `layout-ptx kernels/sm90-gmma OUT
    /// --arch sm_90a --ptx 8.3`) and check C exactly.
    #[command(name = "gmma-atoms")]
    GmmaAtoms {
        /// The PTX file (OUT/layout_kernels_sm90_gmma.ptx).
        ptx: PathBuf,
    },
    /// Run and check the Hopper kernels of layout-kernels-sm90 (PTX for
    /// sm_90a: `layout-ptx kernels/sm90 OUT --arch sm_90a`).
    Sm90 {
        /// The PTX file (OUT/layout_kernels_sm90.ptx).
        ptx: PathBuf,
        /// Only the checks, not the timing tables.
        #[arg(long)]
        no_timing: bool,
        /// Only the GEMMs built from the plan's parts (bf16, TMA store,
        /// bias + GELU, e4m3, split-K, grouped), not the atoms, TMA
        /// checks and `hgemm_sm90`'s forms.
        #[arg(long)]
        gemms_only: bool,
    },
}

/// An error as the text the CLI prints (one line, after `gpu-runner: `).
pub(crate) fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Gemm {
            ptx,
            kernel,
            a,
            b,
            c,
            opts,
        }) => files::prepare_gemm_with(ptx, kernel, (a, b, c), opts)
            .and_then(|job| files::run_gemm(&job)),
        Some(Command::Transpose { ptx, kernel, x, y }) => {
            files::prepare_transpose(ptx, kernel, x, y).and_then(|job| files::run_transpose(&job))
        }
        Some(Command::Attention(args)) => {
            attention::prepare_attention(args).and_then(|job| attention::run_attention(&job))
        }
        Some(Command::AttentionBwd(args)) => attention_bwd::prepare_attention_bwd(args)
            .and_then(|job| attention_bwd::run_attention_bwd(&job)),
        Some(Command::Decode(args)) => {
            decode::prepare_decode(args).and_then(|job| decode::run_decode(&job))
        }
        Some(Command::DecodeTime(args)) => decode::time_decode(args),
        Some(Command::GemmTime(args)) => sm90::sweep::time_gemm(args),
        Some(Command::GmmaAtoms { ptx }) => match sm90::gmma_atoms::run(ptx) {
            Ok(true) => Ok(()),
            Ok(false) => {
                eprintln!("gpu-runner: a check failed");
                return ExitCode::FAILURE;
            }
            Err(e) => Err(e),
        },
        Some(Command::Sm90 {
            ptx,
            no_timing,
            gemms_only,
        }) => match sm90::run(ptx, !no_timing, !gemms_only) {
            Ok(true) => Ok(()),
            Ok(false) => {
                eprintln!("gpu-runner: a check failed");
                return ExitCode::FAILURE;
            }
            Err(e) => Err(e),
        },
        None => {
            return match bench::run(&cli.bench) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => {
                    eprintln!("gpu-runner: a check failed");
                    ExitCode::FAILURE
                }
                Err(e) => {
                    eprintln!("gpu-runner: {e}");
                    ExitCode::from(2)
                }
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gpu-runner: {}", e.replace('\n', " "));
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("gpu-runner").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// The default mode as docs/gpu.md, README.md and kernels/scripts/gpu-bench.sh
    /// invoke it, with and without flags.
    #[test]
    fn default_mode() {
        let cli = parse(&["target/ptx/layout_kernels.ptx"]).unwrap();
        assert_eq!(cli.command, None);
        let a = &cli.bench;
        assert_eq!(
            a.ptx.as_deref(),
            Some("target/ptx/layout_kernels.ptx".as_ref())
        );
        assert_eq!((a.n, a.reps), (4096, 20));
        assert!(a.sgemm_forms.is_empty() && a.sgemm_nt_forms.is_empty());

        let cli = parse(&[
            "--n",
            "256",
            "k.ptx",
            "--reps",
            "3",
            "--sgemm-nt-forms",
            "f1,f2",
            "--sgemm-forms",
            "g",
        ])
        .unwrap();
        let a = &cli.bench;
        assert_eq!((a.n, a.reps), (256, 3));
        assert_eq!(a.sgemm_nt_forms, ["f1", "f2"]);
        assert_eq!(a.sgemm_forms, ["g"]);
        assert_eq!(a.ptx.as_deref(), Some("k.ptx".as_ref()));

        // No PTX: a usage error (clap's exit code 2).
        let e = parse(&[]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert_eq!(e.exit_code(), 2);
        let e = parse(&["k.ptx", "extra"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn gemm_and_transpose_subcommands() {
        let cli = parse(&["gemm", "k.ptx", "hgemm_f16", "a.npy", "b.npy", "c.npy"]).unwrap();
        assert_eq!(
            cli.command,
            Some(Command::Gemm {
                ptx: "k.ptx".into(),
                kernel: "hgemm_f16".into(),
                a: "a.npy".into(),
                b: "b.npy".into(),
                c: "c.npy".into(),
                opts: Default::default(),
            })
        );
        assert_eq!(cli.bench.ptx, None);
        let cli = parse(&["transpose", "k.ptx", "transpose_f32", "x.npy", "y.npy"]).unwrap();
        assert_eq!(
            cli.command,
            Some(Command::Transpose {
                ptx: "k.ptx".into(),
                kernel: "transpose_f32".into(),
                x: "x.npy".into(),
                y: "y.npy".into(),
            })
        );
        // Missing or extra operands, the default mode's flags on a
        // subcommand: usage errors, exit code 2.
        for args in [
            &["gemm", "k.ptx", "sgemm_f32", "a.npy", "b.npy"][..],
            &[
                "gemm",
                "k.ptx",
                "sgemm_f32",
                "a.npy",
                "b.npy",
                "c.npy",
                "d.npy",
            ],
            &["transpose", "k.ptx", "transpose_f32", "x.npy"],
            &[
                "--n",
                "256",
                "gemm",
                "k.ptx",
                "sgemm_f32",
                "a.npy",
                "b.npy",
                "c.npy",
            ],
            &[
                "gemm",
                "--reps",
                "3",
                "k.ptx",
                "sgemm_f32",
                "a.npy",
                "b.npy",
                "c.npy",
            ],
        ] {
            let e = parse(args).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn attention_subcommand() {
        let args = |o: &str| attention::Args {
            ptx: "k.ptx".into(),
            kernel: "flash_attn_fwd".into(),
            q: "q.npy".into(),
            k: "k.npy".into(),
            v: "v.npy".into(),
            o: o.into(),
            masking: attention::Masking::default(),
            lse: None,
            time: false,
        };
        let ops = [
            "k.ptx",
            "flash_attn_fwd",
            "q.npy",
            "k.npy",
            "v.npy",
            "o.npy",
        ];
        let with = |flags: &[&str]| {
            let mut v = vec!["attention"];
            v.extend(ops);
            v.extend(flags);
            parse(&v)
        };
        assert_eq!(
            with(&[]).unwrap().command,
            Some(Command::Attention(args("o.npy")))
        );
        assert_eq!(
            with(&["--causal", "--scale", "0.3", "--lse", "lse.npy", "--time"])
                .unwrap()
                .command,
            Some(Command::Attention(attention::Args {
                masking: attention::Masking {
                    causal: Some(attention::Causal::TopLeft),
                    scale: Some("0.3".into()),
                    ..Default::default()
                },
                lse: Some("lse.npy".into()),
                time: true,
                ..args("o.npy")
            }))
        );
        // A negative scale is a value, not a flag; flags before operands
        // (`--causal` then with its value).
        let cli = parse(&[
            "attention",
            "--scale",
            "-0.5",
            "--causal",
            "bottom-right",
            "k.ptx",
            "flash_attn_fwd",
            "q.npy",
            "k.npy",
            "v.npy",
            "o.npy",
        ])
        .unwrap();
        assert_eq!(
            cli.command,
            Some(Command::Attention(attention::Args {
                masking: attention::Masking {
                    causal: Some(attention::Causal::BottomRight),
                    scale: Some("-0.5".into()),
                    ..Default::default()
                },
                ..args("o.npy")
            }))
        );
        // Missing or extra operands, a flag without its value, unknown
        // flags: usage errors, exit code 2.
        for flags in [
            &["--scale"][..],
            &["--lse"],
            &["extra.npy"],
            &["--mask", "causal"],
            &["--n", "256"],
        ] {
            let e = with(flags).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{flags:?}");
        }
        let e = parse(&[
            "attention",
            "k.ptx",
            "flash_attn_fwd",
            "q.npy",
            "k.npy",
            "v.npy",
        ])
        .unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert_eq!(e.exit_code(), 2);
    }

    /// `decode PTX KERNEL Q K_CACHE V_CACHE TABLE LENS O`, as the decode
    /// contract names its operands; the append takes three files.
    #[test]
    fn decode_subcommand() {
        let ops = [
            "decode",
            "k.ptx",
            "decode_attn",
            "q.npy",
            "kc.npy",
            "vc.npy",
            "t.npy",
            "l.npy",
            "o.npy",
        ];
        let with = |flags: &[&str]| {
            let mut v = ops.to_vec();
            v.extend(flags);
            parse(&v)
        };
        let plain = decode::Args {
            ptx: "k.ptx".into(),
            kernel: "decode_attn".into(),
            q: "q.npy".into(),
            k_cache: "kc.npy".into(),
            v_cache: "vc.npy".into(),
            table: "t.npy".into(),
            lens: "l.npy".into(),
            o: "o.npy".into(),
            causal: false,
            scale: None,
            lse: None,
            split_keys: None,
            append: None,
            time: false,
        };
        assert_eq!(
            with(&[]).unwrap().command,
            Some(Command::Decode(plain.clone()))
        );
        assert_eq!(
            with(&["--causal", "--lse", "lse.npy", "--append", "kn", "vn", "s", "--time"])
                .unwrap()
                .command,
            Some(Command::Decode(decode::Args {
                causal: true,
                lse: Some("lse.npy".into()),
                append: Some(vec!["kn".into(), "vn".into(), "s".into()]),
                time: true,
                ..plain
            }))
        );
        // Without KERNEL the operands are one short; two append files are
        // too few.
        let mut short = ops.to_vec();
        short.remove(2);
        assert_eq!(parse(&short).unwrap_err().exit_code(), 2);
        assert_eq!(with(&["--append", "kn", "vn"]).unwrap_err().exit_code(), 2);
    }

    /// Each subcommand's help states every kernel's storage order.
    #[test]
    fn help_names_each_kernels_storage_order() {
        let mut cmd = Cli::command();
        let gemm = cmd
            .find_subcommand_mut("gemm")
            .unwrap()
            .render_help()
            .to_string();
        for line in [
            "sgemm_f32     C = A B. A: M x K float32, C-order (row-major).",
            "sgemm_nt_f32  C = A B. A: M x K float32, Fortran-order (M-major, i.e.",
            "A: M x K float16, C-order. B: N x K float16, C-order",
            "hgemm_f16     as hgemm_f32 with f16 accumulators; C: M x N float16.",
        ] {
            assert!(gemm.contains(line), "{line} not in\n{gemm}");
        }
        let transpose = cmd
            .find_subcommand_mut("transpose")
            .unwrap()
            .render_help()
            .to_string();
        assert!(transpose
            .contains("transpose_f32  Y = X^T. X: N x N float32, C-order, N a multiple of 64."));
        let attention = cmd
            .find_subcommand_mut("attention")
            .unwrap()
            .render_help()
            .to_string();
        for line in [
            "Q: (batch, seq_q, heads, d) float16, C-order (BSHD).",
            "K, V: (batch, seq_k, kv_heads, d) float16, C-order;",
            "O: (batch, seq_q, heads, d) float16, C-order.",
            "LSE (--lse): (batch, heads, seq_q) float32, C-order",
            "--causal [top-left|bottom-right]: query i sees keys",
            "--window LEFT RIGHT: query i sees keys i - LEFT ..=",
            "--seqlens-q FILE --seqlens-k FILE: packed sequences of",
            "Usage: attention [OPTIONS] <PTX> <KERNEL> <Q> <K> <V> <O>",
        ] {
            assert!(attention.contains(line), "{line} not in\n{attention}");
        }
        let bwd = cmd
            .find_subcommand_mut("attention-bwd")
            .unwrap()
            .render_help()
            .to_string();
        for line in [
            "Usage: attention-bwd [OPTIONS] <PTX> <KERNEL> <Q> <K> <V> <O> <D_O> <LSE> <DQ> <DK> <DV>",
            "Q, O, dO: (batch, seq_q, heads, d) float16, C-order (BSHD).",
            "--causal [<CAUSAL>]",
            "--seqlens-q <FILE>",
        ] {
            assert!(bwd.contains(line), "{line} not in\n{bwd}");
        }
        let decode = cmd
            .find_subcommand_mut("decode")
            .unwrap()
            .render_help()
            .to_string();
        for line in [
            "Usage: decode [OPTIONS] <PTX> <KERNEL> <Q> <K_CACHE> <V_CACHE> <TABLE> <LENS> <O>",
            "Q: (batch, q_len, q_heads, d) float16, q_len 1 to 16, d 64 or 128.",
            "K_CACHE, V_CACHE: (blocks, block_size, kv_heads, d) float16; kv_heads",
        ] {
            assert!(decode.contains(line), "{line} not in\n{decode}");
        }
    }
}
