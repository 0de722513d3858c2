//! Integration tests of the layout workspace live in `tests/`; the build
//! script turns the golden vectors into typed test code.
