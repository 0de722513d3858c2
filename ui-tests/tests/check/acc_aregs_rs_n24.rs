use layout_core::atom::accumulator::convert_layout_acc_aregs;
use layout_core::atom::SM90_64x24x16_F32F16F16_RS as Mma;
use layout_core::layout;

fn main() {
    // N = 24: a thread's accumulators are three 8-column blocks, one and a
    // half K-blocks of A (16 columns each): the last A fragment would be
    // half made of registers that do not exist.
    let p = convert_layout_acc_aregs(Mma, layout!(((2,2,3),1,1):((1,2,4),0,0)));
    println!("{p}");
}
