use layout_core::{crd, layout, layout_type, print_layout, slice, Tensor};

type H = layout_type!((2,(2,2)):(4,(2,1)));

const MR: usize = 8;
const NR: usize = 4;
type Micro = layout_type!((C<MR>, C<NR>):(C<NR>, 1));

fn main() {
    // Named constants as static leaves: the array length is a constant.
    let acc = [0f32; Micro::COSIZE];
    assert_eq!(acc.len(), 32);
    assert_eq!(Micro::default().to_string(), "(_8,_4):(_4,_1)");
    // A value beyond `C<N>`'s table is still static, spelled by the macro.
    assert_eq!(crd!(1100).to_string(), "_1100");
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
