// A static composition whose B covers part of a mode of A, then goes on
// past it: `cargo check` refuses it.
use layout_core::{algebra::composition, layout};

fn main() {
    // A' is (4,6):(1,5). B's mode 3:2 covers 2 elements of A's first mode
    // (offsets 0, 2), then its third element, B(2) = 4, is A's coordinate
    // (0,1) = 5: the size 3 is not a multiple of the 2 it covers.
    let r = composition(layout!((4,6):(1,5)), layout!(3:2));
    println!("{r}");
}
