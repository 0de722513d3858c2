//! The Hopper kernels run as written under the block emulator
//! (`layout_device::emulator`: TMA from its tensor maps, `mbarrier`s,
//! `wgmma` from its descriptors, clusters and multicast), on small shapes
//! with partial tiles, against CPU references: every `hgemm_sm90` form
//! exactly on integer inputs, `flash_attn_fwd_sm90` within f16's rounding.

use layout_device::emulator::{run, Buffer, Launch, TensorMap, TmaSwizzle};
use layout_device::Sequences;
use layout_kernels_sm90::attention::{self, bm, BN as ATT_BN, CHUNK};
use layout_kernels_sm90::bodies::{
    attention_body, gemm_body, gemm_grouped_body, gemm_wide_body, hgemm_body, COut, Groups,
};
use layout_kernels_sm90::hgemm::{ceil_div, BK, BN, FORMS};
use layout_kernels_sm90::smem::{ATTN_SMEM, ATTN_SMEM_256, GEMM_TMA_SMEM, HGEMM_SMEM};

fn h(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}

fn f(x: u16) -> f32 {
    half::f16::from_bits(x).to_f32()
}

/// Small integers in [-r, r], from `i`.
///
/// A hash of `i` (`i * c mod (2r + 1)` would repeat every 2r + 1 indices,
/// so that the rows of an operand whose row length is a multiple of 2r + 1
/// would all be equal, and a result in the wrong row would not show).
fn int(i: usize, r: usize) -> f32 {
    let h = (i as u64 ^ 0x5bd1_e995).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32;
    (h % (2 * r as u64 + 1)) as f32 - r as f32
}

/// `hgemm_body::<I>` with a run-time form index.
fn hgemm_form(
    i: usize,
    ma: *const u64,
    mb: *const u64,
    c: layout_device::GlobalMut<u16>,
    mnk: (u32, u32, u32),
) {
    const { assert!(FORMS.len() == 9, "a form for each arm") };
    match i {
        0 => hgemm_body::<0>(ma, mb, c, mnk),
        1 => hgemm_body::<1>(ma, mb, c, mnk),
        2 => hgemm_body::<2>(ma, mb, c, mnk),
        3 => hgemm_body::<3>(ma, mb, c, mnk),
        4 => hgemm_body::<4>(ma, mb, c, mnk),
        5 => hgemm_body::<5>(ma, mb, c, mnk),
        6 => hgemm_body::<6>(ma, mb, c, mnk),
        7 => hgemm_body::<7>(ma, mb, c, mnk),
        _ => hgemm_body::<8>(ma, mb, c, mnk),
    }
}

/// One form at (m, n, k), one block per tile or (`clusters`) a persistent
/// grid of that many clusters: C = A·Bᵀ exact (f16 C of integer sums
/// below 2048).
fn hgemm_case(i: usize, (m, n, k): (usize, usize, usize), clusters: Option<usize>) {
    let (name, form) = FORMS[i];
    let a: Vec<f32> = (0..m * k).map(|x| int(x, 2)).collect();
    let b: Vec<f32> = (0..n * k).map(|x| int(x + 5, 2)).collect();
    let want: Vec<u16> = (0..m * n)
        .map(|x| h((0..k).map(|p| a[x / n * k + p] * b[x % n * k + p]).sum()))
        .collect();
    let ga = Buffer::from_slice(&a.iter().map(|&x| h(x)).collect::<Vec<_>>());
    let gb = Buffer::from_slice(&b.iter().map(|&x| h(x)).collect::<Vec<_>>());
    let map_a = TensorMap::tiled_2d(&ga, (m, k), k, (form.bm(), BK), TmaSwizzle::B128).unwrap();
    let map_b =
        TensorMap::tiled_2d(&gb, (n, k), k, (BN / form.cluster, BK), TmaSwizzle::B128).unwrap();
    let c = Buffer::filled(0u16, m * n);
    let (pa, pb, pc) = (map_a.ptr(), map_b.ptr(), c.global_mut());
    let tiles = ceil_div(m, form.bm() * form.cluster) * ceil_div(n, BN);
    let grid = clusters.unwrap_or(tiles) * form.cluster;
    let launch = Launch::new(name, grid, form.threads())
        .cluster(form.cluster)
        .shared_bytes(layout_kernels_sm90::hgemm::SMEM_BYTES);
    let mnk = (m as u32, n as u32, k as u32);
    if let Err(e) = run(&launch, move || hgemm_form(i, pa, pb, pc, mnk)) {
        panic!("{name} at {m} x {n} x {k}: {e}")
    }
    if let Err(e) = c.check(&want, |x, y| x == y) {
        panic!("{name} at {m} x {n} x {k}: {e}")
    }
}

/// Every form, at a size with partial tiles in M, N and K.
#[test]
fn every_hgemm_sm90_form_is_exact_on_integers() {
    for i in 0..FORMS.len() {
        hgemm_case(i, (200, 300, 104), None);
    }
}

/// The persistent walk: one cluster takes every tile in turn, its
/// pipeline's phases wrapping.
#[test]
fn hgemm_sm90_persistent_over_several_tiles() {
    hgemm_case(0, (300, 520, 136), Some(1));
    hgemm_case(5, (130, 260, 72), Some(1));
}

/// Ping-pong: the consumers take alternate tiles and pass the stages of
/// the other's, their K-loops in turn. One cluster over 9 tiles each (the
/// first consumer taking the last, with no one to hand over to), two
/// clusters over 5 and 4, with K-blocks per tile (3 and 5) below and above
/// the ring's 4 stages.
#[test]
fn hgemm_sm90_pingpong_takes_turns() {
    use layout_kernels_sm90::hgemm::PINGPONG;
    hgemm_case(PINGPONG, (1100, 256, 136), Some(1));
    hgemm_case(PINGPONG, (1100, 256, 320), Some(2));
}

