// A divide by a tiler of static size 0: its complement would divide by 0.
use layout_core::{algebra::logical_divide, layout, C};

fn main() {
    let _ = logical_divide(layout!((8,4):(4,1)), (C::<0>, C::<2>));
}
