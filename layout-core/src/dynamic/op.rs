//! The operations of `dynamic` by name: one table from CuTe's names to the
//! functions, for callers that read an operation as text (the explorer's
//! `eval`, the golden vectors, tests). It has no typed counterpart: the
//! typed algebra is called by its functions' names in Rust.
//!
//! A caller looks an operation up by name and number of arguments, reads
//! each argument as the operation's [`Param`] at that position says (from
//! text, JSON, ...), and applies it:
//!
//! ```
//! use layout_core::dynamic::op::{self, Arg, Param, Value};
//! use layout_core::DynLayout;
//! let o = op::lookup("zipped_divide", 2).unwrap();
//! assert_eq!((o.param(0), o.param(1)), (Param::Layout, Param::Tiler));
//! let a: DynLayout = "(_6,_4):(_4,_1)".parse().unwrap();
//! let r = o.apply(&[Arg::Layout(a), Arg::Tiler("(_2,_2)".parse().unwrap())]).unwrap();
//! assert_eq!(r.to_string(), "((_2,_2),(_3,_2)):((_4,_1),(_8,_2))");
//!
//! // Or in one call; a name may take several numbers of arguments.
//! let l: DynLayout = "((_2,_2),(_3,_1)):((_1,_2),(_4,_12))".parse().unwrap();
//! let p = Arg::Tuple(layout_core::parse_tuple("(_1,_1)").unwrap());
//! assert_eq!(op::apply("coalesce", &[Arg::Layout(l.clone())]).unwrap().to_string(), "_12:_1");
//! assert_eq!(op::apply("coalesce", &[Arg::Layout(l), p]).unwrap().to_string(), "(_4,_3):(_1,_4)");
//! assert!(matches!(op::apply("size", &[Arg::Layout("(_4,3):(3,_1)".parse().unwrap())]), Ok(Value::Int(_))));
//! assert_eq!(op::lookup("coalesce", 3).unwrap_err().to_string(), "coalesce takes 1 or 2 argument(s), got 3");
//! ```

use super::arith::invalid;
use super::{
    blocked_product, coalesce, coalesce_by, compact_col_major, compact_row_major, complement,
    complement_default, composition, crd2crd, crd2idx_coord, dice, downcast, filter, filter_by,
    filter_zeros, flat_divide, flat_product, idx2crd, left_inverse, logical_divide,
    logical_product, make_layout_left, make_layout_right, make_ordered_layout, max_common_layout,
    max_common_vector, print_layout, raked_product, recast_layout, right_inverse, slice,
    slice_and_offset, tile_to_shape, tiled_divide, tiled_product, upcast, zipped_divide,
    zipped_product, ComposedLayout, DCoord, DInt, DTuple, DynLayout, Swizzle, Tiler,
};
use crate::error::LayoutError;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

type R<T> = Result<T, LayoutError>;

/// What an operation takes at one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A layout.
    Layout,
    /// A tiler: a layout, an integer, `_`, or a tuple of tilers.
    Tiler,
    /// A tuple or an integer (a shape, a profile, an order).
    Tuple,
    /// A coordinate (`_` keeps a mode).
    Coord,
    /// An integer, static or run-time.
    Int,
    /// A non-negative integer: a mode index, a count, a factor.
    Count,
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Param::Layout => "a layout",
            Param::Tiler => "a tiler",
            Param::Tuple => "a tuple or an integer",
            Param::Coord => "a coordinate",
            Param::Int => "an integer",
            Param::Count => "a non-negative integer",
        })
    }
}

/// An argument, read as the [`Param`] at its position says.
// A layout is held inline, as `DynLayout` holds its tuples.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// For [`Param::Layout`].
    Layout(DynLayout),
    /// For [`Param::Tiler`].
    Tiler(Tiler),
    /// For [`Param::Tuple`].
    Tuple(DTuple),
    /// For [`Param::Coord`].
    Coord(DCoord),
    /// For [`Param::Int`].
    Int(DInt),
    /// For [`Param::Count`].
    Count(usize),
}

