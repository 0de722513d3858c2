//! Summing a 64x64 tile of `u32` (wrapping adds, so index arithmetic, not
//! add latency, is what differs) through a tensor view: static layout, the same layout
//! with dynamic leaves, and hand-written index arithmetic, in one run.
//!
//! `cargo bench -p layout-tests --bench tile_sum`

use divan::black_box;
use layout_core::{layout, Congruent, IntTuple, Layout, Tensor};

fn main() {
    divan::main();
}

const N: usize = 64;

fn data() -> Vec<u32> {
    (0..N * N).map(|i| (i % 97) as u32).collect()
}

#[inline(always)]
fn sum_tensor<S: Congruent<D>, D: IntTuple>(data: &[u32], l: Layout<S, D>) -> u32
where
    (usize, usize): layout_core::Crd2Idx<S, D>,
{
    let t = Tensor::new(data, l).unwrap();
    let mut acc = 0u32;
    for n in 0..N {
        for m in 0..N {
            acc = acc.wrapping_add(t[(m, n)]);
        }
    }
    acc
}

mod row_major {
    use super::*;
    #[divan::bench]
    fn static_layout(b: divan::Bencher) {
        let d = data();
        b.bench(|| sum_tensor(black_box(&d), layout!((64,64):(64,1))));
    }
    #[divan::bench]
    fn dynamic_layout(b: divan::Bencher) {
        let d = data();
        b.bench(|| {
            let (s, t) = black_box((64usize, 64usize));
            sum_tensor(black_box(&d), layout!((s, s):(t, 1)))
        });
    }
    #[divan::bench]
    fn hand_written(b: divan::Bencher) {
        let d = data();
        b.bench(|| {
            let d = black_box(&d);
            let mut acc = 0u32;
            for n in 0..N {
                for m in 0..N {
                    acc = acc.wrapping_add(d[m * 64 + n]);
                }
            }
            acc
        });
    }
}

mod col_major {
    use super::*;
    #[divan::bench]
    fn static_layout(b: divan::Bencher) {
        let d = data();
        b.bench(|| sum_tensor(black_box(&d), layout!((64,64):(1,64))));
    }
    #[divan::bench]
    fn dynamic_layout(b: divan::Bencher) {
        let d = data();
        b.bench(|| {
            let (s, t) = black_box((64usize, 64usize));
            sum_tensor(black_box(&d), layout!((s, s):(1, t)))
        });
    }
    #[divan::bench]
    fn hand_written(b: divan::Bencher) {
        let d = data();
        b.bench(|| {
            let d = black_box(&d);
            let mut acc = 0u32;
            for n in 0..N {
                for m in 0..N {
                    acc = acc.wrapping_add(d[m + n * 64]);
                }
            }
            acc
        });
    }
}

/// 8x8 tiles of 8x8 elements, each tile row-major and tiles row-major:
/// ((8,8),(8,8)):((8,512),(1,64)).
mod hierarchical {
    use super::*;
    #[divan::bench]
    fn static_layout(b: divan::Bencher) {
        let d = data();
        b.bench(|| sum_tensor(black_box(&d), layout!(((8,8),(8,8)):((8,512),(1,64)))));
    }
    #[divan::bench]
    fn dynamic_layout(b: divan::Bencher) {
        let d = data();
        b.bench(|| {
            let (e, s0, s1, s2) = black_box((8usize, 8usize, 512usize, 64usize));
            sum_tensor(black_box(&d), layout!(((e,e),(e,e)):((s0,s1),(1,s2))))
        });
    }
    #[divan::bench]
    fn hand_written(b: divan::Bencher) {
        let d = data();
        b.bench(|| {
            let d = black_box(&d);
            let mut acc = 0u32;
            for n in 0..N {
                for m in 0..N {
                    acc = acc.wrapping_add(d[(m % 8) * 8 + (m / 8) * 512 + (n % 8) + (n / 8) * 64]);
                }
            }
            acc
        });
    }
}
