// A static coordinate outside a computed static shape (the divide's result
// has a computed leaf): `cargo check` refuses it, with the values.
use layout_core::{algebra::logical_divide, crd, layout};

fn main() {
    let d = logical_divide(layout!(8:1), layout!(4:2));
    let _ = d.crd2idx(crd!(9));
}
