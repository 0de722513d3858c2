//! The golden vectors printed by CuTe, as typed Rust code: each record is
//! built with its own leaves (exact print and table) and, for the core ops,
//! again with every leaf dynamic (value and table). The cases are generated
//! into two crates (`tests/golden/part0`, `part1`, one generator
//! `tests/golden/gen.rs`) that compile in parallel; this runs both, prints a
//! line per op and closes with `N passed, M failed`.
//!
//! The directory is `LAYOUT_GOLDEN_DIR` (default `tests/golden/data`, in the repository).

use layout_golden::Report;
use layout_golden_0::{FILES_FOUND, GOLDEN_DIR, OPS, SKIPPED};

fn main() {
    let mut rep = Report::default();
    if FILES_FOUND == 0 {
        eprintln!("no golden vectors found in {GOLDEN_DIR} (set LAYOUT_GOLDEN_DIR)");
        std::process::exit(1);
    }
    layout_golden_0::run(&mut rep);
    layout_golden_1::run(&mut rep);
    println!("golden vectors from {GOLDEN_DIR}");
    let (mut passed, mut failed) = (0, 0);
    let others: Vec<&'static str> = rep
        .counts
        .keys()
        .copied()
        .filter(|k| !OPS.contains(k))
        .collect();
    for op in OPS.iter().copied().chain(others) {
        let (p, f) = rep.counts.get(op).copied().unwrap_or_default();
        println!("{op:<20} {p:>5} passed {f:>4} failed");
        passed += p;
        failed += f;
    }
    for (op, n) in &rep.unsupported {
        println!("not in the typed API yet: {n} {op} builds (by profile)");
    }
    for (name, n) in SKIPPED {
        println!("skipped: {name} ({n} records, not a core op of this test)");
    }
    if !rep.deliberate.is_empty() {
        println!(
            "refused where CuTe's result breaks its own post-condition (counted as passed): {}",
            rep.deliberate.len()
        );
        for d in &rep.deliberate {
            println!("  {d}");
        }
    }
    for f in rep.failures.iter().take(40) {
        println!("FAILED {f}");
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
