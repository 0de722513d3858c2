//! Epilogue fusions: what a GEMM computes from each accumulator on its way
//! to C, and the element type C is stored in (CUTLASS 3's fusion callbacks,
//! as plain values).
//!
//! A fusion is a value that maps the accumulator of C's element
//! `(row, col)` to the value stored; fusions nest, the inner applied first:
//! `Gelu(BiasCol { bias, inner: Alpha(0.5) })` is `gelu(0.5 * acc + bias[col])`.
//! The same code runs on the GPU, under the emulator and on the host, so a
//! kernel's epilogue is tested against the same functions as its reference.
//!
//! ```
//! use layout_device::epilogue::{gelu, Alpha, BiasCol, Fusion, Gelu, Plain, Relu};
//! use layout_device::Global;
//! // bf16 bias bits: 1.0 and -3.0.
//! let bias = [0x3f80u16, 0xc040];
//! // SAFETY: `bias` holds 2 elements and outlives the handle; nothing writes it.
//! let b = unsafe { Global::new(bias.as_ptr(), bias.len()) };
//! let f = Relu(BiasCol { bias: b, inner: Alpha(2.0) });
//! assert_eq!(f.apply(1.5, 0, 0), 4.0); // 2 * 1.5 + 1
//! assert_eq!(f.apply(1.0, 7, 1), 0.0); // max(2 - 3, 0)
//! assert_eq!(f.apply(1.0, 7, 2), 2.0); // past the bias: + 0
//! assert_eq!(Plain.apply(-1.25, 3, 4), -1.25);
//! assert_eq!(Gelu(Plain).apply(0.0, 0, 0), gelu(0.0));
//! // A quad of an MMA's accumulators, (0, 0), (0, 1), (8, 0) and (8, 1): the
//! // bias read once a column; before the activation, and the activation.
//! let g = Gelu(BiasCol { bias: b, inner: Plain });
//! assert_eq!(g.pre_quad([1.0; 4], 0, 0), [2.0, -2.0, 2.0, -2.0]);
//! assert_eq!(g.apply_quad([1.0; 4], 0, 0), [gelu(2.0), gelu(-2.0), gelu(2.0), gelu(-2.0)]);
//! assert_eq!(g.activation(-2.0), gelu(-2.0));
//! // The quad's bias read early (bf16 bits 1.0 and -3.0, packed), then
//! // applied with no read.
//! assert_eq!(g.hold(0), 0xc040_3f80);
//! assert_eq!(g.apply_quad_held([1.0; 4], 0, 0, 0xc040_3f80), [gelu(2.0), gelu(-2.0), gelu(2.0), gelu(-2.0)]);
//! assert_eq!(g.pre_quad_held([1.0; 4], 0, 0, 0xc040_3f80), [2.0, -2.0, 2.0, -2.0]);
//! assert!(Gelu(Plain).apply_quad([0.0; 4], 0, 0) == [0.0; 4] && Gelu::<Plain>::ACTIVATION);
//! ```

use crate::hw::{bf16x2, exp2, f16x2, f32x2_of_f16x2, fma, rcp, tanh, Global};
use layout_core::tensor::memory::Memory;

/// The element type of C: two values rounded to it and packed in one word,
/// the lower column in the low half (one 4-byte store of a row's two
/// adjacent columns).
pub trait OutElem: Copy + Default {
    /// The type's name, as torch and the runner's `--dtype` call it.
    const NAME: &'static str;
    /// `lo` and `hi` rounded to nearest even and packed.
    fn pack2(lo: f32, hi: f32) -> u32;
    /// A packed word's two values (exact): [`OutElem::pack2`]'s inverse
    /// on the values the type holds.
    fn unpack2(w: u32) -> (f32, f32);
}

/// IEEE half precision (`torch.float16`).
///
/// ```
/// use layout_device::epilogue::{OutElem, F16};
/// assert_eq!(F16::pack2(1.0, -2.0), 0xc000_3c00);
/// assert_eq!(F16::unpack2(0xc000_3c00), (1.0, -2.0));
/// ```
#[derive(Clone, Copy, Default, Debug)]
pub struct F16;

impl OutElem for F16 {
    const NAME: &'static str = "float16";
    #[inline(always)]
    fn pack2(lo: f32, hi: f32) -> u32 {
        f16x2(lo, hi)
    }
    #[inline(always)]
    fn unpack2(w: u32) -> (f32, f32) {
        f32x2_of_f16x2(w)
    }
}

