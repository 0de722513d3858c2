//! A `no_std` crate without an allocator (`tests/nostd-probe`) uses the typed
//! algebra on mixed layouts: composition, zipped_divide, logical_divide and
//! logical_product with a run-time leaf must build without `alloc`.

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn mixed_algebra_builds_without_alloc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("nostd-probe/Cargo.toml");
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nostd-probe");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("run cargo build");
    assert!(
        out.status.success(),
        "the no_std probe does not build without alloc:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
