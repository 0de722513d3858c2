use layout_core::layout;

fn main() {
    // Nothing before `:`.
    let _ = layout!(:(1,2));
}
