//! The explorer's expression language (`layout eval`), on arbitrary text:
//! an error or a value, never a panic, an abort or a hang; a layout value
//! prints and lists its table (within the table limit).
#![no_main]

#[path = "../../layout-cli/src/eval.rs"]
#[allow(dead_code, missing_docs)]
mod eval;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(v) = eval::eval(s) {
        let _ = v.to_string();
        if let eval::Val::Layout(l) = v {
            let _ = l.table();
            let _ = layout_core::dynamic::print_layout(&l);
        }
    }
});
