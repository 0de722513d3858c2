//! The tensor-core atoms on their own: the m16n8k16 atom's operands and
//! the `ldmatrix` rows that feed it (the `mma_atom` and `mma_tile` kernels
//! use them, the HGEMM's `ldmatrix` addresses start from them), and what
//! every `ldmatrix` form delivers (the runner checks the `ldsm_atoms`
//! kernel's output against it).

pub(crate) mod body;
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
mod entry;

/// The tensor-core atom `mma.sync.aligned.m16n8k16` (f16 inputs): lane
/// `lane`'s 8 A values, 4 B values and 4 C values as offsets in a 16 x 16
/// row-major A, an 8 x 16 row-major B (B seen as N x K, the "TN" atom) and
/// a 16 x 8 row-major C, read off the atom's thread-value layouts
/// (`layout_core::atom::SM80_16x8x16_F32F16F16F32_TN`; the same for the
/// f16-accumulator atom). Value `v` of a lane is register half `v` of the
/// instruction's operand list.
///
/// ```
/// // Lane 5 (group 1, thread 1 in its group): A values at rows 1 and 9,
/// // columns 2, 3 and 10, 11.
/// let m = layout_kernels::maps::mma_atom_offsets(5);
/// assert_eq!(m.a, [18, 19, 146, 147, 26, 27, 154, 155]);
/// ```
pub fn mma_atom_offsets(lane: usize) -> MmaOffsets {
    use layout_core::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN as Atom};
    let (a, b, c) = (
        <Atom as MmaAtom>::ALayout::default(),
        <Atom as MmaAtom>::BLayout::default(),
        <Atom as MmaAtom>::CLayout::default(),
    );
    // Each TV layout maps (lane, value) to a column-major index of its tile.
    let rc = |idx: usize, rows: usize| (idx % rows, idx / rows);
    MmaOffsets {
        a: core::array::from_fn(|v| {
            let (m, k) = rc(a.crd2idx((lane, v)), 16);
            m * 16 + k
        }),
        b: core::array::from_fn(|v| {
            let (n, k) = rc(b.crd2idx((lane, v)), 8);
            n * 16 + k
        }),
        c: core::array::from_fn(|v| {
            let (m, n) = rc(c.crd2idx((lane, v)), 16);
            m * 8 + n
        }),
    }
}

/// One lane's operands of the m16n8k16 atom (see [`mma_atom_offsets`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmaOffsets {
    /// Offsets of the 8 A values in a 16 x 16 row-major tile.
    pub a: [usize; 8],
    /// Offsets of the 4 B values in an 8 x 16 row-major tile (N x K).
    pub b: [usize; 4],
    /// Offsets of the 4 C values in a 16 x 8 row-major tile.
    pub c: [usize; 4],
}

/// Where an `ldmatrix` source thread's row lies, from the bit its source
/// layout gives: `bit / 1024` is the 8 x 8 matrix, `bit % 1024 / 128` its row.
fn ldsm_row(bit: usize) -> (usize, usize) {
    (bit / 1024, bit % 1024 / 128)
}

/// `ldmatrix.x4` feeding the m16n8k16 atom's A from a 16 x 16 row-major f16
/// tile: matrix r of the copy is the 8 x 8 block at row `8 (r % 2)`, column
/// `8 (r / 2)` (so register r is the atom's A register r; the tests check
/// this against both atoms' layouts). The half offset of the row whose
/// address lane `lane` gives.
pub fn ldsm_a_src(lane: usize) -> usize {
    use layout_core::atom::{CopyAtom, SM75_U32x4_LDSM_N as Ldsm};
    let src = <Ldsm as CopyAtom>::SrcLayout::default();
    let (q, row) = ldsm_row(src.crd2idx((lane, 0usize)));
    (8 * (q % 2) + row) * 16 + 8 * (q / 2)
}

