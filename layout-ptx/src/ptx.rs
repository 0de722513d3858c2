//! The PTX side: kernels (`.entry`) and their bodies, launch bounds patched
//! in, the checks on each kernel, and ptxas's `-v` report.

use crate::decl::{Decls, KernelDecls, EXPECT_INSTRUCTIONS, NO_DIVISION, SPILL_BYTES};

/// One kernel of a PTX module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Its name (`.entry NAME(`).
    pub name: &'a str,
    /// The text after `.entry NAME(` up to its closing brace's line
    /// (parameters, directives, body), without that `\n}\n`.
    pub body: &'a str,
}

/// The kernels of `ptx`, in order: each `.entry NAME(` up to the first
/// `\n}\n` after it.
pub fn entries(ptx: &str) -> Vec<Entry<'_>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(off) = ptx[pos..].find(".entry") {
        let at = pos + off;
        pos = at + 1;
        let rest = &ptx[at + ".entry".len()..];
        let name_at = rest.len() - rest.trim_start().len();
        if name_at == 0 {
            continue;
        }
        let rest = &rest[name_at..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if name_len == 0 || !rest[name_len..].starts_with('(') {
            continue;
        }
        let body = &rest[name_len + 1..];
        let Some(end) = body.find("\n}\n") else {
            continue;
        };
        out.push(Entry {
            name: &rest[..name_len],
            body: &body[..end],
        });
        pos = ptx.len() - body.len() + end + 3;
    }
    out
}

/// Adds CUDA's launch bounds to kernel `name`: `.maxntid THREADS, 1, 1` and
/// `.minnctapersm BLOCKS` between its parameter list and its body, and
/// `.reqnctapercluster N, 1, 1` for a cluster of `N` blocks.
pub fn add_launch_bounds(
    ptx: &str,
    name: &str,
    (threads, blocks): (u32, u32),
    cluster: Option<u32>,
) -> Result<String, String> {
    let head = ptx
        .find(&format!(".entry {name}("))
        .ok_or_else(|| format!("no kernel {name} to bound"))?;
    let entry = entries(&ptx[head..])
        .into_iter()
        .next()
        .filter(|e| e.name == name)
        .ok_or_else(|| format!("{name}: no closing brace"))?;
    if entry.body.contains(".maxntid") {
        return Err(format!("{name}: already has a .maxntid"));
    }
    // The body's end, with the "\n}" after it: "\n)\n{" must close the
    // parameters before that.
    let end = head + ".entry (".len() + name.len() + entry.body.len() + 2;
    let brace = ptx[head..end]
        .find("\n)\n{")
        .map(|b| head + b)
        .ok_or_else(|| format!("{name}: no `)` and `{{` closing its parameters"))?;
    let cluster = cluster.map_or(String::new(), |n| format!(".reqnctapercluster {n}, 1, 1\n"));
    Ok(format!(
        "{}\n)\n.maxntid {threads}, 1, 1\n.minnctapersm {blocks}\n{cluster}{{{}",
        &ptx[..brace],
        &ptx[brace + 4..]
    ))
}

/// Adds every declared launch bound (a bound for no kernel of the PTX is
/// left to [`check_module`]).
pub fn add_all_launch_bounds(ptx: &str, decls: &Decls) -> Result<String, Vec<String>> {
    let mut text = ptx.to_string();
    let mut errors = Vec::new();
    for e in entries(ptx) {
        let d = decls.for_entry(e.name);
        let cluster = d.and_then(|d| d.cluster_size);
        if let Some(bounds) = d.and_then(|d| d.launch_bounds) {
            match add_launch_bounds(&text, e.name, bounds, cluster) {
                Ok(t) => text = t,
                Err(e) => errors.push(e),
            }
        } else if cluster.is_some() {
            errors.push(format!(
                "{}: a cluster size needs launch bounds too (declare {}_LAUNCH_BOUNDS)",
                e.name,
                e.name.to_ascii_uppercase()
            ));
        }
    }
    if errors.is_empty() {
        Ok(text)
    } else {
        Err(errors)
    }
}

