// A static product by a B of size 0: `cargo check` refuses it (CuTe's
// cosize(B) evaluates B at size(B) - 1).
use layout_core::{algebra::logical_product, layout};

fn main() {
    let r = logical_product(layout!(4:1), layout!((0,2):(1,4)));
    println!("{r}");
}
