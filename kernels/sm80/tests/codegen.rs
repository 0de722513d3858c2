//! Codegen of the CPU kernels: what the tensor API's inner loops compile
//! to, next to the hand-written kernels of the same blocking (x86-64).
//!
//! - The assembly of `layout-kernels` (release, one codegen unit): the
//!   SGEMM micro-kernel's k-loop keeps its accumulators in vector registers
//!   (no store, no stack access, no call) and does its MR x NR multiplies
//!   and adds, with no more checks than the hand-written loop; the
//!   transpose's per-thread copy has no call and fewer checks than the
//!   hand-written copy, which checks each element.
//! - The example's binary (objdump): `sgemm_tiled::<64, 64, 8>`'s k-tile
//!   interleaves its accumulators' chains of adds, as the hand-written
//!   kernel's does.
//! - Instruction counts under callgrind (deterministic, whatever the
//!   machine's load): each kernel through the tensor API against the
//!   hand-written one, `cpu_kernels --once KERNEL`.
//!
//! Both build the crate in release into the test's own target directory.
//! The callgrind half needs valgrind: without it the half is skipped with a
//! note, unless `LAYOUT_REQUIRE_VALGRIND` is set (CI sets it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A cargo command on this workspace, into the test's target directory,
/// with the default target CPU (RUSTFLAGS from the environment would
/// change the instructions counted here).
fn cargo(args: &[&str], rustc_args: &[&str]) -> Command {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(&root)
        .args(args)
        .arg("--target-dir")
        .arg(target())
        .args(rustc_args)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS");
    c
}

fn target() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("codegen-release")
}

fn run(mut c: Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The release assembly of the crate's library, built once.
fn asm() -> &'static str {
    static ASM: OnceLock<String> = OnceLock::new();
    ASM.get_or_init(|| {
        run(
            cargo(
                &[
                    "rustc",
                    "--release",
                    "--quiet",
                    "-p",
                    "layout-kernels",
                    "--lib",
                ],
                &["--", "--emit=asm", "-C", "codegen-units=1"],
            ),
            "the release build of layout-kernels",
        );
        let deps = target().join("release/deps");
        let file = std::fs::read_dir(&deps)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|e| e == "s")
                    && p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with("layout_kernels")
            })
            .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
            .expect("the assembly file");
        std::fs::read_to_string(file).unwrap()
    })
}

/// The instructions and local labels of the function whose symbol is
/// `layout_kernels::cpu::<name>` (a Rust symbol: `..3cpu<len><name>17h<hash>`).
fn function(name: &str) -> Vec<&'static str> {
    let sym = format!("_ZN14layout_kernels3cpu{}{name}17h", name.len());
    let asm = asm();
    let start = asm
        .lines()
        .position(|l| l.starts_with(&sym) && l.ends_with(':'))
        .unwrap_or_else(|| panic!("no function {name} in the assembly"));
    asm.lines()
        .skip(start + 1)
        .take_while(|l| !l.starts_with(".Lfunc_end"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| !l.starts_with('.') || (l.starts_with(".LBB") && l.ends_with(':')))
        .collect()
}

fn op(l: &str) -> &str {
    l.split_whitespace().next().unwrap_or("")
}

/// The last operand (AT&T order: the destination), commas inside a memory
/// operand's parentheses kept.
fn last_operand(l: &str) -> &str {
    let ops = l[op(l).len()..].trim();
    let mut depth = 0;
    let mut start = 0;
    for (i, ch) in ops.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    ops[start..].trim()
}

/// The loops of a function: from a label to the last jump back to it.
fn loops<'a>(body: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    for (i, l) in body.iter().enumerate() {
        let Some(label) = l.strip_suffix(':') else {
            continue;
        };
        let back = body
            .iter()
            .enumerate()
            .skip(i)
            .rev()
            .find(|(_, j)| op(j).starts_with('j') && j.split_whitespace().nth(1) == Some(label))
            .map(|(k, _)| k);
        if let Some(end) = back {
            out.push(body[i..=end].to_vec());
        }
    }
    out
}

