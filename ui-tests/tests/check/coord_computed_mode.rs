// A static coordinate outside a computed mode: logical_divide(8:1, 4:2) is
// ((_4),(_2)):((_2),(_1)) up to nesting, its second mode of size 2
// computed by the divide; `cargo check` compares the entry _3 with it.
use layout_core::{algebra::logical_divide, crd, layout};

fn main() {
    let d = logical_divide(layout!(8:1), layout!(4:2));
    let _ = d.crd2idx(crd!(0, 3));
}
