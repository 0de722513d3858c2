//! What a fused kernel (attention: S = Q·Kᵀ, a softmax over S's rows, then
//! O = P·V) relies on in the MMA atoms' register fragments, checked on their
//! thread-value layouts (CuTe's, golden-checked elsewhere): which lanes
//! share a row of C (the shuffles of a row reduction), and how the first
//! GEMM's accumulators are the second's A operand.

use layout_core::atom::{
    MmaAtom, SM80_16x8x16_F32F16F16F32_TN as Sm80, SM90_64x64x16_F32F16F16_SS as Sm90,
};

/// The rows (of `m`) that lane `t`'s values `0..values` of a C layout lie
/// in, and the columns, as positions `row + m * column`.
fn rows_cols(
    q: impl Fn(usize, usize) -> usize,
    t: usize,
    values: usize,
    m: usize,
) -> Vec<(usize, usize)> {
    (0..values).map(|v| (q(t, v) % m, q(t, v) / m)).collect()
}

/// SM80's m16n8k16 C (16 x 8, 4 values a lane): lanes t ^ 1 and t ^ 2 hold
/// the same rows as t, lanes t ^ 4, t ^ 8, t ^ 16 never do; and the four
/// lanes of a quad hold all 8 columns of their two rows between them. A row
/// reduction is each lane's values, then XOR shuffles by 1 and 2.
#[test]
fn sm80_c_rows_belong_to_quads() {
    let c = <Sm80 as MmaAtom>::CLayout::default();
    let at = |t: usize, v: usize| c.crd2idx((t, v));
    let rows = |t: usize| -> Vec<usize> { rows_cols(at, t, 4, 16).iter().map(|p| p.0).collect() };
    for t in 0..32 {
        for b in 0..5 {
            assert_eq!(rows(t) == rows(t ^ (1 << b)), b < 2, "lane {t}, bit {b}");
        }
    }
    for quad in 0..8 {
        let mut cols: Vec<(usize, usize)> = (4 * quad..4 * quad + 4)
            .flat_map(|t| rows_cols(at, t, 4, 16))
            .collect();
        cols.sort();
        cols.dedup();
        // Two rows (quad and quad + 8), 8 columns each, each element once.
        assert_eq!(cols.len(), 16);
        assert!(cols.iter().all(|&(r, _)| r == quad || r == quad + 8));
    }
}

/// SM90's m64n64k16 C (64 x 64, 32 values a thread, 4 warps): within a
/// warp, lanes t ^ 1 and t ^ 2 hold the same rows, the other lane bits
/// never; each warp's rows are its own 16.
#[test]
fn sm90_c_rows_belong_to_quads() {
    let c = <Sm90 as MmaAtom>::CLayout::default();
    let at = |t: usize, v: usize| c.crd2idx((t, v));
    let rows = |t: usize| -> Vec<usize> {
        let mut r: Vec<usize> = rows_cols(at, t, 32, 64).iter().map(|p| p.0).collect();
        r.sort();
        r.dedup();
        r
    };
    for t in 0..128 {
        let (warp, lane) = (t / 32, t % 32);
        assert!(rows(t).iter().all(|&r| r / 16 == warp), "thread {t}");
        for b in 0..5 {
            let peer = 32 * warp + (lane ^ (1 << b));
            assert_eq!(rows(t) == rows(peer), b < 2, "thread {t}, bit {b}");
        }
    }
}

/// SM80: the accumulators of two m16n8k16 atoms side by side along N (a
/// 16 x 16 C) are, value for value, the A operand of the next m16n8k16 with
/// that C as its 16 x 16 A: A's value v of lane t is C value v % 4 of N-atom
/// v / 4 (CuTe's `convert_layout_acc_Aregs` for this atom: no register moves,
/// only f32 -> f16 conversion).
#[test]
fn sm80_two_c_atoms_are_one_a_fragment() {
    let (a, c) = (
        <Sm80 as MmaAtom>::ALayout::default(),
        <Sm80 as MmaAtom>::CLayout::default(),
    );
    for t in 0..32 {
        for v in 0..8 {
            // A: m + 16 k over 16 x 16; C: m + 16 n over 16 x 8, the second
            // atom 8 columns (128 positions) on.
            assert_eq!(
                a.crd2idx((t, v)),
                c.crd2idx((t, v % 4)) + 128 * (v / 4),
                "lane {t} value {v}"
            );
        }
    }
}

