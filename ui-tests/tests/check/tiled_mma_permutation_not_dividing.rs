// A TiledMMA whose static permutation does not divide the tensor:
// `cargo check` refuses the partition.
use layout_core::atom::{mma::make_tiled_mma, UniversalFMA};
use layout_core::{layout, Tensor, Underscore as X};

fn main() {
    // M is permuted by 3:1: A's M mode (4,2):(1,16) is cut by the divisor
    // (3,3):(1,3), whose stride 3 steps across that mode's first 4 unevenly.
    let mma = make_tiled_mma(UniversalFMA, layout!((1,1,1):(0,0,0)), (layout!(3:1), X, X));
    let data = [0f32; 32];
    let a = Tensor::new(&data[..], layout!(((4,2),4):((1,16),4))).unwrap();
    let p = mma.get_slice(0).partition_a(a);
    println!("{}", p.layout());
}
