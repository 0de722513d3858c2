//! Every SM80 kernel of the crate, run as written under the block
//! emulator (`layout_device::emulator`) on small shapes, against a CPU
//! reference: exactly on integer-valued inputs (the GEMMs and the
//! transpose), within f16's rounding for attention (partial tiles of
//! queries and keys, both masks). Sizes the kernels' plans refuse trap.

use layout_device::emulator::{run, Buffer, ErrorKind, Launch};
use layout_device::F4;
use layout_kernels::bodies::{
    decode_attn, flash_attn_fwd, hgemm, kv_append, sgemm, sgemm_nt, transpose, DecodeIo,
    DecodeProblem, FlashProblem, Half4,
};
use layout_kernels::maps::{
    decode_smem_bytes, decode_tile, flash_bm, flash_smem_bytes, APPEND_THREADS, DECODE_ROWS,
    DECODE_THREADS, FLASH_THREADS,
};
use layout_kernels::smem::{
    DECODE_SMEM_D128, DECODE_SMEM_D64, FLASH_SMEM_D128, FLASH_SMEM_D256, FLASH_SMEM_D64,
};

/// f32 values as the kernels' 16-byte chunks.
fn f4s(v: &[f32]) -> Vec<F4> {
    v.chunks(4).map(|c| F4([c[0], c[1], c[2], c[3]])).collect()
}

/// f16 bits as 16-byte chunks of 8 halves (element 2i in the low half).
fn f4_halves(v: &[u16]) -> Vec<F4> {
    v.chunks(8)
        .map(|c| {
            F4(core::array::from_fn(|k| {
                f32::from_bits(u32::from(c[2 * k]) | u32::from(c[2 * k + 1]) << 16)
            }))
        })
        .collect()
}

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

/// C = A·B (row-major m x k and k x n, or `a_cols`: A column-major).
fn gemm_ref(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], a_cols: bool) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k)
                .map(|p| if a_cols { a[p * m + i] } else { a[i * k + p] } * b[p * n + j])
                .sum();
        }
    }
    c
}

#[test]
fn transpose_f32_moves_every_element() {
    let n = 128;
    let x: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    let (src, dst) = (
        Buffer::from_slice(&f4s(&x)),
        Buffer::filled(F4::default(), n * n / 4),
    );
    let (s, d) = (src.global(), dst.global_mut());
    run(
        &Launch::new("transpose_f32", (n / 64, n / 64), 256),
        move || transpose(n, s, d),
    )
    .unwrap();
    let want: Vec<f32> = (0..n * n).map(|i| x[(i % n) * n + i / n]).collect();
    if let Err(e) = dst.check(&f4s(&want), |a, b| a == b) {
        panic!("transpose_f32: {e}")
    }
    // A size that is not a multiple of the 64 x 64 tile traps.
    let e = run(&Launch::new("transpose_f32", (2, 2), 256), move || {
        transpose(96, s, d)
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Trap, "{e}");
}

/// Both SGEMMs at m = 256, n = 128, k = 24 (two blocks, three k-steps).
#[test]
fn sgemms_are_exact_on_integers() {
    let (m, n, k) = (256, 128, 24);
    let a: Vec<f32> = (0..m * k).map(|i| int(i, 4)).collect();
    let b: Vec<f32> = (0..k * n).map(|i| int(i + 7, 3)).collect();
    for nt in [false, true] {
        let (ga, gb) = (Buffer::from_slice(&f4s(&a)), Buffer::from_slice(&f4s(&b)));
        let c = Buffer::filled(F4::default(), m * n / 4);
        let (pa, pb, pc) = (ga.global(), gb.global(), c.global_mut());
        let name = if nt { "sgemm_nt_f32" } else { "sgemm_f32" };
        run(&Launch::new(name, (n / 128, m / 128), 256), move || {
            if nt {
                sgemm_nt(m, n, k, pa, pb, pc)
            } else {
                sgemm(m, n, k, pa, pb, pc)
            }
        })
        .unwrap();
        if let Err(e) = c.check(&f4s(&gemm_ref(m, n, k, &a, &b, nt)), |x, y| x == y) {
            panic!("{name}: {e}")
        }
    }
    let (ga, gb) = (Buffer::from_slice(&f4s(&a)), Buffer::from_slice(&f4s(&b)));
    let c = Buffer::filled(F4::default(), m * n / 4);
    let (pa, pb, pc) = (ga.global(), gb.global(), c.global_mut());
    let e = run(&Launch::new("sgemm_f32", (1, 2), 256), move || {
        sgemm(m, 100, k, pa, pb, pc)
    })
    .unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::Trap,
        "n = 100 is not a multiple of the tile: {e}"
    );
}

/// Both tensor-core HGEMMs (f32 and f16 accumulators) at m = 128, n = 256,
/// k = 64: C = A·Bᵀ, A m x k and B n x k row-major f16.
#[test]
fn hgemms_are_exact_on_integers() {
    let (m, n, k) = (128, 256, 64);
    let a: Vec<f32> = (0..m * k).map(|i| int(i, 3)).collect();
    let b: Vec<f32> = (0..n * k).map(|i| int(i + 3, 2)).collect();
    let bt: Vec<f32> = (0..k * n).map(|i| b[(i % n) * k + i / n]).collect();
    let want = gemm_ref(m, n, k, &a, &bt, false);
    let ga = Buffer::from_slice(&f4_halves(&a.iter().map(|&x| h(x)).collect::<Vec<_>>()));
    let gb = Buffer::from_slice(&f4_halves(&b.iter().map(|&x| h(x)).collect::<Vec<_>>()));
    let (pa, pb) = (ga.global(), gb.global());
    let launch = Launch::new("hgemm", (n / 128, m / 128), 128);
    let c32 = Buffer::filled(0f32, m * n);
    let pc = c32.global_mut();
    run(&launch, move || hgemm::<[f32; 4]>(m, n, k, pa, pb, pc)).unwrap();
    if let Err(e) = c32.check(&want, |x, y| x == y) {
        panic!("hgemm_f32: {e}")
    }
    let c16 = Buffer::filled(0u16, m * n);
    let pc = c16.global_mut();
    run(&launch, move || hgemm::<Half4>(m, n, k, pa, pb, pc)).unwrap();
    let want16: Vec<u16> = want.iter().map(|&x| h(x)).collect();
    if let Err(e) = c16.check(&want16, |x, y| x == y) {
        panic!("hgemm_f16: {e}")
    }
}

