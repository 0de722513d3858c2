// A static layout whose modes overlap has no complement: `cargo check`
// refuses it.
use layout_core::{algebra::complement, layout, C};

fn main() {
    // Both modes have stride 1: offsets 0 and 1 are each reached twice.
    let r = complement(layout!((2,2):(1,1)), C::<8>);
    println!("{r}");
}
