//! Seed 004's `basic_layouts`: row- and column-major layouts, coordinates and
//! indices, nested modes, and static, dynamic and mixed dimensions.

use layout_core::{
    crd, layout, make_layout_left, make_layout_right, print_layout, to_cute_string, C,
};

fn row_and_column_major() {
    println!("== row_and_column_major");
    let row_major2x4 = make_layout_right((C::<2>, C::<4>));
    let col_major6x6 = make_layout_left((C::<6>, C::<6>));
    let row_major3d = make_layout_right((C::<4>, C::<4>, C::<4>));
    let col_major3d = make_layout_left((C::<4>, C::<4>, C::<4>));
    let from_coords = make_layout_right((C::<6>, C::<8>));
    print!("{}", print_layout(row_major2x4));
    print!("{}", print_layout(col_major6x6));
    println!("row_major3d: {row_major3d}");
    println!("col_major3d: {col_major3d}");
    println!("from_coords: {from_coords}");
}

fn coords_to_index() {
    println!("== coords_to_index");
    let row_major3x4 = make_layout_right((C::<3>, C::<4>));
    print!("{}", print_layout(row_major3x4));
    let idx = row_major3x4.crd2idx(crd!(1, 1));
    println!("index at (1, 1): {idx}");
    let (m, n) = row_major3x4.get_hier_coord(7);
    println!("coordinates at index 7: ({m}, {n})");
}

fn nested_modes() {
    println!("== nested_modes");
    let layout_a = layout!((4,4):(4,1));
    let layout_b = layout!(((2,2),(2,2)):((1,4),(2,8)));
    println!("layout_a: {layout_a}");
    println!("layout_b: {layout_b}");
    print!("{}", print_layout(layout_b));
}

fn specifying_coords() {
    println!("== specifying_coords");
    let comptime_coords = crd!(4, 4);
    let (a, b, c) = (2usize, 3usize, 4usize);
    let runtime_coords = crd!(a, b, c);
    let rows = 4usize;
    let mixed_shape = crd!(rows, 8);
    println!("comptime_coords: {}", to_cute_string(&comptime_coords));
    println!("runtime_coords: {}", to_cute_string(&runtime_coords));
    println!("mixed_shape: {}", to_cute_string(&mixed_shape));
}

fn dynamic_dimensions() {
    println!("== dynamic_dimensions");
    let row_major_comptime = make_layout_right((C::<16>, C::<8>));
    let (a, b) = (4usize, 8usize);
    let row_major_runtime = make_layout_right((a, b));
    let rows = 4usize;
    let row_major_mixed = make_layout_right((rows, C::<8>));
    println!("row_major_comptime: {row_major_comptime}");
    println!("row_major_runtime: {row_major_runtime}");
    println!("row_major_mixed: {row_major_mixed}");
}

fn nested_coords() {
    println!("== nested_coords");
    let shape1 = crd!(6, 8);
    let shape2 = crd!((2, 2), (3, 4));
    let shape3 = (shape1, shape2);
    println!("shape1: {}", to_cute_string(&shape1));
    println!("shape2: {}", to_cute_string(&shape2));
    println!("shape3: {}", to_cute_string(&shape3));
}

fn main() {
    row_and_column_major();
    coords_to_index();
    nested_modes();
    specifying_coords();
    dynamic_dimensions();
    nested_coords();
}

/// `cargo test` runs the example, so its assertions execute.
#[test]
fn runs() {
    main();
}
