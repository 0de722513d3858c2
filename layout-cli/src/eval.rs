//! `layout eval`: a small expression language over the algebra. A call is
//! `name(arg, ...)`; an argument is a call or CuTe notation (a layout, a
//! swizzled layout `Sw<B,M,S> o _0 o layout`, a tuple or tiler, an
//! integer, `_`).

use layout_core::dynamic::op::{self, Arg, Param, Value};
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
    /// A tuple, integer or tiler written in CuTe notation without `:` at
    /// the top, or a result that is no layout (a size, a coordinate, a
    /// layout with its offset, `print_layout`'s table), as CuTe prints it.
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
fn as_int(v: &(Val, usize)) -> Result<DInt, EvalError> {
    as_tuple(v)?
        .as_int()
        .ok_or_else(|| err(v.1, "expected an integer"))
}

/// Argument `v` read as the operation's parameter `p`.
fn arg(p: Param, v: &(Val, usize)) -> Result<Arg, EvalError> {
    Ok(match p {
        Param::Layout => Arg::Layout(as_layout(v)?),
        Param::Tiler => Arg::Tiler(as_tiler(v)?),
        Param::Tuple => Arg::Tuple(as_tuple(v)?),
        Param::Coord => Arg::Coord(as_coord(v)?),
        Param::Int => Arg::Int(as_int(v)?),
        Param::Count => Arg::Count(as_usize(v)?),
    })
}

/// The call `name(a...)`, through the library's table of operations (an
/// unknown name's error lists the table's names).
fn call(name: &str, pos: usize, a: &[(Val, usize)]) -> Result<Val, EvalError> {
    let op = op::lookup(name, a.len()).map_err(|e| err(pos, e.to_string()))?;
    let args = a
        .iter()
        .enumerate()
        .map(|(i, v)| arg(op.param(i), v))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(match op.apply(&args).map_err(|e| lerr(pos, e))? {
        Value::Layout(l) => Val::Layout(l),
        Value::Swizzled(c) => Val::Swizzled(c),
        v => Val::Text(v.to_string()),
    })
}