/// The opcode of a PTX instruction line (`add.s32` in `@%p1 add.s32 ...`),
/// after its guard predicate; `None` for blank lines, labels, directives
/// and comments.
pub fn opcode(line: &str) -> Option<&str> {
    let mut s = line.trim_start();
    if let Some(guarded) = s.strip_prefix('@') {
        s = guarded
            .trim_start_matches(|c: char| !c.is_whitespace())
            .trim_start();
    }
    let op = &s[..s
        .find(|c: char| c.is_whitespace() || c == ';')
        .unwrap_or(s.len())];
    let is_op = op.starts_with(|c: char| c.is_ascii_alphabetic()) && !op.ends_with(':');
    is_op.then_some(op)
}

/// The opcodes of `body`, statement by statement: a line holds one, or
/// (inline `asm!` blocks, `{ .reg .pred p; setp...; wgmma...; }`) several
/// separated by `;` inside braces. Comments are skipped.
pub fn opcodes(body: &str) -> impl Iterator<Item = &str> {
    body.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .flat_map(|l| l.split(';'))
        .map(|st| st.trim_start().trim_start_matches(['{', '}']))
        .filter_map(opcode)
}

/// Instructions of `body` whose opcode starts with `prefix`.
pub fn count_instructions(body: &str, prefix: &str) -> usize {
    opcodes(body).filter(|op| op.starts_with(prefix)).count()
}

/// `div` and `rem` instructions (any type).
pub fn count_divisions(body: &str) -> usize {
    opcodes(body)
        .filter(|op| op.starts_with("div.") || op.starts_with("rem."))
        .count()
}

/// What the PTX of one kernel shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelReport {
    /// The kernel.
    pub name: String,
    /// Lines of its `.entry` (parameters and body).
    pub lines: usize,
    /// `fma.rn.f32` instructions.
    pub fmas: usize,
    /// `div` and `rem` instructions.
    pub divisions: usize,
    /// Its problems against what its source declares, one line each
    /// (`NAME: divides (...)`).
    pub problems: Vec<String>,
    /// What makes it slow, one line each (`NAME: calls a function`, `NAME:
    /// uses local memory`): problems unless the build is lenient.
    pub slow: Vec<String>,
    /// What looks wrong without being certainly so (a kernel that writes
    /// no memory outside its block): warnings, whatever the build.
    pub warnings: Vec<String>,
}

impl std::fmt::Display for KernelReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} lines of PTX, {} fma, {} div/rem",
            self.name, self.lines, self.fmas, self.divisions
        )
    }
}

/// Checks one kernel: no call, no local memory, and, as declared, no
/// division and the expected instruction counts.
pub fn check_entry(entry: &Entry<'_>, decls: Option<&KernelDecls>) -> KernelReport {
    let Entry { name, body } = *entry;
    let mut problems = Vec::new();
    let mut slow = Vec::new();
    if opcodes(body).any(|op| op == "call" || op.starts_with("call.")) {
        slow.push(format!("{name}: calls a function"));
    }
    if body.contains(".local") {
        slow.push(format!("{name}: uses local memory"));
    }
    let mut warnings = Vec::new();
    if !writes_memory(body) {
        warnings.push(format!(
            "{name}: writes no global memory: every path may end in a trap (a check that \
             always fails, such as a shared window larger than its buffer or a buffer shorter \
             than its layout)"
        ));
    }
    let divisions = count_divisions(body);
    let default = KernelDecls::default();
    let decls = decls.unwrap_or(&default);
    if decls.no_division && divisions > 0 {
        problems.push(format!(
            "{name}: divides ({divisions} div/rem; {}{NO_DIVISION})",
            name.to_ascii_uppercase()
        ));
    }
    for (prefix, want) in &decls.expect_instructions {
        let got = count_instructions(body, prefix);
        if got != *want {
            problems.push(format!(
                "{name}: {got} instructions {prefix}, expected {want} ({}{EXPECT_INSTRUCTIONS})",
                name.to_ascii_uppercase()
            ));
        }
    }
    KernelReport {
        name: name.to_string(),
        lines: body.lines().count(),
        fmas: body.matches("fma.rn.f32").count(),
        divisions,
        problems,
        slow,
        warnings,
    }
}

