//! Integration tests of the layout workspace live in `tests/`; the typed
//! golden test is the `layout-golden` package under `golden/`.