/// bfloat16 (`torch.bfloat16`): f32's exponent, 8 bits of significand.
///
/// ```
/// use layout_device::epilogue::{Bf16, OutElem};
/// assert_eq!(Bf16::pack2(1.0, -2.0), 0xc000_3f80);
/// assert_eq!(Bf16::unpack2(0xc000_3f80), (1.0, -2.0));
/// ```
#[derive(Clone, Copy, Default, Debug)]
pub struct Bf16;

impl OutElem for Bf16 {
    const NAME: &'static str = "bfloat16";
    #[inline(always)]
    fn pack2(lo: f32, hi: f32) -> u32 {
        bf16x2(lo, hi)
    }
    #[inline(always)]
    fn unpack2(w: u32) -> (f32, f32) {
        (bf16_to_f32(w as u16), bf16_to_f32((w >> 16) as u16))
    }
}

/// A bf16 value (its bits) as f32: exact (bf16 is f32's upper half).
///
/// ```
/// assert_eq!(layout_device::epilogue::bf16_to_f32(0xc040), -3.0);
/// ```
#[inline(always)]
pub const fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// What the epilogue stores for the accumulator of C's element `(row, col)`.
pub trait Fusion: Copy {
    /// Whether an epilogue computes all of a thread's values of a tile
    /// before it stores any (`true`), or each as it stores it (`false`, the
    /// default). For a fusion that reads memory (a bias): its reads are
    /// then issued together, rather than each after the store before it
    /// (C might alias what they read), at the cost of holding the tile's
    /// values (64 more registers in the Hopper GEMM). [`BiasCol`] and
    /// [`BiasRow`] say `true`; the wrappers take their inner fusion's.
    const READS_MEMORY: bool = false;
    /// Whether the fusion ends in an activation ([`Relu`], [`Gelu`],
    /// [`Silu`]): `apply` is then [`Fusion::activation`] of
    /// [`Fusion::pre_quad`]'s values, and an epilogue may round the values
    /// before the activation to C's type and apply it later, elsewhere (the
    /// Hopper GEMM's epilogue warps), as a linear layer followed by its
    /// activation in two kernels does.
    const ACTIVATION: bool = false;
    /// The value stored (before rounding to C's type).
    fn apply(self, acc: f32, row: usize, col: usize) -> f32;
    /// [`Fusion::apply`] of a quad of accumulators, C's elements `(row,
    /// col)`, `(row, col + 1)`, `(row + 8, col)` and `(row + 8, col + 1)`:
    /// a thread's four values of an 8 x 8 block of an MMA's accumulators
    /// (`mma.sync` and `wgmma` alike). A fusion that reads memory per
    /// column or row (a bias) reads each element once for the four.
    #[inline(always)]
    fn apply_quad(self, acc: [f32; 4], row: usize, col: usize) -> [f32; 4] {
        [
            self.apply(acc[0], row, col),
            self.apply(acc[1], row, col + 1),
            self.apply(acc[2], row + 8, col),
            self.apply(acc[3], row + 8, col + 1),
        ]
    }
    /// The quad's values before the activation ([`Fusion::ACTIVATION`]);
    /// without one, [`Fusion::apply_quad`].
    #[inline(always)]
    fn pre_quad(self, acc: [f32; 4], row: usize, col: usize) -> [f32; 4] {
        self.apply_quad(acc, row, col)
    }
    /// The activation (the identity without one).
    #[inline(always)]
    fn activation(self, x: f32) -> f32 {
        x
    }
    /// What the fusion reads from memory, when it is one 32-bit word per
    /// pair of columns or of rows ([`Hold`]): an epilogue may then read the
    /// words early ([`Fusion::hold`]), before the K-loop whose latency
    /// hides the loads, and hand each quad its word in
    /// [`Fusion::apply_quad_held`], which reads no memory, so the values
    /// can be stored as computed. [`BiasCol`] and [`BiasRow`] over a fusion
    /// that reads nothing hold; the wrappers take their inner fusion's.
    const HOLDS: Hold = Hold::Nothing;
    /// The word at column pair (`at`, `at + 1`) ([`Hold::Cols`]) or row
    /// pair (`at`, `at + 8`) ([`Hold::Rows`]), read from memory now; 0 for
    /// a fusion that holds nothing.
    #[inline(always)]
    fn hold(self, _at: usize) -> u32 {
        0
    }
    /// [`Fusion::apply_quad`] with the quad's word from [`Fusion::hold`]
    /// (of its columns `col` or its rows `row`, as [`Fusion::HOLDS`] says);
    /// a fusion that holds reads no memory here.
    #[inline(always)]
    fn apply_quad_held(self, acc: [f32; 4], row: usize, col: usize, _held: u32) -> [f32; 4] {
        self.apply_quad(acc, row, col)
    }
    /// [`Fusion::pre_quad`] with the quad's word from [`Fusion::hold`].
    #[inline(always)]
    fn pre_quad_held(self, acc: [f32; 4], row: usize, col: usize, held: u32) -> [f32; 4] {
        self.apply_quad_held(acc, row, col, held)
    }
}

