use layout_core::atom::accumulator::convert_layout_acc_aregs;
use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
use layout_core::layout;

fn main() {
    // Two accumulators per n-atom: not this atom's C fragment (4 values).
    let p = convert_layout_acc_aregs(Mma, layout!((2,2,4):(1,2,4)));
    println!("{p}");
}
