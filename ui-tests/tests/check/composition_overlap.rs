// A static composition whose B carries past a mode of A: `cargo check` refuses it.
use layout_core::{algebra::composition, layout};

fn main() {
    // unsound.jsonl, composition-0203: CuTe prints (_2,_3):(_20,_10), which
    // gives 40 at coordinate (1,2) where A(B(1,2)) = A(8) = 1: B's modes
    // (strides 4 and 2) overlap and carry past A's first mode.
    let r = composition(layout!((8,5):(5,1)), layout!((2,3):(4,2)));
    println!("{r}");
}