/// One sequence's O = softmax(scale·Q·Kᵀ)·V and its log-sum-exp (natural
/// log), in f64, (rows, heads, d) layouts; masked (`Some((offset,
/// lower))`): query i sees keys i + lower ..= i + offset.
fn attention_ref(
    (sq, sk, nh, nkv, d): (usize, usize, usize, usize, usize),
    mask: Option<(isize, isize)>,
    scale: f32,
    (q, k, v): (&[f32], &[f32], &[f32]),
) -> (Vec<f64>, Vec<f64>) {
    let mut o = vec![0f64; sq * nh * d];
    let mut lse = vec![0f64; nh * sq];
    for hi in 0..nh {
        for i in 0..sq {
            let qo = (i * nh + hi) * d;
            // Query head hi reads K/V head hi / (nh / nkv).
            let hk = hi / (nh / nkv);
            // Masked: none seen when the range is empty (O = 0, LSE = -inf).
            let (from, keys) = match mask {
                Some((offset, lower)) => (
                    (i as isize + lower).clamp(0, sk as isize) as usize,
                    (i as isize + offset + 1).clamp(0, sk as isize) as usize,
                ),
                None => (0, sk),
            };
            let from = from.min(keys);
            let s: Vec<f64> = (from..keys)
                .map(|j| {
                    let ko = (j * nkv + hk) * d;
                    (0..d)
                        .map(|x| f64::from(q[qo + x]) * f64::from(k[ko + x]))
                        .sum::<f64>()
                        * f64::from(scale)
                })
                .collect();
            let mx = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = s.iter().map(|x| (x - mx).exp()).collect();
            let z: f64 = w.iter().sum();
            lse[hi * sq + i] = if keys == from {
                f64::NEG_INFINITY
            } else {
                mx + z.ln()
            };
            for x in 0..d {
                o[qo + x] = if keys == from {
                    0.0
                } else {
                    (from..keys)
                        .map(|j| w[j - from] * f64::from(v[(j * nkv + hk) * d + x]))
                        .sum::<f64>()
                        / z
                };
            }
        }
    }
    (o, lse)
}

/// An attention case: the sequences (rows, keys), planes of equal lengths
/// or packed; the heads; the mask's bounds (query i sees keys i + lower ..=
/// i + offset; `None`: unmasked), counted from the bottom-right diagonal
/// when `bottom_right`; the scale.
struct Case {
    lens: Vec<(usize, usize)>,
    packed: bool,
    heads: (usize, usize),
    mask: Option<(i32, i32)>,
    bottom_right: bool,
    scale: f32,
}

/// A sequence's mask bounds for the reference: the case's, moved to the
/// bottom-right diagonal (by seq_k - seq_q) when it says so.
fn seq_mask(c: &Case, (sq, sk): (usize, usize)) -> Option<(isize, isize)> {
    let shift = if c.bottom_right {
        sk as isize - sq as isize
    } else {
        0
    };
    c.mask.map(|(o, l)| {
        let l = l as isize;
        (
            o as isize + shift,
            if l == i32::MIN as isize { l } else { l + shift },
        )
    })
}

/// The kernels' problem of a case, with the buffers of its cumulative
/// offsets (empty for planes), which must outlive the launches.
fn flash_problem(c: &Case) -> (FlashProblem, [Buffer<i32>; 2]) {
    let (tq, tk) = c.lens.iter().fold((0, 0), |(q, k), &(a, b)| (q + a, k + b));
    let cu = |at: fn(&(usize, usize)) -> usize| {
        let mut x = vec![0i32];
        c.lens
            .iter()
            .for_each(|l| x.push(x[x.len() - 1] + at(l) as i32));
        Buffer::from_slice(if c.packed { &x[..] } else { &[] })
    };
    let (cu_q, cu_k) = (cu(|l| l.0), cu(|l| l.1));
    let (batch, seq_q, seq_k) = if c.packed {
        (1, tq, tk)
    } else {
        (c.lens.len(), c.lens[0].0, c.lens[0].1)
    };
    let (offset, lower) = c.mask.unwrap_or((0, i32::MIN));
    let p = FlashProblem {
        batch,
        seq_q,
        seq_k,
        heads: c.heads.0,
        kv_heads: c.heads.1,
        cu_q: cu_q.global(),
        cu_k: cu_k.global(),
        offset,
        lower,
        bottom_right: c.bottom_right,
        scale: c.scale,
    };
    (p, [cu_q, cu_k])
}

/// Sequence `b`'s LSE (its rows from `q0`, `sq` of them; (heads, rows) as
/// the reference gives it) into the kernels' layout `out`: (heads, total
/// rows) packed, (batch, heads, rows) in planes.
fn place_lse(c: &Case, (b, q0, sq): (usize, usize, usize), rl: &[f64], out: &mut [f32]) {
    let nh = c.heads.0;
    let tq: usize = c.lens.iter().map(|l| l.0).sum();
    for hi in 0..nh {
        for i in 0..sq {
            let at = if c.packed {
                hi * tq + q0 + i
            } else {
                (b * nh + hi) * sq + i
            };
            out[at] = rl[hi * sq + i] as f32;
        }
    }
}

/// Packed sequences of the lengths `lens` (rows, keys), the mask and its
/// alignment.
fn packed(
    lens: &[(usize, usize)],
    heads: (usize, usize),
    (mask, bottom_right): (Option<(i32, i32)>, bool),
    scale: f32,
) -> Case {
    Case {
        lens: lens.to_vec(),
        packed: true,
        heads,
        mask,
        bottom_right,
        scale,
    }
}

/// `batch` planes of `seq_q` rows and `seq_k` keys.
fn planes(batch: usize, (seq_q, seq_k): (usize, usize), heads: (usize, usize), scale: f32) -> Case {
    Case {
        lens: vec![(seq_q, seq_k); batch],
        packed: false,
        heads,
        mask: None,
        bottom_right: false,
        scale,
    }
}