/// The source lines of `ptx`'s local-memory accesses (`ld.local`,
/// `st.local`), from a build with line tables: for each `.loc FILE LINE`
/// in force at such an access (line 0, compiler-made code, keeps the one
/// before), the file as its `.file` directive names it and the line, in
/// order of first appearance. Empty when the PTX has no line tables.
pub fn local_memory_lines(ptx: &str) -> Vec<(String, u32)> {
    let mut files = std::collections::HashMap::new();
    for l in ptx.lines() {
        let l = l.trim_start();
        if let Some(rest) = l.strip_prefix(".file") {
            let mut parts = rest.trim().splitn(2, char::is_whitespace);
            if let (Some(n), Some(path)) = (parts.next(), parts.next()) {
                let path = path.trim().split('"').nth(1).unwrap_or("").to_string();
                files.insert(n.to_string(), path);
            }
        }
    }
    let mut at: Option<(&str, u32)> = None;
    let mut out: Vec<(String, u32)> = Vec::new();
    for l in ptx.lines() {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix(".loc") {
            let mut f = rest.split_whitespace();
            if let (Some(file), Some(Ok(line))) = (f.next(), f.next().map(str::parse::<u32>)) {
                if line > 0 {
                    at = Some((file, line));
                }
            }
            continue;
        }
        let local =
            opcode(t).is_some_and(|op| op.starts_with("ld.local") || op.starts_with("st.local"));
        if let (true, Some((file, line))) = (local, at) {
            let file = files
                .get(file)
                .cloned()
                .unwrap_or_else(|| format!("file {file}"));
            if !out.iter().any(|(f, n)| *f == file && *n == line) {
                out.push((file, line));
            }
        }
    }
    out
}

/// Whether a kernel body stores anything that outlives its block: a store
/// to global or generic memory, an atomic or reduction, a bulk copy out of
/// shared memory.
fn writes_memory(body: &str) -> bool {
    opcodes(body).any(|op| {
        let store = op == "st"
            || (op.starts_with("st.")
                && !op.starts_with("st.shared")
                && !op.starts_with("st.local")
                && !op.starts_with("st.param"));
        store
            || op.starts_with("atom")
            || op.starts_with("red")
            || op.starts_with("cp.async.bulk.global")
            || op.starts_with("cp.async.bulk.tensor")
            || op.starts_with("cp.reduce.async.bulk")
    })
}

/// Checks every kernel of `ptx` (after its launch bounds are in): the
/// per-kernel reports, and problems of the module (no kernel at all, a
/// declaration naming no kernel).
pub fn check_module(ptx: &str, decls: &Decls) -> (Vec<KernelReport>, Vec<String>) {
    let entries = entries(ptx);
    let mut problems = Vec::new();
    if entries.is_empty() {
        problems.push("no kernel in the PTX".to_string());
    }
    for (kernel, name) in decls.consts() {
        if !entries
            .iter()
            .any(|e| e.name.to_ascii_uppercase() == kernel)
        {
            problems.push(format!("{name}: no kernel of that name in the PTX"));
        }
    }
    let reports = entries
        .iter()
        .map(|e| check_entry(e, decls.for_entry(e.name)))
        .collect();
    (reports, problems)
}

/// One kernel of ptxas's `-v` report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxasKernel {
    /// The kernel.
    pub name: String,
    /// Registers per thread (`Used N registers`).
    pub registers: Option<u32>,
    /// Static shared memory in bytes (`N bytes smem`; 0 when not shown).
    pub shared: u64,
    /// Bytes of spill stores and loads (0 when not shown).
    pub spills: (u64, u64),
}

impl std::fmt::Display for PtxasKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let regs = self.registers.map_or("?".to_string(), |r| r.to_string());
        write!(
            f,
            "{}: {regs} registers, {} bytes shared, {}/{} bytes spilled (stores/loads)",
            self.name, self.shared, self.spills.0, self.spills.1
        )
    }
}

/// The number just before `unit` in `text` (`16384` of `16384 bytes smem`).
fn number_before(text: &str, unit: &str) -> Option<u64> {
    let at = text.find(unit)?;
    let digits = text[..at].trim_end();
    let start = digits
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    digits[start..].parse().ok()
}

