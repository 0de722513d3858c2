//! Check: shape and stride nest the same way; compact (LayoutLeft) strides
//! for a shape written alone, computed at expansion as CuTe computes them.

use crate::parse::{Leaf, Node};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// CuTe notation of a node, for messages.
pub fn notation(n: &Node) -> String {
    match n {
        Node::Leaf(Leaf::Static(v, _)) => v.to_string(),
        Node::Leaf(
            Leaf::Named(_, text, _) | Leaf::Dynamic(_, text, _) | Leaf::Computed(_, text, _),
        ) => text.clone(),
        Node::Leaf(Leaf::Underscore(_)) => "_".into(),
        Node::Tuple(items, _) => {
            let inner: Vec<String> = items.iter().map(notation).collect();
            format!("({})", inner.join(","))
        }
    }
}

/// Shape `s` and stride `d` (modes of the whole `shape:stride`) nest alike.
pub fn check_congruent(s: &Node, d: &Node, shape: &Node, stride: &Node) -> syn::Result<()> {
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
        (Node::Leaf(_), Node::Tuple(_, span)) => Err(mismatch(*span, s, d, &whole())),
        (Node::Tuple(..), Node::Leaf(leaf)) => Err(mismatch(leaf.span(), s, d, &whole())),
    }
}

fn mismatch(span: Span, s: &Node, d: &Node, whole: &str) -> syn::Error {
    syn::Error::new(
        span,
        format!(
            "shape and stride do not nest the same way in `{whole}`: shape mode `{}` meets stride `{}`",
            notation(s),
            notation(d)
        ),
    )
}

/// The running product of a compact stride: a static factor, named
/// constants (static, values unknown to the macro) and run-time leaves
/// (their index among the leaves, and their text).
#[derive(Default)]
struct Cur {
    c: u128,
    named: Vec<(TokenStream, String)>,
    dynamic: Vec<(usize, String)>,
}

/// LayoutLeft strides, computed at expansion as CuTe computes them.
pub fn compact_left(shape: &Node) -> Node {
    let mut cur = Cur {
        c: 1,
        ..Cur::default()
    };
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
            let span = leaf.span();
            match leaf {
                // CuTe gives a static size-1 mode the stride _0.
                Leaf::Static(1, _) => Node::Leaf(Leaf::Static(0, span)),
                Leaf::Static(v, _) => {
                    let stride = cur_node(cur, span);
                    cur.c = cur.c.saturating_mul(*v);
                    stride
                }
                Leaf::Named(expr, text, _) => {
                    let stride = match cur_node(cur, span) {
                        // A named 1 gets _0 as a literal 1 does; the macro cannot
                        // see the value, so the stride is chosen in a const.
                        Node::Leaf(Leaf::Static(c, _)) if cur.named.is_empty() => {
                            let c = c as usize;
                            Node::Leaf(Leaf::Named(
                                quote! { if #expr == 1 { 0 } else { #c } },
                                c.to_string(),
                                span,
                            ))
                        }
                        Node::Leaf(Leaf::Named(e, t, s)) => Node::Leaf(Leaf::Named(
                            quote! { if #expr == 1 { 0 } else { #e } },
                            t,
                            s,
                        )),
                        other => other,
                    };
                    cur.named.push((expr.clone(), text.clone()));
                    stride
                }
                Leaf::Dynamic(_, text, _) | Leaf::Computed(_, text, _) => {
                    let stride = cur_node(cur, span);
                    cur.dynamic.push((idx, text.clone()));
                    stride
                }
                Leaf::Underscore(_) => {
                    let stride = cur_node(cur, span);
                    cur.dynamic.push((idx, "_".into()));
                    stride
                }
            }
        }
    }
}

/// The stride `cur` stands for, as a leaf.
fn cur_node(cur: &Cur, span: Span) -> Node {
    let Ok(c) = u64::try_from(cur.c) else {
        let e = quote_spanned! {span=> compile_error!("a compact stride of this shape overflows 64 bits") };
        return Node::Leaf(Leaf::Computed(e, String::new(), span));
    };
    let c = c as usize;
    let named = cur.named.iter().map(|(e, _)| e);
    let mut text = vec![c.to_string()];
    text.extend(cur.named.iter().map(|(_, t)| t.clone()));
    if cur.dynamic.is_empty() {
        if cur.named.is_empty() {
            return Node::Leaf(Leaf::Static(cur.c, span));
        }
        // A product of constants: a const expression (overflow is a compile error).
        return Node::Leaf(Leaf::Named(
            quote! { #c #( * (#named) )* },
            text.join("*"),
            span,
        ));
    }
    let factors = cur
        .dynamic
        .iter()
        .map(|(i, _)| format_ident!("__layout_s{}", i));
    let user: Vec<&str> = cur
        .named
        .iter()
        .map(|(_, t)| t.as_str())
        .chain(cur.dynamic.iter().map(|(_, t)| t.as_str()))
        .collect();
    text.extend(cur.dynamic.iter().map(|(i, _)| format!("s{i}")));
    // Checked: a run-time product past usize panics, it never wraps.
    let msg = format!(
        "layout!: the compact stride {c} * {} overflows usize",
        user.join(" * ")
    );
    Node::Leaf(Leaf::Computed(
        quote! {{
            let p: usize = #c;
            #( let Some(p) = p.checked_mul(#named) else { ::core::panic!(#msg) }; )*
            #( let Some(p) = p.checked_mul(#factors) else { ::core::panic!(#msg) }; )*
            p
        }},
        text.join("*"),
        span,
    ))
}
