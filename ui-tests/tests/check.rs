//! trybuild in check mode, as a user's own compile-fail suite runs: this
//! `TestCases` has no pass case, so trybuild runs `cargo check`, and each
//! case must fail there. One case per class of static misuse that the type
//! checker refuses (the misuses refused only after monomorphisation are in
//! `ui.rs`, which builds).

// The expected `.stderr` files are pinned to the toolchain they were written on.
#[rustversion::attr(
    not(stable(1.95)),
    ignore = "the .stderr files are pinned to stable 1.95"
)]
#[test]
fn check() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/check/*.rs");
}
