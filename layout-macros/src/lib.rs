//! Proc macros of the layout workspace. Use them through `layout-core`
//! (`layout!`, `layout_type!`, `crd!`), which passes its own path in so that
//! a renamed dependency still works.
//!
//! The crate is split as parse (tokens to a tree of leaves), check
//! (congruence, compact strides) and expand (paths through `$crate`).

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;

mod check;
mod expand;
mod gmma;
mod instantiate;
mod parse;
use check::{check_congruent, compact_left};
use expand::{emit, Form};
use parse::{split_krate, Node, Parser};

/// `#[instantiate((64, 64, 8), (128, 128, 8))]` on a function generic over
/// constants (`fn sgemm<const BM: usize, const BN: usize, const BK: usize>`):
/// the function is compiled once per listed set of constants, each
/// constant a concrete value in that copy, so that `C::<BM>` and all the
/// types the algebra computes from it are concrete and the body needs no
/// trait bounds. Re-exported as `layout_core::instantiate`, whose
/// documentation has the examples.
#[proc_macro_attribute]
pub fn instantiate(attr: TokenStream, item: TokenStream) -> TokenStream {
    instantiate::expand(attr.into(), item.into())
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

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

/// The table of `C<N>`'s typenum forms, expanded once in layout-core's
/// `int` module (`static_table_impl!(crate)`).
#[doc(hidden)]
#[proc_macro]
pub fn static_table_impl(input: TokenStream) -> TokenStream {
    expand::static_table(&input.into()).into()
}

/// The table of Hopper's warpgroup MMAs: `sm90_gmma_table_impl!(callback)`
/// expands to `callback! { row* }`, one row per atom (the row's fields:
/// the `gmma` module). Expanded by layout-core (the atom types),
/// layout-device (the instructions) and the GPU check kernels.
#[doc(hidden)]
#[proc_macro]
pub fn sm90_gmma_table_impl(input: TokenStream) -> TokenStream {
    gmma::table(input.into()).into()
}
