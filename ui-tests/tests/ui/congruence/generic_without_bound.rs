use layout_core::{IntTuple, Layout};

fn make<S: IntTuple, D: IntTuple>(s: S, d: D) -> usize {
    Layout::new(s, d).size()
}

fn main() {
    let _ = make(3usize, 1usize);
}