impl Arg {
    /// The parameter this argument is for.
    pub fn param(&self) -> Param {
        match self {
            Arg::Layout(_) => Param::Layout,
            Arg::Tiler(_) => Param::Tiler,
            Arg::Tuple(_) => Param::Tuple,
            Arg::Coord(_) => Param::Coord,
            Arg::Int(_) => Param::Int,
            Arg::Count(_) => Param::Count,
        }
    }
}

/// What an operation gives.
// A layout is held inline, as `DynLayout` holds its tuples.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A layout.
    Layout(DynLayout),
    /// A swizzled layout.
    Swizzled(ComposedLayout),
    /// An integer (a size, a rank, an offset).
    Int(DInt),
    /// A tuple (a coordinate, strides).
    Tuple(DTuple),
    /// `slice_and_offset`'s layout and offset, printed `(layout,offset)`.
    Sliced(DynLayout, DInt),
    /// Text (`print_layout`'s table).
    Text(String),
}

/// As CuTe prints each.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Layout(l) => write!(f, "{l}"),
            Value::Swizzled(c) => write!(f, "{c}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Tuple(t) => write!(f, "{t}"),
            Value::Sliced(l, o) => write!(f, "({l},{o})"),
            Value::Text(t) => f.write_str(t),
        }
    }
}

/// The arguments an operation runs on, checked against its parameters.
struct Args<'a> {
    op: &'static str,
    args: &'a [Arg],
}

impl Args<'_> {
    fn wrong(&self, i: usize, p: Param) -> LayoutError {
        invalid(self.op, format!("argument {i} is not {p}"))
    }
    fn layout(&self, i: usize) -> R<&DynLayout> {
        match self.args.get(i) {
            Some(Arg::Layout(l)) => Ok(l),
            _ => Err(self.wrong(i, Param::Layout)),
        }
    }
    fn tiler(&self, i: usize) -> R<&Tiler> {
        match self.args.get(i) {
            Some(Arg::Tiler(t)) => Ok(t),
            _ => Err(self.wrong(i, Param::Tiler)),
        }
    }
    fn tuple(&self, i: usize) -> R<&DTuple> {
        match self.args.get(i) {
            Some(Arg::Tuple(t)) => Ok(t),
            _ => Err(self.wrong(i, Param::Tuple)),
        }
    }
    fn coord(&self, i: usize) -> R<&DCoord> {
        match self.args.get(i) {
            Some(Arg::Coord(c)) => Ok(c),
            _ => Err(self.wrong(i, Param::Coord)),
        }
    }
    fn int(&self, i: usize) -> R<DInt> {
        match self.args.get(i) {
            Some(Arg::Int(x)) => Ok(*x),
            _ => Err(self.wrong(i, Param::Int)),
        }
    }
    fn count(&self, i: usize) -> R<usize> {
        match self.args.get(i) {
            Some(Arg::Count(n)) => Ok(*n),
            _ => Err(self.wrong(i, Param::Count)),
        }
    }
    /// The counts from position `from` on.
    fn counts(&self, from: usize) -> R<Vec<usize>> {
        (from..self.args.len()).map(|i| self.count(i)).collect()
    }
}

/// One operation: its name, its parameters, and the function.
pub struct Op {
    name: &'static str,
    params: &'static [Param],
    /// How many of the last parameters may be left out.
    optional: usize,
    /// Whether the last parameter repeats (any number of times, none included).
    repeats: bool,
    run: fn(&Args<'_>) -> R<Value>,
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Op({}/{:?})", self.name, self.params)
    }
}

