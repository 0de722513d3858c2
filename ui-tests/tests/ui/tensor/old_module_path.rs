// A module's path from before the layer folders still resolves; naming the
// module warns with its new path (an error here, under deny).
#![deny(deprecated)]
#![allow(unused_imports)]
use layout_core::algorithm;
use layout_core::partition;

fn main() {}