/// What `acc_rows` derives from the C layouts is what the lane-by-lane
/// checks above establish: SM80's and SM90's rows reduce over lanes t ^ 1
/// and t ^ 2; value v's row slot (hand-read from the C layouts: values
/// 0-1 one row, 2-3 the row 8 below; SM90 repeats that for each 8 columns).
#[test]
fn acc_rows_are_derived_from_the_c_layouts() {
    use layout_core::atom::accumulator::{acc_rows, AccRows};
    const SM80: AccRows = acc_rows::<Sm80>();
    assert_eq!((SM80.rows, SM80.values, SM80.xor()), (2, 4, &[1u32, 2][..]));
    assert_eq!(&SM80.row_of[..4], &[0, 0, 1, 1]);
    const SM90: AccRows = acc_rows::<Sm90>();
    assert_eq!(
        (SM90.rows, SM90.values, SM90.xor()),
        (2, 32, &[1u32, 2][..])
    );
    for v in 0..32 {
        assert_eq!(SM90.row_of[v], (v / 2) % 2, "value {v}");
    }
    // The derived slots agree with the layout, lane by lane: values of one
    // slot share a row, values of different slots do not.
    let c = <Sm80 as MmaAtom>::CLayout::default();
    for t in 0..32 {
        for v in 0..4 {
            for w in 0..4 {
                let same = c.crd2idx((t, v)) % 16 == c.crd2idx((t, w)) % 16;
                assert_eq!(same, SM80.row_of[v] == SM80.row_of[w], "lane {t}");
            }
        }
    }
}

/// `ACC_AS_A` for SM80 is the identity order the lane-by-lane check above
/// shows (A value v = C value v % 4 of N-atom v / 4), so the typed
/// `convert_layout_acc_aregs` applies; SM90's SS atom as its own A (A
/// from shared memory: 1024 values a thread, not registers) is refused with
/// its reason.
#[test]
fn acc_as_a_is_derived_from_the_a_and_c_layouts() {
    use layout_core::atom::accumulator::AccumulatorFacts;
    let f = match <Sm80 as AccumulatorFacts>::ACC_AS_A {
        Ok(f) => f,
        Err(e) => panic!("{}", e.as_str()),
    };
    assert_eq!((f.values, f.atoms, f.in_order), (8, 2, true));
    for v in 0..8 {
        assert_eq!((f.atom[v], f.value[v]), (v / 4, v % 4));
    }
    let e = match <Sm90 as AccumulatorFacts>::ACC_AS_A {
        Ok(_) => panic!("SM90 SS accepted"),
        Err(e) => e,
    };
    assert!(
        e.as_str().contains("reads A from shared memory"),
        "{}",
        e.as_str()
    );
}

/// Hopper attention's relayout: S made by an SS GMMA m64nNk16 (N = 64 to
/// 256), read as the A fragments of an RS GMMA (`ALayout_64x16`,
/// ((4,8,4),(2,2,2)):((128,1,16),(64,8,512)), 8 halves a thread) by
/// `acc_as_a`. By hand: RS A value (v0, v1, v2) of thread (t0, t1, t2) is
/// row t1 + 16 t2 + 8 v1, column 2 t0 + v0 + 8 v2 of its 64 x 16 tile; C
/// value (v0, v1, j) of the same thread is row t1 + 16 t2 + 8 v1, column 2
/// t0 + v0 + 8 j. So fragment f's value v0 + 2 v1 + 4 v2 is C value v0 +
/// 2 v1 + 4 (2 f + v2) = 8 f + v: S's registers in order. The lane-by-lane
/// check below confirms it on the layouts, for every thread.
#[test]
fn sm90_s_accumulators_are_rs_a_fragments() {
    use layout_core::atom::accumulator::{acc_as_a, AccAsA};
    use layout_core::atom::{
        SM90_64x128x16_F32F16F16_RS as Rs128, SM90_64x128x16_F32F16F16_SS as S128,
        SM90_64x256x16_F32F16F16_SS as S256, SM90_64x64x16_F32F16F16_RS as Rs64,
    };
    const FACTS: [(AccAsA, usize); 4] = [
        (acc_as_a::<Sm90, Rs64>(), 64),
        (acc_as_a::<S128, Rs64>(), 128),
        (acc_as_a::<S128, Rs128>(), 128),
        (acc_as_a::<S256, Rs64>(), 256),
    ];
    for (f, n) in FACTS {
        assert_eq!(
            (f.values, f.atoms, f.blocks, f.in_order),
            (8, 1, n / 16, true)
        );
        for i in 0..n / 2 {
            assert_eq!((f.atom[i], f.value[i]), (0, i), "N = {n}");
        }
    }
    // The layouts themselves: A value v of fragment f (columns 16 f ..)
    // is where C value 8 f + v is, thread by thread.
    let a = <Rs64 as MmaAtom>::ALayout::default();
    let c = <S256 as MmaAtom>::CLayout::default();
    for t in 0..128 {
        for f in 0..16 {
            for v in 0..8 {
                let p = a.crd2idx((t, v));
                let (row, col) = (p % 64, 16 * f + p / 64);
                assert_eq!(
                    c.crd2idx((t, 8 * f + v)),
                    row + 64 * col,
                    "t {t} f {f} v {v}"
                );
            }
        }
    }
}

