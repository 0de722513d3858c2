use layout_core::layout;

fn main() {
    let _ = layout!((2,"4"):(1,2));
}
