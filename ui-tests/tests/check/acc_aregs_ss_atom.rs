use layout_core::atom::accumulator::convert_layout_acc_aregs;
use layout_core::atom::SM90_64x64x16_F32F16F16_SS as Mma;
use layout_core::layout;

fn main() {
    // An SS wgmma reads A from shared memory: every thread of the
    // warpgroup "holds" all of A, none of it in its own accumulators.
    let p = convert_layout_acc_aregs(Mma, layout!(((2,2,8),1,4):((1,2,4),0,32)));
    println!("{p}");
}