/// One attention case under the emulator, against the reference sequence
/// by sequence: O within f16 rounding (of P and of O), LSE within f32's.
fn attention_case(c: Case, d: usize) {
    #[allow(non_snake_case)]
    let (D, CAUSAL) = (d, c.mask.is_some());
    let (nh, nkv) = c.heads;
    let (tq, tk) = c.lens.iter().fold((0, 0), |(q, k), &(a, b)| (q + a, k + b));
    let val = |i: usize, salt: usize| f(h(int(i * 31 + salt, 8) / 8.0));
    let q: Vec<f32> = (0..tq * nh * D).map(|i| val(i, 1)).collect();
    let k: Vec<f32> = (0..tk * nkv * D).map(|i| val(i, 2)).collect();
    let v: Vec<f32> = (0..tk * nkv * D).map(|i| val(i, 3)).collect();
    let bits =
        |x: &[f32]| Buffer::from_slice(&f4_halves(&x.iter().map(|&y| h(y)).collect::<Vec<_>>()));
    let (gq, gk, gv) = (bits(&q), bits(&k), bits(&v));
    let o = Buffer::filled(0u32, tq * nh * D / 2);
    let lse = Buffer::filled(0f32, nh * tq);
    let (p, _cu) = flash_problem(&c);
    let (pq, pk, pv, po, pl) = (
        gq.global(),
        gk.global(),
        gv.global(),
        o.global_mut(),
        lse.global_mut(),
    );
    let longest = c.lens.iter().map(|l| l.0).max().unwrap_or(0).max(1);
    let launch = Launch::new(
        &launch_name(D, CAUSAL),
        (longest.div_ceil(flash_bm(D)), nh, c.lens.len()),
        FLASH_THREADS,
    )
    .shared_bytes(flash_smem_bytes(D));
    run(&launch, move || {
        let (qkv, out) = ((pq, pk, pv), move |_: &FlashProblem| (po, pl));
        match (D, CAUSAL) {
            (64, false) => flash_attn_fwd::<FLASH_SMEM_D64, _, 64, false>(p, qkv, out),
            (64, true) => flash_attn_fwd::<FLASH_SMEM_D64, _, 64, true>(p, qkv, out),
            (128, false) => flash_attn_fwd::<FLASH_SMEM_D128, _, 128, false>(p, qkv, out),
            (128, true) => flash_attn_fwd::<FLASH_SMEM_D128, _, 128, true>(p, qkv, out),
            (256, false) => flash_attn_fwd::<FLASH_SMEM_D256, _, 256, false>(p, qkv, out),
            _ => flash_attn_fwd::<FLASH_SMEM_D256, _, 256, true>(p, qkv, out),
        }
    })
    .unwrap();
    let (mut want_o, mut want_lse) = (vec![0f64; tq * nh * D], vec![0f32; nh * tq]);
    let (mut q0, mut k0) = (0, 0);
    for (b, &(sq, sk)) in c.lens.iter().enumerate() {
        let m = seq_mask(&c, (sq, sk));
        let (qs, ks) = (
            q0 * nh * D..(q0 + sq) * nh * D,
            k0 * nkv * D..(k0 + sk) * nkv * D,
        );
        let (ro, rl) = attention_ref(
            (sq, sk, nh, nkv, D),
            m,
            c.scale,
            (&q[qs.clone()], &k[ks.clone()], &v[ks]),
        );
        want_o[qs].copy_from_slice(&ro);
        place_lse(&c, (b, q0, sq), &rl, &mut want_lse);
        (q0, k0) = (q0 + sq, k0 + sk);
    }
    // O as f16 pairs: each half within f16's rounding (of P and of O;
    // |O| <= 1) of the reference; LSE within f32's (ex2/lg2.approx: a few
    // ulps of |LSE| < 16). A difference names the element and its writer.
    let pairs: Vec<u32> = want_o
        .chunks(2)
        .map(|w| u32::from(h(w[0] as f32)) | u32::from(h(w[1] as f32)) << 16)
        .collect();
    let close = |g: u32, w: u32| {
        (0..2).all(|i| (f((g >> (16 * i)) as u16) - f((w >> (16 * i)) as u16)).abs() <= 2e-3)
    };
    if let Err(e) = o.check(&pairs, close) {
        panic!("{}: O (f16 pairs): {e}", launch_name(D, CAUSAL))
    }
    // (-inf for a row that sees no key: equal, not within.)
    if let Err(e) = lse.check(&want_lse, |g, w| g == w || (g - w).abs() <= 2e-5) {
        panic!("{}: LSE: {e}", launch_name(D, CAUSAL))
    }
}

fn launch_name(d: usize, causal: bool) -> String {
    format!("flash_attn_fwd_d{d}{}", if causal { "_causal" } else { "" })
}

/// Causal, top-left.
const CAUSAL_MASK: Option<(i32, i32)> = Some((0, i32::MIN));

#[test]
fn attention_d64_partial_tiles_both_masks() {
    let p = || planes(1, (130, 77), (2, 2), 0.3);
    attention_case(p(), 64);
    attention_case(
        Case {
            mask: CAUSAL_MASK,
            ..p()
        },
        64,
    );
}

#[test]
fn attention_d128_partial_tiles_both_masks() {
    let p = || planes(2, (45, 150), (1, 1), -0.2);
    attention_case(p(), 128);
    attention_case(
        Case {
            mask: CAUSAL_MASK,
            ..p()
        },
        128,
    );
}

/// Grouped-query attention: 4 query heads on 2 K/V heads and on 1
/// (multi-query), both masks and both head dimensions, against the f64
/// reference in which query head h reads K/V head h / (heads / kv_heads).
#[test]
fn attention_grouped_query_heads() {
    attention_case(planes(2, (70, 130), (4, 2), 0.3), 64);
    attention_case(
        Case {
            mask: CAUSAL_MASK,
            ..planes(2, (130, 70), (4, 1), 0.3)
        },
        64,
    );
    attention_case(
        Case {
            mask: CAUSAL_MASK,
            ..planes(2, (45, 77), (4, 2), 0.3)
        },
        128,
    );
}

/// The causal mask aligned bottom-right (query i sees keys 0..=i + seq_k -
/// seq_q): fewer queries than keys, and more, whose first seq_q - seq_k
/// rows see no key (O = 0, LSE = -inf, no NaN: every element compared).
#[test]
fn attention_causal_bottom_right() {
    let p = |lens| Case {
        mask: CAUSAL_MASK,
        bottom_right: true,
        ..planes(1, lens, (2, 1), 0.3)
    };
    attention_case(p((70, 300)), 64);
    attention_case(p((300, 100)), 64);
    attention_case(p((200, 45)), 128);
}