/// The smallest loop of a function that contains an instruction `has`
/// matches: the innermost loop doing that work.
fn inner_loop(name: &str, has: impl Fn(&str) -> bool) -> Vec<&'static str> {
    loops(&function(name))
        .into_iter()
        .filter(|lp| lp.iter().any(|l| has(l)))
        .min_by_key(Vec::len)
        .unwrap_or_else(|| panic!("no loop in {name} with the instruction sought"))
}

fn is_mul(l: &str) -> bool {
    matches!(op(l), "mulps" | "vmulps") || op(l).starts_with("vfmadd")
}

fn calls(lp: &[&str]) -> usize {
    lp.iter().filter(|l| op(l).starts_with("call")).count()
}

/// Conditional jumps (checks that exit to a panic, and the back edge).
fn branches(lp: &[&str]) -> usize {
    lp.iter()
        .filter(|l| op(l).starts_with('j') && op(l) != "jmp")
        .count()
}

/// Instructions that write memory: a memory operand last (AT&T order), not
/// a compare.
fn stores<'a>(lp: &[&'a str]) -> Vec<&'a str> {
    lp.iter()
        .filter(|l| {
            let o = op(l);
            !o.starts_with("cmp")
                && !o.starts_with("test")
                && !o.starts_with('j')
                && last_operand(l).contains('(')
        })
        .copied()
        .collect()
}

/// Multiply lanes: 4 per `mulps` on xmm (8 on ymm, 16 on zmm).
fn lanes(lp: &[&str], mnemonic: impl Fn(&str) -> bool) -> usize {
    lp.iter()
        .filter(|l| mnemonic(op(l)))
        .map(|l| {
            if l.contains("%zmm") {
                16
            } else if l.contains("%ymm") {
                8
            } else {
                4
            }
        })
        .sum()
}

#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the codegen checks read x86-64 assembly"
)]
fn sgemm_micro_kernel_keeps_its_accumulators_in_registers() {
    let layout = inner_loop("micro_layout", is_mul);
    let hand = inner_loop("micro_hand", is_mul);
    let text = |lp: &[&str]| lp.join("\n");
    assert_eq!(
        calls(&layout),
        0,
        "a call in the k-loop:\n{}",
        text(&layout)
    );
    let s = stores(&layout);
    assert!(
        s.is_empty(),
        "the k-loop writes memory (accumulators spilled?): {s:?}\n{}",
        text(&layout)
    );
    assert!(
        !layout
            .iter()
            .any(|l| l.contains("(%rsp)") || l.contains("(%rbp)")),
        "the k-loop reads the stack (accumulators or values spilled):\n{}",
        text(&layout)
    );
    // MR x NR = 4 x 8 products and sums per k.
    let mul = lanes(&layout, |o| {
        matches!(o, "mulps" | "vmulps") || o.starts_with("vfmadd")
    });
    let add = lanes(&layout, |o| {
        matches!(o, "addps" | "vaddps") || o.starts_with("vfmadd")
    });
    assert_eq!(
        (mul, add),
        (32, 32),
        "not 4 x 8 multiply-adds per k:\n{}",
        text(&layout)
    );
    assert!(
        branches(&layout) <= branches(&hand),
        "the k-loop checks more than the hand-written one ({} conditional jumps against {}):\n{}\n---\n{}",
        branches(&layout),
        branches(&hand),
        text(&layout),
        text(&hand)
    );
}

#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the codegen checks read x86-64 assembly"
)]
fn transpose_copies_check_less_than_by_hand() {
    // The per-thread copy: the innermost loop that stores a float.
    let is_store = |l: &str| op(l) == "movss" && last_operand(l).contains('(');
    let layout = inner_loop("transpose_layout", is_store);
    let hand = inner_loop("transpose_hand", is_store);
    let text = |lp: &[&str]| lp.join("\n");
    assert_eq!(calls(&layout), 0, "a call in the copy:\n{}", text(&layout));
    // Each thread copies 4 elements: 4 loads and 4 stores, no more.
    assert_eq!(
        stores(&layout).len(),
        4,
        "not 4 stores per thread:\n{}",
        text(&layout)
    );
    // By hand, every element is checked twice (source and destination);
    // the tensor API checks each window once, and only the elements of the
    // run-time-strided side.
    assert!(
        branches(&layout) < branches(&hand),
        "the copy checks as much as the hand-written one ({} conditional jumps against {}):\n{}\n---\n{}",
        branches(&layout),
        branches(&hand),
        text(&layout),
        text(&hand)
    );
    // What is left: the two windows (one compare for the source, two for
    // the destination), the source's elements after its first (its stride
    // is a run-time value: 3 compares) and the loop's back edge.
    assert!(
        branches(&layout) <= 7,
        "the per-thread copy has {} conditional jumps, more than its windows, its run-time-strided elements and the back edge (7):\n{}",
        branches(&layout),
        text(&layout)
    );
}

