use layout_core::{layout, Tensor};

fn main() {
    let t = Tensor::from_array([0u8; 19], layout!((3,4):(8,1)));
    let _ = t.size();
}
