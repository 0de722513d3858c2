//! `#[instantiate(...)]`: a function generic over constants (tile sizes),
//! compiled once per listed set of constants with each constant a concrete
//! value, so that `C::<BM>` and everything computed from it are concrete
//! types and the body needs no trait bounds.
//!
//! The function becomes a thin generic wrapper that calls, through a hidden
//! trait implemented once per listed set, a copy of the body in which each
//! constant is a `const` item of that set's value. A set that is not listed
//! is a compile error at the call, naming the function.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, FnArg, GenericParam, ItemFn, Token};

/// The constant sets: `(64, 64, 8), (128, 128, 8)`, or bare values when the
/// function has one constant.
struct Sets(Vec<(Span, Vec<Expr>)>);

fn parse_sets(attr: TokenStream, consts: usize) -> syn::Result<Sets> {
    let list = syn::parse::Parser::parse2(Punctuated::<Expr, Token![,]>::parse_terminated, attr)?;
    if list.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            "#[instantiate(...)] lists the constants to compile the function for, e.g. `#[instantiate((64, 64, 8), (128, 128, 8))]`",
        ));
    }
    let mut sets = Vec::new();
    for e in list {
        let span = e.span();
        let values: Vec<Expr> = match e {
            Expr::Tuple(t) => t.elems.into_iter().collect(),
            Expr::Paren(p) => vec![*p.expr],
            e => vec![e],
        };
        if values.len() != consts {
            return Err(syn::Error::new(
                span,
                format!(
                    "this set has {} value{}, but the function has {consts} const parameter{}: one value per const parameter, in their order",
                    values.len(),
                    if values.len() == 1 { "" } else { "s" },
                    if consts == 1 { "" } else { "s" },
                ),
            ));
        }
        sets.push((span, values));
    }
    Ok(Sets(sets))
}

/// `tokens` with every identifier in `names` replaced by `{ value }`.
fn substitute(tokens: TokenStream, names: &[syn::Ident], values: &[Expr]) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(ref i) => match names.iter().position(|n| n == i) {
                Some(k) => match &values[k] {
                    // A literal stands alone anywhere a constant does.
                    Expr::Lit(l) => {
                        let mut lit = match &l.lit {
                            syn::Lit::Int(n) => proc_macro2::Literal::usize_unsuffixed(
                                n.base10_parse().unwrap_or_default(),
                            ),
                            _ => return TokenTree::Group(braced(&values[k], i.span())),
                        };
                        lit.set_span(i.span());
                        TokenTree::Literal(lit)
                    }
                    v => TokenTree::Group(braced(v, i.span())),
                },
                None => t,
            },
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), substitute(g.stream(), names, values));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            t => t,
        })
        .collect()
}