impl Op {
    /// CuTe's name of the operation.
    pub fn name(&self) -> &'static str {
        self.name
    }
    /// What argument `i` is (the last parameter when it repeats past the
    /// list).
    pub fn param(&self, i: usize) -> Param {
        self.params[i.min(self.params.len() - 1)]
    }
    /// Whether the operation takes `n` arguments.
    pub fn accepts(&self, n: usize) -> bool {
        let min = self.params.len() - self.optional - usize::from(self.repeats);
        n >= min && (self.repeats || n <= self.params.len())
    }
    /// Apply the operation; `Err` when the arguments do not match its
    /// parameters, or when the operation refuses them.
    pub fn apply(&self, args: &[Arg]) -> R<Value> {
        if !self.accepts(args.len()) {
            return Err(invalid(
                self.name,
                format!("takes {} argument(s), got {}", takes(self.name), args.len()),
            ));
        }
        if let Some((i, a)) = args
            .iter()
            .enumerate()
            .find(|(i, a)| a.param() != self.param(*i))
        {
            return Err(invalid(
                self.name,
                format!("argument {i} is not {}, it is {}", self.param(i), a.param()),
            ));
        }
        (self.run)(&Args {
            op: self.name,
            args,
        })
    }
}

/// Why [`lookup`] found no operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError {
    /// No operation has the name.
    Unknown(String),
    /// Operations have the name, none takes this many arguments.
    Arity {
        /// The name.
        name: &'static str,
        /// The number of arguments given.
        got: usize,
    },
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::Unknown(name) => {
                write!(f, "unknown function `{name}`; known: ")?;
                for (k, n) in names().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(n)?;
                }
                Ok(())
            }
            LookupError::Arity { name, got } => {
                write!(f, "{name} takes {} argument(s), got {got}", takes(name))
            }
        }
    }
}

/// The operation `name` that takes `n` arguments.
pub fn lookup(name: &str, n: usize) -> Result<&'static Op, LookupError> {
    let mut named = TABLE.iter().filter(|o| o.name == name).peekable();
    let Some(first) = named.peek() else {
        return Err(LookupError::Unknown(name.into()));
    };
    let name = first.name;
    named
        .find(|o| o.accepts(n))
        .ok_or(LookupError::Arity { name, got: n })
}

/// Look up `name` for these arguments and apply it.
pub fn apply(name: &str, args: &[Arg]) -> R<Value> {
    match lookup(name, args.len()) {
        Ok(o) => o.apply(args),
        Err(e) => Err(invalid("apply", format!("{e}"))),
    }
}

/// The names of the operations, each once, in table order.
pub fn names() -> impl Iterator<Item = &'static str> {
    TABLE
        .iter()
        .enumerate()
        .filter(|(i, o)| !TABLE[..*i].iter().any(|p| p.name == o.name))
        .map(|(_, o)| o.name)
}

/// How many arguments the operations named `name` take, in words: `2`,
/// `1 or 2`, `1 to 3`, `at least 1`.
fn takes(name: &str) -> String {
    let named = || TABLE.iter().filter(|o| o.name == name);
    let min = named()
        .map(|o| o.params.len() - o.optional - usize::from(o.repeats))
        .min()
        .unwrap_or(0);
    if named().any(|o| o.repeats) {
        return format!("at least {min}");
    }
    let max = named().map(|o| o.params.len()).max().unwrap_or(0);
    match max - min {
        0 => format!("{min}"),
        1 => format!("{min} or {max}"),
        _ => format!("{min} to {max}"),
    }
}

use Param::{Coord as C, Count as N, Int as I, Layout as L, Tiler as T, Tuple as U};

