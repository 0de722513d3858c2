// A static product whose A has overlapping modes: `cargo check` refuses it
// (A has no complement to lay its copies out with).
use layout_core::{algebra::logical_product, layout};

fn main() {
    let r = logical_product(layout!((2,2):(2,3)), layout!(2:1));
    println!("{r}");
}
