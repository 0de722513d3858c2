use layout_core::{Layout, C};

fn main() {
    let _ = Layout::new((C::<2>, C::<2>), (C::<1>,));
}
