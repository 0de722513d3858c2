use layout_core::layout;

fn main() {
    let _ = layout!((2,2.5):(1,2));
}
