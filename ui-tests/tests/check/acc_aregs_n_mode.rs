use layout_core::atom::accumulator::convert_layout_acc_aregs;
use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
use layout_core::layout;

fn main() {
    // Three n-atoms of accumulators: the last A atom (two n-atoms wide
    // along K) would be half missing.
    let p = convert_layout_acc_aregs(Mma, layout!(((2,2),2,3):((1,2),4,8)));
    println!("{p}");
}
