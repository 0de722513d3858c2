//! Parse CuTe notation from tokens: integers and `C<CONST>` (static),
//! identifiers and braced expressions (dynamic `usize`), `_` (in
//! coordinates), and parenthesised tuples.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

pub enum Leaf {
    /// A literal: a static leaf.
    Static(u128, Span),
    /// `C<EXPR>`: a static leaf whose value is a constant expression (a
    /// named `const`), its text, and its span.
    Named(TokenStream, String, Span),
    /// A run-time expression, its text, and its span.
    Dynamic(TokenStream, String, Span),
    /// A stride the macro computed from dynamic shape leaves.
    Computed(TokenStream, String, Span),
    /// `_` (coordinates only).
    Underscore(Span),
}

impl Leaf {
    pub fn span(&self) -> Span {
        match self {
            Leaf::Static(_, s)
            | Leaf::Named(_, _, s)
            | Leaf::Dynamic(_, _, s)
            | Leaf::Computed(_, _, s)
            | Leaf::Underscore(s) => *s,
        }
    }
}

pub enum Node {
    Leaf(Leaf),
    Tuple(Vec<Node>, Span),
}

/// Split `krate ; body` (the front `macro_rules!` passes `$crate`).
pub fn split_krate(input: TokenStream) -> syn::Result<(TokenStream, TokenStream)> {
    let mut krate = TokenStream::new();
    let mut iter = input.into_iter();
    for t in iter.by_ref() {
        if let TokenTree::Punct(p) = &t {
            if p.as_char() == ';' {
                return Ok((krate, iter.collect()));
            }
        }
        krate.extend([t]);
    }
    Err(syn::Error::new(
        Span::call_site(),
        "internal: missing crate path",
    ))
}

pub struct Parser {
    toks: Vec<TokenTree>,
    pos: usize,
    allow_underscore: bool,
}

const WHAT: &str = "expected a non-negative integer or `C<CONST>` (static), an identifier or `{expression}` (a run-time usize), or a parenthesised tuple";

