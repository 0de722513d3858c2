// A named constant written as an identifier is a run-time leaf: the warning
// points at the identifier, and the static size it was meant for is refused
// with a message that says how to write a static leaf.
use layout_core::layout_type;

const MR: usize = 8;
type Micro = layout_type!((MR, 4));

fn main() {
    let buf = [0f32; Micro::COSIZE];
    let _ = buf;
}
