//! `wgmma`: a warpgroup's MMA from its operands' matrix descriptors (or A
//! in registers), computed from its atom's layouts, for every row of
//! layout-device's GMMA table.

use super::error::ErrorKind;
use super::state::{suspend, with, AccBits, AccKind, Sim, Site, WgOperand, WgSlot};
use crate::GmmaElem as Elem;
use layout_core::atom::gmma::{GmmaDescriptor, Major};
use layout_core::atom::MmaAtom;
use layout_core::layout::Congruent;
use layout_core::{IntTuple, Layout};
use std::format;
use std::string::String;
use std::vec::Vec;

impl Elem {
    /// The value of an element's bits (little-endian bytes, `bytes()` of
    /// them), exactly: tf32 reads the 19 bits the instruction uses (the
    /// low 13 mantissa bits ignored); e4m3 (bias 7, no infinities, S.1111.111
    /// NaN) and e5m2 (bias 15, IEEE-like) with their subnormals.
    fn value(self, b: &[u8]) -> f64 {
        let fp8 = |x: u8, mant_bits: u32, bias: i32| {
            let sign = if x & 0x80 != 0 { -1.0 } else { 1.0 };
            let e = i32::from(x & 0x7f) >> mant_bits;
            let m = f64::from(x & ((1 << mant_bits) - 1));
            let scale = f64::from(1u32 << mant_bits);
            let max_e = (1 << (7 - mant_bits)) - 1;
            if mant_bits == 2 && e == max_e {
                return if m == 0.0 {
                    sign * f64::INFINITY
                } else {
                    f64::NAN
                };
            }
            if mant_bits == 3 && e == max_e && m == 7.0 {
                return f64::NAN;
            }
            if e == 0 {
                sign * m / scale * 2f64.powi(1 - bias)
            } else {
                sign * (1.0 + m / scale) * 2f64.powi(e - bias)
            }
        };
        match self {
            Elem::F16 => f64::from(half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()),
            Elem::Bf16 => {
                f64::from(half::bf16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32())
            }
            Elem::Tf32 => {
                let bits = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & 0xffff_e000;
                f64::from(f32::from_bits(bits))
            }
            Elem::E4m3 => fp8(b[0], 3, 7),
            Elem::E5m2 => fp8(b[0], 2, 15),
            Elem::S8 => f64::from(b[0] as i8),
            Elem::U8 => f64::from(b[0]),
        }
    }
}