/// Sliding windows: query i sees keys i + a - left ..= i + a + right (a
/// the alignment); causal windows of 100 and 257 keys top-left and
/// bottom-right (the tiles wholly left of a block's window skipped) and a
/// two-sided one.
#[test]
fn attention_sliding_windows() {
    let window = |d, lens, (left, right): (i32, i32), bottom_right: bool| {
        let c = Case {
            mask: Some((right, -left)),
            bottom_right,
            ..planes(1, lens, (2, 1), 0.3)
        };
        attention_case(c, d);
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
fn attention_packed_sequences() {
    let lens = vec![(70, 150), (0, 30), (1, 1), (200, 45), (5, 0), (130, 300)];
    let packed =
        |heads, mask, bottom_right, scale| packed(&lens, heads, (mask, bottom_right), scale);
    attention_case(packed((4, 2), None, false, 0.3), 64);
    attention_case(packed((2, 2), CAUSAL_MASK, false, 0.3), 64);
    attention_case(packed((2, 1), CAUSAL_MASK, true, -0.2), 128);
    // A causal window of 1000 keys: wider than every sequence.
    attention_case(packed((1, 1), Some((0, -1000)), true, 0.3), 128);
}

/// Head dimension 256 (64-row blocks, one M-atom a warp, the copies' odd
/// chunks at the swizzle's flipped column): partial tiles both ways, a
/// negative scale, grouped heads with the causal mask bottom-right (rows
/// without a key), a two-sided window, and packed ragged sequences.
#[test]
fn attention_d256_every_form() {
    attention_case(planes(1, (70, 150), (2, 1), -0.2), 256);
    attention_case(
        Case {
            mask: CAUSAL_MASK,
            bottom_right: true,
            ..planes(1, (100, 45), (4, 2), 0.3)
        },
        256,
    );
    attention_case(
        Case {
            mask: Some((30, -50)),
            ..planes(1, (130, 130), (1, 1), 0.3)
        },
        256,
    );
    attention_case(
        Case {
            lens: vec![(65, 20), (0, 9), (3, 0), (1, 70)],
            packed: true,
            heads: (2, 1),
            mask: CAUSAL_MASK,
            bottom_right: false,
            scale: 0.3,
        },
        256,
    );
}

/// A decode case: the sequences' context lengths, new queries per
/// sequence, heads (query, K/V), block size, causal, keys per split (None:
/// one split); `corrupt`: a block-table entry (index, value) overwritten,
/// after which the kernel must trap.
struct Decode {
    ctx: Vec<usize>,
    q_len: usize,
    heads: (usize, usize),
    block_size: usize,
    causal: bool,
    split_keys: Option<usize>,
    corrupt: Option<(usize, i32)>,
}

/// One decode case under the emulator: a paged cache whose blocks are
/// laid out of order (a permutation, with one block shared by sequences 0
/// and 1 as a common prefix), the attention (split: merged by its last
/// split) against the float64 reference of each sequence's context gathered in
/// order: O within f16's rounding, LSE within f32's, rows that see no key
/// exactly O = 0 and LSE = -inf.
fn decode_case(c: Decode, d: usize) {
    let (nh, nkv) = c.heads;
    let (batch, bs, q_len) = (c.ctx.len(), c.block_size, c.q_len);
    let max_blocks = c.ctx.iter().map(|&x| x.div_ceil(bs)).max().unwrap().max(1);
    // Blocks: every sequence's own, in a scrambled order, then spares.
    let blocks = batch * max_blocks + 3;
    let perm: Vec<usize> = (0..blocks).map(|i| (i * 7 + 3) % blocks).collect();
    let mut table = vec![0i32; batch * max_blocks];
    for b in 0..batch {
        for j in 0..max_blocks {
            table[b * max_blocks + j] = perm[b * max_blocks + j] as i32;
        }
    }
    // Sequence 1 shares sequence 0's first block (a common prefix).
    if batch > 1 && c.ctx[0] >= bs && c.ctx[1] >= bs {
        table[max_blocks] = table[0];
    }
    if let Some((at, value)) = c.corrupt {
        table[at] = value;
    }
    let val = |i: usize, salt: usize| f(h(int(i * 31 + salt, 8) / 8.0));
    let rows = blocks * bs;
    let kc: Vec<f32> = (0..rows * nkv * d).map(|i| val(i, 2)).collect();
    let vc: Vec<f32> = (0..rows * nkv * d).map(|i| val(i, 3)).collect();
    let q: Vec<f32> = (0..batch * q_len * nh * d).map(|i| val(i, 1)).collect();
    let bits =
        |x: &[f32]| Buffer::from_slice(&f4_halves(&x.iter().map(|&y| h(y)).collect::<Vec<_>>()));
    let (gq, gk, gv) = (bits(&q), bits(&kc), bits(&vc));
    let gt = Buffer::from_slice(&table);
    let lens: Vec<i32> = c.ctx.iter().map(|&x| x as i32).collect();
    let gl = Buffer::from_slice(&lens);
    let n_rows = batch * q_len * nh;
    let t = decode_tile(d);
    let max_ctx = *c.ctx.iter().max().unwrap();
    let split_keys = c.split_keys.unwrap_or(max_ctx.div_ceil(t).max(1) * t);
    let splits = max_ctx.div_ceil(split_keys).max(1);
    let p = DecodeProblem {
        batch,
        q_len,
        q_heads: nh,
        kv_heads: nkv,
        blocks,
        block_size: bs,
        max_blocks,
        split_keys,
        causal: c.causal,
        scale: 0.3,
    };
    let slabs = (q_len * (nh / nkv)).div_ceil(DECODE_ROWS);
    // The split counters start at zero once; each launch leaves them so.
    let count = Buffer::filled(0u32, if splits > 1 { slabs * batch * nkv } else { 0 });
    let name = format!("decode_attn_d{d}");
    // Split, the blocks also run last to first (whichever split counts
    // last merges), into fresh outputs.
    for reversed in [false, true] {
        if reversed && splits == 1 {
            break;
        }
        // NaN partials: a merge that read one no split wrote shows in O.
        let parts = if splits > 1 { splits * n_rows } else { 0 };
        let (o, lse) = (
            Buffer::filled(0u32, n_rows * d / 2),
            Buffer::filled(0f32, n_rows),
        );
        let (o_part, lse_part) = (
            Buffer::filled(f32::NAN, parts * d),
            Buffer::filled(f32::NAN, parts),
        );
        let io = DecodeIo {
            q: gq.global(),
            k: gk.global(),
            v: gv.global(),
            table: gt.global(),
            lens: gl.global(),
            o: o.global_mut(),
            lse: lse.global_mut(),
            o_part: o_part.global_mut(),
            lse_part: lse_part.global_mut(),
            count: count.global_mut(),
        };
        let launch = Launch::new(&name, (splits, slabs, batch * nkv), DECODE_THREADS)
            .shared_bytes(decode_smem_bytes(d));
        let launch = if reversed { launch.reversed() } else { launch };
        let ran = run(&launch, move || match d {
            64 => decode_attn::<DECODE_SMEM_D64, 64>(p, io),
            _ => decode_attn::<DECODE_SMEM_D128, 128>(p, io),
        });
        if c.corrupt.is_some() {
            let e = ran.unwrap_err();
            assert_eq!(e.kind, ErrorKind::Trap, "{e}");
            return;
        }
        ran.unwrap();
        // The last split of each row block merged and set its counter
        // back: the next launch finds zeros.
        if let Err(e) = count.check(&vec![0u32; count.len()], |a, b| a == b) {
            panic!("{name} ({splits} splits): the split counters: {e}")
        }
        check_decode(
            &c,
            d,
            (&table, max_blocks),
            (&q, &kc, &vc),
            (&o, &lse),
            &name,
            splits,
        );
    }
}

/// `decode_case`'s check of O and LSE against the float64 reference.
fn check_decode(
    c: &Decode,
    d: usize,
    (table, max_blocks): (&[i32], usize),
    (q, kc, vc): (&[f32], &[f32], &[f32]),
    (o, lse): (&Buffer<u32>, &Buffer<f32>),
    name: &str,
    splits: usize,
) {
    let (nh, nkv) = c.heads;
    let (batch, bs, q_len) = (c.ctx.len(), c.block_size, c.q_len);
    let n_rows = batch * q_len * nh;
    // The reference: each sequence's context in order, its queries at the
    // last q_len positions (bottom-right).
    let (mut want_o, mut want_lse) = (vec![0f64; n_rows * d], vec![0f32; n_rows]);
    for b in 0..batch {
        let ctx = c.ctx[b];
        let gather = |cache: &[f32]| {
            let mut x = Vec::with_capacity(ctx * nkv * d);
            for tok in 0..ctx {
                let row = table[b * max_blocks + tok / bs] as usize * bs + tok % bs;
                x.extend_from_slice(&cache[row * nkv * d..(row + 1) * nkv * d]);
            }
            x
        };
        let (kb, vb) = (gather(kc), gather(vc));
        let qs = b * q_len * nh * d..(b + 1) * q_len * nh * d;
        let mask = c
            .causal
            .then_some((ctx as isize - q_len as isize, i32::MIN as isize));
        let (ro, rl) = attention_ref(
            (q_len, ctx, nh, nkv, d),
            mask,
            0.3,
            (&q[qs.clone()], &kb, &vb),
        );
        want_o[qs].copy_from_slice(&ro);
        for hi in 0..nh {
            for i in 0..q_len {
                want_lse[(b * nh + hi) * q_len + i] = rl[hi * q_len + i] as f32;
            }
        }
    }
    let pairs: Vec<u32> = want_o
        .chunks(2)
        .map(|w| u32::from(h(w[0] as f32)) | u32::from(h(w[1] as f32)) << 16)
        .collect();
    let close = |g: u32, w: u32| {
        (0..2).all(|i| (f((g >> (16 * i)) as u16) - f((w >> (16 * i)) as u16)).abs() <= 2e-3)
    };
    if let Err(e) = o.check(&pairs, close) {
        panic!("{name} ({splits} splits): O (f16 pairs): {e}")
    }
    if let Err(e) = lse.check(&want_lse, |g, w| g == w || (g - w).abs() <= 2e-5) {
        panic!("{name} ({splits} splits): LSE: {e}")
    }
}

/// Decoding over a paged cache, unsplit: contexts of 1, block_size - 1,
/// block_size and block_size + 1 tokens and 0 (no key: O = 0, LSE =
/// -inf), one query per sequence, grouped heads (4 query heads per K/V
/// head), blocks out of order with a shared prefix, both head dimensions.
#[test]
fn decode_paged_contexts() {
    for (d, bs) in [(64, 16), (128, 64)] {
        decode_case(
            Decode {
                ctx: vec![bs + 1, bs, 1, bs - 1, 0],
                q_len: 1,
                heads: (8, 2),
                block_size: bs,
                causal: false,
                split_keys: None,
                corrupt: None,
            },
            d,
        );
    }
}

/// Several queries per sequence with the causal mask (bottom-right: the
/// first rows of a short context see no key), 20 rows per K/V head (two
/// row blocks), a block size of 256, and 16 queries over 8 query heads a
/// K/V head (eight row blocks).
#[test]
fn decode_causal_queries() {
    decode_case(
        Decode {
            ctx: vec![300, 3, 40],
            q_len: 5,
            heads: (8, 2),
            block_size: 256,
            causal: true,
            split_keys: None,
            corrupt: None,
        },
        128,
    );
    decode_case(
        Decode {
            ctx: vec![130, 2],
            q_len: 3,
            heads: (4, 4),
            block_size: 32,
            causal: true,
            split_keys: None,
            corrupt: None,
        },
        64,
    );
    // Speculative decoding's 16 queries over a group of 8 query heads: 128
    // rows a K/V head, eight row blocks.
    decode_case(
        Decode {
            ctx: vec![70, 16],
            q_len: 16,
            heads: (16, 2),
            block_size: 16,
            causal: true,
            split_keys: None,
            corrupt: None,
        },
        128,
    );
}

/// A block-table entry outside the cache (past its blocks, or negative),
/// in the middle of a context and of a split: the kernel traps rather
/// than read another cache's rows (the entries are read a step ahead of
/// the copies that use them, and checked there).
#[test]
fn decode_traps_on_a_bad_table_entry() {
    for (d, bs, split, bad) in [
        (128, 16, None, 1000),
        (64, 32, Some(2 * decode_tile(64)), -1),
    ] {
        decode_case(
            Decode {
                ctx: vec![300, 200],
                q_len: 1,
                heads: (4, 2),
                block_size: bs,
                causal: false,
                split_keys: split,
                // Sequence 1's fourth block.
                corrupt: Some((300usize.div_ceil(bs) + 3, bad)),
            },
            d,
        );
    }
}

/// Split contexts merged by their last split: splits of one tile and of
/// two, a sequence shorter than a split (its later splits see no key), a
/// context of 0, causal queries, and 35 splits (more than a warp's lanes
/// and not a multiple of the merge's batch of 4).
#[test]
fn decode_split_and_combined() {
    // (contexts, q_len, heads, block size, causal, tiles a split, d)
    type Case = (
        &'static [usize],
        usize,
        (usize, usize),
        usize,
        bool,
        usize,
        usize,
    );
    let cases: [Case; 3] = [
        (&[2200, 70], 1, (4, 2), 32, false, 1, 128),
        (&[700, 65, 0, 200], 2, (8, 1), 64, true, 1, 128),
        (&[1000, 129], 1, (2, 2), 16, false, 2, 64),
    ];
    for (ctx, q_len, heads, block_size, causal, tiles, d) in cases {
        decode_case(
            Decode {
                ctx: ctx.to_vec(),
                q_len,
                heads,
                block_size,
                causal,
                split_keys: Some(tiles * decode_tile(d)),
                corrupt: None,
            },
            d,
        );
    }
}

/// `kv_append` writes each new token's K and V row into its slot (a
/// negative slot is skipped) and touches nothing else; a slot past the
/// cache traps.
#[test]
fn kv_append_writes_the_slots() {
    let (kv_heads, d, cache_rows) = (2usize, 64usize, 40usize);
    let row = kv_heads * d / 8;
    let slots = [7i32, -1, 39, 0];
    let new = |salt: f32| -> Vec<F4> {
        (0..slots.len() * row)
            .map(|i| F4([i as f32 + salt, 0.0, 0.0, 1.0]))
            .collect()
    };
    let (kn, vn) = (new(0.5), new(1000.5));
    let (gk, gv, gs) = (
        Buffer::from_slice(&kn),
        Buffer::from_slice(&vn),
        Buffer::from_slice(&slots),
    );
    let init = F4([-1.0; 4]);
    let (kc, vc) = (
        Buffer::filled(init, cache_rows * row),
        Buffer::filled(init, cache_rows * row),
    );
    let args = (
        gk.global(),
        gv.global(),
        gs.global(),
        kc.global_mut(),
        vc.global_mut(),
    );
    let blocks = (slots.len() * row).div_ceil(APPEND_THREADS);
    run(
        &Launch::new("kv_append", (blocks, 1, 1), APPEND_THREADS),
        move || {
            kv_append(
                (args.0, args.1, args.2),
                (args.3, args.4),
                (4, row, cache_rows),
            )
        },
    )
    .unwrap();
    for (cache, src) in [(&kc, &kn), (&vc, &vn)] {
        let mut want = vec![init; cache_rows * row];
        for (t, &s) in slots.iter().enumerate() {
            if s >= 0 {
                let s = s as usize;
                want[s * row..(s + 1) * row].copy_from_slice(&src[t * row..(t + 1) * row]);
            }
        }
        cache.check(&want, |g, w| g.0 == w.0).unwrap();
    }
    // A slot past the cache's rows: the kernel traps.
    let gs = Buffer::from_slice(&[40i32]);
    let args = (
        gk.global(),
        gv.global(),
        gs.global(),
        kc.global_mut(),
        vc.global_mut(),
    );
    let err = run(
        &Launch::new("kv_append", (1, 1, 1), APPEND_THREADS),
        move || {
            kv_append(
                (args.0, args.1, args.2),
                (args.3, args.4),
                (1, row, cache_rows),
            )
        },
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Trap, "{err}");
}

/// One sequence's gradients of O = softmax(scale·Q·Kᵀ)·V (the forward of
/// [`attention_ref`], its LSE `lse`) for the output gradient `d_o`, in f64:
/// (dQ, dK, dV) in the layouts of Q, K and V; dK and dV summed over each
/// K/V head's query heads. With `abs`, each gradient's sum of the absolute
/// values of its terms instead (|scale dS_ij k_j|, ..., with |dS_ij| taken
/// as P_ij (|dP_ij - Dot_i| + the size of Dot_i's terms): the size its
/// roundings scale with).
#[allow(clippy::type_complexity)]
fn attention_bwd_ref(
    (sq, sk, nh, nkv, d): (usize, usize, usize, usize, usize),
    mask: Option<(isize, isize)>,
    scale: f32,
    (q, k, v, d_o): (&[f32], &[f32], &[f32], &[f32]),
    lse: &[f64],
    abs: bool,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let a = |x: f64| if abs { x.abs() } else { x };
    let (mut dq, mut dk, mut dv) = (
        vec![0f64; sq * nh * d],
        vec![0f64; sk * nkv * d],
        vec![0f64; sk * nkv * d],
    );
    let scale = f64::from(scale);
    let dot = |a: &[f32], b: &[f32]| -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| f64::from(*x) * f64::from(*y))
            .sum()
    };
    for hi in 0..nh {
        let hk = hi / (nh / nkv);
        for i in 0..sq {
            let qo = (i * nh + hi) * d;
            let (from, keys) = match mask {
                Some((offset, lower)) => (
                    (i as isize + lower).clamp(0, sk as isize) as usize,
                    (i as isize + offset + 1).clamp(0, sk as isize) as usize,
                ),
                None => (0, sk),
            };
            let keys_seen = from.min(keys)..keys;
            let row = |j: usize| (j * nkv + hk) * d;
            let p: Vec<f64> = keys_seen
                .clone()
                .map(|j| {
                    (scale * dot(&q[qo..qo + d], &k[row(j)..row(j) + d]) - lse[hi * sq + i]).exp()
                })
                .collect();
            let dp: Vec<f64> = keys_seen
                .clone()
                .map(|j| dot(&d_o[qo..qo + d], &v[row(j)..row(j) + d]))
                .collect();
            let dsum: f64 = p.iter().zip(&dp).map(|(a, b)| a * b).sum();
            // The size of rowsum(dO ∘ O) = Σ_j P_ij dP_ij's terms (from
            // |dO| |V|): what its rounding (O in f16) scales with.
            let dsum_size: f64 = keys_seen
                .clone()
                .zip(&p)
                .map(|(j, pj)| {
                    pj * (0..d)
                        .map(|x| f64::from(d_o[qo + x]).abs() * f64::from(v[row(j) + x]).abs())
                        .sum::<f64>()
                })
                .sum();
            for (t, j) in keys_seen.enumerate() {
                let ds = if abs {
                    p[t] * ((dp[t] - dsum).abs() + dsum_size)
                } else {
                    p[t] * (dp[t] - dsum)
                };
                for x in 0..d {
                    dq[qo + x] += a(scale * ds * f64::from(k[row(j) + x]));
                    dk[row(j) + x] += a(scale * ds * f64::from(q[qo + x]));
                    dv[row(j) + x] += a(p[t] * f64::from(d_o[qo + x]));
                }
            }
        }
    }
    (dq, dk, dv)
}

