use layout_core::{algebra::zipped_divide, layout, C};

fn main() {
    // CuTe refuses a tiler with more modes than the layout ("Mismatched Ranks").
    let r = zipped_divide(layout!((4,6):(1,4)), (C::<2>, C::<2>, C::<2>));
    println!("{r}");
}
