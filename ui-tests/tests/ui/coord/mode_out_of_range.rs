use layout_core::{get, layout};

fn main() {
    let h = layout!((2,(2,2)):(4,(2,1)));
    let _ = get::<2, _>(h);
}