/// One backward case under the emulator: the forward's O (rounded to f16)
/// and LSE from the f64 reference, then `Dot`, dK/dV and dQ as the host
/// launches them, each gradient against the f64 one within `tol` of its
/// largest magnitude (f16's rounding of P, dS, the inputs' products and
/// the result, over at most a few hundred keys).
fn attention_bwd_case(c: Case, d: usize) {
    use layout_kernels::bodies::{
        flash_bwd_dkdv, flash_bwd_dot, flash_bwd_dq, flash_bwd_dq_convert,
    };
    use layout_kernels::maps::{
        bwd_kv_smem_bytes, bwd_smem_bytes, BWD_CONVERT_THREADS, BWD_DOT_THREADS, BWD_KEYS,
        BWD_ROWS, BWD_THREADS,
    };
    use layout_kernels::smem::{BWD_KV_SMEM_D128, BWD_KV_SMEM_D64, BWD_SMEM_D128, BWD_SMEM_D64};
    #[allow(non_snake_case)]
    let (D, CAUSAL) = (d, c.mask.is_some());
    let (nh, nkv) = c.heads;
    let (tq, tk) = c.lens.iter().fold((0, 0), |(q, k), &(a, b)| (q + a, k + b));
    let val = |i: usize, salt: usize| f(h(int(i * 31 + salt, 8) / 8.0));
    let q: Vec<f32> = (0..tq * nh * D).map(|i| val(i, 1)).collect();
    let k: Vec<f32> = (0..tk * nkv * D).map(|i| val(i, 2)).collect();
    let v: Vec<f32> = (0..tk * nkv * D).map(|i| val(i, 3)).collect();
    let d_o: Vec<f32> = (0..tq * nh * D).map(|i| val(i, 4)).collect();
    // The forward, and the gradients, sequence by sequence.
    let (mut o, mut lse) = (vec![0f32; tq * nh * D], vec![0f32; nh * tq]);
    let (mut want_dq, mut want_dk, mut want_dv) = (
        vec![0f64; tq * nh * D],
        vec![0f64; tk * nkv * D],
        vec![0f64; tk * nkv * D],
    );
    let (mut size_dq, mut size_dk, mut size_dv) =
        (want_dq.clone(), want_dk.clone(), want_dv.clone());
    let (mut q0, mut k0) = (0, 0);
    for (b, &(sq, sk)) in c.lens.iter().enumerate() {
        let m = seq_mask(&c, (sq, sk));
        let (qs, ks) = (
            q0 * nh * D..(q0 + sq) * nh * D,
            k0 * nkv * D..(k0 + sk) * nkv * D,
        );
        let sizes = (sq, sk, nh, nkv, D);
        let (ro, rl) = attention_ref(
            sizes,
            m,
            c.scale,
            (&q[qs.clone()], &k[ks.clone()], &v[ks.clone()]),
        );
        for (x, y) in o[qs.clone()].iter_mut().zip(&ro) {
            *x = f(h(*y as f32));
        }
        let inputs = (
            &q[qs.clone()],
            &k[ks.clone()],
            &v[ks.clone()],
            &d_o[qs.clone()],
        );
        let (gq, gk, gv) = attention_bwd_ref(sizes, m, c.scale, inputs, &rl, false);
        let (aq, ak, av) = attention_bwd_ref(sizes, m, c.scale, inputs, &rl, true);
        want_dq[qs.clone()].copy_from_slice(&gq);
        want_dk[ks.clone()].copy_from_slice(&gk);
        want_dv[ks.clone()].copy_from_slice(&gv);
        size_dq[qs].copy_from_slice(&aq);
        size_dk[ks.clone()].copy_from_slice(&ak);
        size_dv[ks].copy_from_slice(&av);
        place_lse(&c, (b, q0, sq), &rl, &mut lse);
        (q0, k0) = (q0 + sq, k0 + sk);
    }
    let bits =
        |x: &[f32]| Buffer::from_slice(&f4_halves(&x.iter().map(|&y| h(y)).collect::<Vec<_>>()));
    let (gq, gk, gv, go, gdo) = (bits(&q), bits(&k), bits(&v), bits(&o), bits(&d_o));
    let glse = Buffer::from_slice(&lse);
    let gdot = Buffer::filled(f32::NAN, nh * tq);
    let (dq, dk, dv) = (
        Buffer::filled(0u32, tq * nh * D / 2),
        Buffer::filled(0u32, tk * nkv * D / 2),
        Buffer::filled(0u32, tk * nkv * D / 2),
    );
    // The atomic dQ's sums (NaN until `Dot` zeroes them) and outputs.
    let (dq_acc, dq_a, dk_a, dv_a) = (
        Buffer::filled(f32::NAN, tq * nh * D),
        Buffer::filled(0u32, tq * nh * D / 2),
        Buffer::filled(0u32, tk * nkv * D / 2),
        Buffer::filled(0u32, tk * nkv * D / 2),
    );
    let (p, _cu) = flash_problem(&c);
    // Dot, laid out as LSE (seq_q 0: packed).
    let plane_rows = if c.packed { 0 } else { p.seq_q };
    let (po, pdo, pdot, pacc) = (
        go.global(),
        gdo.global(),
        gdot.global_mut(),
        dq_acc.global_mut(),
    );
    let launch = Launch::new(
        "flash_attn_bwd_dot",
        ((tq * nh).div_ceil(BWD_DOT_THREADS).max(1), 1, 1),
        BWD_DOT_THREADS,
    );
    run(&launch, move || {
        flash_bwd_dot((po, pdo), (pdot, pacc), (tq, nh, D, plane_rows))
    })
    .unwrap();
    let none = Buffer::filled(0f32, 0);
    let none = none.global_mut();
    let ins = (gq.global(), gk.global(), gv.global(), gdo.global());
    let stats = (glse.global(), gdot.global());
    let name = |what: &str| {
        format!(
            "flash_attn_bwd_{what}_d{D}{}",
            if CAUSAL { "_causal" } else { "" }
        )
    };
    let longest =
        |at: fn(&(usize, usize)) -> usize| c.lens.iter().map(at).max().unwrap_or(0).max(1);
    let key_tiles = |what: &str| {
        Launch::new(
            &name(what),
            (longest(|l| l.1).div_ceil(BWD_KEYS), nkv, c.lens.len()),
            BWD_THREADS,
        )
        .shared_bytes(bwd_kv_smem_bytes(D))
    };
    let launch = key_tiles("dkdv");
    let outs = (dk.global_mut(), dv.global_mut());
    let dkdv = move |outs, acc, atomic: bool| match (D, CAUSAL, atomic) {
        (64, false, false) => {
            flash_bwd_dkdv::<BWD_KV_SMEM_D64, 64, false, false>(p, ins, stats, outs, acc)
        }
        (64, true, false) => {
            flash_bwd_dkdv::<BWD_KV_SMEM_D64, 64, true, false>(p, ins, stats, outs, acc)
        }
        (128, false, false) => {
            flash_bwd_dkdv::<BWD_KV_SMEM_D128, 128, false, false>(p, ins, stats, outs, acc)
        }
        (128, true, false) => {
            flash_bwd_dkdv::<BWD_KV_SMEM_D128, 128, true, false>(p, ins, stats, outs, acc)
        }
        (64, false, true) => {
            flash_bwd_dkdv::<BWD_KV_SMEM_D64, 64, false, true>(p, ins, stats, outs, acc)
        }
        (64, true, true) => {
            flash_bwd_dkdv::<BWD_KV_SMEM_D64, 64, true, true>(p, ins, stats, outs, acc)
        }
        (128, false, true) => {
            flash_bwd_dkdv::<BWD_KV_SMEM_D128, 128, false, true>(p, ins, stats, outs, acc)
        }
        _ => flash_bwd_dkdv::<BWD_KV_SMEM_D128, 128, true, true>(p, ins, stats, outs, acc),
    };
    run(&launch, move || dkdv(outs, none, false)).unwrap();
    // The atomic dQ: dK, dV and dQ's sums in one launch, then the
    // conversion.
    let (outs_a, acc) = ((dk_a.global_mut(), dv_a.global_mut()), dq_acc.global_mut());
    run(&key_tiles("dkdvq"), move || dkdv(outs_a, acc, true)).unwrap();
    let (acc, out) = (dq_acc.global(), dq_a.global_mut());
    let convert = Launch::new(
        "flash_attn_bwd_dq_convert",
        ((tq * nh * D / 2).div_ceil(BWD_CONVERT_THREADS).max(1), 1, 1),
        BWD_CONVERT_THREADS,
    );
    run(&convert, move || flash_bwd_dq_convert(acc, out, p.scale)).unwrap();
    let launch = Launch::new(
        &name("dq"),
        (longest(|l| l.0).div_ceil(BWD_ROWS), nh, c.lens.len()),
        BWD_THREADS,
    )
    .shared_bytes(bwd_smem_bytes(D));
    let out = dq.global_mut();
    run(&launch, move || match (D, CAUSAL) {
        (64, false) => flash_bwd_dq::<BWD_SMEM_D64, 64, false>(p, ins, stats, out),
        (64, true) => flash_bwd_dq::<BWD_SMEM_D64, 64, true>(p, ins, stats, out),
        (128, false) => flash_bwd_dq::<BWD_SMEM_D128, 128, false>(p, ins, stats, out),
        _ => flash_bwd_dq::<BWD_SMEM_D128, 128, true>(p, ins, stats, out),
    })
    .unwrap();
    // Each gradient's halves against the f64 reference.
    // Each element within BOUND f16 roundings of the sum of its terms'
    // sizes (`attention_bwd_ref` with `abs`): P (for dV), dS and the
    // result are rounded to f16 (a relative 2^-11 each), Dot carries O's
    // f16 rounding (relative to the size of its terms), and the f32 sums
    // add far less. Values below f16's normal range round absolutely:
    // half its subnormal spacing (2^-25) for the result and for each P and
    // dS summed into it (inputs and the scale at most 1), so ATOL per term.
    const BOUND: f64 = 4.0;
    let u16_ = 2f64.powi(-11);
    let atol = (1 + tq * nh + tk) as f64 * 2f64.powi(-25);
    let check = |what: &str, got: &Buffer<u32>, want: &[f64], size: &[f64]| {
        let got: Vec<f32> = got
            .to_vec()
            .iter()
            .flat_map(|w| [f(*w as u16), f((*w >> 16) as u16)])
            .collect();
        let worst = got
            .iter()
            .zip(want)
            .zip(size)
            .map(|((g, w), a)| (f64::from(*g) - w).abs() / (BOUND * u16_ * a + atol))
            .fold(0f64, f64::max);
        assert!(
            got.iter().all(|g| g.is_finite()) && worst <= 1.0,
            "{}: {what}: the worst element is {worst:.2} of its bound",
            name("*")
        );
    };
    check("dQ", &dq, &want_dq, &size_dq);
    check("dK", &dk, &want_dk, &size_dk);
    check("dV", &dv, &want_dv, &size_dv);
    check("dQ (atomic)", &dq_a, &want_dq, &size_dq);
    // The atomic form's dK and dV are the deterministic form's bits: its
    // dS goes to shared memory beside the same products.
    assert_eq!(dk_a.to_vec(), dk.to_vec(), "{}: dK (atomic)", name("*"));
    assert_eq!(dv_a.to_vec(), dv.to_vec(), "{}: dV (atomic)", name("*"));
}

