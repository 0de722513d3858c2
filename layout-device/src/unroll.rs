//! Straight-line code over constant indices: a fragment held in an array
//! stays in registers only when every access has a constant index.

/// `f(0)` .. `f(N - 1)` as straight code (`N` at most 32; nest calls for
/// more): each call sees its index as a constant, so the register arrays it
/// indexes stay registers (a loop's run-time index would put them in local
/// memory).
///
/// ```
/// let mut acc = [0u32; 8];
/// layout_device::each::<8>(|i| acc[i] = 3 * i as u32);
/// assert_eq!(acc, [0, 3, 6, 9, 12, 15, 18, 21]);
/// ```
#[inline(always)]
pub fn each<const N: usize>(mut f: impl FnMut(usize)) {
    const { assert!(N <= 32, "each: at most 32 steps") };
    macro_rules! steps {
        ($($i:literal)*) => {$(
            if $i < N {
                f($i);
            }
        )*};
    }
    steps!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
}
