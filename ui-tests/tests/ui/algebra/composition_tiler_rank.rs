use layout_core::{algebra::composition, layout, C};

fn main() {
    // invalid.jsonl: invalid-003, a tiler with three modes for a rank-2 layout.
    let r = composition(layout!((4,6):(1,4)), (C::<4>, C::<4>, C::<4>));
    println!("{r}");
}