/// An operation with exactly these parameters.
const fn op(name: &'static str, params: &'static [Param], run: fn(&Args<'_>) -> R<Value>) -> Op {
    Op {
        name,
        params,
        optional: 0,
        repeats: false,
        run,
    }
}

/// An operation whose last `optional` parameters may be left out.
const fn op_opt(
    name: &'static str,
    params: &'static [Param],
    optional: usize,
    run: fn(&Args<'_>) -> R<Value>,
) -> Op {
    Op {
        name,
        params,
        optional,
        repeats: false,
        run,
    }
}

/// An operation whose last parameter repeats.
const fn op_rep(
    name: &'static str,
    params: &'static [Param],
    run: fn(&Args<'_>) -> R<Value>,
) -> Op {
    Op {
        name,
        params,
        optional: 0,
        repeats: true,
        run,
    }
}

fn lay(r: R<DynLayout>) -> R<Value> {
    r.map(Value::Layout)
}

/// The table: every operation by CuTe's name, overloads (one name, other
/// numbers of arguments) next to each other. The order is the order
/// [`names`] lists them in.
static TABLE: &[Op] = &[
    // The algebra.
    op("composition", &[L, T], |a| {
        lay(composition(a.layout(0)?, a.tiler(1)?))
    }),
    op("coalesce", &[L], |a| lay(coalesce(a.layout(0)?))),
    op("coalesce", &[L, U], |a| {
        lay(coalesce_by(a.layout(0)?, a.tuple(1)?))
    }),
    op("filter", &[L], |a| lay(filter(a.layout(0)?))),
    op("filter", &[L, U], |a| {
        lay(filter_by(a.layout(0)?, a.tuple(1)?))
    }),
    op("filter_zeros", &[L], |a| lay(filter_zeros(a.layout(0)?))),
    op("complement", &[L], |a| {
        lay(complement_default(a.layout(0)?))
    }),
    op("complement", &[L, U], |a| {
        lay(complement(a.layout(0)?, a.tuple(1)?))
    }),
    op("right_inverse", &[L], |a| lay(right_inverse(a.layout(0)?))),
    op("left_inverse", &[L], |a| lay(left_inverse(a.layout(0)?))),
    op("logical_divide", &[L, T], |a| {
        lay(logical_divide(a.layout(0)?, a.tiler(1)?))
    }),
    op("zipped_divide", &[L, T], |a| {
        lay(zipped_divide(a.layout(0)?, a.tiler(1)?))
    }),
    op("tiled_divide", &[L, T], |a| {
        lay(tiled_divide(a.layout(0)?, a.tiler(1)?))
    }),
    op("flat_divide", &[L, T], |a| {
        lay(flat_divide(a.layout(0)?, a.tiler(1)?))
    }),
    op("logical_product", &[L, T], |a| {
        lay(logical_product(a.layout(0)?, a.tiler(1)?))
    }),
    op("zipped_product", &[L, T], |a| {
        lay(zipped_product(a.layout(0)?, a.tiler(1)?))
    }),
    op("tiled_product", &[L, T], |a| {
        lay(tiled_product(a.layout(0)?, a.tiler(1)?))
    }),
    op("flat_product", &[L, T], |a| {
        lay(flat_product(a.layout(0)?, a.tiler(1)?))
    }),
    op("blocked_product", &[L, L], |a| {
        lay(blocked_product(a.layout(0)?, a.layout(1)?))
    }),
    op("raked_product", &[L, L], |a| {
        lay(raked_product(a.layout(0)?, a.layout(1)?))
    }),
    // Compact strides.
    op("make_layout", &[U], |a| lay(make_layout_left(a.tuple(0)?))),
    op("make_layout_right", &[U], |a| {
        lay(make_layout_right(a.tuple(0)?))
    }),
    op("make_ordered_layout", &[U, U], |a| {
        lay(make_ordered_layout(a.tuple(0)?, a.tuple(1)?))
    }),
    op("compact_col_major", &[U], |a| {
        compact_col_major(a.tuple(0)?).map(Value::Tuple)
    }),
    op("compact_row_major", &[U], |a| {
        compact_row_major(a.tuple(0)?).map(Value::Tuple)
    }),
    // Modes.
    op("flatten", &[L], |a| {
        Ok(Value::Layout(a.layout(0)?.flatten()))
    }),
    op("group", &[L, N, N], |a| {
        lay(a.layout(0)?.group(a.count(1)?, a.count(2)?))
    }),
    op_rep("select", &[L, N], |a| {
        lay(a.layout(0)?.select(&a.counts(1)?))
    }),
    op_rep("get", &[L, N], |a| {
        let mut l = a.layout(0)?.clone();
        for i in a.counts(1)? {
            l = l.get(i)?;
        }
        Ok(Value::Layout(l))
    }),
    op_opt("append", &[L, L, N], 2, |a| {
        let (l, x) = padding(a)?;
        lay(l.append(&x, a.count(2).ok()))
    }),
    op_opt("prepend", &[L, L, N], 2, |a| {
        let (l, x) = padding(a)?;
        lay(l.prepend(&x, a.count(2).ok()))
    }),
    // Sizes.
    op("size", &[L], |a| a.layout(0)?.size().map(Value::Int)),
    op("cosize", &[L], |a| a.layout(0)?.cosize().map(Value::Int)),
    op("rank", &[L], |a| {
        Ok(Value::Int(static_count(a.layout(0)?.rank())))
    }),
    op("depth", &[L], |a| {
        Ok(Value::Int(static_count(a.layout(0)?.depth())))
    }),
    // Coordinates and slices.
    op("slice", &[C, L], |a| lay(slice(a.coord(0)?, a.layout(1)?))),
    op("dice", &[C, L], |a| lay(dice(a.coord(0)?, a.layout(1)?))),
    op("slice_and_offset", &[C, L], |a| {
        let (l, o) = slice_and_offset(a.coord(0)?, a.layout(1)?)?;
        Ok(Value::Sliced(l, o))
    }),
    op("crd2idx", &[L, C], |a| {
        let l = a.layout(0)?;
        crd2idx_coord(a.coord(1)?, l.shape(), l.stride()).map(Value::Int)
    }),
    op("idx2crd", &[I, U], |a| {
        idx2crd(a.int(0)?, a.tuple(1)?).map(Value::Tuple)
    }),
    op("crd2crd", &[C, U, U], |a| {
        crd2crd(a.coord(0)?, a.tuple(1)?, a.tuple(2)?).map(Value::Tuple)
    }),
    // Common vectors and casts.
    op("max_common_layout", &[L, L], |a| {
        lay(max_common_layout(a.layout(0)?, a.layout(1)?))
    }),
    op("max_common_vector", &[L, L], |a| {
        max_common_vector(a.layout(0)?, a.layout(1)?).map(Value::Int)
    }),
    op("upcast", &[L, N], |a| {
        lay(upcast(a.layout(0)?, a.count(1)? as i64))
    }),
    op("downcast", &[L, N], |a| {
        lay(downcast(a.layout(0)?, a.count(1)? as i64))
    }),
    op("recast_layout", &[L, N, N], |a| {
        let (old, new) = (a.count(1)? as i64, a.count(2)? as i64);
        lay(recast_layout(a.layout(0)?, old, new))
    }),
    op_opt("tile_to_shape", &[L, U, U], 1, |a| {
        let order = a.tuple(2).ok();
        lay(tile_to_shape(a.layout(0)?, a.tuple(1)?, order))
    }),
    op("swizzle", &[I, I, I, L], |a| {
        let sw = Swizzle::new(a.int(0)?.value, a.int(1)?.value, a.int(2)?.value)?;
        composition(&sw, a.layout(3)?).map(Value::Swizzled)
    }),
    op("print_layout", &[L], |a| {
        print_layout(a.layout(0)?).map(Value::Text)
    }),
];

/// `append`'s and `prepend`'s layout and padding (`_1:_0` unless given).
fn padding(a: &Args<'_>) -> R<(DynLayout, DynLayout)> {
    let x = match a.args.get(1) {
        Some(_) => a.layout(1)?.clone(),
        None => DynLayout::int(DInt::new_static(1), DInt::new_static(0)),
    };
    Ok((a.layout(0)?.clone(), x))
}

/// A rank or depth, static as CuTe's are.
fn static_count(n: usize) -> DInt {
    DInt::new_static(n as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_well_formed() {
        for (i, o) in TABLE.iter().enumerate() {
            assert!(!o.params.is_empty(), "{o:?}");
            assert!(
                o.optional + usize::from(o.repeats) <= o.params.len(),
                "{o:?}"
            );
            // Overloads sit together and differ in what they accept.
            if let Some(p) = TABLE[..i].iter().rposition(|p| p.name == o.name) {
                assert_eq!(p + 1, i, "{o:?} apart from its overloads");
                let overlap = (0..8).any(|n| TABLE[p].accepts(n) && o.accepts(n));
                assert!(!overlap, "{o:?} and {:?} take the same count", TABLE[p]);
            }
        }
    }
}
