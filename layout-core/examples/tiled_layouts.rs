//! Seed 004's `tiled_layouts` program: tiled layouts built by hand, by
//! `blocked_product` and by `zipped_divide`, nested compact layouts, and the
//! minimal repro that addresses a zipped layout by a nested coordinate.
//!
//! Every layout here is static: the algebra runs in the type system and the
//! results are zero-sized. Each printed value is checked against the seed.

use layout_core::algebra::{blocked_product, zipped_divide};
use layout_core::{crd, layout, make_layout_left, make_layout_right, print_layout, C};

fn use_layout_constructor() {
    // A 6x10 tile-major layout: 3x2 tiles (strides 1, 6), laid out 2x5 (strides 3, 12).
    let tiled = layout!(((3,2),(2,5)):((1,6),(3,12)));
    println!("use_layout_constructor: {tiled}");
    print!("{}", print_layout(tiled));
    assert_eq!(tiled.to_string(), "((_3,_2),(_2,_5)):((_1,_6),(_3,_12))");
}

fn use_blocked_product() {
    let tile = make_layout_left((C::<3>, C::<2>));
    let tiler = make_layout_left((C::<2>, C::<5>));
    let blocked = blocked_product(tile, tiler);
    println!("use_blocked_product: tile {tile}, tiler {tiler} -> {blocked}");
    assert_eq!(blocked.to_string(), "((_3,_2),(_2,_5)):((_1,_6),(_3,_12))");
    assert_eq!(core::mem::size_of_val(&blocked), 0);
    // The same function as the layout written by hand.
    let by_hand = layout!(((3,2),(2,5)):((1,6),(3,12)));
    assert_eq!(blocked.table(), by_hand.table());
}

fn use_zipped_divide() {
    let base = make_layout_right((C::<6>, C::<4>));
    let result = zipped_divide(base, (C::<2>, C::<2>));
    println!("use_zipped_divide: {base} -> {result}");
    print!("{}", print_layout(base));
    print!("{}", print_layout(result));
    assert_eq!(result.to_string(), "((_2,_2),(_3,_2)):((_4,_1),(_8,_2))");
    // The first tile is base's top-left 2x2: offsets 0, 4, 1, 5.
    let first: Vec<usize> = (0..4).map(|i| result.call(i)).collect();
    assert_eq!(first, [0, 4, 1, 5]);
    // One element, three ways: 1-D index, one index per mode, natural coordinate.
    let natural = result.crd2idx(crd!((1, 0), (1, 1)));
    let per_mode = result.crd2idx(crd!(1, 4));
    let one_d = result.call(1 + 4 * 4);
    println!("element ((1,0),(1,1)): natural {natural}, 2-D (1,4) {per_mode}, 1-D 17 {one_d}");
    assert_eq!((natural, per_mode, one_d), (14, 14, 14));
}

fn use_nested_layouts() {
    let shape = ((C::<2>, C::<3>), (C::<2>, C::<4>));
    let nested = make_layout_right(shape);
    let nested_col = make_layout_left(shape);
    println!("use_nested_layouts: {nested} and {nested_col}");
    assert_eq!(nested.to_string(), "((_2,_3),(_2,_4)):((_24,_8),(_4,_1))");
    assert_eq!(
        nested_col.to_string(),
        "((_2,_3),(_2,_4)):((_1,_2),(_6,_12))"
    );
}

fn minimal_repro() {
    let base = make_layout_right((C::<6>, C::<8>));
    let result = zipped_divide(base, (C::<2>, C::<2>));
    let linear_idx = result.crd2idx(crd!(1, 1));
    let natural = result.get_hier_coord(linear_idx);
    println!("minimal_repro: {linear_idx} {natural:?}");
    assert_eq!(linear_idx, 24);
    assert_eq!(natural, ((1, 0), (1, 0)));
}

fn main() {
    use_layout_constructor();
    use_blocked_product();
    use_zipped_divide();
    use_nested_layouts();
    minimal_repro();
}

/// `cargo test` runs the example, so its assertions execute.
#[test]
fn runs() {
    main();
}
