use layout_core::atom::accumulator::convert_layout_acc_aregs;
use layout_core::atom::SM90_64x64x8_F32TF32TF32_RS_TN as Mma;
use layout_core::layout;

fn main() {
    // tf32's A fragment (ALayout_64x8) puts a thread's two values in
    // columns t % 4 and t % 4 + 4; its accumulators are columns 2 (t % 4)
    // and 2 (t % 4) + 1: other threads' registers.
    let p = convert_layout_acc_aregs(Mma, layout!(((2,2,8),1,4):((1,2,4),0,32)));
    println!("{p}");
}
