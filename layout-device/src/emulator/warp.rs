//! The warp-wide instructions, computed once the warp's 32 lanes have
//! given their operands: shuffles and votes with the PTX ISA's lane rules,
//! `ldmatrix` and `mma.sync` from their atoms' thread-value layouts (the
//! layouts of `layout_core::atom`, evaluated here; no table is written
//! twice).

use super::error::ErrorKind;
use super::state::{Operand, Sim};
use layout_core::atom::{
    CopyAtom, MmaAtom, SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x1_LDSM_N,
    SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, SM80_16x8x16_F32F16F16F32_TN,
};
use layout_core::layout::Congruent;
use layout_core::{IntTuple, Layout};
use std::format;
use std::string::String;

/// The results of `name` for the 32 lanes of warp's block `b`.
pub(crate) fn execute(
    s: &mut Sim,
    b: usize,
    name: &str,
    ins: &[Operand; 32],
    mask: u32,
) -> Result<[[u32; 4]; 32], (ErrorKind, String)> {
    let mut out = [[0u32; 4]; 32];
    let shfl = |l: usize| match ins[l] {
        Operand::Shfl(v, x) => (v, x),
        _ => (0, 0),
    };
    // A shuffle's source lane: outside the member mask the value is
    // undefined (the ISA), so an error.
    let from = |l: usize, src: usize| -> Result<u32, (ErrorKind, String)> {
        if mask >> src & 1 == 0 {
            return Err((
                ErrorKind::Divergence,
                format!("`{name}`: lane {l} reads lane {src}, which is not in the member mask {mask:#010x}"),
            ));
        }
        Ok(shfl(src).0)
    };
    let members = (0..32).filter(|l| mask >> l & 1 == 1);
    match name {
        // `shfl.sync.*.b32 d, a, b, 31, mask`: clamp 31, no segment mask.
        "shfl_idx" => {
            for l in members {
                out[l][0] = from(l, shfl(l).1 as usize & 31)?;
            }
        }
        "shfl_xor" => {
            for l in members {
                out[l][0] = from(l, l ^ (shfl(l).1 as usize & 31))?;
            }
        }
        "shfl_down" => {
            for l in members {
                let j = l + (shfl(l).1 as usize & 31);
                out[l][0] = if j <= 31 { from(l, j)? } else { shfl(l).0 };
            }
        }
        "warp_any" | "warp_all" | "warp_ballot" => {
            let ballot = (0..32)
                .filter(|&l| mask >> l & 1 == 1 && matches!(ins[l], Operand::Vote(true)))
                .fold(0u32, |acc, l| acc | 1 << l);
            let r = match name {
                "warp_any" => (ballot != 0) as u32,
                "warp_all" => (ballot == mask) as u32,
                _ => ballot,
            };
            for o in &mut out {
                o[0] = r;
            }
        }
        "sync_warp" => {}
        "elect_one" => out[0][0] = 1,
        "mma_m16n8k16_f32" | "mma_m16n8k16_f16" => mma(ins, name == "mma_m16n8k16_f16", &mut out),
        _ if name.starts_with("ldmatrix") => ldmatrix(s, b, name, ins, &mut out)?,
        _ => {
            return Err((
                ErrorKind::NotEmulated,
                format!("`{name}` is not a warp-wide instruction the emulator knows"),
            ))
        }
    }
    Ok(out)
}

/// An atom's layout at a 1-D index.
fn at<S: Congruent<D>, D: IntTuple>(l: Layout<S, D>, i: usize) -> usize {
    l.call(i)
}

/// The 16-bit value `v` of a lane's registers (value `2r` in the low half
/// of register `r`).
fn half_of(regs: &[u32], v: usize) -> u16 {
    (regs[v / 2] >> (16 * (v % 2))) as u16
}

/// `mma.sync.aligned.m16n8k16.row.col` with f16 A and B: each lane's
/// values placed by the atom's A, B and C layouts ((thread, value) ->
/// column-major position in the M x K, N x K and M x N tiles), and
/// D = A·Bᵀ + C. Each element's 16 products are exact; they and C are
/// summed exactly (in f64, exact while the terms' exponents lie within 29
/// bits of each other) and rounded once, to f32 or to f16.
fn mma(ins: &[Operand; 32], f16_acc: bool, out: &mut [[u32; 4]; 32]) {
    type A = SM80_16x8x16_F32F16F16F32_TN;
    let (al, bl, cl) = (
        <A as MmaAtom>::ALayout::default(),
        <A as MmaAtom>::BLayout::default(),
        <A as MmaAtom>::CLayout::default(),
    );
    let f = |h: u16| f64::from(half::f16::from_bits(h).to_f32());
    let (mut a, mut bm, mut c) = ([[0f64; 16]; 16], [[0f64; 16]; 8], [[0f64; 8]; 16]);
    for (l, op) in ins.iter().enumerate() {
        let Operand::Mma(ar, br, cr) = *op else {
            continue;
        };
        for v in 0..8 {
            let p = at(al, l + 32 * v);
            a[p % 16][p / 16] = f(half_of(&ar, v));
        }
        for v in 0..4 {
            let p = at(bl, l + 32 * v);
            bm[p % 8][p / 8] = f(half_of(&br, v));
            let q = at(cl, l + 32 * v);
            c[q % 16][q / 16] = if f16_acc {
                f(half_of(&cr, v))
            } else {
                f64::from(f32::from_bits(cr[v]))
            };
        }
    }
    for (l, o) in out.iter_mut().enumerate() {
        let mut halves = [0u16; 4];
        for v in 0..4 {
            let q = at(cl, l + 32 * v);
            let (m, n) = (q % 16, q / 16);
            let d = (0..16).fold(c[m][n], |acc, k| acc + a[m][k] * bm[n][k]);
            if f16_acc {
                halves[v] = half::f16::from_f64(d).to_bits();
            } else {
                o[v] = (d as f32).to_bits();
            }
        }
        if f16_acc {
            o[0] = u32::from(halves[0]) | u32::from(halves[1]) << 16;
            o[1] = u32::from(halves[2]) | u32::from(halves[3]) << 16;
        }
    }
}

