//! Proc macros of the layout workspace. Use them through `layout-core`
//! (`layout!`, `layout_type!`, `crd!`), which passes its own path in so that
//! a renamed dependency still works.
//!
//! The crate is split as parse (tokens to a tree of leaves), check
//! (congruence, compact strides) and expand (paths through `$crate`).

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned};

mod parse;
use parse::{split_krate, Leaf, Node, Parser};

/// Expand `krate; SHAPE[:STRIDE]` to a layout value. Used by `layout_core::layout!`.
#[doc(hidden)]
#[proc_macro]
pub fn layout_impl(input: TokenStream) -> TokenStream {
    expand(input.into(), Form::Value)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// Expand `krate; SHAPE[:STRIDE]` to a layout type. Used by `layout_core::layout_type!`.
#[doc(hidden)]
#[proc_macro]
pub fn layout_type_impl(input: TokenStream) -> TokenStream {
    expand(input.into(), Form::Type)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// Expand `krate; COORD, ...` to a coordinate value. Used by `layout_core::crd!`.
#[doc(hidden)]
#[proc_macro]
pub fn crd_impl(input: TokenStream) -> TokenStream {
    expand_crd(input.into())
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

#[derive(Clone, Copy, PartialEq)]
enum Form {
    Value,
    Type,
}

fn expand(input: TokenStream2, form: Form) -> syn::Result<TokenStream2> {
    let (krate, body) = split_krate(input)?;
    let mut p = Parser::new(body, false);
    if p.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            "expected a layout such as `(2,(2,2)):(4,(2,1))` or a shape such as `(3,4)`",
        ));
    }
    if p.at_colon() {
        return Err(p.error_here(
            "the shape before `:` is missing: write `layout!((4,2):(2,1))`, or the shape alone",
        ));
    }
    let shape = p.node()?;
    // Points at the `:` when nothing follows it.
    let no_stride = p.error_here(
        "the stride after `:` is missing: write `layout!((4,2):(2,1))`, or leave out the `:` for column-major strides",
    );
    let stride = if p.eat_colon()? {
        if p.is_empty() {
            return Err(no_stride);
        }
        let s = p.node()?;
        Some(s)
    } else {
        None
    };
    p.expect_end()?;
    let stride = match stride {
        Some(stride) => {
            check_congruent(&shape, &stride, &shape, &stride)?;
            stride
        }
        None => compact_left(&shape),
    };
    let mut lets = Vec::new();
    let mut n = 0;
    let shape_ts = emit(&krate, &shape, form, &mut lets, &mut n);
    let stride_ts = emit(&krate, &stride, form, &mut lets, &mut n);
    Ok(match form {
        Form::Value => quote! {{
            #(#lets)*
            #krate::Layout::new(#shape_ts, #stride_ts)
        }},
        Form::Type => quote! { #krate::Layout<#shape_ts, #stride_ts> },
    })
}

fn expand_crd(input: TokenStream2) -> syn::Result<TokenStream2> {
    let (krate, body) = split_krate(input)?;
    let mut p = Parser::new(body, true);
    let mut items = Vec::new();
    let mut trailing = false;
    while !p.is_empty() {
        items.push(p.node()?);
        trailing = p.eat_comma()?;
    }
    let node = if items.len() == 1 && !trailing {
        items.pop().unwrap()
    } else {
        Node::Tuple(items, Span::call_site())
    };
    let mut lets = Vec::new();
    let mut n = 0;
    let ts = emit(&krate, &node, Form::Value, &mut lets, &mut n);
    Ok(quote! {{ #(#lets)* #ts }})
}

/// Whether typenum's `Const<N>: ToUInt` covers `v` (0..=1024, powers of 2 and 10).
fn typenum_const_covers(v: u128) -> bool {
    let mut p = 1u128;
    while p < v {
        p *= 10;
    }
    v <= 1024 || v.is_power_of_two() || p == v
}

/// typenum's binary form of `v`.
fn typenum_form(krate: &TokenStream2, v: u128) -> TokenStream2 {
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

/// CuTe notation of a node, for messages.
fn notation(n: &Node) -> String {
    match n {
        Node::Leaf(Leaf::Static(v, _)) => v.to_string(),
        Node::Leaf(Leaf::Dynamic(_, text, _) | Leaf::Computed(_, text, _)) => text.clone(),
        Node::Leaf(Leaf::Underscore(_)) => "_".into(),
        Node::Tuple(items, _) => {
            let inner: Vec<String> = items.iter().map(notation).collect();
            format!("({})", inner.join(","))
        }
    }
}

fn check_congruent(s: &Node, d: &Node, shape: &Node, stride: &Node) -> syn::Result<()> {
    let whole = || format!("{}:{}", notation(shape), notation(stride));
    match (s, d) {
        (Node::Leaf(_), Node::Leaf(_)) => Ok(()),
        (Node::Tuple(a, _), Node::Tuple(b, span)) if a.len() != b.len() => Err(syn::Error::new(
            *span,
            format!(
                "shape and stride do not nest the same way in `{}`: shape mode `{}` has rank {}, stride mode `{}` has rank {}",
                whole(),
                notation(s),
                a.len(),
                notation(d),
                b.len()
            ),
        )),
        (Node::Tuple(a, _), Node::Tuple(b, _)) => {
            a.iter().zip(b).try_for_each(|(x, y)| check_congruent(x, y, shape, stride))
        }
        (Node::Leaf(_), Node::Tuple(_, span)) | (Node::Tuple(..), Node::Leaf(Leaf::Static(_, span) | Leaf::Dynamic(_, _, span) | Leaf::Computed(_, _, span) | Leaf::Underscore(span))) => {
            Err(syn::Error::new(
                *span,
                format!(
                    "shape and stride do not nest the same way in `{}`: shape mode `{}` meets stride `{}`",
                    whole(),
                    notation(s),
                    notation(d)
                ),
            ))
        }
    }
}

/// A stride leaf computed by the macro: static, or a product of dynamic shape leaves.
enum Cur {
    Static(u128),
    /// The static factor and the dynamic leaves multiplied in (index, text).
    Dynamic(u128, Vec<(usize, String)>),
}

/// LayoutLeft strides, computed at expansion as CuTe computes them.
fn compact_left(shape: &Node) -> Node {
    let mut cur = Cur::Static(1);
    let mut k = 0;
    compact_node(shape, &mut cur, &mut k)
}

fn compact_node(n: &Node, cur: &mut Cur, k: &mut usize) -> Node {
    match n {
        Node::Tuple(items, span) => Node::Tuple(
            items.iter().map(|x| compact_node(x, cur, k)).collect(),
            *span,
        ),
        Node::Leaf(leaf) => {
            let idx = *k;
            *k += 1;
            match leaf {
                Leaf::Static(1, span) => Node::Leaf(Leaf::Static(0, *span)),
                Leaf::Static(v, span) => {
                    let stride = cur_node(cur, *span);
                    *cur = match std::mem::replace(cur, Cur::Static(0)) {
                        Cur::Static(c) => Cur::Static(c.saturating_mul(*v)),
                        Cur::Dynamic(c, ix) => Cur::Dynamic(c.saturating_mul(*v), ix),
                    };
                    stride
                }
                Leaf::Dynamic(_, _, span) | Leaf::Computed(_, _, span) | Leaf::Underscore(span) => {
                    let stride = cur_node(cur, *span);
                    let text = match leaf {
                        Leaf::Dynamic(_, t, _) | Leaf::Computed(_, t, _) => t.clone(),
                        _ => "_".to_string(),
                    };
                    *cur = match std::mem::replace(cur, Cur::Static(0)) {
                        Cur::Static(c) => Cur::Dynamic(c, vec![(idx, text)]),
                        Cur::Dynamic(c, mut ix) => {
                            ix.push((idx, text));
                            Cur::Dynamic(c, ix)
                        }
                    };
                    stride
                }
            }
        }
    }
}

fn cur_node(cur: &Cur, span: Span) -> Node {
    match cur {
        Cur::Static(c) => Node::Leaf(Leaf::Static(*c, span)),
        Cur::Dynamic(c, ix) => {
            let factors = ix.iter().map(|(i, _)| format_ident!("__layout_s{}", i));
            let text = ix
                .iter()
                .map(|(i, _)| format!("s{i}"))
                .collect::<Vec<_>>()
                .join("*");
            let user = ix
                .iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join(" * ");
            let Ok(c) = u64::try_from(*c) else {
                let e = quote_spanned! {span=> compile_error!("a compact stride of this shape overflows 64 bits") };
                return Node::Leaf(Leaf::Computed(e, String::new(), span));
            };
            let c = c as usize;
            // Checked: a run-time product past usize panics, it never wraps.
            let msg = format!("layout!: the compact stride {c} * {user} overflows usize");
            Node::Leaf(Leaf::Computed(
                quote! {{
                    let p: usize = #c;
                    #( let Some(p) = p.checked_mul(#factors) else { ::core::panic!(#msg) }; )*
                    p
                }},
                format!("{c}*{text}"),
                span,
            ))
        }
    }
}

fn emit(
    krate: &TokenStream2,
    n: &Node,
    form: Form,
    lets: &mut Vec<TokenStream2>,
    k: &mut usize,
) -> TokenStream2 {
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
        Node::Leaf(Leaf::Static(v, span)) => {
            *k += 1;
            if *v > u64::MAX as u128 {
                return quote_spanned! {*span=> compile_error!("a compact stride of this shape overflows 64 bits") };
            }
            if !typenum_const_covers(*v) {
                // typenum's Const<N> table stops here: write the binary form.
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
        Node::Leaf(Leaf::Dynamic(expr, _, span)) => match form {
            Form::Type => {
                *k += 1;
                quote_spanned! {*span=> usize }
            }
            Form::Value => {
                let name = format_ident!("__layout_s{}", *k);
                *k += 1;
                lets.push(quote_spanned! {*span=> let #name: usize = #expr; });
                quote! { #name }
            }
        },
    }
}