/// What a fusion reads from memory for a quad of accumulators (rows r and
/// r + 8 of columns c and c + 1), when an epilogue can read it early
/// ([`Fusion::HOLDS`]).
///
/// ```
/// use layout_device::epilogue::{BiasCol, BiasRow, Fusion, Hold, Plain, Relu};
/// assert_eq!(<Relu<BiasCol<Plain>>>::HOLDS, Hold::Cols);
/// assert_eq!(<BiasRow<Plain>>::HOLDS, Hold::Rows);
/// // Two biases: the outer one reads as it goes.
/// assert_eq!(<BiasRow<BiasCol<Plain>>>::HOLDS, Hold::Nothing);
/// assert!(<BiasRow<BiasCol<Plain>>>::READS_MEMORY);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Hold {
    /// Nothing held: the fusion reads no memory, or reads it as it
    /// computes ([`Fusion::READS_MEMORY`]).
    Nothing,
    /// One word per pair of adjacent columns (c, c + 1): a bias per column.
    Cols,
    /// One word per pair of rows (r, r + 8): a bias per row.
    Rows,
}

/// The accumulator itself: the plain GEMM.
#[derive(Clone, Copy, Default, Debug)]
pub struct Plain;

impl Fusion for Plain {
    #[inline(always)]
    fn apply(self, acc: f32, _row: usize, _col: usize) -> f32 {
        acc
    }
}

/// `alpha * acc`: a scale (an FP8 GEMM's product of A's and B's scales).
#[derive(Clone, Copy, Debug)]
pub struct Alpha(pub f32);

impl Fusion for Alpha {
    #[inline(always)]
    fn apply(self, acc: f32, _row: usize, _col: usize) -> f32 {
        self.0 * acc
    }
}

/// `inner + bias[col]`: a bias per column of C (per output feature of a
/// linear layer, `x @ W.T + b`), in bf16. A column past the bias adds 0:
/// an epilogue computes pairs of columns, one of which may lie past C and
/// is not stored (the host checks the bias covers C's columns).
#[derive(Clone, Copy)]
pub struct BiasCol<F> {
    /// The bias, bf16 bits, one per column of C.
    pub bias: Global<u16>,
    /// The fusion applied before the bias.
    pub inner: F,
}

impl<F: Fusion> Fusion for BiasCol<F> {
    const READS_MEMORY: bool = true;
    #[inline(always)]
    fn apply(self, acc: f32, row: usize, col: usize) -> f32 {
        self.inner.apply(acc, row, col) + bias_at(self.bias, col)
    }
    #[inline(always)]
    fn apply_quad(self, acc: [f32; 4], row: usize, col: usize) -> [f32; 4] {
        let v = self.inner.apply_quad(acc, row, col);
        let (b0, b1) = (bias_at(self.bias, col), bias_at(self.bias, col + 1));
        [v[0] + b0, v[1] + b1, v[2] + b0, v[3] + b1]
    }
    const HOLDS: Hold = if F::READS_MEMORY {
        Hold::Nothing
    } else {
        Hold::Cols
    };
    #[inline(always)]
    fn hold(self, col: usize) -> u32 {
        bias_pair(self.bias, col, col + 1)
    }
    #[inline(always)]
    fn apply_quad_held(self, acc: [f32; 4], row: usize, col: usize, held: u32) -> [f32; 4] {
        let v = self.inner.apply_quad(acc, row, col);
        let (b0, b1) = unpack_bias(held);
        [v[0] + b0, v[1] + b1, v[2] + b0, v[3] + b1]
    }
}

