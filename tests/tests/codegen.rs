//! Codegen: build `codegen-probe` with `--release`, read its assembly, and
//! check that static layouts cost what hand-written arithmetic costs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn probe_asm() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("codegen-probe/Cargo.toml");
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("codegen-probe");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["rustc", "--release", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .args(["--", "--emit=asm", "-C", "codegen-units=1"])
        .output()
        .expect("run cargo rustc");
    assert!(
        out.status.success(),
        "probe build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let deps = target.join("release/deps");
    let asm = std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("codegen_probe")
        })
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .expect("assembly file");
    std::fs::read_to_string(asm).unwrap()
}

/// The instructions of one function: from its label to the end of the function.
fn body<'a>(asm: &'a str, name: &str) -> Vec<&'a str> {
    scan(asm, name, false)
}

/// The same with the local labels kept (`.LBB...:`), for the loop check.
fn body_with_labels<'a>(asm: &'a str, name: &str) -> Vec<&'a str> {
    scan(asm, name, true)
}

fn scan<'a>(asm: &'a str, name: &str, labels: bool) -> Vec<&'a str> {
    let start = asm
        .find(&format!("\n{name}:"))
        .unwrap_or_else(|| panic!("no {name} in assembly"));
    asm[start + 1..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with(".Lfunc_end") && !l.contains(".cfi_endproc"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| !l.starts_with('.') || (labels && l.starts_with(".LBB")))
        .collect()
}

fn has_division(lines: &[&str]) -> bool {
    divisions(lines) > 0
}

fn divisions(lines: &[&str]) -> usize {
    lines
        .iter()
        .filter(|l| {
            let op = l.split_whitespace().next().unwrap_or("");
            op.starts_with("div") || op.starts_with("idiv")
        })
        .count()
}

/// The targets a function body calls.
fn calls<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    lines
        .iter()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let op = w.next()?;
            op.starts_with("call").then(|| w.next().unwrap_or(""))
        })
        .collect()
}

/// Whether a function body jumps back to an earlier label (a loop).
fn loops(lines: &[&str]) -> bool {
    let mut seen = Vec::new();
    for l in lines {
        let mut w = l.split_whitespace();
        let op = w.next().unwrap_or("");
        if let Some(label) = op.strip_suffix(':') {
            seen.push(label.to_string());
        } else if op.starts_with('j') {
            if let Some(t) = w.next() {
                if seen.iter().any(|s| s == t) {
                    return true;
                }
            }
        }
    }
    false
}

#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the codegen checks read x86-64 assembly; skipped on this architecture"
)]
fn static_layouts_fold() {
    let asm = probe_asm();

    let crd = body(&asm, "probe_static_crd");
    assert_eq!(
        crd,
        vec!["movl\t$61, %eax", "retq"],
        "static crd2idx is not the constant 61"
    );

    let zipped = body(&asm, "probe_zipped_divide_crd");
    assert_eq!(
        zipped,
        vec!["movl\t$4349, %eax", "retq"],
        "indexing a static zipped_divide result is not the constant 4349"
    );

    let pow2 = body(&asm, "probe_pow2_index");
    assert!(
        !has_division(&pow2),
        "1-D index into a static power-of-two layout divides:\n{}",
        pow2.join("\n")
    );
    assert!(
        pow2.len() <= 16,
        "1-D index into a static layout is long:\n{}",
        pow2.join("\n")
    );

    let tensor = body(&asm, "probe_tensor_read");
    assert!(
        !has_division(&tensor),
        "tensor read divides:\n{}",
        tensor.join("\n")
    );

    // A mixed zipped_divide computed at run time and evaluated at a run-time
    // index: straight-line, and no more divisions than the same by hand.
    let mixed = body(&asm, "probe_mixed_zipped_divide");
    let hand = body(&asm, "probe_mixed_zipped_divide_hand");
    // The only call either makes is the panic of `i % 0` when m is 0,
    // which the evaluation at a run-time index has by hand too.
    let hand_calls = calls(&hand);
    assert!(
        calls(&mixed).iter().all(|c| hand_calls.contains(c))
            && !loops(&body_with_labels(&asm, "probe_mixed_zipped_divide")),
        "mixed zipped_divide calls or loops where the hand-written code does not:\n{}",
        mixed.join("\n")
    );
    assert!(
        divisions(&mixed) <= divisions(&hand),
        "mixed zipped_divide divides {} times, hand-written {}:\n{}",
        divisions(&mixed),
        divisions(&hand),
        mixed.join("\n")
    );

    // A mixed composition with its run-time admissibility check: no call
    // (the check is inlined, its buffers are not cleared by `memset`).
    let comp = body(&asm, "probe_mixed_composition");
    let comp_hand = body(&asm, "probe_mixed_composition_hand");
    let hand_calls = calls(&comp_hand);
    assert!(
        calls(&comp).iter().all(|c| hand_calls.contains(c)),
        "mixed composition calls where the hand-written code does not:\n{}",
        comp.join("\n")
    );

    // A static fragment indexed at coordinates in visible ranges is a plain
    // array: no call (no bounds panic), no loop, no more instructions.
    let frag = body(&asm, "probe_fragment");
    let frag_hand = body(&asm, "probe_fragment_hand");
    assert!(
        calls(&frag).is_empty()
            && !loops(&body_with_labels(&asm, "probe_fragment"))
            && frag.len() <= frag_hand.len(),
        "fragment indexing is not a plain array ({} vs {} instructions):\n{}\n---\n{}",
        frag.len(),
        frag_hand.len(),
        frag.join("\n"),
        frag_hand.join("\n")
    );

    // A static tile copied into a static fragment: the storage checked
    // once, then 32 constant offsets (no loop, no call, no check per element).
    let tile = body_with_labels(&asm, "probe_copy_static_tile");
    let jumps = tile
        .iter()
        .filter(|l| l.starts_with('j') && !l.starts_with("jmp"))
        .count();
    assert!(
        calls(&tile).is_empty() && !loops(&tile) && jumps <= 3,
        "a static tile copy loops, calls or checks per element ({jumps} conditional jumps):\n{}",
        tile.join("\n")
    );

    // The loop detector is live: a run-time length needs a loop.
    assert!(
        loops(&body_with_labels(&asm, "probe_sum_loop")),
        "control probe shows no loop"
    );

    // The detector is live: a run-time shape needs a division.
    let control = body(&asm, "probe_dynamic_index");
    assert!(
        has_division(&control),
        "control probe shows no division:\n{}",
        control.join("\n")
    );
}
