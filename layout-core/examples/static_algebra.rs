//! Seventeen static algebra results, computed by the compiler: every result
//! is a zero-sized type. Each line prints ours and, in parentheses, what
//! CuTe 4.7 printed for the same inputs; the program checks they agree.
//!
//! Its incremental build time is the typed algebra's compile-time figure
//! (see the README): `touch layout-core/examples/static_algebra.rs &&
//! cargo build --example static_algebra`.

use layout_core::algebra::{
    blocked_product, coalesce, complement, composition, flat_divide, left_inverse, logical_divide,
    logical_product, max_common_vector, raked_product, right_inverse, tiled_divide, zipped_divide,
    zipped_product, Swizzle,
};
use layout_core::{layout, C};
use std::fmt::Display;

fn show(n: &mut usize, what: &str, got: &dyn Display, cute: &str) {
    let got = got.to_string();
    println!("{what} = {got}  ({cute})");
    assert_eq!(got, cute, "{what}");
    *n += 1;
}

fn main() {
    let mut n = 0;
    let a = layout!((128,64):(64,1));

    let zd = zipped_divide(a, (C::<32>, C::<8>));
    show(
        &mut n,
        "zipped_divide((_128,_64):(_64,_1), (_32,_8))",
        &zd,
        "((_32,_8),(_4,_8)):((_64,_1),(_2048,_8))",
    );
    let ld = logical_divide(a, (layout!(16:2), layout!(8:1)));
    show(
        &mut n,
        "logical_divide((_128,_64):(_64,_1), (_16:_2,_8:_1))",
        &ld,
        "((_16,(_2,_4)),(_8,_8)):((_128,(_64,_2048)),(_1,_8))",
    );
    let co = composition(
        layout!((16,16):(16,1)),
        layout!(((4,8),(2,2,2)):((32,1),(16,8,128))),
    );
    show(
        &mut n,
        "composition((_16,_16):(_16,_1), ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128)))",
        &co,
        "((_4,_8),(_2,_2,_2)):((_2,_16),(_1,_128,_8))",
    );
    let bp = blocked_product(layout!((3,2):(1,3)), layout!((2,5):(1,2)));
    show(
        &mut n,
        "blocked_product((_3,_2):(_1,_3), (_2,_5):(_1,_2))",
        &bp,
        "((_3,_2),(_2,_5)):((_1,_6),(_3,_12))",
    );
    let rp = raked_product(layout!((4,2):(1,4)), layout!((2,4):(4,1)));
    show(
        &mut n,
        "raked_product((_4,_2):(_1,_4), (_2,_4):(_4,_1))",
        &rp,
        "((_2,_4),(_4,_2)):((_32,_1),(_8,_4))",
    );
    let cm = complement(layout!((4,8):(32,1)), C::<1024>);
    show(
        &mut n,
        "complement((_4,_8):(_32,_1), _1024)",
        &cm,
        "(_4,_8):(_8,_128)",
    );
    let ri = right_inverse(layout!((4,8):(8,1)));
    show(
        &mut n,
        "right_inverse((_4,_8):(_8,_1))",
        &ri,
        "(_8,_4):(_4,_1)",
    );
    let li = left_inverse(layout!((4,8):(16,1)));
    show(
        &mut n,
        "left_inverse((_4,_8):(_16,_1))",
        &li,
        "(_16,_4):(_4,_1)",
    );
    let td = tiled_divide(a, (C::<16>, C::<16>));
    show(
        &mut n,
        "tiled_divide((_128,_64):(_64,_1), (_16,_16))",
        &td,
        "((_16,_16),_8,_4):((_64,_1),_1024,_16)",
    );
    let fd = flat_divide(a, (C::<16>, C::<16>));
    show(
        &mut n,
        "flat_divide((_128,_64):(_64,_1), (_16,_16))",
        &fd,
        "(_16,_16,_8,_4):(_64,_1,_1024,_16)",
    );
    let lp = logical_product(layout!((2,2):(1,2)), layout!((4,4):(1,4)));
    show(
        &mut n,
        "logical_product((_2,_2):(_1,_2), (_4,_4):(_1,_4))",
        &lp,
        "((_2,_2),(_4,_4)):((_1,_2),(_4,_16))",
    );
    let zp = zipped_product(layout!((2,2):(1,2)), layout!((4,4):(1,4)));
    show(
        &mut n,
        "zipped_product((_2,_2):(_1,_2), (_4,_4):(_1,_4))",
        &zp,
        "((_2,_2),(_4,_4)):((_1,_2),(_4,_16))",
    );
    let cl = coalesce(layout!((2,(4,8)):(1,(2,8))));
    show(&mut n, "coalesce((_2,(_4,_8)):(_1,(_2,_8)))", &cl, "_64:_1");
    let sw = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
    show(
        &mut n,
        "composition(Swizzle<3,3,3>, (_8,_64):(_64,_1))",
        &sw,
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
    );
    let mv = max_common_vector(a, layout!((128,64):(1,128)));
    show(
        &mut n,
        "max_common_vector((_128,_64):(_64,_1), (_128,_64):(_1,_128))",
        &mv,
        "_1",
    );
    let zc = composition(zd, (layout!(4:1),));
    show(
        &mut n,
        "composition(zipped_divide result, (_4:_1))",
        &zc,
        "(_4):(_64)",
    );
    let lc = logical_divide(co, (C::<8>,));
    show(
        &mut n,
        "logical_divide(composition result, (_8))",
        &lc,
        "(((_4,_2),_4),(_2,_2,_2)):(((_2,_16),_32),(_1,_128,_8))",
    );

    let sizes = [
        size_of_val(&zd),
        size_of_val(&ld),
        size_of_val(&co),
        size_of_val(&bp),
        size_of_val(&rp),
        size_of_val(&cm),
        size_of_val(&ri),
        size_of_val(&li),
        size_of_val(&td),
        size_of_val(&fd),
        size_of_val(&lp),
        size_of_val(&zp),
        size_of_val(&cl),
        size_of_val(&sw),
        size_of_val(&mv),
        size_of_val(&zc),
        size_of_val(&lc),
    ];
    assert!(
        sizes.iter().all(|&s| s == 0),
        "every static result is zero-sized"
    );
    println!("{n} results, all as CuTe printed them, all zero-sized.");
}

/// `cargo test` runs the example, so its assertions execute.
#[test]
fn runs() {
    main();
}
