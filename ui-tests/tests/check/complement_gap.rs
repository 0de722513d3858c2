// A static complement that leaves a gap in [0, M): `cargo check` refuses it.
use layout_core::{algebra::complement, layout, C};

fn main() {
    // unsound.jsonl, complement-0037: CuTe prints _2:_30, but A's modes
    // 6:1, 5:6 and 2:61 with _2:_30 never reach offset 60, so (A, R) does
    // not cover [0, 91): no layout completes A there.
    let r = complement(layout!((1,6,2,5):(122,1,61,6)), C::<91>);
    println!("{r}");
}
