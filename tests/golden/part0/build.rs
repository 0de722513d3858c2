//! Generate this part's half of the typed golden cases.

const PART: usize = 0;
include!("../gen.rs");
