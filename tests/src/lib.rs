//! Integration tests of the layout workspace live in `tests/`; the typed
//! golden test is the `layout-golden` package under `golden/`.

/// The workspace README's tour, run as a doctest so that it stays true
/// (here rather than in layout-core, whose published package does not hold
/// the workspace README).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