/// This thread's part of `wgmma.mma_async` m64nNk16 (f16 inputs, f32
/// accumulators): A by descriptor (`Ok`) or registers, B by descriptor.
/// Computed once the warpgroup's 128 threads are in: each output's 16
/// products (exact) and its accumulator summed exactly and rounded once.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gmma<Atom, T, CS, CD, AS, AD>(
    _: Atom,
    site: Site,
    ty: &'static str,
    a: Result<u64, [u32; 4]>,
    (b, b_mn): (u64, bool),
    acc: &mut [T],
    accumulate: bool,
) where
    Atom: MmaAtom<CLayout = Layout<CS, CD>, ALayout = Layout<AS, AD>>,
    CS: Congruent<CD> + Default,
    CD: IntTuple + Default,
    AS: Congruent<AD> + Default,
    AD: IntTuple + Default,
    T: AccBits,
{
    let full = core::any::type_name::<Atom>();
    let name = full.rsplit("::").next().unwrap_or(full);
    if !super::state::active() {
        crate::host::gpu_only(name)
    }
    fn c_pos<Atom, CS, CD>(i: usize) -> usize
    where
        Atom: MmaAtom<CLayout = Layout<CS, CD>>,
        CS: Congruent<CD> + Default,
        CD: IntTuple + Default,
    {
        <Atom::CLayout as Default>::default().call(i)
    }
    fn a_pos<Atom, AS, AD>(i: usize) -> usize
    where
        Atom: MmaAtom<ALayout = Layout<AS, AD>>,
        AS: Congruent<AD> + Default,
        AD: IntTuple + Default,
    {
        <Atom::ALayout as Default>::default().call(i)
    }
    // "acc.a.b[.satfinite]": the accumulator type, then the inputs'.
    let mut parts = ty.split('.');
    let acc_kind = match parts.next() {
        Some("f16") => AccKind::F16,
        Some("s32") => AccKind::S32,
        _ => AccKind::F32,
    };
    let elem_a = parts.next().and_then(Elem::of).unwrap_or(Elem::F16);
    let elem = (elem_a, parts.next().and_then(Elem::of).unwrap_or(elem_a));
    let saturate = parts.next() == Some("satfinite");
    let mine = WgOperand {
        n: if acc_kind == AccKind::F16 {
            4 * acc.len()
        } else {
            2 * acc.len()
        },
        elem,
        acc_kind,
        saturate,
        c_pos: c_pos::<Atom, CS, CD>,
        a_pos: a_pos::<Atom, AS, AD>,
        a,
        b,
        b_mn,
        acc: acc.iter().map(|x| x.bits()).collect(),
        accumulate,
    };
    let done = with(|s| {
        let t = s.cur;
        let (blk, tid) = (s.threads[t].block, s.threads[t].tid);
        let (g, lane) = (tid / 128, tid % 128);
        if (g + 1) * 128 > s.per_block {
            s.fault = Some(s.error_at(
                Some(t),
                ErrorKind::Divergence,
                format!(
                    "`{name}` needs a whole warpgroup; warpgroup {g} has fewer than 128 threads"
                ),
            ));
            return true;
        }
        if let Some(other) = s.blocks[blk].warpgroups[g].site.filter(|x| *x != site) {
            s.fault = Some(s.error_at(
                Some(t),
                ErrorKind::Divergence,
                format!("threads of warpgroup {g} at two `wgmma`s: {site} and {other}"),
            ));
            return true;
        }
        let slot = &mut s.blocks[blk].warpgroups[g];
        slot.site = Some(site);
        slot.arrived |= 1 << lane;
        slot.ops[lane] = Some(mine);
        s.threads[t].wait = super::state::Wait::Warp(name, site);
        s.progress += 1;
        if slot.arrived != u128::MAX {
            return false;
        }
        let ops: Vec<WgOperand> = core::mem::replace(slot, WgSlot::new())
            .ops
            .into_iter()
            .map(|o| o.expect("all arrived"))
            .collect();
        let first = s.global(blk, 128 * g);
        match s.as_async(|s| compute(s, blk, first, &ops)) {
            Ok(outs) => {
                for (l, o) in outs.into_iter().enumerate() {
                    s.threads[first + l].wide = o;
                    s.threads[first + l].wait = super::state::Wait::Run;
                }
            }
            Err((kind, m)) => s.fault = Some(s.error_at(Some(t), kind, m)),
        }
        true
    })
    .expect("emulating");
    if !done || with(|s| s.fault.is_some()).unwrap_or(false) {
        suspend();
    }
    let out = with(|s| core::mem::take(&mut s.threads[s.cur].wide)).expect("emulating");
    for (x, b) in acc.iter_mut().zip(out) {
        *x = T::of_bits(b);
    }
}

