//! Expand: a checked tree of leaves to Rust tokens, every path through the
//! crate path layout-core passes in (`$crate`).

use crate::parse::{Leaf, Node};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};

/// A layout value or its type.
#[derive(Clone, Copy, PartialEq)]
pub enum Form {
    Value,
    Type,
}

/// Whether `C<v>` has a typenum form in layout-core's table (`static_table`
/// writes the table from this predicate, the macros emit `C::<v>` exactly when it
/// holds): every value up to 1024, multiples of 8 up to 8192, multiples of 64 up
/// to 65536, powers of 2 and of 10 below 2^32 (the same table on 32-bit targets).
fn in_static_table(v: u128) -> bool {
    let mut p = 1u128;
    while p < v {
        p *= 10;
    }
    v <= 1024
        || (v <= 8192 && v % 8 == 0)
        || (v <= 65536 && v % 64 == 0)
        || (v < 1 << 32 && (v.is_power_of_two() || p == v))
}

/// The table of `C<N>`'s typenum forms: `impl TypenumForm for C<v>` for every
/// `v` of `in_static_table`, and the way back, `impl ConstForm` for its
/// typenum form.
pub fn static_table(krate: &TokenStream) -> TokenStream {
    // The candidates cover the predicate's cases; the filter keeps it the one definition.
    let mut vals: Vec<u128> = (0..=65536).collect();
    vals.extend((17..32).map(|e| 1u128 << e));
    vals.extend((5..10).map(|e| 10u128.pow(e)));
    let mut out = TokenStream::new();
    for v in vals.into_iter().filter(|v| in_static_table(*v)) {
        let t = typenum_form(krate, v);
        let n = v as usize;
        out.extend(quote! {
            impl #krate::typelevel::int::TypenumForm for #krate::C<#n> { type U = #t; }
        });
        // The way back, for the values a refusal prints (small ones).
        if v <= 1024 || v.is_power_of_two() {
            // Not offered as candidates when a value is past the table:
            // the message says so, without a list of typenum types.
            out.extend(quote! {
                #[diagnostic::do_not_recommend]
                impl #krate::typelevel::int::ConstForm for #t { type C = #krate::C<#n>; }
            });
        }
    }
    out
}

/// typenum's binary form of `v`.
fn typenum_form(krate: &TokenStream, v: u128) -> TokenStream {
    if v == 0 {
        return quote! { #krate::typenum::UTerm };
    }
    let rest = typenum_form(krate, v >> 1);
    if v & 1 == 1 {
        quote! { #krate::typenum::UInt<#rest, #krate::typenum::B1> }
    } else {
        quote! { #krate::typenum::UInt<#rest, #krate::typenum::B0> }
    }
}

/// An identifier spelled like a constant (`MR`, `TILE_M`): the user may have
/// meant a static leaf.
fn looks_like_const(text: &str) -> bool {
    text.chars().any(|c| c.is_ascii_uppercase())
        && text
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Rust tokens for a node; run-time leaves are bound once, in `lets`, so
/// that compact strides can multiply them (`__layout_s{k}`, `k` the leaf's
/// index in the whole layout).
pub fn emit(
    krate: &TokenStream,
    n: &Node,
    form: Form,
    lets: &mut Vec<TokenStream>,
    k: &mut usize,
) -> TokenStream {
    match n {
        Node::Tuple(items, _) => {
            let parts: Vec<_> = items
                .iter()
                .map(|x| emit(krate, x, form, lets, k))
                .collect();
            quote! { (#(#parts,)*) }
        }
        Node::Leaf(Leaf::Computed(expr, _, span)) => match form {
            Form::Type => quote_spanned! {*span=> usize },
            Form::Value => quote! { #expr },
        },
        Node::Leaf(Leaf::Named(expr, _, span)) => {
            *k += 1;
            // `C<{expr}>` as written keeps its braces; anything else gets them.
            let braced = {
                let mut it = expr.clone().into_iter();
                matches!((it.next(), it.next()), (Some(TokenTree::Group(g)), None) if g.delimiter() == Delimiter::Brace)
            };
            let expr = if braced {
                expr.clone()
            } else {
                quote! { { #expr } }
            };
            match form {
                Form::Value => quote_spanned! {*span=> #krate::C::<#expr> },
                Form::Type => quote_spanned! {*span=> #krate::C<#expr> },
            }
        }
        Node::Leaf(Leaf::Static(v, span)) => {
            *k += 1;
            if *v > u64::MAX as u128 {
                return quote_spanned! {*span=> compile_error!("a compact stride of this shape overflows 64 bits") };
            }
            if !in_static_table(*v) {
                // Past the table of C<N>'s typenum forms: write the binary form.
                let t = typenum_form(krate, *v);
                return match form {
                    Form::Value => quote_spanned! {*span=> #krate::S::<#t>::new() },
                    Form::Type => quote_spanned! {*span=> #krate::S<#t> },
                };
            }
            let v = *v as usize;
            match form {
                Form::Value => quote_spanned! {*span=> #krate::C::<#v> },
                Form::Type => quote_spanned! {*span=> #krate::C<#v> },
            }
        }
        Node::Leaf(Leaf::Underscore(span)) => {
            *k += 1;
            quote_spanned! {*span=> #krate::Underscore }
        }
        Node::Leaf(Leaf::Dynamic(expr, text, span)) => {
            // `MR` reads as a constant but is a run-time leaf: a warning at the
            // user's token says how to write either meaning.
            let ident = matches!(expr.clone().into_iter().next(), Some(TokenTree::Ident(_)));
            let ty = if ident && looks_like_const(text) {
                quote_spanned! {*span=> #krate::__private::IdentifierLeaf }
            } else {
                quote_spanned! {*span=> usize }
            };
            match form {
                Form::Type => {
                    *k += 1;
                    ty
                }
                Form::Value => {
                    let name = format_ident!("__layout_s{}", *k);
                    *k += 1;
                    lets.push(quote_spanned! {*span=> let #name: #ty = #expr; });
                    quote! { #name }
                }
            }
        }
    }
}