/// The example `cpu_kernels` in release, built once, its generic kernels'
/// symbols in the v0 mangling (which spells the constants:
/// `sgemm_tiledKj40_KBQ_Kj8_` is `sgemm_tiled::<64, 64, 8>`).
fn example() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        run(
            cargo(
                &[
                    "rustc",
                    "--release",
                    "--quiet",
                    "-p",
                    "layout-kernels",
                    "--example",
                    "cpu_kernels",
                ],
                &["--", "-C", "symbol-mangling-version=v0"],
            ),
            "the release build of the example cpu_kernels",
        );
        target().join("release/examples/cpu_kernels")
    })
}

/// The instructions (`mnemonic operands`, AT&T order) of the function of
/// the example's binary whose symbol contains `part`, by objdump; `None`
/// when objdump is missing.
fn disassembly(part: &str) -> Option<Vec<String>> {
    let out = Command::new("objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(example())
        .output()
        .ok()?;
    assert!(out.status.success(), "objdump failed");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    lines
        .find(|l| l.contains(part) && l.ends_with(">:"))
        .unwrap_or_else(|| panic!("no function ...{part}... in the example's binary"));
    // `  addr:<tab>mnemonic operands`: each address becomes a label
    // `.L<addr>:` and each jump's target `.L<target>`, so that `loops` reads
    // it as it reads the compiler's assembly.
    let mut body = Vec::new();
    for l in lines.take_while(|l| !l.trim().is_empty()) {
        let Some((addr, ins)) = l.split_once(":\t") else {
            continue;
        };
        let ins = ins.split(" #").next().unwrap().trim();
        body.push(format!(".L{}:", addr.trim()));
        body.push(match ins.split_once(' ') {
            Some((o, rest)) if o.starts_with('j') => {
                format!("{o}\t.L{}", rest.split_whitespace().next().unwrap())
            }
            _ => ins.to_string(),
        });
    }
    Some(body)
}

/// The instructions `valgrind --tool=callgrind` counts for one run of the
/// example `cpu_kernels --once KERNEL`; `None` when valgrind is missing.
fn count(exe: &Path, kernel: &str) -> Option<u64> {
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .args(["--once", kernel])
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "callgrind on {kernel}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("Collected :"))
        .unwrap_or_else(|| panic!("no count in callgrind's output:\n{err}"));
    Some(
        line.rsplit(':')
            .next()
            .unwrap()
            .trim()
            .replace(',', "")
            .parse()
            .unwrap(),
    )
}

#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the instruction counts are of x86-64 code"
)]
fn instruction_counts_match_hand_written_code() {
    let exe = example();
    let Some(base) = count(exe, "none") else {
        assert!(
            std::env::var_os("LAYOUT_REQUIRE_VALGRIND").is_none(),
            "valgrind is required (LAYOUT_REQUIRE_VALGRIND) and was not found"
        );
        eprintln!("valgrind not found: the instruction counts are not checked");
        return;
    };
    // The tensor API's kernels execute at most this many instructions per
    // instruction of the hand-written kernel of the same blocking.
    let mut report = String::new();
    let mut worst = Vec::new();
    for (kernel, limit) in [("transpose", 1.15), ("sgemm", 1.05), ("sgemm_tiled", 1.10)] {
        let l = count(exe, &format!("{kernel}-layout")).unwrap() - base;
        let h = count(exe, &format!("{kernel}-hand")).unwrap() - base;
        let ratio = l as f64 / h as f64;
        report += &format!("{kernel}: layout {l}, hand {h}, ratio {ratio:.3} (limit {limit})\n");
        if ratio > limit {
            worst.push(kernel);
        }
    }
    eprint!("{report}");
    assert!(
        worst.is_empty(),
        "more instructions than by hand in {worst:?}:\n{report}"
    );
}

