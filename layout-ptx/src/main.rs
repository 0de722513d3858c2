//! `layout-ptx CRATE_DIR OUT_DIR [--arch sm_90]`: builds the lib target of
//! the crate at CRATE_DIR to PTX (`OUT_DIR/<crate>.ptx`) with Debian's
//! `rustc-web`, adds the launch bounds its source declares, checks every
//! kernel, and compiles the PTX with ptxas (`OUT_DIR/<crate>.<arch>.cubin`).
//!
//! Prints one line per kernel from the PTX (lines, `fma.rn.f32` and
//! `div`/`rem` counts) and one from ptxas (registers, shared memory,
//! spills). Exit status: 0 when all is well; 1 when a kernel calls a
//! function, uses local memory, spills or draws one of ptxas's "Potential
//! Performance Loss" diagnostics (`wgmma` serialized, `setmaxnreg`
//! ignored; warnings instead with `--lenient`), breaks what its source declares (no division,
//! instruction counts), or ptxas rejects the PTX (one line per problem on
//! stderr); 2 on bad input (no Cargo.toml, no lib target,
//! a declaration the tool cannot read, a failed build, an unknown arch, a
//! tool that cannot be installed).
//!
//! The build: `/usr/bin/cargo rustc --lib --release --target
//! nvptx64-nvidia-cuda -Zbuild-std=core -- --emit=asm` with one codegen
//! unit, `-C target-cpu=ARCH` and `-Cpanic=immediate-abort`, in the target
//! directory cargo gives the crate (its workspace's `target/`, or
//! `CARGO_TARGET_DIR`), under `nvptx/ARCH/`: host builds keep theirs, and
//! each arch its own (switching arch rebuilds nothing).
//!
//! The crate: a `#![no_std]` lib (crate-type lib/rlib, not cdylib) with
//! `#![feature(abi_ptx, stdarch_nvptx)]`, a `#[panic_handler]` that traps,
//! and kernels as `#[no_mangle] pub unsafe extern "ptx-kernel" fn`. Next
//! to a kernel `foo`, module-level consts with literal values declare what
//! the tool cannot see in Rust (see `layout_ptx::decl`):
//! `FOO_LAUNCH_BOUNDS: (u32, u32) = (threads, min_blocks_per_sm)`,
//! `FOO_SPILL_BYTES: (u32, u32) = (stores, loads)` (the most ptxas may spill),
//! `FOO_NO_DIVISION: bool = true`, `FOO_EXPECT_INSTRUCTIONS: &[(&str,
//! usize)] = &[("mma.sync", 2)]`. Every `.rs` file under `src/` is read.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use clap::Parser;
use layout_ptx::decl::Decls;
use layout_ptx::ptx;
use layout_ptx::toolchain::{self, CARGO, RUSTC, TARGET};
use serde_json::Value;

/// Builds a crate's GPU kernels to PTX and a cubin, and checks them.
#[derive(Parser)]
#[command(name = "layout-ptx", version)]
struct Args {
    /// The crate whose lib target holds the kernels (a directory with a
    /// Cargo.toml).
    crate_dir: PathBuf,
    /// Where `<crate>.ptx` and `<crate>.<arch>.cubin` go (created if missing).
    out_dir: PathBuf,
    /// The GPU architecture: rustc's `-C target-cpu` and ptxas's `-arch`.
    #[arg(long, default_value = "sm_90")]
    arch: String,
    /// The PTX ISA version to write (`8.3`, ...), where a kernel's inline
    /// assembly needs a newer one than the compiler's default for the arch
    /// (`.version 8.0` for sm_90a).
    #[arg(long, value_name = "VERSION")]
    ptx: Option<String>,
    /// Report a kernel that calls a function, uses local memory or spills
    /// registers as a warning instead of failing (it runs, slower). What
    /// the source declares (no division, instruction counts) and ptxas's
    /// acceptance still fail the build.
    #[arg(long)]
    lenient: bool,
}

