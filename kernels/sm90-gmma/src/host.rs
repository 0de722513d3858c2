//! The host's half of an atom check: operands of small integers in the
//! atom's input types, and C checked exactly against the integer product.

use crate::Atom;
use layout_device::GmmaElem as Elem;
use std::vec::Vec;

/// What the check needs of an input type beyond layout-device's
/// `GmmaElem`: a small integer's bits and the values it puts in.
trait SmallInts {
    /// The bits of `x`, a small integer (|x| <= 4, or 0..=8 unsigned),
    /// exact in every type: for the 8-bit floats, sign, biased exponent
    /// and the mantissa of |x| = 2^e (1 + m / 2^bits).
    fn encode(self, x: i32) -> u32;
    /// Small integers for element `i` (`seed` varies them by operand): a
    /// hash, so that no two rows repeat each other and a value stored in
    /// the wrong place shows.
    fn value(self, i: usize, seed: usize) -> i32;
}

impl SmallInts for Elem {
    fn encode(self, x: i32) -> u32 {
        let fp8 = |mant_bits: u32, bias: i32| {
            if x == 0 {
                return 0;
            }
            let (sign, v) = (if x < 0 { 0x80 } else { 0 }, x.unsigned_abs());
            let e = 31 - v.leading_zeros();
            let m = (v - (1 << e)) << mant_bits >> e;
            sign | ((e as i32 + bias) as u32) << mant_bits | m
        };
        match self {
            Elem::F16 => u32::from(half::f16::from_f32(x as f32).to_bits()),
            Elem::Bf16 => u32::from(half::bf16::from_f32(x as f32).to_bits()),
            Elem::Tf32 => (x as f32).to_bits(),
            Elem::E4m3 => fp8(3, 7),
            Elem::E5m2 => fp8(2, 15),
            Elem::S8 => x as i8 as u8 as u32,
            Elem::U8 => x as u8 as u32,
        }
    }
    fn value(self, i: usize, seed: usize) -> i32 {
        let h = ((i + (seed << 20)) as u64 ^ 0x5bd1_e995).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32;
        let r = (h % 9) as i32;
        if self == Elem::U8 {
            r
        } else {
            r - 4
        }
    }
}

/// One check's operands: A and B as the entry reads them (32-byte rows,
/// little-endian words) and the values they hold.
pub struct Case {
    /// A's 64 rows of 32 bytes, as 512 words.
    pub a: Vec<u32>,
    /// B's N rows, as 8 N words.
    pub b: Vec<u32>,
    av: Vec<i32>,
    bv: Vec<i32>,
}

/// A `rows` x `k` operand of `e` as 32-byte rows of words, and its values.
fn operand(e: Elem, rows: usize, k: usize, seed: usize) -> (Vec<u32>, Vec<i32>) {
    let vals: Vec<i32> = (0..rows * k).map(|i| e.value(i, seed)).collect();
    let mut bytes = std::vec![0u8; rows * 32];
    for (i, &x) in vals.iter().enumerate() {
        let off = (i / k) * 32 + (i % k) * e.bytes();
        let bits = e.encode(x).to_le_bytes();
        bytes[off..off + e.bytes()].copy_from_slice(&bits[..e.bytes()]);
    }
    let words = bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    (words, vals)
}

/// The operands of `atom`'s check.
pub fn case(atom: &Atom) -> Case {
    let mut t = atom.types.split('.');
    let _d = t.next();
    let mut input = || {
        t.next()
            .and_then(Elem::of)
            .unwrap_or_else(|| panic!("{}: no input type in {}", atom.name, atom.types))
    };
    let (ea, eb) = (input(), input());
    let (a, av) = operand(ea, 64, atom.k, 1);
    let (b, bv) = operand(eb, atom.n, atom.k, 2);
    Case { a, b, av, bv }
}

/// The elements of C (64 x N, the entry's `u32`s) that differ from the
/// exact A·Bᵀ: `(m, n, got, want)`, at most `limit` of them, and their
/// count.
pub fn check(
    atom: &Atom,
    case: &Case,
    c: &[u32],
    limit: usize,
) -> (usize, Vec<(usize, usize, f64, i64)>) {
    let d = atom.types.split('.').next().unwrap_or("");
    let (n, k) = (atom.n, atom.k);
    let mut bad = Vec::new();
    let mut count = 0;
    for m in 0..64 {
        for j in 0..n {
            let want: i64 = (0..k)
                .map(|p| i64::from(case.av[m * k + p]) * i64::from(case.bv[j * k + p]))
                .sum();
            let bits = c.get(m * n + j).copied().unwrap_or(u32::MAX);
            let got = match d {
                "f32" => f64::from(f32::from_bits(bits)),
                "f16" if bits >> 16 == 0 => f64::from(half::f16::from_bits(bits as u16).to_f32()),
                "f16" => f64::NAN,
                _ => f64::from(bits as i32),
            };
            if got != want as f64 {
                count += 1;
                if bad.len() < limit {
                    bad.push((m, j, got, want));
                }
            }
        }
    }
    (count, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 8-bit float encodings of -4..=4, by hand: e4m3 (bias 7, 3
    /// mantissa bits) 1 = 0_0111_000, 3 = 0_1000_100, 4 = 0_1001_000; e5m2
    /// (bias 15, 2 bits) 3 = 0_10000_10.
    // The binary literals group sign, exponent and mantissa.
    #[test]
    #[allow(clippy::unusual_byte_groupings)]
    fn small_integers_encode_exactly() {
        assert_eq!(Elem::E4m3.encode(1), 0b0_0111_000);
        assert_eq!(Elem::E4m3.encode(3), 0b0_1000_100);
        assert_eq!(Elem::E4m3.encode(-4), 0b1_1001_000);
        assert_eq!(Elem::E5m2.encode(3), 0b0_10000_10);
        assert_eq!(Elem::E5m2.encode(-2), 0b1_10000_00);
        assert_eq!(Elem::E5m2.encode(0), 0);
        assert_eq!(Elem::S8.encode(-1), 0xff);
        assert_eq!(Elem::Tf32.encode(-3), (-3f32).to_bits());
    }
}