/// `inner + bias[row]`: a bias per row of C, in bf16. A row past the bias
/// adds 0, as [`BiasCol`]'s columns.
#[derive(Clone, Copy)]
pub struct BiasRow<F> {
    /// The bias, bf16 bits, one per row of C.
    pub bias: Global<u16>,
    /// The fusion applied before the bias.
    pub inner: F,
}

impl<F: Fusion> Fusion for BiasRow<F> {
    const READS_MEMORY: bool = true;
    #[inline(always)]
    fn apply(self, acc: f32, row: usize, col: usize) -> f32 {
        self.inner.apply(acc, row, col) + bias_at(self.bias, row)
    }
    #[inline(always)]
    fn apply_quad(self, acc: [f32; 4], row: usize, col: usize) -> [f32; 4] {
        let v = self.inner.apply_quad(acc, row, col);
        let (b0, b8) = (bias_at(self.bias, row), bias_at(self.bias, row + 8));
        [v[0] + b0, v[1] + b0, v[2] + b8, v[3] + b8]
    }
    const HOLDS: Hold = if F::READS_MEMORY {
        Hold::Nothing
    } else {
        Hold::Rows
    };
    #[inline(always)]
    fn hold(self, row: usize) -> u32 {
        bias_pair(self.bias, row, row + 8)
    }
    #[inline(always)]
    fn apply_quad_held(self, acc: [f32; 4], row: usize, col: usize, held: u32) -> [f32; 4] {
        let v = self.inner.apply_quad(acc, row, col);
        let (b0, b8) = unpack_bias(held);
        [v[0] + b0, v[1] + b0, v[2] + b8, v[3] + b8]
    }
}

/// Element `i` of a bf16 bias as f32, 0 past its end.
#[inline(always)]
fn bias_at(bias: Global<u16>, i: usize) -> f32 {
    match bias.load(i) {
        Some(b) => bf16_to_f32(b),
        None => 0.0,
    }
}

/// Elements `i` and `j` of a bf16 bias, packed (`i` in the low half; 0, bf16's
/// +0, past its end): a quad's held word.
#[inline(always)]
fn bias_pair(bias: Global<u16>, i: usize, j: usize) -> u32 {
    let at = |i| bias.load(i).unwrap_or(0) as u32;
    at(i) | at(j) << 16
}

/// [`bias_pair`]'s two values.
#[inline(always)]
fn unpack_bias(held: u32) -> (f32, f32) {
    (bf16_to_f32(held as u16), bf16_to_f32((held >> 16) as u16))
}

/// [`relu`] of the inner fusion.
#[derive(Clone, Copy, Debug)]
pub struct Relu<F>(pub F);

/// [`gelu`] of the inner fusion.
#[derive(Clone, Copy, Debug)]
pub struct Gelu<F>(pub F);

/// [`gelu_tanh`] of the inner fusion.
#[derive(Clone, Copy, Debug)]
pub struct GeluTanh<F>(pub F);

/// [`silu`] of the inner fusion.
#[derive(Clone, Copy, Debug)]
pub struct Silu<F>(pub F);

/// An activation of the inner fusion: the inner fusion's values, then the
/// function (`Fusion::ACTIVATION`).
macro_rules! activation_fusions {
    ($($name:ident: $f:ident;)*) => {$(
        impl<F: Fusion> Fusion for $name<F> {
            const READS_MEMORY: bool = F::READS_MEMORY;
            const ACTIVATION: bool = true;
            #[inline(always)]
            fn apply(self, acc: f32, row: usize, col: usize) -> f32 {
                $f(self.0.apply(acc, row, col))
            }
            #[inline(always)]
            fn apply_quad(self, acc: [f32; 4], row: usize, col: usize) -> [f32; 4] {
                self.0.apply_quad(acc, row, col).map($f)
            }
            #[inline(always)]
            fn pre_quad(self, acc: [f32; 4], row: usize, col: usize) -> [f32; 4] {
                self.0.apply_quad(acc, row, col)
            }
            #[inline(always)]
            fn activation(self, x: f32) -> f32 {
                $f(x)
            }
            const HOLDS: Hold = F::HOLDS;
            #[inline(always)]
            fn hold(self, at: usize) -> u32 {
                self.0.hold(at)
            }
            #[inline(always)]
            fn apply_quad_held(self, acc: [f32; 4], row: usize, col: usize, held: u32) -> [f32; 4] {
                self.0.apply_quad_held(acc, row, col, held).map($f)
            }
            #[inline(always)]
            fn pre_quad_held(self, acc: [f32; 4], row: usize, col: usize, held: u32) -> [f32; 4] {
                self.0.apply_quad_held(acc, row, col, held)
            }
        }
    )*};
}

