use layout_core::{layout, print_layout};

fn main() {
    print!("{}", print_layout(layout!((2,2,2):(1,2,4))));
}