#[test]
fn attention_bwd_planes_both_masks() {
    attention_bwd_case(planes(1, (77, 130), (2, 2), 0.3), 64);
    attention_bwd_case(
        Case {
            mask: CAUSAL_MASK,
            ..planes(2, (45, 70), (2, 1), -0.2)
        },
        128,
    );
}

/// Grouped heads (dK and dV summed over 4 query heads of a K/V head, and
/// over 2), the causal mask bottom-right with more rows than keys (rows
/// that see no key), a zero scale (P uniform) and a negative one.
#[test]
fn attention_bwd_grouped_bottom_right_and_scales() {
    attention_bwd_case(planes(1, (70, 100), (4, 1), 0.0), 64);
    attention_bwd_case(
        Case {
            mask: CAUSAL_MASK,
            bottom_right: true,
            ..planes(1, (130, 65), (4, 2), -0.3)
        },
        64,
    );
    attention_bwd_case(
        Case {
            mask: CAUSAL_MASK,
            bottom_right: true,
            ..planes(1, (33, 150), (2, 1), 0.3)
        },
        128,
    );
}

/// Packed sequences: ragged lengths, a sequence of one row and one key,
/// one with rows but no key (dQ = 0), one with keys but no row (dK = dV =
/// 0), both masks; and a sliding window.
#[test]
fn attention_bwd_packed_sequences_and_window() {
    let lens = vec![(70, 150), (1, 1), (0, 30), (5, 0), (130, 65)];
    let packed =
        |heads, mask, bottom_right, scale| packed(&lens, heads, (mask, bottom_right), scale);
    attention_bwd_case(packed((2, 1), None, false, 0.3), 64);
    attention_bwd_case(packed((2, 2), CAUSAL_MASK, true, 0.3), 128);
    attention_bwd_case(packed((4, 2), CAUSAL_MASK, false, -0.2), 64);
    attention_bwd_case(
        Case {
            mask: Some((20, -40)),
            ..planes(1, (150, 150), (1, 1), 0.3)
        },
        128,
    );
}

