use layout_core::{algebra::logical_divide, layout};

fn main() {
    // unsound.jsonl, logical_divide-0198: a tile of 3 does not divide A's
    // first mode of size 4; CuTe prints ((_3),(_3,_4)):((_4),(_12,_1)),
    // 36 offsets for a 32-element A.
    let r = logical_divide(layout!((8,4):(4,1)), layout!((3):(1)));
    println!("{r}");
}
