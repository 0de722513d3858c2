//! The table of Hopper's warpgroup MMAs (`wgmma.mma_async`, CuTe's SM90
//! GMMA atoms): every type combination and every N the PTX ISA allows, in
//! both operand forms. layout-core's atom types, layout-device's
//! instructions and the GPU check kernels all expand from it, each through
//! a `macro_rules!` of its own that receives one row per atom.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

/// The input width of a family: it fixes K (32 bytes of a row), the A
/// register layout of the `_RS` form, and whether B may be N-major.
#[derive(Clone, Copy)]
enum Kind {
    /// f16 and bf16: K = 16; A and B K- or N-major (`_SS`, `_RS`).
    Half,
    /// tf32: K = 8, K-major only (`_TN`).
    Tf32,
    /// e4m3, e5m2, s8, u8: K = 32, K-major only (`_TN`).
    Byte,
}

/// One family: the PTX types of D, A and B, and `.satfinite` (the
/// saturating integer forms).
struct Family {
    d: &'static str,
    a: &'static str,
    b: &'static str,
    kind: Kind,
    saturate: bool,
}

/// Every family CuTe's `mma_sm90_gmma.hpp` and `mma_sm90_gmma_ext.hpp`
/// define.
fn families() -> Vec<Family> {
    let f = |d, a, b, kind, saturate| Family {
        d,
        a,
        b,
        kind,
        saturate,
    };
    let mut v = vec![
        f("f32", "f16", "f16", Kind::Half, false),
        f("f16", "f16", "f16", Kind::Half, false),
        f("f32", "bf16", "bf16", Kind::Half, false),
        f("f32", "tf32", "tf32", Kind::Tf32, false),
    ];
    for d in ["f32", "f16"] {
        for a in ["e4m3", "e5m2"] {
            for b in ["e4m3", "e5m2"] {
                v.push(f(d, a, b, Kind::Byte, false));
            }
        }
    }
    for saturate in [false, true] {
        for a in ["s8", "u8"] {
            for b in ["s8", "u8"] {
                v.push(f("s32", a, b, Kind::Byte, saturate));
            }
        }
    }
    v
}

/// The N a family's instruction takes (PTX ISA, `wgmma.mma_async`'s
/// shapes): every multiple of 8 to 256; for integer inputs 8 to 32 by 8,
/// then by 16.
fn widths(f: &Family) -> Vec<u32> {
    if f.d == "s32" {
        (1..=4)
            .map(|i| 8 * i)
            .chain((3..=16).map(|i| 16 * i))
            .collect()
    } else {
        (1..=32).map(|i| 8 * i).collect()
    }
}

/// The N of CuTe's default header (`mma_sm90_gmma.hpp`); the others are
/// its `_ext` header's, compiled there only on request.
fn cute_base(n: u32) -> bool {
    matches!(n, 8 | 16 | 32 | 64 | 96 | 128 | 192 | 256)
}

/// `sm90_gmma_table!(callback)`: `callback! { row* }`, one row per atom:
///
/// `form Name, N, K, "d.a.b[.satfinite]", "tail", acc, regs, N/8, kind,
/// base|ext, "what"; [0 1 .. regs-1];`
///
/// - `form`: `ss` or `rs` (16-bit inputs, B K- or N-major), `ss_tn` or
///   `rs_tn` (K-major only);
/// - `"tail"`: what follows the scale-d predicate in a K-major `_TN`
///   instruction (the input scales `, 1, 1`; nothing for integers);
/// - `acc`: a register's Rust type (`f32`, `u32` holding two f16, `i32`),
///   `regs` of them a thread, listed;
/// - `kind`: `h16`, `tf32` or `b8` (the A register layout of `_RS`);
/// - `base` for the N of CuTe's default header, `ext` for the others.
pub fn table(input: TokenStream) -> TokenStream {
    let callback: Ident = match syn::parse2(input) {
        Ok(c) => c,
        Err(e) => return e.to_compile_error(),
    };
    let mut rows = Vec::new();
    for f in families() {
        let k: u32 = match f.kind {
            Kind::Half => 16,
            Kind::Tf32 => 8,
            Kind::Byte => 32,
        };
        let up = |s: &str| s.to_uppercase();
        let ty = format!(
            "{}.{}.{}{}",
            f.d,
            f.a,
            f.b,
            if f.saturate { ".satfinite" } else { "" }
        );
        let tail = if f.d == "s32" { "" } else { ", 1, 1" };
        let (acc, per8) = match f.d {
            "f16" => ("u32", 2),
            "s32" => ("i32", 4),
            _ => ("f32", 4),
        };
        let inputs = if f.a == f.b {
            format!("{} inputs", f.a)
        } else {
            format!("{} A and {} B inputs", f.a, f.b)
        };
        let what = format!(
            "{inputs} and {} accumulators{}",
            f.d,
            if f.saturate { ", saturating" } else { "" }
        );
        let kind = Ident::new(
            match f.kind {
                Kind::Half => "h16",
                Kind::Tf32 => "tf32",
                Kind::Byte => "b8",
            },
            Span::call_site(),
        );
        for n in widths(&f) {
            for rs in [false, true] {
                let tn = !matches!(f.kind, Kind::Half);
                let name = format!(
                    "SM90_64x{n}x{k}_{}{}{}_{}{}{}",
                    up(f.d),
                    up(f.a),
                    up(f.b),
                    if rs { "RS" } else { "SS" },
                    if tn { "_TN" } else { "" },
                    if f.saturate { "_SATURATE" } else { "" }
                );
                let form = Ident::new(
                    &format!(
                        "{}{}",
                        if rs { "rs" } else { "ss" },
                        if tn { "_tn" } else { "" }
                    ),
                    Span::call_site(),
                );
                let name = Ident::new(&name, Span::call_site());
                let regs = per8 * n / 8;
                let idx = (0..regs).map(Literal::u32_unsuffixed);
                let acc = Ident::new(acc, Span::call_site());
                let base = Ident::new(if cute_base(n) { "base" } else { "ext" }, Span::call_site());
                let (n_l, k_l, regs_l, n8) = (
                    Literal::u32_unsuffixed(n),
                    Literal::u32_unsuffixed(k),
                    Literal::u32_unsuffixed(regs),
                    Literal::u32_unsuffixed(n / 8),
                );
                rows.push(quote! {
                    #form #name, #n_l, #k_l, #ty, #tail, #acc, #regs_l, #n8, #kind, #base, #what; [#(#idx)*];
                });
            }
        }
    }
    quote! { #callback! { #(#rows)* } }
}
