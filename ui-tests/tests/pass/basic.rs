use layout_core::{crd, layout, layout_type, print_layout, slice, Tensor};

type H = layout_type!((2,(2,2)):(4,(2,1)));

fn main() {
    let h: H = layout!((2,(2,2)):(4,(2,1)));
    assert_eq!(h.crd2idx(crd!(1, (1, 0))), 6);
    let n = 3;
    let l = layout!((n, 4):(4, 1));
    assert_eq!(l.size(), 12);
    let t = Tensor::from_array([0u8; 20], layout!((3,4):(8,1)));
    assert_eq!(t[crd!(2, 3)], 0);
    assert_eq!(slice(crd!(1, _), h).to_string(), "((_2,_2)):((_2,_1))");
    print!("{}", print_layout(layout!((2,2):(1,2))));
}
