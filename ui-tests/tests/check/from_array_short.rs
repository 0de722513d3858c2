use layout_core::{layout, Tensor};

fn main() {
    // (3,4):(8,1) reaches offset 2*8 + 3*1 = 19: it needs 20 elements.
    let t = Tensor::from_array([0u8; 19], layout!((3,4):(8,1)));
    let _ = t.size();
}