/// O = softmax(scale·Q·Kᵀ)·V and the natural log-sum-exp, in f64, BSHD
/// layouts; causal aligned top-left.
#[allow(clippy::type_complexity)]
fn attention_ref(
    (batch, sq, sk, nh, nkv, d): (usize, usize, usize, usize, usize, usize),
    scale: f32,
    causal: Option<(isize, isize)>,
    (q, k, v): (&[f32], &[f32], &[f32]),
) -> (Vec<f64>, Vec<f64>) {
    let mut o = vec![0f64; batch * sq * nh * d];
    let mut lse = vec![0f64; batch * nh * sq];
    for bi in 0..batch {
        for hi in 0..nh {
            for i in 0..sq {
                let qo = ((bi * sq + i) * nh + hi) * d;
                // Query head hi reads K/V head hi / (nh / nkv).
                let hk = hi / (nh / nkv);
                // Masked: query i sees keys i + lower ..= i + offset (none
                // when that is empty: O = 0, LSE = -inf).
                let (from, keys) = match causal {
                    Some((offset, lower)) => (
                        (i as isize + lower).clamp(0, sk as isize) as usize,
                        (i as isize + offset + 1).clamp(0, sk as isize) as usize,
                    ),
                    None => (0, sk),
                };
                let (from, keys) = (from.min(keys), keys);
                let s: Vec<f64> = (from..keys)
                    .map(|j| {
                        let ko = ((bi * sk + j) * nkv + hk) * d;
                        (0..d)
                            .map(|x| f64::from(q[qo + x]) * f64::from(k[ko + x]))
                            .sum::<f64>()
                            * f64::from(scale)
                    })
                    .collect();
                let mx = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let w: Vec<f64> = s.iter().map(|x| (x - mx).exp()).collect();
                let z: f64 = w.iter().sum();
                lse[(bi * nh + hi) * sq + i] = if keys == from {
                    f64::NEG_INFINITY
                } else {
                    mx + z.ln()
                };
                for x in 0..d {
                    o[qo + x] = if keys == from {
                        0.0
                    } else {
                        (from..keys)
                            .map(|j| w[j - from] * f64::from(v[((bi * sk + j) * nkv + hk) * d + x]))
                            .sum::<f64>()
                            / z
                    };
                }
            }
        }
    }
    (o, lse)
}

fn attention_case(
    d: usize,
    causal: bool,
    (batch, sq, sk, nh): (usize, usize, usize, usize),
    scale: f32,
) {
    attention_case_gqa(d, causal, (batch, sq, sk, nh, nh), scale)
}

/// As `attention_case_gqa` with the causal mask aligned bottom-right
/// (query i sees keys 0..=i + seq_k - seq_q): the kernel told so, the
/// reference given the shifted bound.
fn attention_case_bottom_right(
    d: usize,
    (batch, sq, sk, nh, nkv): (usize, usize, usize, usize, usize),
    scale: f32,
) {
    attention_run(
        d,
        (Some((0, i32::MIN as isize)), true),
        Seqs::Planes(batch, sq, sk),
        (nh, nkv),
        scale,
    )
}

/// As `attention_case` with `nkv` K/V heads (grouped-query attention).
fn attention_case_gqa(
    d: usize,
    causal: bool,
    (batch, sq, sk, nh, nkv): (usize, usize, usize, usize, usize),
    scale: f32,
) {
    attention_run(
        d,
        (causal.then_some((0, i32::MIN as isize)), false),
        Seqs::Planes(batch, sq, sk),
        (nh, nkv),
        scale,
    )
}

/// A case's sequences: `batch` planes of `seq_q` rows and `seq_k` keys,
/// or packed sequences of these (rows, keys).
enum Seqs<'a> {
    Planes(usize, usize, usize),
    Packed(&'a [(usize, usize)]),
}

