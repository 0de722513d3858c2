// A static product whose B overlaps in A's complement: `cargo check` refuses it.
use layout_core::{algebra::logical_product, layout};

fn main() {
    // unsound.jsonl, logical_product-0188: CuTe prints a product whose
    // second mode ((_2),_2):((_4),_8) lands on offsets A already uses.
    let r = logical_product(
        layout!((1,(1,4,1),(1,1),4):(96,(4,12,48),(12,48),1)),
        layout!(((2),2):((1),2)),
    );
    println!("{r}");
}
