// A static tile that does not divide the tensor's layout: `cargo check`
// refuses `local_tile`, as it does the divides.
use layout_core::{layout, tensor::partition::local_tile, Tensor};

fn main() {
    let data = [0f32; 32];
    let t = Tensor::new(&data[..], layout!((8,4):(4,1))).unwrap();
    // The tile 3:1 and its complement 12:3 step by 3 across the layout's
    // first mode (size 8), as logical_divide-0198 of unsound.jsonl.
    let _ = local_tile(t, layout!((3):(1)), 0usize);
}
