//! `layout eval`: a small expression language over the algebra. A call is
//! `name(arg, ...)`; an argument is a call or CuTe notation (a layout, a
//! swizzled layout `Sw<B,M,S> o _0 o layout`, a tuple or tiler, an
//! integer, `_`).

use layout_core::dynamic as d;
use layout_core::dynamic::ComposedLayout;
use layout_core::{DInt, DTuple, DynLayout, LayoutError, Tiler};

/// A value of the expression language.
#[derive(Clone, Debug)]
// DynLayout keeps small layouts inline (no allocation); a value is one of a
// few on the evaluator's stack.
#[allow(clippy::large_enum_variant)]
pub enum Val {
    /// A layout.
    Layout(DynLayout),
    /// A swizzled layout, `Sw<B,M,S> o _0 o layout`.
    Swizzled(ComposedLayout),
    /// A tuple, integer or tiler written in CuTe notation without `:` at the top.
    Text(String),
}

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Layout(l) => write!(f, "{l}"),
            Val::Swizzled(c) => write!(f, "{c}"),
            Val::Text(t) => f.write_str(t),
        }
    }
}

/// An error with the byte position it refers to.
#[derive(Debug)]
pub struct EvalError {
    /// Byte position in the expression.
    pub pos: usize,
    /// What went wrong.
    pub msg: String,
}

fn err(pos: usize, msg: impl Into<String>) -> EvalError {
    EvalError {
        pos,
        msg: msg.into(),
    }
}

fn lerr(pos: usize, e: LayoutError) -> EvalError {
    match e {
        LayoutError::Parse { pos: p, expected } => err(pos + p, format!("expected {expected}")),
        e => err(pos, e.to_string()),
    }
}

/// Evaluate an expression.
pub fn eval(src: &str) -> Result<Val, EvalError> {
    let (v, end) = expr(src, 0, 0)?;
    if !src[end..].trim().is_empty() {
        return Err(err(end, "unexpected text after the expression"));
    }
    // A bare tuple, integer or tiler is kept as text for the call that takes
    // it; as the whole expression it must parse too.
    let bare = !src
        .trim_start()
        .starts_with(|c: char| c.is_ascii_alphabetic());
    if let (true, Val::Text(t)) = (bare, &v) {
        let start = src.len() - src.trim_start().len();
        t.parse::<Tiler>().map_err(|e| lerr(start, e))?;
    }
    Ok(v)
}

/// How deeply calls may nest (as deep as the layout parser nests tuples).
const MAX_CALL_DEPTH: usize = 64;

/// Parse one expression starting at `at`; returns the value and the end.
fn expr(src: &str, at: usize, depth: usize) -> Result<(Val, usize), EvalError> {
    if depth > MAX_CALL_DEPTH {
        return Err(err(at, "calls nested deeper than 64 levels"));
    }
    let b = src.as_bytes();
    let mut i = at;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let start = i;
    if i < b.len() && b[i].is_ascii_alphabetic() {
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let name = &src[start..i];
        // `Sw<B,M,S> o _0 o layout` is CuTe notation, not a call.
        if name == "Sw" && b.get(i) == Some(&b'<') {
            return notation(src, start);
        }
        if b.get(i) != Some(&b'(') {
            return Err(err(i, format!("expected `(` after `{name}`")));
        }
        i += 1;
        let mut args = Vec::new();
        loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if b.get(i) == Some(&b')') {
                i += 1;
                break;
            }
            let (v, end) = expr(src, i, depth + 1)?;
            args.push((v, i));
            i = end;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            match b.get(i) {
                Some(b',') => i += 1,
                Some(b')') => {
                    i += 1;
                    break;
                }
                _ => return Err(err(i, "expected `,` or `)`")),
            }
        }
        return Ok((call(name, start, &args)?, i));
    }
    notation(src, start)
}

