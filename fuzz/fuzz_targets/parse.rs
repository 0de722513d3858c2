//! Every parser of CuTe notation, on arbitrary text: never a panic, an
//! abort or a hang; what parses prints and re-parses to the same value.
#![no_main]

use layout_core::{dynamic as d, DCoord, DynLayout, Tiler};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(l) = s.parse::<DynLayout>() {
        let text = l.to_string();
        let again: DynLayout = text.parse().expect("a printed layout parses");
        assert_eq!(again.to_string(), text, "print/parse round trip");
        let _ = l.size();
        let _ = l.cosize();
        let _ = d::print_layout(&l);
    }
    let _ = s.parse::<Tiler>().map(|t| format!("{t:?}"));
    let _ = s.parse::<DCoord>().map(|c| format!("{c:?}"));
    if let Ok(t) = layout_core::parse_tuple(s) {
        let text = t.to_string();
        let again = layout_core::parse_tuple(&text).expect("a printed tuple parses");
        assert_eq!(again.to_string(), text, "tuple print/parse round trip");
    }
});
