// upcast::<2> of a layout whose stride 3 the composition computed.
use layout_core::{algebra::{composition, upcast}, layout};

fn main() {
    let l = composition(layout!((4,2):(3,12)), layout!((4,2):(1,4)));
    let u = upcast::<2, _, _>(l);
    println!("{u}");
}