/// CuTe notation from `start`: up to the next `,` or `)` outside
/// parentheses and a swizzle's `<...>`.
fn notation(src: &str, start: usize) -> Result<(Val, usize), EvalError> {
    let b = src.as_bytes();
    let mut i = start;
    let mut depth = 0i32;
    while i < b.len() {
        match b[i] {
            b'(' | b'<' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            b'>' if depth > 0 => depth -= 1,
            b',' if depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    let text = src[start..i].trim();
    if text.is_empty() {
        return Err(err(
            start,
            "expected a layout, a tuple, an integer or a call",
        ));
    }
    let v = if text.starts_with("Sw") {
        Val::Swizzled(text.parse().map_err(|e| lerr(start, e))?)
    } else if has_top_colon(text) {
        Val::Layout(text.parse().map_err(|e| lerr(start, e))?)
    } else {
        Val::Text(text.to_string())
    };
    Ok((v, i))
}

fn has_top_colon(s: &str) -> bool {
    let mut depth = 0;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ':' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// A swizzled layout where the algebra takes a layout: refused (the
/// explorer's algebra is over layouts; a swizzled layout is shown).
fn swizzled(pos: usize, what: &str) -> EvalError {
    err(
        pos,
        format!("expected {what}, found a swizzled layout (apply the function to its layout, then swizzle)"),
    )
}

fn as_layout(v: &(Val, usize)) -> Result<DynLayout, EvalError> {
    match &v.0 {
        Val::Layout(l) => Ok(l.clone()),
        Val::Swizzled(_) => Err(swizzled(v.1, "a layout")),
        Val::Text(t) => t.parse().map_err(|e| lerr(v.1, e)),
    }
}
fn as_tuple(v: &(Val, usize)) -> Result<DTuple, EvalError> {
    match &v.0 {
        Val::Text(t) => layout_core::parse_tuple(t).map_err(|e| lerr(v.1, e)),
        Val::Layout(_) => Err(err(v.1, "expected a tuple or an integer, found a layout")),
        Val::Swizzled(_) => Err(swizzled(v.1, "a tuple or an integer")),
    }
}
fn as_tiler(v: &(Val, usize)) -> Result<Tiler, EvalError> {
    match &v.0 {
        Val::Layout(l) => Ok(Tiler::Layout(l.clone())),
        Val::Swizzled(_) => Err(swizzled(v.1, "a tiler")),
        Val::Text(t) => t.parse().map_err(|e| lerr(v.1, e)),
    }
}
fn as_coord(v: &(Val, usize)) -> Result<layout_core::DCoord, EvalError> {
    match &v.0 {
        Val::Text(t) => t.parse().map_err(|e| lerr(v.1, e)),
        _ => Err(err(v.1, "expected a coordinate")),
    }
}
fn as_usize(v: &(Val, usize)) -> Result<usize, EvalError> {
    match as_tuple(v)?.as_int() {
        Some(i) if i.value >= 0 => Ok(i.value as usize),
        _ => Err(err(v.1, "expected a non-negative integer")),
    }
}

fn call(name: &str, pos: usize, a: &[(Val, usize)]) -> Result<Val, EvalError> {
    let need = |n: usize| -> Result<(), EvalError> {
        if a.len() == n {
            Ok(())
        } else {
            Err(err(
                pos,
                format!("{name} takes {n} argument(s), got {}", a.len()),
            ))
        }
    };
    let lay = |r: Result<DynLayout, LayoutError>| r.map(Val::Layout).map_err(|e| lerr(pos, e));
    let text = |r: Result<String, LayoutError>| r.map(Val::Text).map_err(|e| lerr(pos, e));
    // One table: the arms below are the dispatch, and their names are the
    // list an unknown name's error shows.
    macro_rules! dispatch {
        ($($($n:literal)|+ $(if $g:expr)? => $b:expr,)*) => {{
            const NAMES: &[&str] = &[$($($n,)+)*];
            match name {
                $($($n)|+ $(if $g)? => $b,)*
                _ => Err(err(pos, format!("unknown function `{name}`; known: {}", known(NAMES)))),
            }
        }};
    }
    dispatch! {
        "composition" => {
            need(2)?;
            lay(layout_core::dynamic::composition(
                &as_layout(&a[0])?,
                &as_tiler(&a[1])?,
            ))
        },
        "coalesce" if a.len() == 2 => lay(layout_core::dynamic::coalesce_by(
            &as_layout(&a[0])?,
            &as_tuple(&a[1])?,
        )),
        "coalesce" => {
            need(1)?;
            lay(layout_core::dynamic::coalesce(&as_layout(&a[0])?))
        },
        "filter" => {
            need(1)?;
            lay(layout_core::dynamic::filter(&as_layout(&a[0])?))
        },
        "filter_zeros" => {
            need(1)?;
            lay(layout_core::dynamic::filter_zeros(&as_layout(&a[0])?))
        },
        "complement" if a.len() == 2 => lay(layout_core::dynamic::complement(
            &as_layout(&a[0])?,
            &as_tuple(&a[1])?,
        )),
        "complement" => {
            need(1)?;
            lay(layout_core::dynamic::complement_default(&as_layout(&a[0])?))
        },
        "right_inverse" => {
            need(1)?;
            lay(layout_core::dynamic::right_inverse(&as_layout(&a[0])?))
        },
        "left_inverse" => {
            need(1)?;
            lay(layout_core::dynamic::left_inverse(&as_layout(&a[0])?))
        },
        "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide" | "logical_product"
        | "zipped_product" | "tiled_product" | "flat_product" => {
            need(2)?;
            let (l, t) = (as_layout(&a[0])?, as_tiler(&a[1])?);
            lay(match name {
                "logical_divide" => layout_core::dynamic::logical_divide(&l, &t),
                "zipped_divide" => layout_core::dynamic::zipped_divide(&l, &t),
                "tiled_divide" => layout_core::dynamic::tiled_divide(&l, &t),
                "flat_divide" => layout_core::dynamic::flat_divide(&l, &t),
                "logical_product" => layout_core::dynamic::logical_product(&l, &t),
                "zipped_product" => layout_core::dynamic::zipped_product(&l, &t),
                "tiled_product" => layout_core::dynamic::tiled_product(&l, &t),
                _ => layout_core::dynamic::flat_product(&l, &t),
            })
        },
        "blocked_product" | "raked_product" => {
            need(2)?;
            let (x, y) = (as_layout(&a[0])?, as_layout(&a[1])?);
            lay(if name == "blocked_product" {
                layout_core::dynamic::blocked_product(&x, &y)
            } else {
                layout_core::dynamic::raked_product(&x, &y)
            })
        },
        "make_layout" => {
            need(1)?;
            lay(d::make_layout_left(&as_tuple(&a[0])?))
        },
        "make_layout_right" => {
            need(1)?;
            lay(d::make_layout_right(&as_tuple(&a[0])?))
        },
        "make_ordered_layout" => {
            need(2)?;
            lay(d::make_ordered_layout(&as_tuple(&a[0])?, &as_tuple(&a[1])?))
        },
        "flatten" => {
            need(1)?;
            Ok(Val::Layout(as_layout(&a[0])?.flatten()))
        },
        "group" => {
            need(3)?;
            lay(as_layout(&a[0])?.group(as_usize(&a[1])?, as_usize(&a[2])?))
        },
        "select" => {
            let l = as_layout(a.first().ok_or_else(|| err(pos, "select needs a layout"))?)?;
            let idx = a[1..].iter().map(as_usize).collect::<Result<Vec<_>, _>>()?;
            lay(l.select(&idx))
        },
        "get" => {
            let l = as_layout(a.first().ok_or_else(|| err(pos, "get needs a layout"))?)?;
            a[1..].iter().try_fold(Val::Layout(l), |v, i| match v {
                Val::Layout(l) => lay(l.get(as_usize(i)?)),
                t => Ok(t),
            })
        },
        "append" | "prepend" => {
            let l = as_layout(a.first().ok_or_else(|| err(pos, "needs a layout"))?)?;
            let x = match a.get(1) {
                Some(v) => as_layout(v)?,
                None => DynLayout::int(DInt::new_static(1), DInt::new_static(0)),
            };
            Ok(Val::Layout(if name == "append" {
                l.append(&x, None)
            } else {
                l.prepend(&x, None)
            }))
        },
        "size" => {
            need(1)?;
            text(as_layout(&a[0])?.size().map(|i| i.to_string()))
        },
        "cosize" => {
            need(1)?;
            text(as_layout(&a[0])?.cosize().map(|i| i.to_string()))
        },
        "rank" => {
            need(1)?;
            Ok(Val::Text(format!("_{}", as_layout(&a[0])?.rank())))
        },
        "depth" => {
            need(1)?;
            Ok(Val::Text(format!("_{}", as_layout(&a[0])?.depth())))
        },
        "slice" | "dice" => {
            need(2)?;
            let c = as_coord(&a[0])?;
            let l = as_layout(&a[1])?;
            lay(if name == "slice" {
                d::slice(&c, &l)
            } else {
                d::dice(&c, &l)
            })
        },
        "crd2idx" => {
            need(2)?;
            let l = as_layout(&a[0])?;
            let c = as_coord(&a[1])?;
            text(d::crd2idx_coord(&c, l.shape(), l.stride()).map(|i| i.to_string()))
        },
        "max_common_layout" => {
            need(2)?;
            lay(d::max_common_layout(&as_layout(&a[0])?, &as_layout(&a[1])?))
        },
        "max_common_vector" => {
            need(2)?;
            text(
                d::max_common_vector(&as_layout(&a[0])?, &as_layout(&a[1])?).map(|i| i.to_string()),
            )
        },
        "upcast" | "downcast" => {
            need(2)?;
            let n = as_usize(&a[1])? as i64;
            lay(if name == "upcast" {
                d::upcast(&as_layout(&a[0])?, n)
            } else {
                d::downcast(&as_layout(&a[0])?, n)
            })
        },
        "tile_to_shape" => {
            let order = a.get(2).map(as_tuple).transpose()?;
            lay(d::tile_to_shape(
                &as_layout(a.first().ok_or_else(|| err(pos, "needs a block"))?)?,
                &as_tuple(a.get(1).ok_or_else(|| err(pos, "needs a shape"))?)?,
                order.as_ref(),
            ))
        },
        "swizzle" => {
            need(4)?;
            let n = |i: usize| {
                as_tuple(&a[i]).map(|t| t.as_int().map_or(i64::MIN, |x| x.value))
            };
            let sw = d::Swizzle::new(n(0)?, n(1)?, n(2)?).map_err(|e| lerr(pos, e))?;
            let c = d::composition(&sw, &as_layout(&a[3])?).map_err(|e| lerr(pos, e))?;
            Ok(Val::Swizzled(c))
        },
        "idx2crd" => {
            need(2)?;
            match as_tuple(&a[0])?.as_int() {
                Some(i) => text(d::idx2crd(i, &as_tuple(&a[1])?).map(|t| t.to_string())),
                _ => Err(err(a[0].1, "expected an integer index")),
            }
        },
    }
}

/// The names of a dispatch table, each once, in table order.
fn known(names: &[&str]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for n in names {
        if !seen.contains(n) {
            seen.push(n);
        }
    }
    seen.join(", ")
}
