//! The entry points, one per atom of the GMMA table, named as the atom
//! (the crate's launch contract).
#![allow(unsafe_code)]

use crate::gmma_check_body;
use layout_device::{Global, GlobalMut, F4};

macro_rules! entries {
    ($($form:ident $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ident, $regs:tt, $n8:tt,
       $kind:ident, $base:ident, $what:literal; [$($i:tt)*];)*) => {$(
        #[no_mangle]
        #[allow(non_snake_case)]
        #[doc = concat!("`", stringify!($atom), "`'s check.\n\n# Safety\nThe crate's launch contract.")]
        pub unsafe extern "ptx-kernel" fn $atom(a: *const u32, b: *const u32, c: *mut u32) {
            // SAFETY: the launch contract: A's 2048 bytes, B's 32 N, C's
            // 64 N words, 16-byte aligned.
            let (a4, aw, b4, c) = unsafe {
                (
                    Global::new(a.cast::<F4>(), 128),
                    Global::new(a, 512),
                    Global::new(b.cast::<F4>(), 2 * $n),
                    GlobalMut::new(c, 64 * $n),
                )
            };
            gmma_check_body::<layout_core::atom::$atom, _, _, _, _, $n, $k>(a4, aw, b4, c);
        }
    )*};
}

layout_core::__private::sm90_gmma_table!(entries);