/// The adds (`addps`) of a loop that take the previous add's result: one
/// per add when the loop runs each accumulator's chain to its end before
/// the next, none when it interleaves the chains k-step by k-step.
fn chained_adds(lp: &[&str]) -> usize {
    let mut chained = 0;
    let mut last: Option<&str> = None;
    for l in lp {
        let o = op(l);
        if o == "addps" || o == "vaddps" {
            if last.is_some_and(|r| l.contains(r)) {
                chained += 1;
            }
            last = Some(last_operand(l));
        } else if !o.starts_with('j')
            && !o.starts_with("cmp")
            && !o.starts_with("test")
            && last.is_some_and(|r| last_operand(l) == r)
        {
            last = None;
        }
    }
    chained
}

#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the codegen checks read x86-64 assembly"
)]
fn sgemm_tiled_interleaves_its_accumulator_chains() {
    // `sgemm_tiled::<64, 64, 8>` and its hand-written twin: 16 x 16
    // threads, each 4 x 4 accumulators (four vector registers) updated 8
    // times per k-tile. Run chain by chain, the 8 updates of one register
    // wait on each other and the kernel fell to 0.87x-0.90x of the
    // hand-written one (`cpu_kernels`).
    let (Some(layout), Some(hand)) = (
        disassembly("14layout_kernels3cpu11sgemm_tiledKj40_KBQ_Kj8_E"),
        disassembly("14layout_kernels3cpu16sgemm_tiled_handKj40_KBV_Kj8_E"),
    ) else {
        assert!(
            std::env::var_os("LAYOUT_REQUIRE_VALGRIND").is_none(),
            "objdump is required (LAYOUT_REQUIRE_VALGRIND) and was not found"
        );
        eprintln!("objdump not found: sgemm_tiled's schedule is not checked");
        return;
    };
    let innermost = |body: &[String]| {
        let body: Vec<&str> = body.iter().map(String::as_str).collect();
        loops(&body)
            .into_iter()
            .filter(|lp| lp.iter().any(|l| op(l) == "addps" || op(l) == "vaddps"))
            .min_by_key(Vec::len)
            .expect("a loop that adds")
            .iter()
            .filter(|l| !l.ends_with(':'))
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
    };
    let (layout, hand) = (innermost(&layout), innermost(&hand));
    let (layout, hand): (Vec<&str>, Vec<&str>) = (
        layout.iter().map(String::as_str).collect(),
        hand.iter().map(String::as_str).collect(),
    );
    let text = |lp: &[&str]| lp.join("\n");
    let adds = |lp: &[&str]| {
        lanes(lp, |o| {
            matches!(o, "addps" | "vaddps") || o.starts_with("vfmadd")
        })
    };
    // A thread's k-tile per iteration: 8 k-steps of 4 x 4 multiply-adds.
    assert_eq!(
        adds(&layout),
        128,
        "not 8 x 16 adds per k-tile:\n{}",
        text(&layout)
    );
    assert_eq!(
        calls(&layout),
        0,
        "a call in the k-tile:\n{}",
        text(&layout)
    );
    // The loop is one thread's k-tile: its four accumulator registers are
    // loaded before the 8 k-steps and stored after them, and nothing else.
    let (sl, sh) = (stores(&layout), stores(&hand));
    assert!(
        sl.len() == 4 && sl.len() <= sh.len(),
        "the k-tile writes memory {} times, {} by hand (accumulators spilled?): {sl:?}\n{}",
        sl.len(),
        sh.len(),
        text(&layout)
    );
    assert!(
        chained_adds(&layout) <= chained_adds(&hand),
        "{} of the k-tile's adds wait on the add before them, {} by hand: the accumulators' chains run one after another:\n{}\n---\n{}",
        chained_adds(&layout),
        chained_adds(&hand),
        text(&layout),
        text(&hand)
    );
}