/// One case: `mask` the mask's bounds (query i sees keys from i + lower
/// to i + offset; lower `i32::MIN` for none; `None` for no mask), counted
/// from the bottom-right diagonal when its flag is set; every sequence
/// against the f64 reference on its own.
fn attention_run(
    d: usize,
    (mask, bottom_right): (Option<(isize, isize)>, bool),
    seqs: Seqs<'_>,
    (nh, nkv): (usize, usize),
    scale: f32,
) {
    let (offset, lower) = mask.map_or((0, i32::MIN), |(o, l)| (o as i32, l as i32));
    let causal = mask.is_some();
    let (lens, packed): (Vec<(usize, usize)>, bool) = match seqs {
        Seqs::Planes(batch, sq, sk) => (vec![(sq, sk); batch], false),
        Seqs::Packed(l) => (l.to_vec(), true),
    };
    let (tq, tk) = lens
        .iter()
        .fold((0, 0), |(q, k), &(sq, sk)| (q + sq, k + sk));
    let val = |i: usize, salt: usize| f(h(int(i * 31 + salt, 8) / 8.0));
    let q: Vec<f32> = (0..tq * nh * d).map(|i| val(i, 1)).collect();
    let k: Vec<f32> = (0..tk * nkv * d).map(|i| val(i, 2)).collect();
    let v: Vec<f32> = (0..tk * nkv * d).map(|i| val(i, 3)).collect();
    let bits = |x: &[f32]| Buffer::from_slice(&x.iter().map(|&y| h(y)).collect::<Vec<_>>());
    let (gq, gk, gv) = (bits(&q), bits(&k), bits(&v));
    // The planes: one per sequence, or one of every row.
    let (planes, rows_q, rows_k) = if packed {
        (1, tq, tk)
    } else {
        (lens.len(), lens[0].0, lens[0].1)
    };
    let map = |x: &Buffer<u16>, seq: usize, rows: usize, ld: usize| {
        TensorMap::tiled_3d(
            x,
            (planes, seq, ld),
            (seq * ld, ld),
            (rows, CHUNK),
            TmaSwizzle::B128,
        )
        .unwrap()
    };
    let (mq, mk, mv) = (
        map(&gq, rows_q, bm(d), nh * d),
        map(&gk, rows_k, ATT_BN, nkv * d),
        map(&gv, rows_k, ATT_BN, nkv * d),
    );
    let o = Buffer::filled(0u16, tq * nh * d);
    let lse = Buffer::filled(0f32, tq * nh);
    let maps = (mq.ptr() as u64, mk.ptr() as u64, mv.ptr() as u64);
    let (po, pl) = (o.global_mut(), lse.global_mut());
    let cu = |at: fn(&(usize, usize)) -> usize| {
        let mut c = vec![0i32];
        lens.iter()
            .for_each(|x| c.push(c[c.len() - 1] + at(x) as i32));
        Buffer::from_slice(if packed { &c[..] } else { &[] })
    };
    let (cu_q, cu_k) = (cu(|x| x.0), cu(|x| x.1));
    let seqs = Sequences {
        seq_q: rows_q,
        seq_k: rows_k,
        cu_q: cu_q.global(),
        cu_k: cu_k.global(),
    };
    let name = format!(
        "flash_attn_fwd_sm90_d{d}{}",
        if causal { "_causal" } else { "" }
    );
    let longest = lens.iter().map(|x| x.0).max().unwrap_or(0).max(1);
    let row_blocks = longest.div_ceil(bm(d));
    // Persistent blocks: fewer than the units of work (row blocks x heads
    // x sequences), so that a block computes several in turn, its rings'
    // and barriers' phases running on across them.
    let units = row_blocks * nh * lens.len();
    let grid = units.div_ceil(3).clamp(1, 4);
    let launch =
        Launch::new(&name, grid, attention::threads(d)).shared_bytes(attention::smem_bytes(d));
    let work = (row_blocks as u32, lens.len() as u32);
    let dims = (seqs, nh as u32, nkv as u32);
    let os = (offset, lower, bottom_right, scale);
    let r = run(&launch, move || match (d, causal) {
        (64, false) => {
            attention_body::<ATTN_SMEM, 64, false, 4, true>(maps, (po, pl), dims, os, work)
        }
        (64, true) => {
            attention_body::<ATTN_SMEM, 64, true, 4, true>(maps, (po, pl), dims, os, work)
        }
        (128, false) => {
            attention_body::<ATTN_SMEM, 128, false, 2, true>(maps, (po, pl), dims, os, work)
        }
        (128, true) => {
            attention_body::<ATTN_SMEM, 128, true, 2, true>(maps, (po, pl), dims, os, work)
        }
        (256, false) => {
            attention_body::<ATTN_SMEM_256, 256, false, 1, true>(maps, (po, pl), dims, os, work)
        }
        _ => attention_body::<ATTN_SMEM_256, 256, true, 1, true>(maps, (po, pl), dims, os, work),
    });
    if let Err(e) = r {
        panic!("{name}: {e}")
    }
    let (mut want_o, mut want_lse) = (vec![0u16; tq * nh * d], vec![0f32; tq * nh]);
    let (mut q0, mut k0) = (0, 0);
    for (b, &(sq, sk)) in lens.iter().enumerate() {
        let shift = if bottom_right {
            sk as isize - sq as isize
        } else {
            0
        };
        let m = mask.map(|(o, l)| {
            (
                o + shift,
                if l == i32::MIN as isize { l } else { l + shift },
            )
        });
        let (qs, ks) = (
            q0 * nh * d..(q0 + sq) * nh * d,
            k0 * nkv * d..(k0 + sk) * nkv * d,
        );
        let (ro, rl) = attention_ref(
            (1, sq, sk, nh, nkv, d),
            scale,
            m,
            (&q[qs.clone()], &k[ks.clone()], &v[ks]),
        );
        want_o[qs]
            .iter_mut()
            .zip(&ro)
            .for_each(|(w, &x)| *w = h(x as f32));
        for hi in 0..nh {
            for i in 0..sq {
                // LSE: (heads, rows) packed, (batch, heads, rows) in planes.
                let at = if packed {
                    hi * tq + q0 + i
                } else {
                    (b * nh + hi) * sq + i
                };
                want_lse[at] = rl[hi * sq + i] as f32;
            }
        }
        (q0, k0) = (q0 + sq, k0 + sk);
    }
    // O within f16's rounding (of P and of O; |O| <= 1), LSE within f32's
    // (ex2/lg2.approx). A difference names the element and its writer.
    if let Err(e) = o.check(&want_o, |g, w| (f(g) - f(w)).abs() <= 2e-3) {
        panic!("{name}: O: {e}")
    }
    // (-inf for a row that sees no key: equal, not within.)
    if let Err(e) = lse.check(&want_lse, |g, w| g == w || (g - w).abs() <= 2e-5) {
        panic!("{name}: LSE: {e}")
    }
}

#[test]
fn flash_attn_fwd_sm90_d64_partial_tiles_both_masks() {
    attention_case(64, false, (1, 130, 150, 2), 0.3);
    attention_case(64, true, (1, 130, 150, 2), 0.3);
}

#[test]
fn flash_attn_fwd_sm90_d128_partial_tiles_both_masks() {
    attention_case(128, false, (2, 45, 77, 1), -0.2);
    attention_case(128, true, (2, 45, 77, 1), -0.2);
}

/// bf16 bits of `x` (rounded to nearest even), and back.
fn bf(x: f32) -> u16 {
    half::bf16::from_f32(x).to_bits()
}

fn unbf(x: u16) -> f32 {
    half::bf16::from_bits(x).to_f32()
}

/// FP8 e4m3 bits of a small integer in [-2, 2] (exact in e4m3: sign,
/// 4 exponent bits of bias 7, 3 mantissa bits).
fn e4m3(x: f32) -> u8 {
    let sign = if x < 0.0 { 0x80 } else { 0 };
    sign | match x.abs() as u32 {
        0 => 0x00,
        1 => 0x38,
        2 => 0x40,
        v => panic!("{v} is not a test value"),
    }
}

/// `gemm_body::<0, In, Out, F, _>` (the full form) on integer A and B in
/// [-2, 2] (`enc` encodes one element), one block per tile (or `clusters`
/// clusters, persistent), C stored directly or (`tma`) by the TMA-store
/// epilogue: A, B and C's bits, m x n.
fn gemm_case<In, Out, F>(
    (m, n, k): (usize, usize, usize),
    enc: impl Fn(f32) -> u16,
    fusion: F,
) -> (Vec<f32>, Vec<f32>, Vec<u16>)
where
    In: layout_kernels_sm90::hgemm::Inputs,
    Out: layout_device::epilogue::OutElem,
    F: layout_device::epilogue::Fusion + 'static,
{
    gemm_case_with::<0, In, Out, F>((m, n, k), enc, fusion, (false, false), None)
}

