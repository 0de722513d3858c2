//! The tools the build needs, installed when missing: Debian's `rustc-web`
//! (its LLVM has the NVPTX backend; rustup's toolchains are not used) and
//! ptxas from the PyPI wheel `nvidia-cuda-nvcc`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Debian's `rustc-web`.
pub const RUSTC: &str = "/usr/bin/rustc";
/// Debian's `cargo-web`.
pub const CARGO: &str = "/usr/bin/cargo";
/// The target the kernels are built for.
pub const TARGET: &str = "nvptx64-nvidia-cuda";
/// The source of `core` that `-Zbuild-std` builds (package `rust-web-src`).
pub const CORE_SRC: &str = "/usr/lib/rustlib/src/rust/library/core";
/// The wheel ptxas comes from (CUDA 13, the GPU machine's).
pub const PTXAS_WHEEL: &str = "nvidia-cuda-nvcc==13.0.88";

/// Whether `rustc-web` can build for [`TARGET`] with `-Zbuild-std=core`.
pub fn rustc_web_ready() -> bool {
    let knows_target = Command::new(RUSTC)
        .args(["--print", "target-list"])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| {
            o.status.success()
                && String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .any(|l| l == TARGET)
        });
    knows_target && Path::new(CORE_SRC).is_dir()
}

/// Installs `rustc-web`, `cargo-web` and `rust-web-src` with apt-get when
/// [`rustc_web_ready`] says no (through sudo when not root).
pub fn ensure_rustc_web() -> Result<(), String> {
    if rustc_web_ready() {
        return Ok(());
    }
    eprintln!("layout-ptx: installing Debian's rustc-web, cargo-web, rust-web-src");
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let apt = |args: &[&str], quiet_stdout: bool| -> Result<(), String> {
        let mut cmd = if root {
            Command::new("env")
        } else {
            let mut c = Command::new("sudo");
            c.arg("env");
            c
        };
        cmd.arg("DEBIAN_FRONTEND=noninteractive")
            .arg("apt-get")
            .args(args);
        if quiet_stdout {
            cmd.stdout(Stdio::null());
        }
        match cmd.status() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(format!("apt-get {} failed ({s})", args.join(" "))),
            Err(e) => Err(format!("cannot run apt-get: {e}")),
        }
    };
    apt(&["update", "-qq"], false)?;
    apt(
        &[
            "install",
            "-y",
            "-qq",
            "--no-install-recommends",
            "rustc-web",
            "cargo-web",
            "rust-web-src",
        ],
        true,
    )?;
    if rustc_web_ready() {
        Ok(())
    } else {
        Err(format!(
            "{RUSTC} still cannot build for {TARGET} after installing rustc-web"
        ))
    }
}

/// The NVPTX processors `rustc-web` knows (`sm_90`, `sm_90a`, ...).
pub fn known_archs() -> Vec<String> {
    Command::new(RUSTC)
        .args(["--print", "target-cpus", "--target", TARGET])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter_map(|l| l.split_whitespace().next())
                .filter(|w| w.starts_with("sm_"))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// ptxas: on `PATH`, else in a Python site-packages' `nvidia/cu*/bin/`.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("ptxas"))
        .find(|p| p.is_file())
    {
        return Some(p);
    }
    const FIND: &str = "import pathlib, site, sys\n\
        for d in site.getsitepackages() + [site.getusersitepackages()]:\n\
        \x20   for p in pathlib.Path(d).glob('nvidia/cu*/bin/ptxas'):\n\
        \x20       print(p); sys.exit(0)\n\
        sys.exit(1)\n";
    let out = Command::new("python3")
        .args(["-c", FIND])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()?
        .trim()
        .to_string();
    (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
}

/// [`find_ptxas`], installing [`PTXAS_WHEEL`] with pip when it finds none
/// (with `--user --break-system-packages` when a system-managed Python
/// refuses a plain install).
pub fn ensure_ptxas() -> Result<PathBuf, String> {
    if let Some(p) = find_ptxas() {
        return Ok(p);
    }
    eprintln!("layout-ptx: installing ptxas (pip: {PTXAS_WHEEL})");
    let pip = |extra: &[&str]| {
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(extra)
            .arg(PTXAS_WHEEL)
            .stdout(Stdio::from(std::io::stderr()))
            .status()
            .is_ok_and(|s| s.success())
    };
    if !pip(&[]) && !pip(&["--user", "--break-system-packages"]) {
        return Err(format!("pip could not install {PTXAS_WHEEL}"));
    }
    find_ptxas().ok_or_else(|| format!("no ptxas found after installing {PTXAS_WHEEL}"))
}
