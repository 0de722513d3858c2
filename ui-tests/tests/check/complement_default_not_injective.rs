// complement_default(A) is the complement up to cosize(filter(A)); A's two
// modes of stride 1 overlap, so A has no complement: `cargo check` refuses it.
use layout_core::{algebra::complement_default, layout};

fn main() {
    let c = complement_default(layout!((2,2):(1,1)));
    println!("{c}");
}
