use layout_core::layout;

fn main() {
    let h = layout!((2,(2,2)):(4,(2,1)));
    let _ = h.get::<2>();
}
