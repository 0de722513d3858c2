//! Every `DynLayout` op on parsed inputs: lines of the input are a layout
//! A, a layout or tiler B, and an integer n. Each op returns `Ok` or `Err`,
//! never panics; an `Ok` prints, and its size and cosize are computed
//! without a panic.
#![no_main]

use layout_core::{dynamic as d, DTuple, DynLayout, Tiler};
use libfuzzer_sys::fuzz_target;

fn look(r: Result<DynLayout, layout_core::LayoutError>) {
    if let Ok(l) = r {
        let _ = l.to_string();
        let _ = l.size();
        let _ = l.cosize();
        let _ = l.call(1);
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = s.splitn(3, '\n');
    let (Some(a), Some(b)) = (parts.next(), parts.next()) else {
        return;
    };
    let Ok(a) = a.parse::<DynLayout>() else {
        return;
    };
    let n: i64 = parts
        .next()
        .and_then(|x| x.trim().parse().ok())
        .unwrap_or(2);
    let lb = b.parse::<DynLayout>().ok();
    let t = b.parse::<Tiler>().ok();
    let tup = layout_core::parse_tuple(b).ok();

    look(d::coalesce(&a));
    look(d::filter(&a));
    look(d::filter_zeros(&a));
    look(d::complement_default(&a));
    look(d::right_inverse(&a));
    look(d::left_inverse(&a));
    look(d::upcast(&a, n));
    look(d::downcast(&a, n));
    look(d::recast_layout(&a, n, 4));
    let _ = a.table();
    let _ = d::print_layout(&a);
    if let Some(b) = &lb {
        look(d::composition(&a, b));
        look(d::blocked_product(&a, b));
        look(d::raked_product(&a, b));
        look(d::max_common_layout(&a, b));
        let _ = d::max_common_vector(&a, b);
    }
    if let Some(t) = &t {
        look(d::composition(&a, t));
        look(d::logical_divide(&a, t));
        look(d::zipped_divide(&a, t));
        look(d::tiled_divide(&a, t));
        look(d::flat_divide(&a, t));
        look(d::logical_product(&a, t));
        look(d::zipped_product(&a, t));
        look(d::tiled_product(&a, t));
        look(d::flat_product(&a, t));
    }
    if let Some(c) = &tup {
        look(d::complement(&a, c));
        look(d::coalesce_by(&a, c));
        look(d::filter_by(&a, c));
        look(d::tile_to_shape(&a, c, None));
        look(d::make_layout_left(c));
        look(d::make_layout_right(c));
        let _ = d::idx2crd(layout_core::DInt::new_dynamic(n), c);
        let order: Option<DTuple> = layout_core::parse_tuple("(1,0)").ok();
        if let Some(o) = order {
            look(d::make_ordered_layout(c, &o));
        }
    }
    if let Ok(c) = b.parse::<layout_core::DCoord>() {
        look(d::slice(&c, &a));
        look(d::dice(&c, &a));
        let _ = d::slice_and_offset(&c, &a);
        let _ = d::crd2idx_coord(&c, a.shape(), a.stride());
    }
});