/// The kernels of a `ptxas -v` report, in its order: each section from
/// `Compiling entry function 'NAME'` to the next `Compiling` line.
pub fn parse_ptxas_report(report: &str) -> Vec<PtxasKernel> {
    const ENTRY: &str = "Compiling entry function '";
    let mut out: Vec<PtxasKernel> = Vec::new();
    let mut section = String::new();
    let mut current: Option<String> = None;
    let mut finish = |name: Option<String>, section: &str| {
        if let Some(name) = name {
            let number_after = |key: &str, unit: &str| {
                section
                    .lines()
                    .find(|l| l.contains(key))
                    .and_then(|l| number_before(l, unit))
            };
            out.push(PtxasKernel {
                name,
                registers: number_after("Used ", " registers").map(|r| r as u32),
                shared: number_after(" bytes smem", " bytes smem").unwrap_or(0),
                spills: (
                    number_after(" bytes spill stores", " bytes spill stores").unwrap_or(0),
                    number_after(" bytes spill loads", " bytes spill loads").unwrap_or(0),
                ),
            });
        }
    };
    for line in report.lines() {
        if line.starts_with("ptxas info") && line.contains(": Compiling") {
            finish(current.take(), &section);
            section.clear();
            if let Some(rest) = line.split_once(ENTRY).map(|(_, r)| r) {
                current = rest.split('\'').next().map(str::to_string);
            }
        } else if current.is_some() {
            section.push_str(line);
            section.push('\n');
        }
    }
    finish(current, &section);
    out
}

/// What a ptxas report says is slow: each kernel that spills more than
/// its source allows (`FOO_SPILL_BYTES`; nothing without one).
pub fn ptxas_slow(kernels: &[PtxasKernel], decls: &Decls) -> Vec<String> {
    kernels
        .iter()
        .filter_map(|k| {
            let allowed = decls.for_entry(&k.name).and_then(|d| d.spill_bytes);
            let (max_st, max_ld) = allowed.map_or((0, 0), |(s, l)| (u64::from(s), u64::from(l)));
            if k.spills.0 <= max_st && k.spills.1 <= max_ld {
                return None;
            }
            let (st, ld) = k.spills;
            Some(match allowed {
                None => format!("{}: spills registers ({st}/{ld} bytes stores/loads)", k.name),
                Some(a) => format!(
                    "{}: spills registers ({st}/{ld} bytes stores/loads), more than its {}{SPILL_BYTES} allows, {a:?}",
                    k.name,
                    k.name.to_ascii_uppercase()
                ),
            })
        })
        .collect()
}

