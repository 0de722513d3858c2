//! Hostile input to the run-time algebra (issue 13's classes): refused with
//! an error or computed right, never a wrapped or negative result.

use layout_core::dynamic::{make_layout_left, make_ordered_layout, tile_to_shape, upcast};
use layout_core::{composition, logical_divide, parse_tuple, DInt, DTuple, DynLayout, Tiler};

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
        Ok(l) => assert_eq!(l.size().unwrap(), 9223372036854775806),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Negative extents through every entry point that takes a shape or an
/// integer tiler.
#[test]
fn negative_extents_are_refused() {
    let neg = DTuple::Int(DInt::d(-3));
    assert!(make_layout_left(&neg).is_err());
    assert!(make_ordered_layout(&neg, &DTuple::Int(DInt::s(0))).is_err());
    assert!(tile_to_shape(&lay("3:1"), &DTuple::Tup(vec![neg.clone()]), None).is_err());
    assert!(DynLayout::new(neg.clone(), DTuple::Int(DInt::s(1))).is_err());
    let t = Tiler::Int(DInt::d(-2));
    assert!(logical_divide(&lay("8:1"), &t).is_err());
    assert!(layout_core::composition_tiler(&lay("8:1"), &t).is_err());
}

/// A stride of i64::MIN has no negation: it is refused where it would be
/// made, so the inverses and upcast never negate it.
#[test]
fn i64_min_strides_are_refused() {
    // (-2^62) * 2 = i64::MIN.
    assert!(composition(&lay("4:-4611686018427387904"), &lay("2:2")).is_err());
    let min = DTuple::Int(DInt::d(i64::MIN));
    assert!(DynLayout::new(DTuple::Int(DInt::d(2)), min).is_err());
    assert!("2:-9223372036854775808".parse::<DynLayout>().is_err());
}
