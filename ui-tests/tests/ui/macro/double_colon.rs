use layout_core::layout;

fn main() {
    let _ = layout!((2,2)::(1,2));
}
