// A static composition whose B steps across a mode of A unevenly: `cargo
// check` refuses it.
use layout_core::{algebra::composition, layout};

fn main() {
    // A' is (3,4):(1,5) (nothing coalesces). B's mode 3:2 steps by 2 over
    // A's first mode of size 3: B(1) = 2 is A(2) = 2, but B(2) = 4 lands
    // on A's coordinate (1,1) = 6, which no layout with stride 2 gives.
    let r = composition(layout!((3,4):(1,5)), layout!(3:2));
    println!("{r}");
}