fn gemm_case_with<const I: usize, In, Out, F>(
    (m, n, k): (usize, usize, usize),
    enc: impl Fn(f32) -> u16,
    fusion: F,
    (tma, wide): (bool, bool),
    clusters: Option<usize>,
) -> (Vec<f32>, Vec<f32>, Vec<u16>)
where
    In: layout_kernels_sm90::hgemm::Inputs,
    Out: layout_device::epilogue::OutElem,
    F: layout_device::epilogue::Fusion + 'static,
{
    let form = FORMS[I].1;
    let a: Vec<f32> = (0..m * k).map(|x| int(x, 2)).collect();
    let b: Vec<f32> = (0..n * k).map(|x| int(x + 5, 2)).collect();
    let bk = <In as layout_kernels_sm90::hgemm::Inputs>::BK;
    let (map_a, map_b, _ga, _gb) = if <In as layout_kernels_sm90::hgemm::Inputs>::BYTES == 1 {
        let ga = Buffer::from_slice(&a.iter().map(|&x| enc(x) as u8).collect::<Vec<_>>());
        let gb = Buffer::from_slice(&b.iter().map(|&x| enc(x) as u8).collect::<Vec<_>>());
        let ma = TensorMap::tiled_2d(&ga, (m, k), k, (form.bm(), bk), TmaSwizzle::B128).unwrap();
        let mb =
            TensorMap::tiled_2d(&gb, (n, k), k, (BN / form.cluster, bk), TmaSwizzle::B128).unwrap();
        (ma, mb, Some((ga, gb)), None)
    } else {
        let ga = Buffer::from_slice(&a.iter().map(|&x| enc(x)).collect::<Vec<_>>());
        let gb = Buffer::from_slice(&b.iter().map(|&x| enc(x)).collect::<Vec<_>>());
        let ma = TensorMap::tiled_2d(&ga, (m, k), k, (form.bm(), bk), TmaSwizzle::B128).unwrap();
        let mb =
            TensorMap::tiled_2d(&gb, (n, k), k, (BN / form.cluster, bk), TmaSwizzle::B128).unwrap();
        (ma, mb, None, Some((ga, gb)))
    };
    // Bits no result has: entries the kernel leaves unwritten show.
    let c = Buffer::filled(0xffffu16, m * n);
    let map_c = TensorMap::tiled_2d(&c, (m, n), n, (64, 64), TmaSwizzle::B128).unwrap();
    let (pa, pb, pc, pmc) = (map_a.ptr(), map_b.ptr(), c.global_mut(), map_c.ptr());
    let tiles = ceil_div(m, form.bm() * form.cluster) * ceil_div(n, BN);
    let grid = clusters.unwrap_or(tiles) * form.cluster;
    let smem = if tma || wide {
        layout_kernels_sm90::hgemm::SMEM_BYTES_TMA_STORE
    } else {
        layout_kernels_sm90::hgemm::SMEM_BYTES
    };
    let launch = Launch::new("gemm", grid, form.threads())
        .cluster(form.cluster)
        .shared_bytes(smem);
    let mnk = (m as u32, n as u32, k as u32);
    let result = if wide {
        run(&launch, move || {
            gemm_wide_body::<I, In, Out, F, GEMM_TMA_SMEM>(pa, pb, COut::Tma(pmc), mnk, fusion)
        })
    } else if tma {
        run(&launch, move || {
            gemm_body::<I, In, Out, F, GEMM_TMA_SMEM>(pa, pb, COut::Tma(pmc), mnk, fusion)
        })
    } else {
        run(&launch, move || {
            gemm_body::<I, In, Out, F, HGEMM_SMEM>(pa, pb, COut::Global(pc), mnk, fusion)
        })
    };
    if let Err(e) = result {
        panic!("gemm at {m} x {n} x {k}: {e}")
    }
    (a, b, c.to_vec())
}

/// The exact product of row i of A and row j of B (small integers).
fn dot(a: &[f32], b: &[f32], k: usize, i: usize, j: usize) -> f32 {
    (0..k).map(|p| a[i * k + p] * b[j * k + p]).sum()
}

/// bf16 in and out, no fusion: exact on integers (sums below 256 are exact
/// in bf16), with partial tiles in M, N and K.
#[test]
fn gemm_bf16_sm90_is_exact_on_integers() {
    use layout_device::epilogue::{Bf16, Plain};
    use layout_kernels_sm90::hgemm::Bf16In;
    let (m, n, k) = (200, 300, 40);
    let (a, b, c) = gemm_case::<Bf16In, Bf16, _>((m, n, k), bf, Plain);
    for i in 0..m {
        for j in 0..n {
            assert_eq!(c[i * n + j], bf(dot(&a, &b, k, i, j)), "({i}, {j})");
        }
    }
}

/// GELU(A·Bᵀ + bias[col]) in bf16: bit for bit the epilogue functions of
/// `layout_device::epilogue` applied to the exact sums (the fusion's own
/// code), and within bf16's rounding (2^-8 relative) plus 1e-6 of torch's
/// definition `x/2 (1 + erf(x/√2))` evaluated in f64 (Rust's `erf` from
/// libm), on an odd n and a K of 8 elements past a K-block. Where the
/// epilogue warps apply the GELU (the wide ring's TMA store), x is
/// rounded to bf16 before it, as torch's `F.gelu(F.linear(..))` rounds the
/// linear layer's output: bit for bit `gelu(bf16(x))`, and within another
/// 1.08 |x| 2^-8 (GELU's slope is at most 1.0741, at x = √2).
#[test]
fn gemm_bias_gelu_bf16_sm90_matches_its_definition() {
    bias_gelu_case::<0>((129, 257, 72), (false, false), None);
}

