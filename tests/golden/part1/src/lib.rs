//! Generated typed cases of the golden vectors (see `../gen.rs`); run by
//! `tests/tests/golden.rs`.

#![allow(
    clippy::all,
    missing_docs,
    unused_imports,
    unused_variables,
    unused_braces
)]

use layout_core::*;
use layout_golden::*;

include!(concat!(env!("OUT_DIR"), "/golden_cases.rs"));