/// D = A·Bᵀ (+ C) for the warpgroup whose thread 0 is `first`.
fn compute(
    s: &mut Sim,
    blk: usize,
    first: usize,
    ops: &[WgOperand],
) -> Result<Vec<Vec<u32>>, (ErrorKind, String)> {
    let o0 = &ops[0];
    if ops.iter().any(|o| {
        o.a.is_ok() != o0.a.is_ok()
            || o.a.ok() != o0.a.ok()
            || o.b != o0.b
            || o.accumulate != o0.accumulate
            || o.n != o0.n
            || o.elem != o0.elem
            || o.acc_kind != o0.acc_kind
    }) {
        return Err((
            ErrorKind::Divergence,
            "the threads of a warpgroup gave different descriptors or scale-d to one `wgmma`"
                .into(),
        ));
    }
    let (n, (elem, elem_b)) = (o0.n, o0.elem);
    // A and B have elements of one size (K is 32 bytes of a row).
    let (kk, bytes) = (elem.k(), elem.bytes());
    // An operand element read from shared memory, as the warpgroup's
    // first thread.
    let read = |s: &mut Sim, e: Elem, addr: u32| -> Result<f64, (ErrorKind, String)> {
        let mut b = [0u8; 4];
        s.shared_read_block(first, blk, addr, &mut b[..bytes])?;
        Ok(e.value(&b[..bytes]))
    };
    // Element (mn, k)'s address: the 16-bit forms by major; the others are
    // K-major only.
    let address = |d: GmmaDescriptor, major: Major, mn: usize, k: usize| {
        if bytes == 2 {
            d.element_address(major, (mn, k))
        } else {
            d.element_address_k_major(bytes, (mn, k))
        }
    };
    let mut a = std::vec![std::vec![0f64; kk]; 64];
    match o0.a {
        Ok(desc) => {
            let d = GmmaDescriptor::from_bits(desc);
            for (m, row) in a.iter_mut().enumerate() {
                for (k, x) in row.iter_mut().enumerate() {
                    *x = read(s, elem, address(d, Major::K, m, k))?;
                }
            }
        }
        Err(_) => {
            // Each thread's four registers hold its 16 / bytes... values in
            // the atom's A value order, packed from the low byte up.
            let values = 16 / bytes;
            for (t, o) in ops.iter().enumerate() {
                let Err(regs) = o.a else {
                    unreachable!("checked uniform")
                };
                let mut raw = [0u8; 16];
                for (r, reg) in regs.iter().enumerate() {
                    raw[4 * r..4 * r + 4].copy_from_slice(&reg.to_le_bytes());
                }
                for v in 0..values {
                    let p = (o0.a_pos)(t + 128 * v);
                    a[p % 64][p / 64] = elem.value(&raw[v * bytes..(v + 1) * bytes]);
                }
            }
        }
    }
    let db = GmmaDescriptor::from_bits(o0.b);
    let major = if o0.b_mn { Major::MN } else { Major::K };
    let mut bm = std::vec![std::vec![0f64; kk]; n];
    for (j, row) in bm.iter_mut().enumerate() {
        for (k, x) in row.iter_mut().enumerate() {
            *x = read(s, elem_b, address(db, major, j, k))?;
        }
    }
    let mut outs = Vec::with_capacity(128);
    for (t, o) in ops.iter().enumerate() {
        let mut d = std::vec![0u32; o.acc.len()];
        for v in 0..n / 2 {
            let p = (o0.c_pos)(t + 128 * v);
            let (m, j) = (p % 64, p / 64);
            // Value v: a 32-bit register, or half v % 2 of f16 pair v / 2.
            let c = match (o0.accumulate, o0.acc_kind) {
                (false, _) => 0.0,
                (true, AccKind::F32) => f64::from(f32::from_bits(o.acc[v])),
                (true, AccKind::S32) => f64::from(o.acc[v] as i32),
                (true, AccKind::F16) => {
                    let h = (o.acc[v / 2] >> (16 * (v % 2))) as u16;
                    f64::from(half::f16::from_bits(h).to_f32())
                }
            };
            let x = (0..kk).fold(c, |acc, k| acc + a[m][k] * bm[j][k]);
            match o0.acc_kind {
                AccKind::F32 => d[v] = (x as f32).to_bits(),
                // Integer sums are exact in f64 (|x| < 2^53); the register
                // wraps, or with `.satfinite` clamps, as the instruction's.
                AccKind::S32 if o0.saturate => d[v] = (x as i32) as u32,
                AccKind::S32 => d[v] = (x as i64) as i32 as u32,
                AccKind::F16 => {
                    let h = u32::from(half::f16::from_f64(x).to_bits());
                    d[v / 2] |= h << (16 * (v % 2));
                }
            }
        }
        outs.push(d);
    }
    Ok(outs)
}