/// What ptxas says costs speed beyond spills: its "Potential Performance
/// Loss" diagnostics, such as `wgmma` serialized (C7509, C7510, C7515 and
/// the like: the warpgroup MMAs then run one at a time) or `setmaxnreg`
/// ignored (no launch bounds to start from). Each line, as ptxas wrote it.
pub fn ptxas_performance_losses(report: &str) -> Vec<String> {
    report
        .lines()
        .filter(|l| {
            l.contains("Potential Performance Loss")
                || (l.contains("wgmma") && l.contains("serialized"))
                || (l.contains("setmaxnreg") && l.contains("ignored"))
        })
        .map(|l| {
            let l = l.trim();
            // "ptxas warning : (C7510) ..." as "ptxas: (C7510) ...".
            match l.split_once(" : ") {
                Some((_, rest)) if l.starts_with("ptxas") => format!("ptxas: {}", rest.trim()),
                _ => l.to_string(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module of two kernels as LLVM writes them.
    const TWO: &str = "//
// Generated by LLVM NVPTX Back-End
//

.version 7.8
.target sm_90
.address_size 64

\t// .globl\tscale
.visible .entry scale(
\t.param .u64 .ptr .align 1 scale_param_0,
\t.param .u32 scale_param_1
)
{
\t.reg .b32 \t%r<3>;
\t.reg .f32 \t%f<3>;

\tld.param.u64 \t%rd1, [scale_param_0];
\tfma.rn.f32 \t%f2, %f1, %f1, %f1;
\tret;

}
\t// .globl\tcopy
.visible .entry copy(
\t.param .u64 .ptr .align 1 copy_param_0
)
{
\tret;

}
";

    fn decls(src: &str) -> Decls {
        let mut d = Decls::default();
        d.add_source("lib.rs", src).unwrap();
        d
    }

    #[test]
    fn local_memory_accesses_have_their_source_lines() {
        let ptx = "\t.loc\t2 79 9\n\tst.local.b32 \t[%rd26], 0;\n\t.loc\t2 79 14\n\tshl.b64 %rd1, %rd2, 1;\n\t.loc\t2 0 0\n\tld.local.b32 %r1, [%rd44];\n\t.loc\t1 12 3\n\tst.local.b32 [%rd26+4], %r7;\n\tst.local.b32 [%rd26+8], %r8;\n\t.file\t1 \"/x/layout-device/src/hw/thread.rs\"\n\t.file\t2 \"/k/src/lib.rs\"\n";
        assert_eq!(
            local_memory_lines(ptx),
            [
                ("/k/src/lib.rs".to_string(), 79),
                ("/x/layout-device/src/hw/thread.rs".to_string(), 12)
            ]
        );
        assert!(local_memory_lines("\tst.local.b32 [%rd1], 0;\n").is_empty());
    }

    #[test]
    fn entries_and_their_bodies() {
        let e = entries(TWO);
        assert_eq!(
            e.iter().map(|e| e.name).collect::<Vec<_>>(),
            ["scale", "copy"]
        );
        assert!(e[0].body.starts_with("\n\t.param .u64"));
        assert!(e[0].body.ends_with("\tret;\n"));
        // As Python's splitlines counts them (the first line is the empty rest
        // of `.entry scale(`).
        assert_eq!(e[0].body.lines().count(), 11);
        assert_eq!(
            e[1].body,
            "\n\t.param .u64 .ptr .align 1 copy_param_0\n)\n{\n\tret;\n"
        );
        assert_eq!(entries(".func f(\n)\n{\n}\n.entry broken(\n)\n{\n"), []);
    }

    #[test]
    fn launch_bounds_go_between_parameters_and_body() {
        let out = add_launch_bounds(TWO, "copy", (256, 2), None).unwrap();
        assert!(out.contains(
            ".entry copy(\n\t.param .u64 .ptr .align 1 copy_param_0\n)\n.maxntid 256, 1, 1\n.minnctapersm 2\n{\n\tret;"
        ));
        // Nothing else moves.
        assert_eq!(
            out.replace(".maxntid 256, 1, 1\n.minnctapersm 2\n", ""),
            TWO
        );
        assert_eq!(
            add_launch_bounds(TWO, "cop", (1, 1), None),
            Err("no kernel cop to bound".to_string())
        );
        assert_eq!(
            add_launch_bounds(&out, "copy", (1, 1), None),
            Err("copy: already has a .maxntid".to_string())
        );
        // A cluster of two: CUDA's __cluster_dims__(2, 1, 1).
        let out = add_launch_bounds(TWO, "copy", (384, 1), Some(2)).unwrap();
        assert!(out.contains(
            "copy_param_0\n)\n.maxntid 384, 1, 1\n.minnctapersm 1\n.reqnctapercluster 2, 1, 1\n{\n\tret;"
        ));
    }

    #[test]
    fn declared_bounds_by_upper_case_name() {
        let out = add_all_launch_bounds(
            TWO,
            &decls("const SCALE_LAUNCH_BOUNDS: (u32, u32) = (128, 4);"),
        )
        .unwrap();
        assert!(out.contains("scale_param_1\n)\n.maxntid 128, 1, 1\n.minnctapersm 4\n{"));
        assert!(!out.contains("copy_param_0\n)\n.maxntid"));
        let none = decls("const GEMM_LAUNCH_BOUNDS: (u32, u32) = (128, 4);");
        assert_eq!(add_all_launch_bounds(TWO, &none).unwrap(), TWO);
        let (_, p) = check_module(TWO, &none);
        assert_eq!(p, ["GEMM_LAUNCH_BOUNDS: no kernel of that name in the PTX"]);
    }

    #[test]
    fn a_kernel_that_writes_nothing_is_warned_about() {
        let only_traps = kernel("\tsetp.gt.u64 %p1, %rd1, 4;\n\t@%p1 bra $L__BB0_2;\n\ttrap; exit;\n$L__BB0_2:\n\tst.shared.f32 [%r1], %f1;\n\ttrap; exit;");
        let r = check_entry(&entries(&only_traps)[0], None);
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].starts_with("k: writes no global memory"));
        let writes = kernel("\tst.global.f32 [%rd1], %f1;\n\tret;");
        assert!(check_entry(&entries(&writes)[0], None).warnings.is_empty());
    }

    #[test]
    fn instructions_in_an_asm_block_count() {
        let body = "\t{ .reg .pred p; setp.ne.b32 p, %r48, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r1, %r2}, %rd1, %rd2, p, 1, 1, 0, 0; }\n\twgmma.commit_group.sync.aligned;\n\t// wgmma.mma_async in a comment\n";
        assert_eq!(count_instructions(body, "wgmma.mma_async"), 1);
        assert_eq!(count_instructions(body, "wgmma."), 2);
        assert_eq!(count_instructions(body, "setp"), 1);
    }

    #[test]
    fn opcodes_of_lines() {
        assert_eq!(opcode("\tadd.s32 \t%r1, %r2, 1;"), Some("add.s32"));
        assert_eq!(opcode("\t@%p1 bra \t$L__BB0_2;"), Some("bra"));
        assert_eq!(opcode("\t@!%p2 div.s32 %r1, %r2, %r3;"), Some("div.s32"));
        assert_eq!(opcode("\tret;"), Some("ret"));
        assert_eq!(opcode("$L__BB0_2:"), None);
        assert_eq!(opcode("\t.reg .b32 %r<3>;"), None);
        assert_eq!(opcode("\t// call foo"), None);
        assert_eq!(opcode(""), None);
    }

    #[test]
    fn a_clean_kernel_reports_its_counts() {
        let r = check_entry(&entries(TWO)[0], None);
        assert_eq!(r.to_string(), "scale: 11 lines of PTX, 1 fma, 0 div/rem");
        assert_eq!(r.problems, Vec::<String>::new());
    }

    fn kernel(body: &str) -> String {
        format!(".visible .entry k(\n\t.param .u32 k_param_0\n)\n{{\n{body}\n}}\n")
    }

    #[test]
    fn a_call_is_a_problem() {
        let ptx = kernel("\t{ // callseq 0, 0\n\tcall.uni \n\tpanic, \n\t(\n\tparam0\n\t);\n\t} // callseq 0\n\tret;");
        let r = check_entry(&entries(&ptx)[0], None);
        assert_eq!(r.slow, ["k: calls a function"]);
        let guarded = kernel("\t@%p1 call \tf, (param0);\n\tret;");
        assert_eq!(
            check_entry(&entries(&guarded)[0], None).slow,
            ["k: calls a function"]
        );
    }

    #[test]
    fn local_memory_is_a_problem() {
        let ptx = kernel(
            "\t.local .align 16 .b8 \t__local_depot0[64];\n\tst.local.u32 [%rd1], %r1;\n\tret;",
        );
        assert_eq!(
            check_entry(&entries(&ptx)[0], None).slow,
            ["k: uses local memory"]
        );
    }

    #[test]
    fn division_is_counted_always_and_refused_when_declared() {
        let ptx = kernel("\tdiv.u32 \t%r2, %r1, %r3;\n\t@%p1 rem.s64 %rd1, %rd2, %rd3;\n\tdiv.rn.f32 %f1, %f2, %f3;\n\tret;");
        let e = &entries(&ptx)[0];
        let r = check_entry(e, None);
        assert_eq!((r.divisions, r.problems.len()), (3, 0));
        let d = decls("const K_NO_DIVISION: bool = true;");
        assert_eq!(
            check_entry(e, d.for_entry("k")).problems,
            ["k: divides (3 div/rem; K_NO_DIVISION)"]
        );
        let d = decls("const K_NO_DIVISION: bool = false;");
        assert!(check_entry(e, d.for_entry("k")).problems.is_empty());
    }

    #[test]
    fn expected_instruction_counts() {
        let ptx = kernel(
            "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2};\n\
             \tmma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r3}, {%r1}, {%r2}, {%r4};\n\
             \t// mma.sync.aligned.m16n8k16 in a comment is no instruction\n\tret;",
        );
        let e = &entries(&ptx)[0];
        let ok = decls(
            r#"const K_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("mma.sync.aligned.m16n8k16", 2), ("ret", 1)];"#,
        );
        assert!(check_entry(e, ok.for_entry("k")).problems.is_empty());
        let bad = decls(
            r#"const K_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("mma.sync.aligned.m16n8k8", 1)];"#,
        );
        assert_eq!(
            check_entry(e, bad.for_entry("k")).problems,
            ["k: 0 instructions mma.sync.aligned.m16n8k8, expected 1 (K_EXPECT_INSTRUCTIONS)"]
        );
    }

    #[test]
    fn module_problems() {
        let (r, p) = check_module(".version 7.8\n", &Decls::default());
        assert!(r.is_empty());
        assert_eq!(p, ["no kernel in the PTX"]);
        let d =
            decls("const GONE_NO_DIVISION: bool = false; const SCALE_NO_DIVISION: bool = true;");
        let (r, p) = check_module(TWO, &d);
        assert_eq!(r.len(), 2);
        assert_eq!(p, ["GONE_NO_DIVISION: no kernel of that name in the PTX"]);
    }

    /// A `ptxas -v` report: two kernels, one spilling, and a function.
    const REPORT: &str = "ptxas info    : 817 bytes gmem
ptxas info    : Compiling entry function 'big' for 'sm_90'
ptxas info    : Function properties for big
    8 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 49152 bytes smem
ptxas info    : Compile time = 100.5 ms
ptxas info    : Compiling function 'helper' for 'sm_90'
ptxas info    : Function properties for helper
    0 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 6 registers
ptxas info    : Compiling entry function 'small' for 'sm_90a'
ptxas info    : Function properties for small
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 30 registers, used 0 barriers
ptxas info    : Compile time = 4.063 ms
";

    #[test]
    fn ptxas_report_lines_and_spills() {
        let k = parse_ptxas_report(REPORT);
        let lines: Vec<String> = k.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "big: 255 registers, 49152 bytes shared, 8/12 bytes spilled (stores/loads)",
                "small: 30 registers, 0 bytes shared, 0/0 bytes spilled (stores/loads)",
            ]
        );
        let none = Decls::default();
        assert_eq!(
            ptxas_slow(&k, &none),
            ["big: spills registers (8/12 bytes stores/loads)"]
        );
        // An allowance covers what it states, stores and loads each.
        let allow = |src: &str| {
            let mut d = Decls::default();
            d.add_source("lib.rs", src).unwrap();
            d
        };
        assert!(ptxas_slow(&k, &allow("const BIG_SPILL_BYTES: (u32, u32) = (8, 12);")).is_empty());
        assert_eq!(
            ptxas_slow(&k, &allow("const BIG_SPILL_BYTES: (u32, u32) = (8, 11);")),
            ["big: spills registers (8/12 bytes stores/loads), more than its BIG_SPILL_BYTES allows, (8, 11)"]
        );
        assert_eq!(
            ptxas_slow(&k, &allow("const BIG_SPILL_BYTES: (u32, u32) = (4, 64);")).len(),
            1
        );
        // Another kernel's allowance is not this one's.
        assert_eq!(
            ptxas_slow(
                &k,
                &allow("const SMALL_SPILL_BYTES: (u32, u32) = (64, 64);")
            )
            .len(),
            1
        );
        assert_eq!(parse_ptxas_report("ptxas info    : 0 bytes gmem\n"), []);
    }

    /// ptxas's performance diagnostics are each reported; its ordinary
    /// lines are not. The first is what CUDA 13's ptxas prints for this
    /// repository's hgemm_sm90 with its `.maxntid` removed; the second has
    /// the form of its `wgmma` serialization notes.
    #[test]
    fn ptxas_performance_losses_are_reported() {
        let report = "\
ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register count at entry.
ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to the presence of Extern calls in the function 'k'.
ptxas info    : Used 168 registers, used 1 barriers
ptxas info    : Compile time = 568.536 ms
";
        assert_eq!(
            ptxas_performance_losses(report),
            [
                "ptxas: (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register count at entry.",
                "ptxas: (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to the presence of Extern calls in the function 'k'.",
            ]
        );
        assert!(ptxas_performance_losses(REPORT).is_empty());
    }
}