/// A failure: its exit status and its lines for stderr.
struct Fail(u8, Vec<String>);

fn bad_input(line: impl Into<String>) -> Fail {
    Fail(2, vec![line.into()])
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(code, lines)) => {
            for l in lines {
                eprintln!("layout-ptx: {l}");
            }
            ExitCode::from(code)
        }
    }
}

fn run(args: &Args) -> Result<(), Fail> {
    let manifest = args.crate_dir.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(bad_input(format!(
            "no Cargo.toml in {}",
            args.crate_dir.display()
        )));
    }
    let manifest = manifest
        .canonicalize()
        .map_err(|e| bad_input(format!("{}: {e}", manifest.display())))?;
    let crate_dir = manifest.parent().unwrap_or(Path::new("."));
    let src = crate_dir.join("src");
    let decls = if src.is_dir() {
        Decls::scan_dir(&src).map_err(|e| Fail(2, e))?
    } else {
        Decls::default()
    };

    toolchain::ensure_rustc_web().map_err(bad_input)?;
    let archs = toolchain::known_archs();
    if !archs.contains(&args.arch) {
        return Err(bad_input(format!(
            "{RUSTC} knows no GPU {} (it knows {})",
            args.arch,
            archs.join(", ")
        )));
    }
    let (lib_name, target_dir) = lib_target(&manifest)?;

    std::fs::create_dir_all(&args.out_dir)
        .map_err(|e| bad_input(format!("cannot create {}: {e}", args.out_dir.display())))?;
    let ptx_feature = match &args.ptx {
        None => String::new(),
        Some(v) => match v.split_once('.') {
            Some((major, minor))
                if major.len() == 1
                    && minor.len() == 1
                    && major
                        .chars()
                        .chain(minor.chars())
                        .all(|c| c.is_ascii_digit()) =>
            {
                format!(" -C target-feature=+ptx{major}{minor}")
            }
            _ => return Err(bad_input(format!("--ptx {v}: a version such as 8.3"))),
        },
    };
    let flags = format!("{}{ptx_feature}", args.arch);
    let asm = build(
        &manifest,
        &lib_name,
        &target_dir.join("nvptx").join(&args.arch),
        &flags,
    )?;
    let text =
        std::fs::read_to_string(&asm).map_err(|e| bad_input(format!("{}: {e}", asm.display())))?;
    let text = ptx::add_all_launch_bounds(&text, &decls).map_err(|e| Fail(1, e))?;
    let ptx_path = args.out_dir.join(format!("{lib_name}.ptx"));
    std::fs::write(&ptx_path, &text)
        .map_err(|e| bad_input(format!("{}: {e}", ptx_path.display())))?;

    let (reports, mut problems) = ptx::check_module(&text, &decls);
    let mut slow = Vec::new();
    for r in &reports {
        println!("layout-ptx: {r}");
        problems.extend(r.problems.iter().cloned());
        slow.extend(r.slow.iter().cloned());
        for w in &r.warnings {
            eprintln!("layout-ptx: warning: {w}");
        }
    }
    if slow.iter().any(|s| s.ends_with(LOCAL)) {
        let lines = local_lines(
            &manifest,
            &lib_name,
            &target_dir,
            &args.arch,
            &flags,
            crate_dir,
        );
        for s in slow.iter_mut().filter(|s| s.ends_with(LOCAL)) {
            s.push_str(&lines);
        }
    }

    let ptxas = toolchain::ensure_ptxas().map_err(bad_input)?;
    let cubin = args.out_dir.join(format!("{lib_name}.{}.cubin", args.arch));
    let out = Command::new(&ptxas)
        .arg(format!("-arch={}", args.arch))
        .arg("-v")
        .arg(&ptx_path)
        .arg("-o")
        .arg(&cubin)
        .output()
        .map_err(|e| bad_input(format!("cannot run {}: {e}", ptxas.display())))?;
    let report =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        eprint!("{report}");
        problems.push(format!("ptxas rejected {}", ptx_path.display()));
        return Err(Fail(1, problems));
    }
    let kernels = ptx::parse_ptxas_report(&report);
    for k in &kernels {
        println!("ptxas: {k}");
    }
    slow.extend(ptx::ptxas_slow(&kernels, &decls));
    slow.extend(ptx::ptxas_performance_losses(&report));
    if args.lenient {
        for s in &slow {
            eprintln!("layout-ptx: warning: {s}");
        }
    } else if !slow.is_empty() {
        problems.extend(slow);
        problems.push(format!(
            "{} and its cubin are written; --lenient builds with these as warnings",
            ptx_path.display()
        ));
    }
    if !problems.is_empty() {
        return Err(Fail(1, problems));
    }
    eprintln!(
        "layout-ptx: wrote {} and {}",
        ptx_path.display(),
        cubin.display()
    );
    Ok(())
}

