// A static divide by a tiler whose modes overlap: `cargo check` refuses it
// (the tiler has no complement).
use layout_core::{algebra::logical_divide, layout};

fn main() {
    let r = logical_divide(layout!(8:1), layout!((2,2):(1,1)));
    println!("{r}");
}