/// `ldmatrix` through its copy atom: the block's 16-bit values at block
/// bit `i` come from the lane and row bit the source layout gives
/// ((lane, bit) -> block bit, rows of 128 bits), and go to the lane and
/// register bit the destination layout gives.
fn ldmatrix(
    s: &mut Sim,
    b: usize,
    name: &str,
    ins: &[Operand; 32],
    out: &mut [[u32; 4]; 32],
) -> Result<(), (ErrorKind, String)> {
    let regs = match name {
        "ldmatrix_x1" | "ldmatrix_x1_trans" => 1,
        "ldmatrix_x2" | "ldmatrix_x2_trans" => 2,
        _ => 4,
    };
    let rows = 8 * regs;
    let src = |lane: usize, bit: usize| -> usize {
        match name {
            "ldmatrix_x1" => at(
                <SM75_U32x1_LDSM_N as CopyAtom>::SrcLayout::default(),
                lane + 32 * bit,
            ),
            "ldmatrix_x2" => at(
                <SM75_U32x2_LDSM_N as CopyAtom>::SrcLayout::default(),
                lane + 32 * bit,
            ),
            "ldmatrix_x1_trans" => at(
                <SM75_U16x2_LDSM_T as CopyAtom>::SrcLayout::default(),
                lane + 32 * bit,
            ),
            "ldmatrix_x2_trans" => at(
                <SM75_U16x4_LDSM_T as CopyAtom>::SrcLayout::default(),
                lane + 32 * bit,
            ),
            // x4: (32,128):(128,1), lane l gives row l.
            _ => 128 * lane + bit,
        }
    };
    let dst = |lane: usize, bit: usize| -> usize {
        match name {
            "ldmatrix_x1" => at(
                <SM75_U32x1_LDSM_N as CopyAtom>::DstLayout::default(),
                lane + 32 * bit,
            ),
            "ldmatrix_x2" => at(
                <SM75_U32x2_LDSM_N as CopyAtom>::DstLayout::default(),
                lane + 32 * bit,
            ),
            "ldmatrix_x4" => at(
                <SM75_U32x4_LDSM_N as CopyAtom>::DstLayout::default(),
                lane + 32 * bit,
            ),
            "ldmatrix_x1_trans" => at(
                <SM75_U16x2_LDSM_T as CopyAtom>::DstLayout::default(),
                lane + 32 * bit,
            ),
            "ldmatrix_x2_trans" => at(
                <SM75_U16x4_LDSM_T as CopyAtom>::DstLayout::default(),
                lane + 32 * bit,
            ),
            _ => at(
                <SM75_U16x8_LDSM_T as CopyAtom>::DstLayout::default(),
                lane + 32 * bit,
            ),
        }
    };
    // Which lane gives each row (the first lane the source layout maps to
    // it), and each row's 16 bytes, read as that lane's access.
    let mut row_data = [[0u8; 16]; 32];
    for (r, data) in row_data.iter_mut().enumerate().take(rows) {
        let lane = (0..32).find(|&l| src(l, 0) == 128 * r).ok_or_else(|| {
            (
                ErrorKind::NotEmulated,
                format!("`{name}`: no lane gives row {r}"),
            )
        })?;
        let Operand::Ldsm(addr) = ins[lane] else {
            unreachable!("ldmatrix operands")
        };
        let t = s.global(b, 32 * (s.threads[s.cur].tid / 32) + lane);
        s.shared_read_as(t, addr, data)?;
    }
    for (lane, o) in out.iter_mut().enumerate() {
        for v in 0..2 * regs {
            let bit = dst(lane, 16 * v);
            let (r, byte) = (bit / 128, bit % 128 / 8);
            let h = u16::from_le_bytes([row_data[r][byte], row_data[r][byte + 1]]);
            o[v / 2] |= u32::from(h) << (16 * (v % 2));
        }
    }
    Ok(())
}
