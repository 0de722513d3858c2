//! The entry points, one per atom of the GMMA table, named as the atom
//! (the crate's launch contract).
#![allow(unsafe_code)]

/// The entry of one atom (B K-major), and for the 16-bit forms (`ss`,
/// `rs`) a second with B N-major (`NAME_MN`).
macro_rules! entries {
    ($($form:ident $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ident, $regs:tt, $n8:tt,
       $kind:ident, $base:ident, $what:literal; [$($i:tt)*];)*) => {$(
        entries!(@ $form $atom, $n, $k);
    )*};
    (@ ss $atom:ident, $n:tt, $k:tt) => { entries!(@ mn $atom, $n, $k); };
    (@ rs $atom:ident, $n:tt, $k:tt) => { entries!(@ mn $atom, $n, $k); };
    (@ ss_tn $atom:ident, $n:tt, $k:tt) => { entries!(@ entry $atom, $n, $k, false, stringify!($atom)); };
    (@ rs_tn $atom:ident, $n:tt, $k:tt) => { entries!(@ entry $atom, $n, $k, false, stringify!($atom)); };
    (@ mn $atom:ident, $n:tt, $k:tt) => {
        entries!(@ entry $atom, $n, $k, false, stringify!($atom));
        #[allow(non_snake_case)]
        mod $atom {
            entries!(@ entry $atom, $n, $k, true, concat!(stringify!($atom), "_MN"));
        }
    };
    (@ entry $atom:ident, $n:tt, $k:tt, $mn:literal, $name:expr) => {
        #[export_name = $name]
        #[allow(non_snake_case)]
        #[doc = concat!("`", stringify!($atom), "`'s check.\n\n# Safety\nThe crate's launch contract.")]
        pub unsafe extern "ptx-kernel" fn $atom(a: *const u32, b: *const u32, c: *mut u32) {
            // SAFETY: the launch contract: A's 2048 bytes, B's 32 N, C's
            // 64 N words, 16-byte aligned.
            let (a4, aw, b4, bw, c) = unsafe {
                (
                    layout_device::Global::new(a.cast::<layout_device::F4>(), 128),
                    layout_device::Global::new(a, 512),
                    layout_device::Global::new(b.cast::<layout_device::F4>(), 2 * $n),
                    layout_device::Global::new(b, 8 * $n),
                    layout_device::GlobalMut::new(c, 64 * $n),
                )
            };
            crate::gmma_check_body::<layout_core::atom::$atom, _, _, _, _, $n, $k, $mn>(a4, aw, (b4, bw), c);
        }
    };
}

layout_core::__private::sm90_gmma_table!(entries);
