use layout_core::{layout, Tensor};

fn main() {
    // 1100 is past `C<N>`'s table: the length has no type-level form, so
    // the refusal points at `Tensor::new`, which checks it at run time.
    let t = Tensor::from_array([0u8; 1100], layout!((3,4):(8,1)));
    let _ = t.size();
}