/// The same as `gemm_bias_gelu_tma_bf16_sm90` runs it (C stored by TMA,
/// the GELU in the consumers), as `gemm_bias_gelu_tma_wide_bf16_sm90` does
/// (three stages, a whole tile of staging, the GELU in the epilogue
/// warps), and in ping-pong (one staging buffer a consumer, the GELU in
/// the consumers); partial tiles in
/// M and N, one block per tile and one persistent cluster (its buffers'
/// hand-offs over several tiles).
#[test]
fn gemm_bias_gelu_tma_bf16_sm90_matches_its_definition() {
    use layout_kernels_sm90::hgemm::PINGPONG;
    for mode in [(true, false), (false, true)] {
        bias_gelu_case::<0>((129, 264, 72), mode, None);
        bias_gelu_case::<0>((300, 520, 24), mode, Some(1));
    }
    bias_gelu_case::<PINGPONG>((129, 264, 72), (true, false), None);
    bias_gelu_case::<PINGPONG>((300, 520, 24), (true, false), Some(1));
}

/// GELU(A·Bᵀ + bias) of `dims` against its definition (above) in the form
/// `FORMS[I]`, C stored by each thread or by TMA (`mode.0`), or by
/// `gemm_wide_body` (`mode.1`).
fn bias_gelu_case<const I: usize>(
    dims: (usize, usize, usize),
    mode: (bool, bool),
    clusters: Option<usize>,
) {
    use layout_device::epilogue::{gelu, Bf16, BiasCol, Gelu, Plain};
    use layout_kernels_sm90::hgemm::Bf16In;
    let (m, n, k) = dims;
    // Biases in [-3/8, 3/8] in steps of 1/256: exact in bf16 (7 bits),
    // while the sums x of 1 <= |x| < 4 that GELU bends are not (up to 10
    // bits), so that rounding x first shows.
    let bias: Vec<u16> = (0..n).map(|j| bf(int(j, 96) / 256.0)).collect();
    let gbias = Buffer::from_slice(&bias);
    let fusion = Gelu(BiasCol {
        bias: gbias.global(),
        inner: Plain,
    });
    // The epilogue warps activate (after rounding to bf16) in the wide
    // ring only; the consumers activate the f32 sums.
    let deferred = mode.1 && I != layout_kernels_sm90::hgemm::PINGPONG;
    let (a, b, c) = gemm_case_with::<I, Bf16In, Bf16, _>(dims, bf, fusion, mode, clusters);
    for i in 0..m {
        for j in 0..n {
            let x = dot(&a, &b, k, i, j) + unbf(bias[j]);
            let before = if deferred { unbf(bf(x)) } else { x };
            assert_eq!(c[i * n + j], bf(gelu(before)), "({i}, {j}) at x = {x}");
            let x = f64::from(x);
            let want = 0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2));
            let got = f64::from(unbf(c[i * n + j]));
            let rounded_x = if deferred {
                1.08 * x.abs() / 256.0
            } else {
                0.0
            };
            assert!(
                (got - want).abs() <= want.abs() / 256.0 + rounded_x + 1e-6,
                "({i}, {j}) of {dims:?}: {got} for gelu({x}) = {want}"
            );
        }
    }
}

/// `gemm_bias_gelu_tanh_tma_bf16_sm90`'s body (C stored by TMA, GELU's tanh
/// form in the consumers): bit for bit `gelu_tanh(x)` of the f32 sum, and
/// within bf16's rounding of the tanh form's definition in f64; partial
/// tiles, one block per tile and one persistent cluster.
#[test]
fn gemm_bias_gelu_tanh_tma_bf16_sm90_matches_its_definition() {
    use layout_device::epilogue::{gelu_tanh, Bf16, BiasCol, GeluTanh, Plain};
    use layout_kernels_sm90::hgemm::Bf16In;
    for (dims, clusters) in [((129, 264, 72), None), ((300, 520, 24), Some(1))] {
        let (m, n, k) = dims;
        let bias: Vec<u16> = (0..n).map(|j| bf(int(j, 96) / 256.0)).collect();
        let gbias = Buffer::from_slice(&bias);
        let fusion = GeluTanh(BiasCol {
            bias: gbias.global(),
            inner: Plain,
        });
        let (a, b, c) =
            gemm_case_with::<0, Bf16In, Bf16, _>(dims, bf, fusion, (true, false), clusters);
        let root = (2.0 / std::f64::consts::PI).sqrt();
        for i in 0..m {
            for j in 0..n {
                let x = dot(&a, &b, k, i, j) + unbf(bias[j]);
                assert_eq!(c[i * n + j], bf(gelu_tanh(x)), "({i}, {j}) at x = {x}");
                let x = f64::from(x);
                let want = 0.5 * x * (1.0 + (root * (x + 0.044715 * x * x * x)).tanh());
                let got = f64::from(unbf(c[i * n + j]));
                assert!(
                    (got - want).abs() <= want.abs() / 256.0 + 1e-6,
                    "({i}, {j}) of {dims:?}: {got} for gelu_tanh({x}) = {want}"
                );
            }
        }
    }
}

/// ReLU(A·Bᵀ + bias[row]) in bf16, the bias per row read before each
/// tile's K-loop (`Fusion::HOLDS`): on integers and a bias of quarters,
/// the f32 sum is exact and rounds to bf16 as the reference's does; by
/// TMA and by each thread, with partial tiles and an odd n (the clipped
/// stores).
#[test]
fn gemm_bias_row_relu_bf16_sm90_is_exact_on_integers() {
    use layout_device::epilogue::{relu, Bf16, BiasRow, Fusion, Hold, Plain, Relu};
    use layout_kernels_sm90::hgemm::Bf16In;
    for (dims, tma) in [((129, 264, 72), true), ((130, 257, 40), false)] {
        let (m, n, k) = dims;
        let bias: Vec<u16> = (0..m).map(|i| bf(int(i, 40) / 4.0)).collect();
        let gbias = Buffer::from_slice(&bias);
        let fusion = Relu(BiasRow {
            bias: gbias.global(),
            inner: Plain,
        });
        assert_eq!(Relu::<BiasRow<Plain>>::HOLDS, Hold::Rows);
        let (a, b, c) = gemm_case_with::<0, Bf16In, Bf16, _>(dims, bf, fusion, (tma, false), None);
        for i in 0..m {
            for j in 0..n {
                let x = dot(&a, &b, k, i, j) + unbf(bias[i]);
                assert_eq!(c[i * n + j], bf(relu(x)), "({i}, {j}) of {dims:?}");
            }
        }
    }
}

