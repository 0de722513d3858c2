use layout_core::layout;

const MR: usize = 8;

fn main() {
    let _ = layout!((C<MR, 4));
}