/// `ldmatrix.x2` feeding the atom's B from an 8 x 16 row-major (N x K) f16
/// tile: matrix r is the block at column `8 r`. The half offset of lane
/// `lane`'s row address.
pub fn ldsm_b_src(lane: usize) -> usize {
    use layout_core::atom::{CopyAtom, SM75_U32x2_LDSM_N as Ldsm};
    let src = <Ldsm as CopyAtom>::SrcLayout::default();
    let (q, row) = ldsm_row(src.crd2idx((lane, 0usize)));
    row * 16 + 8 * q
}

/// The `ldmatrix` forms of the `ldsm_atoms` kernel, in its output order:
/// name, registers per lane.
pub const LDSM_FORMS: [(&str, usize); 6] = [
    ("x1", 1),
    ("x2", 2),
    ("x4", 4),
    ("x1.trans", 1),
    ("x2.trans", 2),
    ("x4.trans", 4),
];

/// Which elements of the `ldsm_atoms` source (32 rows of 8 halves, row
/// `8 q + r` being row r of matrix q) lane `lane` receives in register
/// `reg` of form `form` (an index of [`LDSM_FORMS`]): `[low half, high
/// half]` as `row * 8 + column`, read off the copy atom's destination
/// layout (bit `16 e` of the copied block is element e of matrix
/// `e / 64`, row-major).
pub fn ldsm_expected(form: usize, lane: usize, reg: usize) -> [usize; 2] {
    use layout_core::atom::{
        CopyAtom, SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x1_LDSM_N,
        SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N,
    };
    fn dst<A: CopyAtom>() -> A::DstLayout {
        A::DstLayout::default()
    }
    // The layouts are (thread, value) -> bit: flat index lane + 32 value.
    let bit = |h: usize| {
        let i = lane + 32 * (32 * reg + 16 * h);
        match form {
            0 => dst::<SM75_U32x1_LDSM_N>().call(i),
            1 => dst::<SM75_U32x2_LDSM_N>().call(i),
            2 => dst::<SM75_U32x4_LDSM_N>().call(i),
            3 => dst::<SM75_U16x2_LDSM_T>().call(i),
            4 => dst::<SM75_U16x4_LDSM_T>().call(i),
            5 => dst::<SM75_U16x8_LDSM_T>().call(i),
            _ => panic!("ldsm_expected: form {form} of {}", LDSM_FORMS.len()),
        }
    };
    [bit(0) / 16, bit(1) / 16]
}

// What the build tool (`layout-ptx`, run by `kernels/scripts/build-ptx.sh`)
// reads for this kernel's entry points, each const named after its entry
// point: launch bounds it writes into the PTX, and checks on the PTX. They
// generate no code.

/// No division: its shapes are static, and the run-time sizes are only
/// divided by static powers of two.
pub const MMA_ATOM_NO_DIVISION: bool = true;
/// No division: its shapes are static, and the run-time sizes are only
/// divided by static powers of two.
pub const MMA_TILE_NO_DIVISION: bool = true;
/// No division: its shapes are static, and the run-time sizes are only
/// divided by static powers of two.
pub const LDSM_ATOMS_NO_DIVISION: bool = true;
/// `mma_atom` is its two `mma.sync` instructions (f32 and f16
/// accumulators), nothing split or lost.
pub const MMA_ATOM_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[("mma.sync.aligned.m16n8k16", 2)];

#[cfg(test)]
mod tests {
    //! The atoms' layouts (CuTe's) against the PTX ISA's definitions of
    //! `mma.m16n8k16` and `ldmatrix`, written out by hand.
    use super::*;
    use std::vec::Vec;

