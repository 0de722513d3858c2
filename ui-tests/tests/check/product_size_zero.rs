// A product whose A has static size 0: its complement would divide by 0.
use layout_core::{algebra::logical_product, layout};

fn main() {
    let _ = logical_product(layout!((2,0):(1,2)), layout!((3,2):(1,3)));
}