/// `{ v }`: a constant expression where a const argument needs braces.
fn braced(v: &Expr, span: Span) -> Group {
    let mut g = Group::new(proc_macro2::Delimiter::Brace, quote!(#v));
    g.set_span(span);
    g
}

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let f: ItemFn = syn::parse2(item)?;
    let sig = &f.sig;
    if let Some(c) = &sig.constness {
        return Err(syn::Error::new(
            c.span(),
            "#[instantiate] does not take a `const fn`",
        ));
    }
    if let Some(a) = &sig.asyncness {
        return Err(syn::Error::new(
            a.span(),
            "#[instantiate] does not take an `async fn`",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(syn::Error::new(
            abi.span(),
            "#[instantiate] takes a Rust function: call it from the `extern` entry point",
        ));
    }
    if let Some(FnArg::Receiver(r)) = sig.inputs.first() {
        return Err(syn::Error::new(
            r.span(),
            "#[instantiate] takes a free function, not a method",
        ));
    }
    // The constants, in order; the other generic parameters stay generic.
    let mut consts = Vec::new();
    let mut const_tys = Vec::new();
    let mut others: Punctuated<GenericParam, Token![,]> = Punctuated::new();
    for p in &sig.generics.params {
        match p {
            GenericParam::Const(c) => {
                consts.push(c.ident.clone());
                const_tys.push(c.ty.clone());
            }
            p => others.push(p.clone()),
        }
    }
    if consts.is_empty() {
        return Err(syn::Error::new(
            sig.generics.span(),
            "#[instantiate] needs const parameters to instantiate, e.g. `fn sgemm<const BM: usize, const BN: usize>`",
        ));
    }
    let sets = parse_sets(attr, consts.len())?;

    let name = &sig.ident;
    let vis = &f.vis;
    let unsafety = &sig.unsafety;
    let output = &sig.output;
    let where_preds: Vec<_> = sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter())
        .collect();
    let marker = format_ident!("__instantiate_{}", name);
    let tr = format_ident!("__Instantiate_{}", name);
    // Arguments: the trait declares plain names, the copies keep the user's
    // patterns, the wrapper passes its own names through.
    let mut decl_args = Vec::new();
    let mut pass = Vec::new();
    let mut impl_trait_arg = false;
    for (k, a) in sig.inputs.iter().enumerate() {
        let FnArg::Typed(pt) = a else { unreachable!() };
        let n = format_ident!("__arg{}", k);
        let ty = &pt.ty;
        impl_trait_arg |= has_impl(ty.to_token_stream());
        decl_args.push(quote!(#n: #ty));
        pass.push(n);
    }
    let variadic = &sig.variadic;
    if let Some(v) = variadic {
        return Err(syn::Error::new(
            v.span(),
            "#[instantiate] does not take a variadic function",
        ));
    }
    let user_args: Vec<_> = sig.inputs.iter().collect();
    let other_names: Vec<TokenStream> = others
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            _ => None,
        })
        .collect();
    // Explicit type arguments where Rust allows them (not with `impl Trait`
    // arguments), so that a type parameter only the return type uses is fixed.
    let turbofish = if other_names.is_empty() || impl_trait_arg {
        quote!()
    } else {
        quote!(::<#(#other_names),*>)
    };

    // A return type that names the constants (a layout computed from
    // `C<BM>`, say) is only well-formed for concrete values: the trait gives
    // it as an associated type that each instance sets, unless it also
    // names the other generic parameters (then it is written out as is).
    let other_idents: Vec<String> = others
        .iter()
        .map(|p| match p {
            GenericParam::Type(t) => t.ident.to_string(),
            GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
            GenericParam::Const(c) => c.ident.to_string(),
        })
        .collect();
    let out_tokens = match output {
        syn::ReturnType::Type(_, t) => t.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let assoc_out = mentions(
        &out_tokens,
        &consts.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
    ) && !mentions(&out_tokens, &other_idents)
        && !has_impl(out_tokens.clone());
    let decl_output = if assoc_out {
        quote!(-> Self::__Out)
    } else {
        output.to_token_stream()
    };
    let wrapper_output = if assoc_out {
        quote!(-> <#marker as #tr<#(#consts),*>>::__Out)
    } else {
        output.to_token_stream()
    };
    let assoc_decl = if assoc_out {
        quote!(
            type __Out;
        )
    } else {
        quote!()
    };

    let mut impls = TokenStream::new();
    for (span, values) in &sets.0 {
        let sub = |t: TokenStream| substitute(t, &consts, values);
        let args = sub(quote!(#(#user_args),*));
        let out = if assoc_out {
            quote!(-> Self::__Out)
        } else {
            sub(output.to_token_stream())
        };
        let assoc_def = if assoc_out {
            let t = sub(out_tokens.clone());
            quote!(type __Out = #t;)
        } else {
            quote!()
        };
        let preds = sub(quote!(#(#where_preds,)*));
        let gens = sub(others.to_token_stream());
        let body = &f.block;
        let stmts = &body.stmts;
        let items = consts
            .iter()
            .zip(&const_tys)
            .zip(values)
            .map(|((c, t), v)| quote_spanned!(*span=> #[allow(dead_code)] const #c: #t = #v;));
        impls.extend(quote_spanned! {*span=>
            impl #tr<#(#values),*> for #marker {
                #assoc_def
                #[inline(always)]
                #[allow(clippy::too_many_arguments)]
                #unsafety fn __call<#gens>(#args) #out where #preds {
                    #(#items)*
                    #(#stmts)*
                }
            }
        });
    }

    let attrs = &f.attrs;
    // The wrapper only forwards: inline it unless the user said otherwise.
    let inline = if attrs.iter().any(|a| a.path().is_ident("inline")) {
        quote!()
    } else {
        quote!(#[inline(always)])
    };
    let generics_params = &sig.generics.params;
    let call = quote!(<#marker as #tr<#(#consts),*>>::__call #turbofish(#(#pass),*));
    let call = if unsafety.is_some() {
        quote!(unsafe { #call })
    } else {
        call
    };
    let msg = format!(
        "`{name}` is not instantiated for these constants: list them in its #[instantiate(...)]"
    );
    let label =
        format!("`{name}` is compiled only for the constant sets its #[instantiate(...)] lists");
    let note = format!(
        "a function generic over constants is compiled once per listed set (each constant a concrete value, so `C<N>` and the types computed from it are concrete): add this set to the #[instantiate(...)] of `{name}`"
    );
    Ok(quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #marker;

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[diagnostic::on_unimplemented(message = #msg, label = #label, note = #note)]
        #vis trait #tr<#(const #consts: #const_tys),*> {
            #assoc_decl
            #[allow(clippy::too_many_arguments)]
            #unsafety fn __call<#others>(#(#decl_args),*) #decl_output where #(#where_preds,)*;
        }

        #impls

        #(#attrs)*
        #inline
        #[allow(clippy::too_many_arguments)]
        #vis #unsafety fn #name<#generics_params>(#(#decl_args),*) #wrapper_output
        where
            #(#where_preds,)*
            #marker: #tr<#(#consts),*>,
        {
            #call
        }
    })
}

/// Whether a type is or holds `impl Trait` (no explicit type arguments then).
fn has_impl(t: TokenStream) -> bool {
    t.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == "impl",
        TokenTree::Group(g) => has_impl(g.stream()),
        _ => false,
    })
}

/// Whether the tokens hold one of these identifiers.
fn mentions(t: &TokenStream, names: &[String]) -> bool {
    t.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => names.iter().any(|n| i == n),
        TokenTree::Group(g) => mentions(&g.stream(), names),
        _ => false,
    })
}