impl Parser {
    pub fn new(ts: TokenStream, allow_underscore: bool) -> Self {
        Parser {
            toks: ts.into_iter().collect(),
            pos: 0,
            allow_underscore,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.pos >= self.toks.len()
    }
    fn peek(&self) -> Option<&TokenTree> {
        self.toks.get(self.pos)
    }
    /// Whether the next token is `:`.
    pub fn at_colon(&self) -> bool {
        matches!(self.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':')
    }
    /// An error at the next token (the whole input when there is none).
    pub fn error_here(&self, msg: &str) -> syn::Error {
        match self.peek() {
            Some(t) => syn::Error::new(t.span(), msg),
            None => syn::Error::new(Span::call_site(), msg),
        }
    }
    pub fn eat_colon(&mut self) -> syn::Result<bool> {
        match self.peek() {
            Some(TokenTree::Punct(p)) if p.as_char() == ':' => {
                self.pos += 1;
                if let Some(TokenTree::Punct(q)) = self.peek() {
                    if q.as_char() == ':' {
                        return Err(syn::Error::new(
                            q.span(),
                            "expected one `:` between shape and stride",
                        ));
                    }
                }
                Ok(true)
            }
            None => Ok(false),
            Some(t) => Err(syn::Error::new(
                t.span(),
                "expected `:` between shape and stride",
            )),
        }
    }
    /// Whether `<` or `::<` comes next (after a `C`).
    fn at_generic_open(&self) -> bool {
        let punct = |i: usize, c: char| matches!(self.toks.get(self.pos + i), Some(TokenTree::Punct(p)) if p.as_char() == c);
        punct(0, '<') || (punct(0, ':') && punct(1, ':') && punct(2, '<'))
    }

    /// The rest of `C<EXPR>` (or `C::<EXPR>`) after the `C`: a literal is a
    /// static leaf like any other, anything else a named static leaf.
    fn named(&mut self, start: Span) -> syn::Result<Node> {
        while !matches!(self.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '<') {
            self.pos += 1;
        }
        self.pos += 1;
        let mut expr = TokenStream::new();
        loop {
            match self.peek() {
                Some(TokenTree::Punct(p)) if p.as_char() == '>' => break,
                Some(t) => expr.extend([t.clone()]),
                None => {
                    return Err(syn::Error::new(
                        start,
                        "`C<` without its `>`: write `C<NAME>` for a static leaf from a constant",
                    ))
                }
            }
            self.pos += 1;
        }
        self.pos += 1;
        if expr.is_empty() {
            return Err(syn::Error::new(
                start,
                "`C<>` needs a constant: write `C<NAME>` (a `const NAME: usize`) or `C<4>`",
            ));
        }
        let text = expr.to_string();
        let mut inner = Parser::new(expr.clone(), false);
        if let Ok(Node::Leaf(Leaf::Static(v, s))) = inner.node() {
            if inner.is_empty() {
                return Ok(Node::Leaf(Leaf::Static(v, s)));
            }
        }
        Ok(Node::Leaf(Leaf::Named(expr, text, start)))
    }

    pub fn eat_comma(&mut self) -> syn::Result<bool> {
        match self.peek() {
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => {
                self.pos += 1;
                Ok(true)
            }
            None => Ok(false),
            Some(t) => Err(syn::Error::new(t.span(), "expected `,` between modes")),
        }
    }
    pub fn expect_end(&self) -> syn::Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(t) => Err(syn::Error::new(
                t.span(),
                "unexpected token after the layout",
            )),
        }
    }
    pub fn node(&mut self) -> syn::Result<Node> {
        let t = match self.peek() {
            Some(t) => t.clone(),
            None => return Err(syn::Error::new(Span::call_site(), WHAT)),
        };
        self.pos += 1;
        match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                let mut inner = Parser::new(g.stream(), self.allow_underscore);
                let mut items = Vec::new();
                while !inner.is_empty() {
                    items.push(inner.node()?);
                    if !inner.eat_comma()? {
                        break;
                    }
                }
                inner.expect_end()?;
                Ok(Node::Tuple(items, g.span()))
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                let text = g.stream().to_string();
                Ok(Node::Leaf(Leaf::Dynamic(
                    TokenStream::from(TokenTree::Group(g.clone())),
                    text,
                    g.span(),
                )))
            }
            TokenTree::Group(g) => Err(syn::Error::new(
                g.span(),
                "use parentheses for tuples, as CuTe prints them: `(2,(2,2))`",
            )),
            TokenTree::Ident(id) => {
                let s = id.to_string();
                if s == "_" {
                    if self.allow_underscore {
                        return Ok(Node::Leaf(Leaf::Underscore(id.span())));
                    }
                    return Err(syn::Error::new(
                        id.span(),
                        "`_` is for slicing coordinates (`crd!(1, _)`), not layouts",
                    ));
                }
                if let Some(v) = s.strip_prefix('_').and_then(|d| d.parse::<u128>().ok()) {
                    return Ok(Node::Leaf(Leaf::Static(v, id.span())));
                }
                if s == "C" && self.at_generic_open() {
                    return self.named(id.span());
                }
                Ok(Node::Leaf(Leaf::Dynamic(
                    TokenStream::from(TokenTree::Ident(id.clone())),
                    s,
                    id.span(),
                )))
            }
            TokenTree::Literal(lit) => {
                let text = lit.to_string();
                let digits: String = text
                    .trim_end_matches("usize")
                    .chars()
                    .filter(|c| *c != '_')
                    .collect();
                match digits.parse::<u128>() {
                    Ok(v) if v <= u64::MAX as u128 => Ok(Node::Leaf(Leaf::Static(v, lit.span()))),
                    _ => Err(syn::Error::new(
                        lit.span(),
                        format!("`{text}` is not a layout integer: {WHAT}"),
                    )),
                }
            }
            TokenTree::Punct(p) if p.as_char() == '-' => {
                // Name what was written: `-1`, `-n`, `-{k}`.
                let what = match self.peek().map(|t| t.to_string()) {
                    Some(t) => {
                        self.pos += 1;
                        format!("-{t}")
                    }
                    None => "-".into(),
                };
                Err(syn::Error::new(
                    p.span(),
                    format!(
                        "`{what}` is negative: shapes and strides of `layout!` are non-negative"
                    ),
                ))
            }
            TokenTree::Punct(p) if p.as_char() == '_' && self.allow_underscore => {
                Ok(Node::Leaf(Leaf::Underscore(p.span())))
            }
            TokenTree::Punct(p) => Err(syn::Error::new(p.span(), WHAT)),
        }
    }
}
