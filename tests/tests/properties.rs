//! Property tests: `crd2idx(idx2crd(i)) == layout(i)` for random layouts, and
//! the static and all-dynamic versions of a layout agree everywhere.

use layout_core::{layout, Congruent, IntTuple, Layout};
use proptest::prelude::*;

type Nested = ((usize, usize), usize, (usize, (usize, usize)));

fn nested_layout() -> impl Strategy<Value = Layout<Nested, Nested>> {
    (
        prop::array::uniform6(1usize..5),
        prop::array::uniform6(0usize..40),
    )
        .prop_map(|(s, d)| {
            Layout::new(
                ((s[0], s[1]), s[2], (s[3], (s[4], s[5]))),
                ((d[0], d[1]), d[2], (d[3], (d[4], d[5]))),
            )
        })
}

fn flat_layout() -> impl Strategy<Value = Layout<(usize, usize, usize), (usize, usize, usize)>> {
    (
        prop::array::uniform3(1usize..9),
        prop::array::uniform3(0usize..100),
    )
        .prop_map(|(s, d)| Layout::new((s[0], s[1], s[2]), (d[0], d[1], d[2])))
}

/// The offset of a natural coordinate, computed leaf by leaf from the flat
/// lists of shape and stride (independent of the library's recursion).
fn by_hand<S: Congruent<D>, D: IntTuple>(l: Layout<S, D>, i: usize) -> usize {
    let mut pairs = Vec::new();
    l.shape()
        .for_each_pair(l.stride(), &mut |s, _, d, _| pairs.push((s, d)));
    let mut rest = i;
    let mut off = 0;
    for (k, (s, d)) in pairs.iter().enumerate() {
        let c = if k + 1 == pairs.len() { rest } else { rest % s };
        off += c * d;
        rest /= s;
    }
    off
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn crd2idx_of_idx2crd_is_the_layout(l in nested_layout(), k in 0usize..10_000) {
        let i = k % l.size();
        let c = l.idx2crd(i);
        prop_assert_eq!(l.crd2idx(c), l.call(i));
        prop_assert_eq!(l.call(i), by_hand(l, i));
    }

    #[test]
    fn flat_crd2idx_of_idx2crd(l in flat_layout(), k in 0usize..10_000) {
        let i = k % l.size();
        prop_assert_eq!(l.crd2idx(l.idx2crd(i)), l.call(i));
        prop_assert_eq!(l.call(i), by_hand(l, i));
    }

    #[test]
    fn cosize_bounds_every_offset(l in nested_layout()) {
        let max = (0..l.size()).map(|i| l.call(i)).max().unwrap();
        prop_assert_eq!(l.cosize(), max + 1);
    }
}

macro_rules! static_dynamic_agree {
    ($name:ident, $($l:tt)*) => {
        proptest! {
            #[test]
            fn $name(k in 0usize..100_000) {
                let s = layout!($($l)*);
                let d = s.with_dynamic_leaves();
                let i = k % s.size();
                prop_assert_eq!(s.call(i), d.call(i));
                prop_assert_eq!(s.idx2crd(i), d.idx2crd(i));
                prop_assert_eq!(s.crd2idx(s.idx2crd(i)), d.crd2idx(d.idx2crd(i)));
                prop_assert_eq!(s.cosize(), d.cosize());
            }
        }
    };
}

static_dynamic_agree!(agree_row_major, (3,4):(4,1));
static_dynamic_agree!(agree_hierarchical, (2,(2,2)):(4,(2,1)));
static_dynamic_agree!(agree_mma_a, ((4,8),(2,2,2)):((32,1),(16,8,128)));
static_dynamic_agree!(agree_padded_nested, ((3,5),(2,(2,7))):((1,40),(3,(200,6))));
static_dynamic_agree!(agree_broadcast, (4,(3,2)):(0,(1,0)));
