use layout_core::layout;

fn main() {
    let _ = layout!((2,_):(1,2));
}
