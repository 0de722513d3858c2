use layout_core::layout;

fn main() {
    // Nothing after `:`: the message says which part is missing.
    let _ = layout!((2,2):);
}