    /// The atom's thread-value layouts against the PTX ISA's fragment
    /// tables for `mma.m16n8k16` with .f16 inputs, written out by hand:
    /// group = lane / 4, t = lane % 4; A: row group (+8 for values 2,3,6,7),
    /// column 2t + (v & 1) (+8 for values 4..7); B: k = 2t + (v & 1) (+8 for
    /// values 2,3), n = group; C: row group (+8 for values 2,3), column
    /// 2t + (v & 1).
    #[test]
    fn mma_atom_layouts_are_the_ptx_fragments() {
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            let m = mma_atom_offsets(lane);
            for v in 0..8 {
                let row = g + 8 * ((v >> 1) & 1);
                let col = 2 * t + (v & 1) + 8 * (v >> 2);
                assert_eq!(m.a[v], row * 16 + col, "A, lane {lane}, value {v}");
            }
            for v in 0..4 {
                let k = 2 * t + (v & 1) + 8 * (v >> 1);
                assert_eq!(m.b[v], g * 16 + k, "B, lane {lane}, value {v}");
                let row = g + 8 * (v >> 1);
                assert_eq!(
                    m.c[v],
                    row * 8 + 2 * t + (v & 1),
                    "C, lane {lane}, value {v}"
                );
            }
        }
    }

    /// ldmatrix's destination layout, with the matrix placement of
    /// `ldsm_a_src` / `ldsm_b_src`, delivers exactly the m16n8k16 atom's A
    /// and B registers: each register's two halves are the atom's values
    /// 2r and 2r + 1 of that lane.
    #[test]
    fn ldmatrix_feeds_the_mma_atom() {
        use layout_core::atom::{CopyAtom, SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N};
        let (d4, d2) = (
            <SM75_U32x4_LDSM_N as CopyAtom>::DstLayout::default(),
            <SM75_U32x2_LDSM_N as CopyAtom>::DstLayout::default(),
        );
        // The rows each lane's address names, by matrix and row.
        let a_rows: Vec<usize> = (0..32).map(ldsm_a_src).collect();
        let b_rows: Vec<usize> = (0..32).map(ldsm_b_src).collect();
        for lane in 0..32 {
            let m = mma_atom_offsets(lane);
            for r in 0..4 {
                for h in 0..2 {
                    // Bit 16 h of register r: matrix, row, half in the row.
                    let bit = d4.crd2idx((lane, (16 * h, r)));
                    let (q, row, half) = (bit / 1024, bit % 1024 / 128, bit % 128 / 16);
                    // That row's address came from lane 8 q + row.
                    let got = a_rows[8 * q + row] + half;
                    assert_eq!(
                        got,
                        m.a[2 * r + h],
                        "A: lane {lane}, register {r}, half {h}"
                    );
                }
            }
            for r in 0..2 {
                for h in 0..2 {
                    let bit = d2.crd2idx((lane, (16 * h, r)));
                    let (q, row, half) = (bit / 1024, bit % 1024 / 128, bit % 128 / 16);
                    let got = b_rows[8 * q + row] + half;
                    assert_eq!(
                        got,
                        m.b[2 * r + h],
                        "B: lane {lane}, register {r}, half {h}"
                    );
                }
            }
        }
        // Rows are 16-byte aligned (ldmatrix requires it).
        assert!(a_rows.iter().chain(&b_rows).all(|o| o % 8 == 0));
    }

    /// The copy atoms' layouts (CuTe's) against `ldmatrix` as the PTX ISA
    /// defines it: lane t's register r holds matrix r's row t / 4, columns
    /// 2 (t % 4) and + 1; `.trans` holds column t / 4 of rows 2 (t % 4)
    /// and + 1.
    #[test]
    fn ldsm_atoms_match_the_ptx_definition() {
        for (form, &(name, regs)) in LDSM_FORMS.iter().enumerate() {
            for lane in 0..32 {
                for r in 0..regs {
                    let (t4, t_4) = (lane / 4, lane % 4);
                    let want: [usize; 2] = core::array::from_fn(|h| {
                        let (row, col) = if name.ends_with("trans") {
                            (2 * t_4 + h, t4)
                        } else {
                            (t4, 2 * t_4 + h)
                        };
                        (8 * r + row) * 8 + col
                    });
                    assert_eq!(
                        ldsm_expected(form, lane, r),
                        want,
                        "{name}: lane {lane}, register {r}"
                    );
                }
            }
        }
    }
}