/// The end of a kernel's local-memory problem line (`ptx::check_entry`).
const LOCAL: &str = ": uses local memory";

/// Where the local memory comes from: the crate built again with line
/// tables (under `nvptx/ARCH-lines/`, only when a kernel uses local
/// memory), its `ld.local` / `st.local` accesses' source lines, as ` (at
/// src/lib.rs:79, ...)`, paths relative to the crate; the build that
/// inlines differently may not show them all. Empty when that build fails.
fn local_lines(
    manifest: &Path,
    lib_name: &str,
    target_dir: &Path,
    arch: &str,
    flags: &str,
    crate_dir: &Path,
) -> String {
    let dir = target_dir.join("nvptx").join(format!("{arch}-lines"));
    let flags = format!("{flags} -C debuginfo=line-tables-only");
    let Ok(asm) = build(manifest, lib_name, &dir, &flags) else {
        return String::new();
    };
    let Ok(text) = std::fs::read_to_string(asm) else {
        return String::new();
    };
    // The crate's own lines first, then its dependencies'.
    let (mut own, mut deps) = (Vec::new(), Vec::new());
    for (file, line) in ptx::local_memory_lines(&text) {
        let path = Path::new(&file);
        match path.strip_prefix(crate_dir) {
            Ok(p) => own.push(format!("{}:{line}", p.display())),
            Err(_) => deps.push(format!("{}:{line}", path.display())),
        }
    }
    let lines: Vec<String> = own.into_iter().chain(deps).collect();
    match lines.len() {
        0 => String::new(),
        n if n > 6 => format!(" (at {}, and {} more)", lines[..6].join(", "), n - 6),
        _ => format!(" (at {})", lines.join(", ")),
    }
}

/// The crate's lib target name (`-` as `_`) and cargo's target directory
/// for it, from `cargo metadata`.
fn lib_target(manifest: &Path) -> Result<(String, PathBuf), Fail> {
    let out = Command::new(CARGO)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(manifest)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| bad_input(format!("cannot run {CARGO}: {e}")))?;
    if !out.status.success() {
        return Err(bad_input(format!(
            "cargo cannot read {}",
            manifest.display()
        )));
    }
    let meta: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| bad_input(format!("cargo metadata: {e}")))?;
    let package = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest))
        .ok_or_else(|| {
            bad_input(format!(
                "{} is no package (a virtual workspace manifest?)",
                manifest.display()
            ))
        })?;
    let name = package["name"].as_str().unwrap_or("?");
    let lib = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["kind"].as_array().is_some_and(|k| {
                k.iter().any(|k| {
                    k != "bin"
                        && k != "test"
                        && k != "example"
                        && k != "bench"
                        && k != "custom-build"
                })
            })
        })
        .ok_or_else(|| bad_input(format!("{name} has no lib target (src/lib.rs)")))?;
    let kinds: Vec<&str> = lib["crate_types"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !kinds.iter().all(|k| *k == "lib" || *k == "rlib") {
        return Err(bad_input(format!(
            "{name}'s lib target is {} (crate-type): it must be a plain lib (rlib)",
            kinds.join(", ")
        )));
    }
    let lib_name = lib["name"].as_str().unwrap_or(name).replace('-', "_");
    let target_dir = meta["target_directory"]
        .as_str()
        .ok_or_else(|| bad_input("cargo metadata gave no target_directory"))?;
    Ok((lib_name, PathBuf::from(target_dir)))
}