activation_fusions! {
    Relu: relu;
    Gelu: gelu;
    GeluTanh: gelu_tanh;
    Silu: silu;
}

/// `max(x, 0)`; NaN stays NaN.
///
/// ```
/// use layout_device::epilogue::relu;
/// assert_eq!((relu(-2.0), relu(3.0)), (0.0, 3.0));
/// assert!(relu(f32::NAN).is_nan());
/// ```
#[inline(always)]
pub fn relu(x: f32) -> f32 {
    if x < 0.0 {
        0.0
    } else {
        x
    }
}

/// `log2(e)`, for `e^x = 2^(x log2 e)`.
const LOG2_E: f32 = core::f32::consts::LOG2_E;

/// GELU as torch's default (`approximate='none'`) defines it,
/// `x/2 (1 + erf(x/√2))`, with erf by Abramowitz and Stegun's 7.1.26
/// (absolute error below 1.5e-7), its `1/(1 + p z)` by [`rcp`] and
/// `e^(-z²)` by [`exp2`]: within `2e-7 (1 + |x|)` of the exact value, far
/// below bf16's or f16's rounding. Each step is an [`fma`] where one fits
/// (Rust does not contract `a * b + c`), and no step divides.
///
/// ```
/// use layout_device::epilogue::gelu;
/// assert_eq!(gelu(0.0), 0.0);
/// // gelu(1) = 0.8413447460685429...
/// assert!((gelu(1.0) - 0.841_344_75).abs() < 1e-6);
/// assert!((gelu(-3.0) + 0.004_049_6).abs() < 1e-6);
/// ```
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    let z = (x * core::f32::consts::FRAC_1_SQRT_2).abs();
    let t = rcp(fma(0.327_591_1, z, 1.0));
    let poly = t * fma(
        t,
        fma(
            t,
            fma(t, fma(t, 1.061_405_4, -1.453_152), 1.421_413_8),
            -0.284_496_74,
        ),
        0.254_829_6,
    );
    let erf_abs = fma(-poly, exp2(z * (z * -LOG2_E)), 1.0);
    let erf = if x < 0.0 { -erf_abs } else { erf_abs };
    let half = 0.5 * x;
    fma(half, erf, half)
}

/// GELU's tanh form, torch's `approximate='tanh'` (GPT-2's and Gemma's
/// activation, and cuBLASLt's GELU epilogue): `x/2 (1 + tanh(√(2/π) (x +
/// 0.044715 x³)))`, the tanh by [`tanh`] (one MUFU instruction, relative
/// error about 2^-11: within `|x| 2^-12` of the exact tanh form, with the
/// f32 steps), the rest three [`fma`]s and three products. It lies within
/// 4.8e-4 of [`gelu`] (largest near x = -2.7).
///
/// ```
/// use layout_device::epilogue::gelu_tanh;
/// assert_eq!(gelu_tanh(0.0), 0.0);
/// // gelu_tanh(1) = 0.8411919906082768...
/// assert!((gelu_tanh(1.0) - 0.841_191_99).abs() < 1e-6);
/// assert_eq!((gelu_tanh(30.0), gelu_tanh(-30.0)), (30.0, 0.0));
/// ```
#[inline(always)]
pub fn gelu_tanh(x: f32) -> f32 {
    // √(2/π) and √(2/π) · 0.044715.
    const K0: f32 = 0.797_884_6;
    const K1: f32 = 0.035_677_41;
    let u = x * fma(K1, x * x, K0);
    let half = 0.5 * x;
    fma(half, tanh(u), half)
}

