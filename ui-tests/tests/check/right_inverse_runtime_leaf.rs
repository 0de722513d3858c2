// The typed inverses take static layouts: `cargo check` refuses a run-time
// leaf (DynLayout's inverses take them).
use layout_core::{algebra::right_inverse, layout};

fn main() {
    let n = std::env::args().count();
    let r = right_inverse(layout!((4):(n)));
    println!("{r}");
}