/// Builds the lib to PTX; returns the `.s` rustc wrote. Cargo's output
/// (diagnostics included) goes to stderr.
/// `arch` is the target CPU, possibly followed by more rustc flags.
fn build(manifest: &Path, lib_name: &str, target_dir: &Path, arch: &str) -> Result<PathBuf, Fail> {
    // Everything the kernels use is instantiated in this rlib (a cdylib would
    // need llvm-bitcode-linker); one codegen unit makes one PTX module.
    // Panics abort (a trap), so the PTX has no calls into core's panic
    // machinery.
    let mut child = Command::new(CARGO)
        .env("RUSTC", RUSTC)
        .env("RUSTC_BOOTSTRAP", "1")
        .env(
            "RUSTFLAGS",
            format!("-C target-cpu={arch} -Zunstable-options -Cpanic=immediate-abort"),
        )
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .args(["rustc", "-q", "--manifest-path"])
        .arg(manifest)
        .args(["-Zbuild-std=core", "--target", TARGET, "--release", "--lib"])
        .args(["--message-format=json", "--target-dir"])
        .arg(target_dir)
        .args(["--", "--emit=asm"])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| bad_input(format!("cannot run {CARGO}: {e}")))?;
    // Cargo's JSON messages as they come: diagnostics to stderr as cargo
    // would print them, the lib's artifact noted.
    let mut rmeta = None;
    let mut said_ptx = false;
    let stdout = child.stdout.take().expect("piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| bad_input(format!("reading cargo's output: {e}")))?;
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            println!("{line}");
            continue;
        };
        match msg["reason"].as_str() {
            Some("compiler-message") => {
                let m = &msg["message"];
                // `--ptx` is rustc's unstable `+ptxNN` target feature: rustc
                // warns so for every crate of the build. It is what the flag
                // asks for; one line says so instead.
                let unstable_ptx = m["message"].as_str().is_some_and(|t| {
                    t.starts_with("unstable feature specified for `-Ctarget-feature`: `ptx")
                });
                if unstable_ptx {
                    if !said_ptx {
                        eprintln!(
                            "layout-ptx: --ptx sets rustc's unstable target feature +ptxNN (the PTX ISA version); its warning is not repeated"
                        );
                        said_ptx = true;
                    }
                } else if let Some(r) = m["rendered"].as_str() {
                    eprint!("{r}");
                }
            }
            Some("compiler-artifact")
                if msg["manifest_path"].as_str().map(Path::new) == Some(manifest) =>
            {
                rmeta = msg["filenames"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .find(|f| f.ends_with(".rmeta"))
                    .map(PathBuf::from);
            }
            _ => {}
        }
    }
    let status = child.wait().map_err(|e| bad_input(format!("cargo: {e}")))?;
    if !status.success() {
        return Err(bad_input(format!(
            "cargo could not build {} for {TARGET}",
            manifest.display()
        )));
    }
    // deps/lib<name>-<hash>.rmeta -> deps/<name>-<hash>.s
    let asm = rmeta.as_ref().and_then(|r| {
        let stem = r.file_stem()?.to_str()?.strip_prefix("lib")?;
        stem.starts_with(&format!("{lib_name}-"))
            .then(|| r.with_file_name(format!("{stem}.s")))
    });
    match asm {
        Some(s) if s.is_file() => Ok(s),
        Some(s) => Err(bad_input(format!(
            "cargo built {lib_name} but {} is missing (cargo clean --target-dir {} and retry)",
            s.display(),
            target_dir.display()
        ))),
        None => Err(bad_input(format!(
            "cargo reported no build of {lib_name}'s lib"
        ))),
    }
}
