//! Compile-fail tests live in `tests/ui/<category>/`, pass cases in `tests/pass/`.
