// A static tiler that does not divide the layout: `cargo check` refuses it.
use layout_core::{algebra::logical_divide, layout};

fn main() {
    // unsound.jsonl, logical_divide-0198: the tile of 3 and its complement
    // 12:3 step by 3 across A's first mode (size 8); CuTe prints
    // ((_3),(_3,_4)):((_4),(_12,_1)), 36 offsets for a 32-element A.
    let r = logical_divide(layout!((8,4):(4,1)), layout!((3):(1)));
    println!("{r}");
}