/// FP8 e4m3 in, bf16 out, scaled by scale_a · scale_b: exact on integers
/// with power-of-two scales, K-blocks of 128 elements (K = 160: one full,
/// one partial), C stored by each thread (`gemm_e4m3_sm90`, n odd) and by
/// TMA (`gemm_e4m3_tma_sm90`, clipped at C's edges).
#[test]
fn gemm_e4m3_sm90_is_exact_on_integers() {
    use layout_device::epilogue::{Alpha, Bf16};
    use layout_kernels_sm90::hgemm::E4m3In;
    let (sa, sb) = (0.5f32, 0.25f32);
    for ((m, n, k), tma) in [((70, 261, 160), false), ((130, 264, 160), true)] {
        let fp8 = |x| u16::from(e4m3(x));
        let (a, b, c) = gemm_case_with::<0, E4m3In, Bf16, _>(
            (m, n, k),
            fp8,
            Alpha(sa * sb),
            (tma, false),
            None,
        );
        for i in 0..m {
            for j in 0..n {
                assert_eq!(
                    c[i * n + j],
                    bf(sa * sb * dot(&a, &b, k, i, j)),
                    "({i}, {j}) of {:?}, C by TMA: {tma}",
                    (m, n, k)
                );
            }
        }
    }
}

/// The TMA-store epilogue: bf16 exact on integers, C written through the
/// staging buffers and TMA (which clips at C's edges: m and n not
/// multiples of 64), one block per tile and persistent (a cluster walking
/// every tile, its staging buffers reused across tiles).
#[test]
fn gemm_bf16_tma_sm90_is_exact_on_integers() {
    use layout_device::epilogue::{Bf16, Plain};
    use layout_kernels_sm90::hgemm::Bf16In;
    for (dims, clusters) in [((200, 300, 40), None), ((150, 600, 24), Some(1))] {
        let (m, n, k) = dims;
        let (a, b, c) =
            gemm_case_with::<0, Bf16In, Bf16, _>(dims, bf, Plain, (true, false), clusters);
        for i in 0..m {
            for j in 0..n {
                assert_eq!(
                    c[i * n + j],
                    bf(dot(&a, &b, k, i, j)),
                    "({i}, {j}) of {dims:?}"
                );
            }
        }
    }
}

/// The grouped GEMM: four groups of 0, 70, 129 and 5 rows (an empty group;
/// tiles that reach into the next group's rows, whose results are not
/// stored), each with its own B, in one persistent launch of one cluster
/// and in one of a cluster per tile: each group's C exact on integers, and
/// no row written twice or left out.
#[test]
fn gemm_grouped_bf16_sm90_is_exact_per_group() {
    grouped_case::<1>(&[0, 70, 129, 5], (300, 40), false);
}

/// `gemm_grouped_tma_bf16_sm90`'s form: 128-row tiles in clusters of two
/// (256 rows of a group a cluster), a consumer's 64 rows stored by TMA
/// where they lie in their group and by each thread where they end past
/// it: groups of 300 rows (a tile inside, one crossing into the next
/// group), 0, 5 and 128 (the last group's second block past C's rows),
/// partial tiles in N. Then the tail split: 8 tiles on 6 clusters leave 2
/// over, each cut into 3 units along K (4 K-blocks: 1, 1 and 2), the
/// flags 0 after the launch, and a second launch exact over the first's
/// workspace.
#[test]
fn gemm_grouped_tma_bf16_sm90_is_exact_per_group() {
    grouped_case::<0>(&[300, 0, 5, 128], (264, 40), true);
    let out = grouped_case::<0>(&[300, 0, 5, 128], (264, 200), true);
    assert_eq!(out, 8, "tiles");
}

/// `gemm_grouped_tma_nocluster_bf16_sm90`'s form: 128-row tiles without
/// clusters (128 rows of a group a block): groups of 200 rows (a tile
/// inside, one crossing into the next group), 0, 5 and 40 (a consumer's
/// rows all past its group: no `wgmma`), partial tiles in N; then the
/// tail split on 8 tiles, as the clustered form's.
#[test]
fn gemm_grouped_tma_nocluster_bf16_sm90_is_exact_per_group() {
    use layout_kernels_sm90::hgemm::NOCLUSTER;
    assert_eq!(FORMS[NOCLUSTER].0, "hgemm_sm90_nocluster");
    grouped_case::<NOCLUSTER>(&[200, 0, 5, 40], (264, 40), true);
    let out = grouped_case::<NOCLUSTER>(&[200, 0, 5, 40], (264, 200), true);
    assert_eq!(out, 8, "tiles");
}