/// SiLU (swish), `x / (1 + e^-x)`, with `e^-x` by [`exp2`].
///
/// ```
/// use layout_device::epilogue::silu;
/// assert_eq!(silu(0.0), 0.0);
/// // silu(2) = 1.7615941559557649...
/// assert!((silu(2.0) - 1.761_594_2).abs() < 1e-6);
/// assert_eq!(silu(-200.0), -0.0); // e^200 overflows: x / inf
/// ```
#[inline(always)]
pub fn silu(x: f32) -> f32 {
    x / (1.0 + exp2(-x * LOG2_E))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `erf` in f64 by its Maclaurin series (|z| < 3) or its continued
    /// fraction's complement (|z| >= 3), to 1e-15: the reference.
    fn erf64(z: f64) -> f64 {
        let a = z.abs();
        let r = if a < 3.0 {
            let (mut term, mut sum, mut k) = (a, a, 0.0);
            while term.abs() > 1e-17 {
                k += 1.0;
                term *= -a * a / k;
                sum += term / (2.0 * k + 1.0);
            }
            2.0 / core::f64::consts::PI.sqrt() * sum
        } else {
            // erfc(a) = e^(-a^2) / sqrt(pi) * 1/(a + 1/2/(a + 1/(a + 3/2/(a + ...))))
            let mut f = a;
            for k in (1..60).rev() {
                f = a + (k as f64 / 2.0) / f;
            }
            1.0 - (-a * a).exp() / core::f64::consts::PI.sqrt() / f
        };
        if z < 0.0 {
            -r
        } else {
            r
        }
    }

    /// GELU against `x/2 (1 + erf(x/√2))` in f64, over [-10, 10] in steps
    /// of 1/64 and at large |x|: within the documented bound.
    #[test]
    fn gelu_is_torchs_within_the_bound() {
        assert!((erf64(1.0) - 0.842_700_792_949_714_9).abs() < 1e-14);
        assert!((erf64(3.5) - 0.999_999_256_901_627_7).abs() < 1e-14);
        let xs = (-640..=640)
            .map(|i| i as f64 / 64.0)
            .chain([-100.0, -30.0, 30.0, 1000.0]);
        for x in xs {
            let want = 0.5 * x * (1.0 + erf64(x / core::f64::consts::SQRT_2));
            let got = f64::from(gelu(x as f32));
            assert!(
                (got - want).abs() <= 2e-7 * (1.0 + x.abs()),
                "gelu({x}) = {got}, want {want}"
            );
        }
    }

    /// The tanh form against its definition in f64 (on the host `tanh` is
    /// correctly rounded: only the f32 steps' roundings remain), and its
    /// distance from the exact GELU: at most 4.8e-4, the largest near x =
    /// -2.7 (4.73e-4 there in f64).
    #[test]
    fn gelu_tanh_is_the_tanh_form() {
        let xs = (-640..=640)
            .map(|i| i as f64 / 64.0)
            .chain([-100.0, -30.0, 30.0, 1000.0]);
        let mut widest: f64 = 0.0;
        for x in xs {
            let k = (2.0 / core::f64::consts::PI).sqrt();
            let want = 0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh());
            let got = f64::from(gelu_tanh(x as f32));
            assert!(
                (got - want).abs() <= 1e-6 * (1.0 + x.abs()),
                "gelu_tanh({x}) = {got}, want {want}"
            );
            let exact = 0.5 * x * (1.0 + erf64(x / core::f64::consts::SQRT_2));
            widest = widest.max((want - exact).abs());
        }
        assert!(widest > 4.6e-4 && widest < 4.8e-4, "{widest}");
    }

    /// SiLU against `x / (1 + e^-x)` in f64, relative to its size.
    #[test]
    fn silu_is_the_definition() {
        for i in -640..=640 {
            let x = i as f64 / 32.0;
            let want = x / (1.0 + (-x).exp());
            let got = f64::from(silu(x as f32));
            assert!((got - want).abs() <= 1e-6 * (1.0 + want.abs()), "silu({x})");
        }
    }

    /// bf16 and f16 packing round to nearest even, as `half` does.
    #[test]
    fn packing_rounds_to_nearest_even() {
        for x in [
            1.0f32,
            1.0 + 1.0 / 256.0,
            1.0 + 3.0 / 256.0,
            -65504.0,
            1e-8,
            3.0e38,
        ] {
            let b = u32::from(half::bf16::from_f32(x).to_bits());
            let h = u32::from(half::f16::from_f32(x).to_bits());
            assert_eq!(Bf16::pack2(x, -x), b | (b ^ 0x8000) << 16, "{x}");
            assert_eq!(F16::pack2(x, 0.0), h, "{x}");
        }
    }
}
