//! Hostile input to the run-time algebra (issue 13's classes): refused with
//! an error or computed right, never a wrapped or negative result.

use layout_core::dynamic::{composition, logical_divide};
use layout_core::dynamic::{make_layout_left, make_ordered_layout, tile_to_shape, upcast};
use layout_core::{parse_tuple, DInt, DTuple, DynLayout, Tiler};

fn lay(s: &str) -> DynLayout {
    s.parse().unwrap()
}

/// upcast divides each extent by the factor, rounding up: never wraps.
#[test]
fn upcast_near_i64_max() {
    let r = upcast(&lay("9223372036854775807:1"), 2).unwrap();
    // ceil((2^63 - 1) / 2) = 2^62 elements of the wider type, stride ceil(1/2) = 1.
    assert_eq!(r.to_string(), "4611686018427387904:1");
}

/// tile_to_shape to a huge target: refused on overflow, or exactly the target.
#[test]
fn tile_to_shape_near_i64_max() {
    let target = parse_tuple("(9223372036854775806)").unwrap();
    match tile_to_shape(&lay("3:1"), &target, None) {
        Ok(l) => assert_eq!(l.size().unwrap().value, 9223372036854775806),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Negative extents through every entry point that takes a shape or an
/// integer tiler.
#[test]
fn negative_extents_are_refused() {
    let neg = DTuple::int(DInt::new_dynamic(-3));
    assert!(make_layout_left(&neg).is_err());
    assert!(make_ordered_layout(&neg, &DTuple::int(DInt::new_static(0))).is_err());
    assert!(tile_to_shape(&lay("3:1"), &DTuple::tuple(vec![neg.clone()]), None).is_err());
    assert!(DynLayout::new(neg.clone(), DTuple::int(DInt::new_static(1))).is_err());
    let e = layout_core::dynamic::complement(&lay("4:1"), &neg).unwrap_err();
    assert!(e.to_string().contains("negative extent"), "{e}");
    let t = Tiler::Int(DInt::new_dynamic(-2));
    assert!(logical_divide(&lay("8:1"), &t).is_err());
    assert!(layout_core::dynamic::composition(&lay("8:1"), &t).is_err());
}

/// A stride of i64::MIN has no negation: it is refused where it would be
/// made, so the inverses and upcast never negate it.
#[test]
fn i64_min_strides_are_refused() {
    // (-2^62) * 2 = i64::MIN.
    assert!(composition(&lay("4:-4611686018427387904"), &lay("2:2")).is_err());
    let min = DTuple::int(DInt::new_dynamic(i64::MIN));
    assert!(DynLayout::new(DTuple::int(DInt::new_dynamic(2)), min).is_err());
    assert!("2:-9223372036854775808".parse::<DynLayout>().is_err());
}

/// `_` in a zipped divide or product keeps a mode and zips its two halves:
/// a mode of another rank is refused (it used to lose its third mode).
#[test]
fn underscore_zips_only_rank_2_modes() {
    let a = lay("((_2,_2,_2),_4):((_1,_2,_4),_8)");
    let under = Tiler::Tuple(vec![Tiler::Underscore]);
    assert!(layout_core::dynamic::zipped_divide(&a, &under).is_err());
    assert!(layout_core::dynamic::flat_divide(&a, &under).is_err());
    assert!(layout_core::dynamic::zipped_product(&a, &under).is_err());
    // A rank-2 mode is split into its halves, every element kept.
    let b = lay("((_2,_2),_4):((_1,_2),_8)");
    let z = layout_core::dynamic::zipped_divide(&b, &under).unwrap();
    assert_eq!(z.size().unwrap().value, 16);
}

// The typed zipped divide and product have no `_` case for a mode of rank 3.
static_assertions::assert_not_impl_any!(
    layout_core::Underscore: layout_core::algebra::ZipDivideOnto<layout_core::layout_type!((2,2,2):(1,2,4))>,
    layout_core::algebra::ZipProductOnto<layout_core::layout_type!((2,2,2):(1,2,4))>
);
static_assertions::assert_impl_all!(
    layout_core::Underscore: layout_core::algebra::ZipDivideOnto<layout_core::layout_type!((2,2):(1,2))>
);

/// Negative strides where the definition needs offsets of 0 and up: the
/// left inverse (offsets below 0 have no preimage) and a product's tiler
/// (its repeats would overlap).
#[test]
fn negative_strides_refused_where_undefined() {
    assert!(layout_core::dynamic::left_inverse(&lay("(_2,_2):(_-1,_4)")).is_err());
    let t = Tiler::Layout(lay("_8:_-3"));
    assert!(layout_core::dynamic::logical_product(&lay("_4:_1"), &t).is_err());
    assert!(layout_core::dynamic::blocked_product(&lay("_4:_1"), &lay("_8:_-3")).is_err());
    // Non-negative strides still work: _4:_1 x _8:_3 is injective.
    let p =
        layout_core::dynamic::logical_product(&lay("_4:_1"), &Tiler::Layout(lay("_8:_3"))).unwrap();
    let mut t = p.table().unwrap();
    t.sort();
    t.dedup();
    assert_eq!(t.len(), 32);
}

/// Found by the `oracle` fuzz target: CuTe's right_inverse follows
/// |stride| and negates the result, so R(1) = -1 indexes A outside its
/// domain. A negative stride the inverse would follow is refused; one it
/// does not follow is harmless.
#[test]
fn right_inverse_refuses_a_negative_stride_it_would_follow() {
    let e =
        layout_core::dynamic::right_inverse(&lay("((5,1),(1,1)):((_-1,-2),(-2,-2))")).unwrap_err();
    assert!(e.to_string().contains("negative stride"), "{e}");
    assert!(layout_core::dynamic::right_inverse(&lay("5:_-1")).is_err());
    // (4,2):(1,-8): the inverse uses only the stride-1 mode. By hand:
    // R = 4:1 and A(R(i)) = i for i < 4.
    let a = lay("(4,2):(1,-8)");
    let r = layout_core::dynamic::right_inverse(&a).unwrap();
    assert_eq!(r.size().unwrap().value, 4);
    for i in 0..4 {
        assert_eq!(a.call(r.call(i).unwrap()).unwrap(), i);
    }
}

/// Size-0 layouts reach no offset: the operations defined through the
/// offsets a layout reaches refuse them with a message that says so. (A
/// divide of a size-0 layout is CuTe's, a grid of no tiles: see
/// `agreement.rs`.)
#[test]
fn size_zero_layouts_are_refused_with_a_reason() {
    let empty = lay("(4,0):(1,4)");
    let cot = DTuple::int(DInt::new_dynamic(16));
    let errs = [
        layout_core::dynamic::complement(&lay("0:1"), &cot).unwrap_err(),
        layout_core::dynamic::right_inverse(&empty).unwrap_err(),
        layout_core::dynamic::left_inverse(&lay("0:_1")).unwrap_err(),
        layout_core::dynamic::max_common_layout(&empty, &empty).unwrap_err(),
        layout_core::dynamic::logical_product(&lay("0:1"), &lay("2:1")).unwrap_err(),
    ];
    for e in errs {
        assert!(e.to_string().contains("has size 0"), "{e}");
    }
}

/// Typed compact strides of run-time extents are products of the extents
/// before (or after) a mode: when one does not fit `usize` the `try_` forms
/// return `Err` and the others panic with the reason; they never wrap.
#[test]
fn typed_compact_strides_never_wrap() {
    use layout_core::{
        layout, try_make_layout_left, try_make_layout_right, try_make_ordered_layout, C,
    };
    let big = std::hint::black_box(1usize << 40);
    // Left: strides (1, 2^40, 2^80): the last does not fit.
    assert!(try_make_layout_left((big, big, C::<2>)).is_err());
    // Right: strides (2^81, 2, 1).
    assert!(try_make_layout_right((big, big, C::<2>)).is_err());
    // Ordered (2, 0, 1): mode 0's stride is big * big.
    assert!(try_make_ordered_layout((C::<2>, big, big), (C::<2>, C::<0>, C::<1>)).is_err());
    // The size itself past usize is refused too (as DynLayout's make_layout).
    let half = std::hint::black_box(1usize << 32);
    assert!(try_make_layout_left((half, half)).is_err());
    // Just below the limit every stride is exact: (2^32, 2^31) has strides
    // (1, 2^32) and size 2^63.
    let l = try_make_layout_left((half, half / 2)).unwrap();
    assert_eq!(l.to_string(), "(4294967296,2147483648):(_1,4294967296)");
    // (2^29, 4, 2^32) row-major: strides (4 * 2^32, 2^32, 1), size 2^63.
    let r = try_make_layout_right((half / 8, C::<4>, half)).unwrap();
    assert_eq!(
        r.to_string(),
        "(536870912,_4,4294967296):(17179869184,4294967296,_1)"
    );
    // The panicking forms say why, at the caller.
    let msg = |f: fn(usize)| {
        let e = std::panic::catch_unwind(move || f(big)).unwrap_err();
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap()
    };
    assert_eq!(
        msg(|b| {
            std::hint::black_box(layout_core::make_layout_left((b, b, C::<2>)));
        }),
        "make_layout_left: the shape's extents multiply past usize"
    );
    assert_eq!(
        msg(|b| {
            std::hint::black_box(layout!((b, b, 2)));
        }),
        "layout!: the compact stride 1 * b * b overflows usize"
    );
}

/// tile_to_shape's repeat strides are compact strides of run-time repeats:
/// past `usize` the typed form refuses instead of wrapping.
#[test]
fn typed_tile_to_shape_repeats_never_wrap() {
    use layout_core::{algebra::try_tile_to_shape, layout};
    let big = std::hint::black_box(1usize << 42);
    // Repeats (2^41, 2^41, 2^42): the third repeat's stride is 2^82.
    assert!(try_tile_to_shape(layout!((2, 2)), (big, big, big)).is_err());
    // Within range: 8 x 6 by (2,2) blocks = (4,3) repeats.
    let (m, n) = std::hint::black_box((8usize, 6usize));
    let t = try_tile_to_shape(layout!((2, 2)), (m, n)).unwrap();
    // CuTe: blocked_product(2x2 col-major, (4,3) col-major) =
    // ((2,4),(2,3)):((1,4),(2,16)).
    assert_eq!(t.to_string(), "((_2,4),(_2,3)):((_1,_4),(_2,16))");
}

/// One parser reads layouts, tuples, coordinates and tilers; each error
/// names the byte where the input goes wrong (positions counted by hand).
#[test]
fn parse_errors_carry_positions() {
    use layout_core::dynamic::{DCoord, Tiler};
    use layout_core::DynLayout;
    let at = |e: layout_core::LayoutError| e.to_string();
    // `_` alone is not a stride: byte 9 of (2,3):(1,_).
    let e = at("(2,3):(1,_)".parse::<DynLayout>().unwrap_err());
    assert!(e.starts_with("at byte 9:"), "{e}");
    // A layout's `:` inside a coordinate: byte 4 of (1,2:3).
    let e = at("(1,2:3)".parse::<DCoord>().unwrap_err());
    assert!(e.starts_with("at byte 4:"), "{e}");
    // A trailing comma in a tiler: `)` at byte 10 where a mode should start.
    let e = at("(_2:_1,_4,)".parse::<Tiler>().unwrap_err());
    assert!(e.starts_with("at byte 10:"), "{e}");
    // `_` in a shape: byte 6 of (1,(2,_)).
    let e = at(layout_core::parse_tuple("(1,(2,_))").unwrap_err());
    assert!(e.starts_with("at byte 6:"), "{e}");
    // A stride that nests unlike the shape: the stride starts at byte 10.
    let e = at("(2,(3,4)):(1,3)".parse::<DynLayout>().unwrap_err());
    assert!(e.starts_with("at byte 10:"), "{e}");
    // The same notation read four ways.
    assert_eq!("(_2:_1,_4,_)".parse::<Tiler>().map(|_| ()), Ok(()));
    assert_eq!("(1,_,(0,2))".parse::<DCoord>().map(|_| ()), Ok(()));
}

/// A count that pads a layout (`append<n>`, `prepend<n>`) is refused past
/// `DynLayout::MAX_NODES` nodes, nested or not, and exact below it: the
/// rank asked for, every new mode the padding.
#[test]
fn padding_counts_are_bounded() {
    let l = lay("(2,3):(1,2)");
    let x = lay("1:0");
    for n in [1usize << 17, 1 << 40, usize::MAX] {
        assert!(l.append(&x, Some(n)).is_err(), "append {n}");
        assert!(l.prepend(&x, Some(n)).is_err(), "prepend {n}");
    }
    // Nested: 300 copies of a 300-mode pad is 90 000 nodes.
    let wide = l.append(&x, Some(300)).unwrap();
    assert_eq!(wide.rank(), 300);
    let e = l.append(&wide, Some(302)).unwrap_err().to_string();
    assert!(e.contains("append") && e.contains("nodes"), "{e}");
    // Below the bound, exactly CuTe's padding.
    let p = l.prepend(&x, Some(5)).unwrap();
    assert_eq!(p.to_string(), "(1,1,1,2,3):(0,0,0,1,2)");
    let a = l.append(&lay("(4,5):(7,9)"), Some(3)).unwrap();
    assert_eq!(a.to_string(), "(2,3,(4,5)):(1,2,(7,9))");
}
