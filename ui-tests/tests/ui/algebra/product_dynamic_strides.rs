use layout_core::{algebra::blocked_product, layout};

fn main() {
    // invalid.jsonl, invalid-017: the complement inside the product needs
    // the block's strides sorted at compile time; a run-time stride at rank 2
    // cannot be (CuTe: "Dynamic-stride complement only for rank-1 layouts").
    let n = 2;
    let r = blocked_product(layout!((2,2):(1,n)), layout!((2,2):(1,2)));
    println!("{r}");
}
