// A divide of an A of size 0: the tiler's complement is only asked to
// exist, and (2,2):(1,1)'s second mode, stride 1, does not pass the
// offset 1 its first mode reaches.
use layout_core::{algebra::logical_divide, layout};

fn main() {
    let r = logical_divide(layout!((0,4):(1,0)), layout!((2,2):(1,1)));
    println!("{r}");
}