/// The grouped GEMM in the form `FORMS[I]` on groups of `sizes` rows, n
/// columns, K = k, C stored by each thread or (`tma`) as
/// [`COut::TmaGrouped`]: exact on integers, every row of every group, on
/// one persistent cluster and on a cluster per tile, blocks last to
/// first; with `tma` and 8 tiles, also on 6 clusters with the 2 tiles left
/// over split in 3 along K (blocks first to last: a split waits for the
/// ones before it). Returns the tiles.
fn grouped_case<const I: usize>(sizes: &[usize], (n, k): (usize, usize), tma: bool) -> usize {
    use layout_device::epilogue::{Bf16, Plain};
    use layout_kernels_sm90::hgemm::{Bf16In, Inputs, SPLIT_REGION};
    let form = FORMS[I].1;
    let offsets: Vec<i32> = std::iter::once(0)
        .chain(sizes.iter().scan(0, |acc, &m| {
            *acc += m;
            Some(*acc as i32)
        }))
        .collect();
    let (rows, g) = (*offsets.last().unwrap() as usize, sizes.len());
    let a: Vec<f32> = (0..rows * k).map(|x| int(x, 2)).collect();
    // Shifted by the group (`int` has period 5, which n k may be a
    // multiple of): each group's B differs.
    let b: Vec<f32> = (0..g * n * k)
        .map(|x| int(x + 5 + x / (n * k), 2))
        .collect();
    let ga = Buffer::from_slice(&a.iter().map(|&x| bf(x)).collect::<Vec<_>>());
    let gb = Buffer::from_slice(&b.iter().map(|&x| bf(x)).collect::<Vec<_>>());
    let go = Buffer::from_slice(&offsets);
    let bk = <Bf16In as Inputs>::BK;
    let map_a = TensorMap::tiled_2d(&ga, (rows, k), k, (form.bm(), bk), TmaSwizzle::B128).unwrap();
    let map_b = TensorMap::tiled_2d(
        &gb,
        (g * n, k),
        k,
        (BN / form.cluster, bk),
        TmaSwizzle::B128,
    )
    .unwrap();
    let per_tile = form.bm() * form.cluster;
    let tiles: usize = sizes
        .iter()
        .map(|&m| ceil_div(m, per_tile) * ceil_div(n, BN))
        .sum();
    // (clusters, tail splits, blocks last to first)
    let mut runs = vec![(1, 1, true), (tiles, 1, true)];
    if tma && tiles == 8 {
        runs.push((6, 3, false));
        runs.push((6, 3, false));
    }
    // The tail's workspace: at most a round's tiles, 4 consumers each.
    let regions = tiles * form.cluster * form.consumers;
    let sums = Buffer::filled(f32::NAN, regions * SPLIT_REGION);
    let flags = Buffer::filled(0u32, regions);
    for (clusters, tail_splits, reversed) in runs {
        let c = Buffer::filled(0xffffu16, rows * n);
        let map_c = TensorMap::tiled_2d(&c, (rows, n), n, (64, 64), TmaSwizzle::B128).unwrap();
        let (pa, pb, pc, pmc) = (map_a.ptr(), map_b.ptr(), c.global_mut(), map_c.ptr());
        let (ps, pf) = (sums.global_mut(), flags.global_mut());
        let groups = Groups {
            offsets: go.global(),
            count: g,
            n,
            tail_splits,
        };
        let mut launch = Launch::new("gemm_grouped", clusters * form.cluster, form.threads())
            .cluster(form.cluster);
        if reversed {
            // A later group's tiles run first, so a tile that stored past
            // its group's rows would leave its values there.
            launch = launch.reversed();
        }
        let result = if tma {
            let launch = launch.shared_bytes(layout_kernels_sm90::hgemm::SMEM_BYTES_TMA_STORE);
            run(&launch, move || {
                let out = COut::TmaGrouped {
                    map: pmc,
                    c: pc,
                    sums: ps,
                    flags: pf,
                };
                gemm_grouped_body::<I, Bf16In, Bf16, Plain, GEMM_TMA_SMEM>(
                    pa, pb, out, groups, k as u32, Plain,
                )
            })
        } else {
            let launch = launch.shared_bytes(layout_kernels_sm90::hgemm::SMEM_BYTES);
            run(&launch, move || {
                gemm_grouped_body::<I, Bf16In, Bf16, Plain, HGEMM_SMEM>(
                    pa,
                    pb,
                    COut::Global(pc),
                    groups,
                    k as u32,
                    Plain,
                )
            })
        };
        let at = format!("{clusters} clusters, tail split {tail_splits}");
        result.unwrap_or_else(|e| panic!("{at}: {e}"));
        assert!(flags.to_vec().iter().all(|&f| f == 0), "{at}: flags left");
        if tail_splits > 1 {
            // The splits handed on through the sums.
            assert!(sums.to_vec().iter().any(|x| !x.is_nan()), "{at}: no split");
        }
        let c = c.to_vec();
        for gi in 0..g {
            for i in offsets[gi] as usize..offsets[gi + 1] as usize {
                for j in 0..n {
                    let want: f32 = (0..k).map(|p| a[i * k + p] * b[(gi * n + j) * k + p]).sum();
                    assert_eq!(c[i * n + j], bf(want), "group {gi}, ({i}, {j}), {at}");
                }
            }
        }
    }
    tiles
}

/// Grouped-query attention: 4 query heads on 2 K/V heads (pairs share
/// one) and on 1 (multi-query), both masks, against the f64 reference in
/// which query head h reads K/V head h / (heads / kv_heads).
#[test]
fn flash_attn_fwd_sm90_grouped_query_heads() {
    attention_case_gqa(64, false, (1, 70, 150, 4, 2), 0.3);
    attention_case_gqa(64, true, (2, 130, 70, 4, 1), 0.3);
    attention_case_gqa(128, true, (1, 45, 77, 4, 2), -0.2);
}

/// The causal mask aligned bottom-right (FlashAttention's: query i sees
/// keys 0..=i + seq_k - seq_q): fewer queries than keys (a chunk of new
/// tokens over a cached prefix), and more queries than keys, whose first
/// seq_q - seq_k rows see no key: O = 0 and LSE = -inf there, no NaN
/// anywhere (the check compares every element).
#[test]
fn flash_attn_fwd_sm90_causal_bottom_right() {
    attention_case_bottom_right(64, (1, 70, 300, 2, 2), 0.3);
    attention_case_bottom_right(64, (1, 300, 100, 2, 1), 0.3);
    attention_case_bottom_right(128, (2, 200, 45, 2, 2), -0.2);
}

/// Sliding windows (Mistral's, Gemma 2's): query i sees keys i + offset -
/// left ..= i + offset + right. Causal windows (right 0) of 100 and 257
/// keys top-left and bottom-right (the tiles wholly left of a block's
/// window skipped), and a two-sided one; every element against the f64
/// reference.
#[test]
fn flash_attn_fwd_sm90_sliding_windows() {
    let window = |d, (sq, sk): (usize, usize), (left, right): (isize, isize), br: bool| {
        attention_run(
            d,
            (Some((right, -left)), br),
            Seqs::Planes(1, sq, sk),
            (2, 1),
            0.3,
        )
    };
    window(64, (400, 400), (100, 0), false);
    window(64, (150, 500), (257, 0), true);
    window(128, (300, 300), (40, 70), false);
}

