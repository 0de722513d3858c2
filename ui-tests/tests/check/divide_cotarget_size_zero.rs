// A divide of an A that coalesces to a tuple with a mode of static size 0:
// the complement of the tiler would divide by that mode.
use layout_core::{algebra::logical_divide, layout, C};

fn main() {
    let _ = logical_divide(layout!((2,(0,3)):(1,(2,5))), (C::<2>, C::<1>));
}
