//! Generate this part's half of the typed golden cases.

const PART: usize = 1;
include!("../gen.rs");
