use layout_core::{algebra::upcast, layout};

fn main() {
    // Stride 3 neither divides 2 nor is a multiple of it: CuTe refuses this too.
    let l = upcast::<2, _, _>(layout!((4,2):(3,12)));
    println!("{l}");
}