/// `convert_layout_acc_aregs`' type-level check (`AccInOrder`: C's layout
/// is A's with the N/K blocks appended, compared coalesced) says the same
/// as the constant derivation (`ACC_AS_A` and its `in_order`) on every
/// pair of A and C layouts the library's MMA atoms have: SM80's, the FMA,
/// and the GMMA table's rows of one family per input width (f16, tf32,
/// e4m3 into f32: the other families of a width have its layouts, as the
/// table expands them and the test below checks), every N, both forms.
/// By hand, 20 atoms qualify: the f16 RS GMMAs whose N is 8 or a
/// multiple of 16, 17 of them (A's
/// ALayout_64x16 is C's first 16 columns, the proof above, so C is whole
/// A fragments when 16 divides N, and the first half of one at N = 8; at
/// N = 24, 40, ... C ends in half a K-block), SM80's two m16n8k16 (A
/// value v = C value v % 4 of N-atom v / 4) and the one-thread FMA; the
/// tf32, FP8 and 8-bit RS GMMAs do not (their A values lie in other
/// threads' accumulators), nor does any SS atom.
#[test]
fn type_level_in_order_agrees_with_the_derivation() {
    use layout_core::atom::accumulator::{AccInOrder, AccumulatorFacts};
    use layout_core::atom::*;
    use layout_core::typenum::Bit;
    fn one<A: AccInOrder<Out: Bit> + AccumulatorFacts>(name: &str) -> bool {
        let typed = <A::Out as Bit>::BOOL;
        let derived = matches!(A::ACC_AS_A, Ok(f) if f.in_order);
        assert_eq!(typed, derived, "{name}");
        typed
    }
    let mut in_order = Vec::new();
    macro_rules! agree {
        ($($a:ident)*) => {$(
            if one::<$a>(stringify!($a)) {
                in_order.push(stringify!($a));
            }
        )*};
    }
    // The rows of one family per input width, picked by the instruction's
    // types.
    macro_rules! table {
        ($($form:ident $atom:ident, $n:tt, $k:tt, $ty:tt, $tail:literal, $acc:ident, $regs:tt, $n8:tt,
           $kind:ident, $base:ident, $what:literal; [$($i:tt)*];)*) => {$(
            table!(@ $ty $atom);
        )*};
        (@ "f32.f16.f16" $atom:ident) => { agree!($atom); };
        (@ "f32.tf32.tf32" $atom:ident) => { agree!($atom); };
        (@ "f32.e4m3.e4m3" $atom:ident) => { agree!($atom); };
        (@ $other:literal $atom:ident) => {};
    }
    agree!(UniversalFMA SM80_16x8x16_F32F16F16F32_TN SM80_16x8x16_F16F16F16F16_TN);
    layout_core::__private::sm90_gmma_table!(table);
    assert_eq!(in_order.len(), 20, "{in_order:?}");
    let n_of = |a: &str| a.split('x').nth(1).and_then(|n| n.parse::<usize>().ok());
    assert!(in_order.iter().all(|a| a.starts_with("SM80")
        || *a == "UniversalFMA"
        || a.ends_with("_RS") && matches!(n_of(a), Some(n) if n == 8 || n % 16 == 0)));
}

