use layout_core::{layout, Tensor};

fn main() {
    let m = 3usize;
    // A run-time leaf: the cosize is not known to the type checker.
    let t = Tensor::from_array([0u8; 32], layout!((m,4):(8,1)));
    let _ = t.size();
}
