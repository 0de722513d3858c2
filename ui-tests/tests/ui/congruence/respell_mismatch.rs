// `respell` changes how static leaves are spelled, never a value: a computed
// stride 32 cannot become the declared 16, nor a static leaf a run-time one.
use layout_core::{layout_type, make_layout_left, C};

fn wrong_value() -> layout_type!((32, 32):(1, 16)) {
    make_layout_left((C::<32>, C::<32>)).respell()
}

fn wrong_kind() -> layout_type!((32, n):(1, 32)) {
    make_layout_left((C::<32>, C::<32>)).respell()
}

fn main() {
    let _ = wrong_value();
    let _ = wrong_kind();
}
