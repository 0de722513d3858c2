//! trybuild: every misuse is a compile error worth showing a user. The pass
//! cases make trybuild build (not only check), which is what reveals the
//! errors raised after monomorphisation (static coordinate range, static
//! storage length, print_layout's rank).

// The expected `.stderr` files are pinned to the toolchain they were written on.
#[rustversion::attr(
    not(stable(1.95)),
    ignore = "the .stderr files are pinned to stable 1.95"
)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
    t.compile_fail("tests/ui/*/*.rs");
}
