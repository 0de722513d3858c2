//! Seed 000's trace program: every mapping of the walkthrough, checked.
//!
//! It prints every line of the walkthrough's key outputs and closes with the
//! number of checks that ran.

use layout_core::algebra::composition;
use layout_core::{
    crd, flatten, get, group, layout, make_layout_left, make_layout_right, slice_and_offset,
    Tensor, C,
};

struct Checks(usize);

impl Checks {
    #[track_caller]
    fn eq<T: PartialEq + std::fmt::Debug>(&mut self, got: T, want: T) {
        assert_eq!(got, want);
        self.0 += 1;
    }
}

fn main() {
    let mut ck = Checks(0);

    // Row- and column-major 3x4: offset(m,n) = 4m + n and m + 3n.
    let row = layout!((3,4):(4,1));
    let column = layout!((3,4):(1,3));
    for m in 0..3 {
        for n in 0..4 {
            ck.eq(row.crd2idx((m, n)), 4 * m + n);
            ck.eq(column.crd2idx((m, n)), m + 3 * n);
        }
    }
    ck.eq(row.crd2idx(crd!(1, 2)), 6);
    ck.eq(column.crd2idx(crd!(1, 2)), 7);

    // size and cosize: padded and broadcast.
    let padded = layout!((3,4):(6,1));
    ck.eq((padded.size(), padded.cosize()), (12, 16));
    let broadcast = layout!((3,4):(0,1));
    ck.eq((broadcast.size(), broadcast.cosize()), (12, 4));
    for m in 0..3 {
        ck.eq(broadcast.crd2idx((m, 2usize)), 2);
    }

    // row(i): the 1-D index is split colexicographically by the shape.
    let offsets: Vec<usize> = (0..12).map(|i| row.call(i)).collect();
    for (i, &o) in offsets.iter().enumerate() {
        ck.eq(o, row.crd2idx((i % 3, i / 3)));
    }
    ck.eq(row.call(5), 9);
    let text: Vec<String> = offsets.iter().map(|o| o.to_string()).collect();
    println!("row(i): {}", text.join(" "));

    // The hierarchical layout and its three coordinate forms.
    let h = layout!((2,(2,2)):(4,(2,1)));
    println!("hierarchical: {h}");
    for m in 0..2usize {
        let mut line = String::new();
        for j in 0..4usize {
            let (a, b) = (j % 2, j / 2);
            let natural = h.crd2idx((m, (a, b)));
            ck.eq(natural, 4 * m + 2 * a + b);
            ck.eq(h.crd2idx((m, j)), natural);
            ck.eq(h.call(m + 2 * j), natural);
            line += &format!("{natural:4}");
        }
        println!("{line}");
    }
    ck.eq(h.crd2idx(crd!(1, (1, 0))), 6);
    ck.eq(h.crd2idx(crd!(1, 1)), 6);
    ck.eq(h.call(3), 6);
    ck.eq((h.rank(), h.depth(), h.size()), (2, 2, 8));
    ck.eq(get::<1, _>(h).size(), 4);
    ck.eq(get::<0, _>(get::<1, _>(h)).size(), 2);
    ck.eq(get::<1, _>(h).to_string(), "(_2,_2):(_2,_1)".to_string());

    // flatten keeps the function; group<1,3> restores the nesting.
    let flat = flatten(h);
    println!("flatten(h): {flat}");
    for i in 0..8 {
        ck.eq(flat.call(i), h.call(i));
    }
    ck.eq(group::<1, 3, _>(flat).to_string(), h.to_string());

    // Compact strides.
    ck.eq(
        make_layout_left((C::<3>, C::<4>)).to_string(),
        "(_3,_4):(_1,_3)".to_string(),
    );
    ck.eq(
        make_layout_right((C::<3>, C::<4>)).to_string(),
        "(_3,_4):(_4,_1)".to_string(),
    );
    ck.eq(
        make_layout_left((C::<2>, (C::<2>, C::<2>))).to_string(),
        "(_2,(_2,_2)):(_1,(_2,_4))".to_string(),
    );
    ck.eq(
        make_layout_right((C::<2>, (C::<2>, C::<2>))).to_string(),
        h.to_string(),
    );

    // Static, dynamic and mixed leaves print as CuTe prints them.
    let columns = 4usize;
    ck.eq(
        layout!((3,4):(4,1)).with_dynamic_leaves().to_string(),
        "(3,4):(4,1)".to_string(),
    );
    ck.eq(
        layout!((3, columns):(columns, 1)).to_string(),
        "(_3,4):(4,_1)".to_string(),
    );

    // Slicing: the fixed coordinate becomes an offset, the rest a layout.
    let (row_layout, offset) = slice_and_offset(crd!(1, _), padded);
    ck.eq(row_layout.to_string(), "(_4):(_1)".to_string());
    ck.eq(row_layout.call(0), 0);
    println!("slice_and_offset offset: {offset}");
    ck.eq(offset, 6);

    let mut storage = [0i32; 16];
    let mut a = Tensor::new(&mut storage[..], padded).expect("16 elements cover cosize 16");
    for m in 0..3 {
        for n in 0..4 {
            a[(m, n)] = (10 * m + n) as i32;
        }
    }
    {
        let row_view = a.slice(crd!(1, _));
        ck.eq(row_view.data_offset(), 6);
        for j in 0..4usize {
            ck.eq(row_view[j], (10 + j) as i32);
        }
    }
    {
        let column_view = a.slice(crd!(_, 2));
        ck.eq(column_view.data_offset(), 2);
        ck.eq(column_view.layout().to_string(), "(_3):(_6)".to_string());
    }
    {
        let mut row_view = a.slice_mut(crd!(1, _));
        row_view[2usize] = 99;
    }
    ck.eq(a[crd!(1, 2)], 99);
    ck.eq(storage[8], 99);

    // Thread-value layout of a tiny 2x4 tile: (thread, value) -> q -> (m,n) -> offset.
    // The typed composition: static in, static (zero-sized) out.
    let tv = layout!((4,2):(1,4));
    let data_layout = layout!((2,4):(4,1));
    let tv_to_address = composition(data_layout, tv);
    ck.eq(core::mem::size_of_val(&tv_to_address), 0);
    let mut tiny = [0u8; 8];
    for t in 0..4usize {
        for v in 0..2usize {
            let q = tv.crd2idx((t, v));
            let (m, n) = (q % 2, q / 2);
            let offset = data_layout.crd2idx((m, n));
            ck.eq(tv_to_address.crd2idx((t, v)), offset);
            tiny[q] += 1;
            if (t, v) == (0, 1) {
                println!("t={t} v={v} -> q={q} -> ({m},{n}) -> offset={offset}");
            }
        }
    }
    ck.eq(tiny, [1; 8]);

    // The SM80 16x8x16 A operand: which lane holds which element of the 16x16 tile.
    use layout_core::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN as Mma};
    let a_tv = <Mma as MmaAtom>::ALayout::default();
    let smem = layout!((16,16):(16,1));
    let mut covered = [false; 256];
    for lane in 0..32usize {
        for v in 0..8usize {
            let q = a_tv.crd2idx((lane, v));
            let (m, k) = (q % 16, q / 16);
            let (a, b, c) = (v % 2, (v / 2) % 2, v / 4);
            ck.eq((m, k), (lane / 4 + 8 * b, 2 * (lane % 4) + a + 8 * c));
            ck.eq(covered[q], false);
            covered[q] = true;
        }
    }
    let q = a_tv.crd2idx((0usize, 1usize));
    let (m, k) = (q % 16, q / 16);
    let physical = smem.crd2idx((m, k));
    println!("lane=0 v=1 -> A({m},{k}) q={q} physical_offset={physical}");
    ck.eq((m, k, q, physical), (0, 1, 16, 1));
    ck.eq(covered.iter().filter(|&&c| c).count(), 256);

    println!(
        "Verified {} checks; 8 tiny-tile values and 256 MMA A values covered.",
        ck.0
    );
}

/// `cargo test` runs the example, so its assertions execute.
#[test]
fn runs() {
    main();
}