/// Packed sequences of their own lengths (FlashAttention's variable-length
/// batch, `cu_seqlens`): ragged rows and keys, empty sequences (no rows;
/// rows but no key: O = 0, LSE = -inf), one row, more rows than a block,
/// with grouped heads, both masks and both alignments, and a window wider
/// than its sequence; every sequence against the f64 reference on its own.
#[test]
fn flash_attn_fwd_sm90_packed_sequences() {
    let lens = [(70, 150), (0, 30), (1, 1), (200, 45), (5, 0), (130, 300)];
    let causal = Some((0, i32::MIN as isize));
    attention_run(64, (None, false), Seqs::Packed(&lens), (4, 2), 0.3);
    attention_run(64, (causal, false), Seqs::Packed(&lens), (2, 2), 0.3);
    attention_run(128, (causal, true), Seqs::Packed(&lens), (2, 1), -0.2);
    // A causal window of 1000 keys: wider than every sequence.
    attention_run(
        128,
        (Some((0, -1000)), true),
        Seqs::Packed(&lens[..4]),
        (1, 1),
        0.3,
    );
}

/// Head dimension 256 (Gemma's): one K/V stage, each tile's S, softmax and
/// P·V in turn; partial tiles, both masks, grouped heads, a bottom-right
/// window and packed sequences with empty ones, against the f64 reference.
#[test]
fn flash_attn_fwd_sm90_d256() {
    attention_case(256, false, (1, 130, 150, 2), 0.3);
    attention_case(256, true, (2, 45, 300, 1), -0.2);
    attention_case_gqa(256, true, (1, 200, 77, 4, 2), 0.3);
    attention_run(
        256,
        (Some((0, -100)), true),
        Seqs::Planes(1, 150, 260),
        (2, 1),
        0.3,
    );
    let lens = [(70, 150), (0, 30), (1, 1), (130, 0), (129, 300)];
    attention_run(
        256,
        (Some((0, i32::MIN as isize)), true),
        Seqs::Packed(&lens),
        (2, 1),
        0.3,
    );
}

/// Split-K (`gemm_split_body` in the form `SPLIT_FORM`, 64-row tiles,
/// and in the 128-row `hgemm_sm90_nocluster`, whose two consumers hand on
/// apart): f16 exact on integers for 1 to 4 splits of K (6 K-blocks, the
/// last partial: splits of 1 and 2 K-blocks; one split stores C
/// directly), with partial tiles in M and N, one block per (tile, split)
/// and one block taking every pair; an even and an odd N (C stored in
/// words, or in halves). Each launch leaves the flags 0, and the second
/// launch over the same workspace is exact again.
#[test]
fn gemm_split_k_is_exact_on_integers() {
    use layout_kernels_sm90::hgemm::SPLIT_FORM;
    gemm_split_k_case::<SPLIT_FORM>(&[1, 2, 3, 4]);
    gemm_split_k_case::<5>(&[3]);
}

/// [`gemm_split_k_is_exact_on_integers`] in the form `FORMS[I]`, with
/// each count of `splits`.
fn gemm_split_k_case<const I: usize>(counts: &[usize]) {
    use layout_device::epilogue::{Plain, F16};
    use layout_kernels_sm90::bodies::gemm_split_body;
    use layout_kernels_sm90::hgemm::{split_flags, split_sums, F16In};
    for (m, n, k) in [(130, 300, 328), (70, 259, 328)] {
        let form = FORMS[I].1;
        let a: Vec<f32> = (0..m * k).map(|x| int(x, 2)).collect();
        let b: Vec<f32> = (0..n * k).map(|x| int(x + 5, 2)).collect();
        let want: Vec<u16> = (0..m * n)
            .map(|x| h(dot(&a, &b, k, x / n, x % n)))
            .collect();
        let ga = Buffer::from_slice(&a.iter().map(|&x| h(x)).collect::<Vec<_>>());
        let gb = Buffer::from_slice(&b.iter().map(|&x| h(x)).collect::<Vec<_>>());
        let map_a = TensorMap::tiled_2d(&ga, (m, k), k, (form.bm(), BK), TmaSwizzle::B128).unwrap();
        let map_b = TensorMap::tiled_2d(&gb, (n, k), k, (BN, BK), TmaSwizzle::B128).unwrap();
        let tiles = ceil_div(m, form.bm()) * ceil_div(n, BN);
        for &splits in counts {
            let sums = Buffer::filled(f32::NAN, split_sums(I, m, n));
            let flags = Buffer::filled(0u32, split_flags(I, m, n));
            // The second launch reuses the first's sums and flags.
            for grid in [tiles * splits, 1] {
                let what = format!("form {I}: {m} x {n} x {k}, {splits} splits, grid {grid}");
                let c = Buffer::filled(0xffffu16, m * n);
                let (pa, pb, ps, pf, pc) = (
                    map_a.ptr(),
                    map_b.ptr(),
                    sums.global_mut(),
                    flags.global_mut(),
                    c.global_mut(),
                );
                let launch = Launch::new("gemm_split", grid, form.threads())
                    .shared_bytes(layout_kernels_sm90::hgemm::SMEM_BYTES);
                let (mnk, s) = ((m as u32, n as u32, k as u32), splits as u32);
                if let Err(e) = run(&launch, move || {
                    gemm_split_body::<I, F16In, F16, _, HGEMM_SMEM>(
                        pa,
                        pb,
                        (pc, ps, pf),
                        mnk,
                        s,
                        Plain,
                    )
                }) {
                    panic!("{what}: {e}")
                }
                if let Err(e) = c.check(&want, |x, y| x == y) {
                    panic!("{what}: {e}")
                }
                if let Err(e) = flags.check(&vec![0; flags.len()], |x, y| x == y) {
                    panic!("{what}: flags: {e}")
                }
            }
        }
    }
}
