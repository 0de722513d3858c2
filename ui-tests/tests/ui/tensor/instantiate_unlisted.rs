use layout_core::{instantiate, layout, tensor::partition::local_tile, Tensor, C};

/// The first element of tile (bm, 0) of a row-major matrix.
#[instantiate((64, 8), (32, 8))]
fn first<const BM: usize, const BK: usize>(a: &[f32], k: usize, bm: usize) -> f32 {
    let m = a.len() / k;
    let t = Tensor::new(a, layout!((m, k):(k, 1))).unwrap();
    local_tile(t, (C::<BM>, C::<BK>), (bm, 0usize))[(0usize, 0usize)]
}

fn main() {
    let a = vec![0f32; 128 * 8];
    let _ = first::<64, 8>(&a, 8, 1);
    // (16, 8) is not listed.
    let _ = first::<16, 8>(&a, 8, 1);
}