/// Top-left causal with more rows than keys, two planes and grouped heads,
/// at d = 128: rows past the last key see every key.
#[test]
fn attention_bwd_top_left_more_rows_than_keys() {
    attention_bwd_case(
        Case {
            mask: CAUSAL_MASK,
            ..planes(2, (130, 65), (4, 2), 0.125)
        },
        128,
    );
}

/// Masked blocks with query tiles that see every key of the block (the
/// kernel skips their mask): causal below the diagonal at d = 64, and a
/// window of 150 keys each side at d = 128 (key block 128..256 is whole for
/// rows 128..192), beside the partial tiles around them.
#[test]
fn attention_bwd_whole_tiles_in_masks() {
    attention_bwd_case(
        Case {
            mask: CAUSAL_MASK,
            ..planes(1, (300, 300), (1, 1), 0.3)
        },
        64,
    );
    attention_bwd_case(
        Case {
            mask: Some((150, -150)),
            ..planes(1, (300, 300), (2, 1), 0.3)
        },
        128,
    );
}

/// Head dimension 128 unmasked and top-left causal (square), and d = 64
/// unmasked with fewer rows than keys.
#[test]
fn attention_bwd_unmasked_and_top_left() {
    attention_bwd_case(planes(1, (33, 150), (2, 1), 0.3), 128);
    attention_bwd_case(planes(2, (33, 150), (2, 1), 0.3), 64);
    attention_bwd_case(
        Case {
            mask: CAUSAL_MASK,
            ..planes(1, (150, 150), (2, 1), 0.3)
        },
        128,
    );
}