/// Every atom of the GMMA table places its values where the PTX ISA's
/// `wgmma` fragment figures put them, for every thread and value: D
/// (thread t = 32 w + 4 g + i, value v) at row 16 w + g + 8 ((v / 2) % 2),
/// column 8 (v / 4) + 2 i + v % 2; an RS atom's A value v at row
/// 16 w + g + 8 r and column c, where for 16-bit inputs r = (v / 2) % 2,
/// c = 2 i + v % 2 + 8 (v / 4); for tf32 r = v % 2, c = i + 4 (v / 2); for
/// 8-bit inputs r = (v / 4) % 2, c = 4 i + v % 4 + 16 (v / 8). An SS
/// atom's A and B name the whole tile from every thread (stride 0).
#[test]
fn every_gmma_atom_places_values_as_the_isa_figures() {
    use layout_core::atom::*;
    use layout_core::layout::Congruent;
    use layout_core::{IntTuple, Layout};
    // Coordinate (t, v) of a thread-value layout is its index t + 128 v.
    // One function per layout, generic over its type alone, so that the
    // atoms that share a layout share its code.
    fn check_c<S: Congruent<D> + Default, D: IntTuple + Default>(name: &str, n: usize) {
        let c = Layout::<S, D>::default();
        for t in 0..128 {
            let (w, g, i) = (t / 32, (t % 32) / 4, t % 4);
            for v in 0..n / 2 {
                let q = c.call(t + 128 * v);
                let (m, col) = (16 * w + g + 8 * ((v / 2) % 2), 8 * (v / 4) + 2 * i + v % 2);
                assert_eq!(q, m + 64 * col, "{name}: C, thread {t} value {v}");
            }
        }
    }
    fn check_a<S: Congruent<D> + Default, D: IntTuple + Default>(name: &str, k: usize, rs: bool) {
        let a = Layout::<S, D>::default();
        for t in 0..128 {
            let (w, g, i) = (t / 32, (t % 32) / 4, t % 4);
            if rs {
                for v in 0..512 / (8 * k) * 2 {
                    let (r, col) = match k {
                        16 => ((v / 2) % 2, 2 * i + v % 2 + 8 * (v / 4)),
                        8 => (v % 2, i + 4 * (v / 2)),
                        _ => ((v / 4) % 2, 4 * i + v % 4 + 16 * (v / 8)),
                    };
                    let want = 16 * w + g + 8 * r + 64 * col;
                    assert_eq!(a.call(t + 128 * v), want, "{name}: A, thread {t} value {v}");
                }
            } else {
                for v in [0, 1, 64 * k - 1] {
                    assert_eq!(a.call(t + 128 * v), v, "{name}: A, thread {t} value {v}");
                }
            }
        }
    }
    fn check_b<S: Congruent<D> + Default, D: IntTuple + Default>(name: &str, n: usize, k: usize) {
        let b = Layout::<S, D>::default();
        for t in 0..128 {
            for v in [0, 1, n * k - 1] {
                assert_eq!(b.call(t + 128 * v), v, "{name}: B, thread {t} value {v}");
            }
        }
    }
    #[allow(clippy::type_complexity)]
    fn check<A, CS, CD, AS, AD, BS, BD>(_: A, name: &str, n: usize, k: usize, rs: bool)
    where
        A: MmaAtom<CLayout = Layout<CS, CD>, ALayout = Layout<AS, AD>, BLayout = Layout<BS, BD>>,
        CS: Congruent<CD> + Default,
        CD: IntTuple + Default,
        AS: Congruent<AD> + Default,
        AD: IntTuple + Default,
        BS: Congruent<BD> + Default,
        BD: IntTuple + Default,
    {
        check_c::<CS, CD>(name, n);
        check_a::<AS, AD>(name, k, rs);
        check_b::<BS, BD>(name, n, k);
    }
    let mut count = 0;
    macro_rules! table {
        ($($form:ident $atom:ident, $n:tt, $k:tt, $ty:literal, $tail:literal, $acc:ident, $regs:tt, $n8:tt,
           $kind:ident, $base:ident, $what:literal; [$($i:tt)*];)*) => {$(
            check($atom, stringify!($atom), $n, $k, stringify!($form).starts_with("rs"));
            count += 1;
        )*};
    }
    layout_core::__private::sm90_gmma_table!(table);
    // 16-bit: 3 families x 32 N; tf32: 32; 8-bit floats: 8 pairings x 32;
    // integers: 8 (4 pairings, wrapping and saturating) x 18; both forms.
    assert_eq!(count, 2 * (3 * 32 + 32 + 8 * 32 + 8 * 18));
}
