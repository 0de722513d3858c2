//! Turn the golden vectors (JSON Lines printed by CuTe) into typed Rust test
//! code. This is the build script of both `part0` and `part1`; each takes
//! every other record (which half, from its package name), so that the two
//! halves compile in parallel. Every record of the core ops is built twice,
//! once with its own leaves (`_N` becomes `C<N>`, `N` a `usize`) and once
//! with every leaf dynamic.

use layout_core::dynamic::{DCoord, DInt, DTuple, DynLayout, Tiler};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The ops this generator covers, in report order: these, then `ALGEBRA`.
/// The core ops (and the MMA atom): built with their own leaves and again all-dynamic.
const OPS: &[&str] = &[
    "layout",
    "crd2idx",
    "idx2crd",
    "crd2crd",
    "size",
    "cosize",
    "rank",
    "depth",
    "flatten",
    "group",
    "select",
    "append",
    "prepend",
    "get",
    "make_layout_left",
    "make_layout_right",
    "compact_col_major",
    "compact_row_major",
    "make_ordered_layout",
    "slice",
    "slice_and_offset",
    "dice",
    "print_layout",
    "mma_atom",
];

#[derive(Clone, Debug)]
enum T {
    Int(u64, bool),
    Tup(Vec<T>),
    Under,
}

impl T {
    fn rank(&self) -> usize {
        match self {
            T::Tup(v) => v.len(),
            _ => 1,
        }
    }
    fn all_static(&self) -> bool {
        match self {
            T::Int(_, s) => *s,
            T::Tup(v) => v.iter().all(T::all_static),
            T::Under => true,
        }
    }
}

// CuTe notation is read by the library's one parser (`layout_core::dynamic`);
// this generator only turns the parsed tree into Rust code.

fn from_int(i: DInt) -> Result<T, String> {
    let v = u64::try_from(i.value).map_err(|_| format!("negative leaf {}", i.value))?;
    Ok(T::Int(v, i.is_static))
}

fn from_tuple(t: &DTuple) -> Result<T, String> {
    match t.as_int() {
        Some(i) => from_int(i),
        None => Ok(T::Tup(
            t.modes().iter().map(from_tuple).collect::<Result<_, _>>()?,
        )),
    }
}

fn from_coord(c: &DCoord) -> Result<T, String> {
    match c {
        DCoord::Int(i) => from_int(*i),
        DCoord::Underscore => Ok(T::Under),
        DCoord::Tuple(v) => Ok(T::Tup(v.iter().map(from_coord).collect::<Result<_, _>>()?)),
    }
}

/// A tuple, integer or coordinate (`_` allowed).
fn parse(s: &str) -> Result<T, String> {
    from_coord(&s.parse::<DCoord>().map_err(|e| format!("{s}: {e}"))?)
}

/// A layout's shape and stride.
fn parse_layout(s: &str) -> Result<(T, T), String> {
    let l = s.parse::<DynLayout>().map_err(|e| format!("{s}: {e}"))?;
    Ok((from_tuple(l.shape())?, from_tuple(l.stride())?))
}

fn parse_tiler(s: &str) -> Result<Tiler, String> {
    s.trim().parse::<Tiler>().map_err(|e| format!("{s}: {e}"))
}

/// typenum's binary form of `v`, for static values `C<N>` cannot convert.
fn typenum_form(v: u64) -> String {
    if v == 0 {
        return "layout_core::typenum::UTerm".into();
    }
    let bit = if v & 1 == 1 { "B1" } else { "B0" };
    format!(
        "layout_core::typenum::UInt<{}, layout_core::typenum::{bit}>",
        typenum_form(v >> 1)
    )
}

/// Rust code for a tuple or leaf; `dynamic` makes every integer a `usize`.
/// Static values above 1024 that are not powers of two are written in
/// typenum's binary form, as `S<U>` (some of them `C<N>` covers too; both
/// print the same, and the cases then exercise `S<U>` as well).
fn emit(t: &T, dynamic: bool) -> String {
    match t {
        T::Int(v, true) if !dynamic && *v > 1024 && !v.is_power_of_two() => {
            format!("S::<{}>::new()", typenum_form(*v))
        }
        T::Int(v, true) if !dynamic => format!("C::<{v}>"),
        T::Int(v, _) => format!("{v}usize"),
        T::Under => "Underscore".into(),
        T::Tup(items) => {
            let mut s = String::from("(");
            for it in items {
                s += &emit(it, dynamic);
                s.push(',');
            }
            s.push(')');
            s
        }
    }
}

fn emit_layout(s: &str, dynamic: bool) -> Result<String, String> {
    let (shape, stride) = parse_layout(s)?;
    Ok(emit_layout_parts(&shape, &stride, dynamic))
}

fn emit_layout_parts(shape: &T, stride: &T, dynamic: bool) -> String {
    format!(
        "Layout::new({}, {})",
        emit(shape, dynamic),
        emit(stride, dynamic)
    )
}

fn rank_of_layout(s: &str) -> Result<usize, String> {
    Ok(parse_layout(s)?.0.rank())
}

fn arg_str(r: &Value, i: usize) -> Result<&str, String> {
    r["args"][i]
        .as_str()
        .ok_or_else(|| format!("args[{i}] is not a string"))
}
fn arg_u64(r: &Value, i: usize) -> Result<u64, String> {
    r["args"][i]
        .as_u64()
        .ok_or_else(|| format!("args[{i}] is not an integer"))
}

fn table(r: &Value) -> String {
    match r["table"].as_array() {
        Some(a) => {
            let items: Vec<String> = a.iter().map(|v| v.to_string()).collect();
            format!("Some(&[{}])", items.join(","))
        }
        None => "None".into(),
    }
}

/// The typed algebra's ops: built with their own leaves only.
const ALGEBRA: &[&str] = &[
    "coalesce",
    "coalesce_dynamic",
    "filter",
    "filter_zeros",
    "upcast",
    "downcast",
    "recast_layout",
    "right_inverse",
    "left_inverse",
    "composition",
    "composition_dynamic",
    "composition_mixed",
    "composition_tiler",
    "complement",
    "logical_divide",
    "logical_divide_mixed",
    "zipped_divide",
    "zipped_divide_mixed",
    "zipped_divide_dynamic",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
    "max_common_layout",
    "max_common_vector",
    "swizzle_layout",
    "swizzle",
    "tile_to_shape",
    "local_tile",
    "inner_partition",
    "outer_partition",
    "local_partition",
    "local_partition_proj",
    "local_tile_proj",
    "tiled_mma",
    "tiled_mma_tv",
    "mma_partition",
    "make_layout_like",
    "make_fragment_like",
];

/// Ops whose static inadmissible inputs (`unsound.jsonl`, the static_assert
/// cases of `invalid.jsonl`) are proved refused: the generated case
/// evaluates the admissibility predicate the typed op requires.
const REFUSED: &[&str] = &[
    "composition",
    "composition_tiler",
    "complement",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
];

/// The generated-code helper that evaluates an op family's admissibility predicate.
fn refusal_helper(op: &str) -> &'static str {
    if op.starts_with("composition") {
        "composition_refusal"
    } else if op == "complement" {
        "complement_refusal"
    } else if op.ends_with("divide") {
        "divide_refusal"
    } else {
        "product_refusal"
    }
}

/// The operation marker of the type checker's admissibility check for an
/// op of `REFUSED` (`None`: not decided by that check).
fn admits_op(op: &str) -> Option<&'static str> {
    if op.starts_with("composition") {
        Some("ComposeOp")
    } else if op.ends_with("divide") {
        Some("DivideOp")
    } else if op.ends_with("product") {
        Some("ProductOp")
    } else {
        None
    }
}

/// Rust code for a tiler: a layout, an integer, `_`, or a tuple of tilers.
fn emit_tiler(s: &str) -> Result<String, String> {
    emit_tiler_tree(&parse_tiler(s)?)
}

fn emit_tiler_tree(t: &Tiler) -> Result<String, String> {
    Ok(match t {
        Tiler::Layout(l) => {
            emit_layout_parts(&from_tuple(l.shape())?, &from_tuple(l.stride())?, false)
        }
        Tiler::Int(i) => emit(&from_int(*i)?, false),
        Tiler::Underscore => emit(&T::Under, false),
        Tiler::Tuple(v) => {
            let parts = v
                .iter()
                .map(emit_tiler_tree)
                .collect::<Result<Vec<_>, _>>()?;
            format!("({},)", parts.join(","))
        }
    })
}

/// Records of a form the typed API does not have yet (reported, not failed).
const UNSUPPORTED: &str = "form not in the typed API yet";

/// The body of one generated case: code that computes the result and hands
/// it to the report. `exact` is false for the all-dynamic build.
fn case_body(op: &str, r: &Value, dynamic: bool) -> Result<String, String> {
    let id = r["id"].as_str().unwrap_or("?");
    let expected = r["result"].as_str().ok_or("result is not a string")?;
    let exp = format!("{expected:?}");
    let tab = table(r);
    let exact = !dynamic;
    let head = format!("let (op, id, exact) = ({op:?}, {id:?}, {exact});\n");
    let lay = |expr: String| {
        format!("{head}let out = {expr};\nrep.layout(op, id, exact, out, {exp}, {tab});")
    };
    let nargs = r["args"].as_array().map_or(0, |a| a.len());
    let body = match op {
        "layout" => lay(emit_layout(arg_str(r, 0)?, dynamic)?),
        "flatten" => lay(format!(
            "flatten({})",
            emit_layout(arg_str(r, 0)?, dynamic)?
        )),
        "group" => lay(format!(
            "group::<{}, {}, _>({})",
            arg_u64(r, 1)?,
            arg_u64(r, 2)?,
            emit_layout(arg_str(r, 0)?, dynamic)?
        )),
        "select" => {
            let idx: Vec<String> = r["args"][1]
                .as_array()
                .ok_or("select indices")?
                .iter()
                .map(|v| format!("C<{}>,", v))
                .collect();
            lay(format!(
                "select::<({}), _>({})",
                idx.join(""),
                emit_layout(arg_str(r, 0)?, dynamic)?
            ))
        }
        "get" => {
            let mut e = emit_layout(arg_str(r, 0)?, dynamic)?;
            for k in 1..nargs {
                e = format!("layout_core::get::<{}, _>({e})", arg_u64(r, k)?);
            }
            lay(e)
        }
        "append" | "prepend" => {
            let l = emit_layout(arg_str(r, 0)?, dynamic)?;
            let x = if nargs >= 2 {
                emit_layout(arg_str(r, 1)?, dynamic)?
            } else if dynamic {
                "Layout::new(1usize, 0usize)".into()
            } else {
                "Layout::new(C::<1>, C::<0>)".into()
            };
            // append<N>(L, X) pads with X up to rank N.
            let times = if nargs >= 3 {
                let n = arg_u64(r, 2)? as usize;
                n.saturating_sub(rank_of_layout(arg_str(r, 0)?)?).max(1)
            } else {
                1
            };
            let mut e = l;
            for _ in 0..times {
                e = format!("{op}({e}, {x})");
            }
            lay(e)
        }
        "make_layout_left" => lay(format!(
            "make_layout_left({})",
            emit(&parse(arg_str(r, 0)?)?, dynamic)
        )),
        "make_layout_right" => lay(format!(
            "make_layout_right({})",
            emit(&parse(arg_str(r, 0)?)?, dynamic)
        )),
        // The order is made of static ranks in both builds: it decides structure.
        "make_ordered_layout" => lay(format!(
            "make_ordered_layout({}, {})",
            emit(&parse(arg_str(r, 0)?)?, dynamic),
            emit(&parse(arg_str(r, 1)?)?, false)
        )),
        "compact_col_major" | "compact_row_major" => format!(
            "{head}let s = {};\nlet out = {op}(s);\nrep.strides(op, id, exact, &s, &out, {exp});",
            emit(&parse(arg_str(r, 0)?)?, dynamic)
        ),
        "slice" | "dice" => {
            let c = parse(arg_str(r, 0)?)?;
            lay(format!(
                "{op}({}, {})",
                emit(&c, dynamic),
                emit_layout(arg_str(r, 1)?, dynamic)?
            ))
        }
        "slice_and_offset" => {
            let c = parse(arg_str(r, 0)?)?;
            format!(
                "{head}let c = {};\nlet l = {};\nlet (out, off) = slice_and_offset(c, l);\nrep.slice_and_offset(op, id, exact, out, off, is_static_crd(c, l), {exp}, {tab});",
                emit(&c, dynamic),
                emit_layout(arg_str(r, 1)?, dynamic)?
            )
        }
        "crd2idx" => {
            let c = parse(arg_str(r, 1)?)?;
            format!(
                "{head}let l = {};\nlet c = {};\nlet v = l.crd2idx(c);\nrep.int(op, id, exact, v, is_static_crd(c, l), {exp});",
                emit_layout(arg_str(r, 0)?, dynamic)?,
                emit(&c, dynamic)
            )
        }
        "idx2crd" => {
            let i = parse(arg_str(r, 0)?)?;
            let s = parse(arg_str(r, 1)?)?;
            let T::Int(v, st) = i else {
                return Err("idx2crd index is not an integer".into());
            };
            format!(
                "{head}let s = {};\nlet out = idx2crd({v}, s);\nrep.coord(op, id, exact, &out, &idx2crd_static(&s, {}), {exp});",
                emit(&s, dynamic),
                st && !dynamic
            )
        }
        "crd2crd" => {
            let c = parse(arg_str(r, 0)?)?;
            let s = parse(arg_str(r, 1)?)?;
            let d = parse(arg_str(r, 2)?)?;
            let all = c.all_static() && s.all_static() && d.all_static() && !dynamic;
            format!(
                "{head}let t = {};\nlet out = crd2crd({}, {}, t);\nrep.coord(op, id, exact, &out, &crd2crd_static(&t, {all}), {exp});",
                emit(&d, dynamic),
                emit(&c, dynamic),
                emit(&s, dynamic),
            )
        }
        "size" => format!(
            "{head}let l = {};\nrep.int(op, id, exact, l.size(), is_static_shape(l), {exp});",
            emit_layout(arg_str(r, 0)?, dynamic)?
        ),
        "cosize" => format!(
            "{head}let l = {};\nrep.int(op, id, exact, l.cosize(), is_static_layout(l), {exp});",
            emit_layout(arg_str(r, 0)?, dynamic)?
        ),
        "rank" => format!(
            "{head}let l = {};\nrep.int(op, id, exact, l.rank(), true, {exp});",
            emit_layout(arg_str(r, 0)?, dynamic)?
        ),
        "depth" => format!(
            "{head}let l = {};\nrep.int(op, id, exact, l.depth(), true, {exp});",
            emit_layout(arg_str(r, 0)?, dynamic)?
        ),
        "coalesce" | "coalesce_dynamic" if nargs == 1 => lay(format!(
            "layout_core::algebra::coalesce({})",
            emit_layout(arg_str(r, 0)?, dynamic)?
        )),
        "filter" | "filter_zeros" if nargs == 1 => lay(format!(
            "layout_core::algebra::{op}({})",
            emit_layout(arg_str(r, 0)?, dynamic)?
        )),
        "coalesce" | "coalesce_dynamic" | "filter" => lay(format!(
            "layout_core::algebra::{}_by({}, {})",
            op.trim_end_matches("_dynamic"),
            emit_layout(arg_str(r, 0)?, dynamic)?,
            emit(&parse(arg_str(r, 1)?)?, dynamic)
        )),
        "left_inverse" => lay(format!(
            "layout_core::algebra::left_inverse({})",
            emit_layout(arg_str(r, 0)?, dynamic)?
        )),
        "right_inverse" => lay(format!(
            "layout_core::algebra::right_inverse({})",
            emit_layout(arg_str(r, 0)?, dynamic)?
        )),
        "upcast" | "downcast" => lay(format!(
            "layout_core::algebra::{op}::<{}, _, _>({})",
            arg_u64(r, 1)?,
            emit_layout(arg_str(r, 0)?, dynamic)?
        )),
        "recast_layout" => {
            let spec = arg_str(r, 1)?;
            let bytes = |t: &str| match t.trim() {
                "u8" => Ok(1u64),
                "u16" => Ok(2),
                "u32" => Ok(4),
                "u64" => Ok(8),
                t => Err(format!("unknown element type {t}")),
            };
            let (new, old) = spec.split_once("<-").ok_or("recast spec")?;
            let (new, old) = (bytes(new)?, bytes(old)?);
            let l = emit_layout(arg_str(r, 0)?, dynamic)?;
            lay(if new > old {
                format!("layout_core::algebra::upcast::<{}, _, _>({l})", new / old)
            } else if old > new {
                format!("layout_core::algebra::downcast::<{}, _, _>({l})", old / new)
            } else {
                l
            })
        }
        "mma_atom" => {
            let atom = arg_str(r, 0)?;
            let member = arg_str(r, 1)?;
            let ty = match member {
                "Shape_MNK" => "ShapeMNK",
                m @ ("ThrID" | "ALayout" | "BLayout" | "CLayout") => m,
                m => return Err(format!("unknown MMA member {m}")),
            };
            let value = format!(
                "<layout_core::atom::{atom} as layout_core::atom::MmaAtom>::{ty}::default()"
            );
            if ty == "ShapeMNK" {
                format!("{head}let out = {value};\nrep.text(op, id, exact, &to_cute_string(&out), {exp});")
            } else {
                // A static type: the all-dynamic build is its with_dynamic_leaves().
                let e = if dynamic {
                    format!("{value}.with_dynamic_leaves()")
                } else {
                    value
                };
                lay(e)
            }
        }
        "print_layout" => format!(
            "{head}let l = {};\nrep.text(op, id, exact, &print_layout(l), {exp});",
            emit_layout(arg_str(r, 0)?, dynamic)?
        ),
        "composition" | "composition_dynamic" | "composition_mixed" | "composition_tiler" => {
            let (a, t) = (arg_str(r, 0)?, arg_str(r, 1)?);
            format!(
                "{head}let out = layout_core::algebra::try_composition({}, {});\nlet dl = layout_core::dynamic::composition::<layout_core::DynLayout, layout_core::dynamic::Tiler>(&{a:?}.parse().unwrap(), &{t:?}.parse().unwrap());\nrep.algebra_try(op, id, out, dl, {exp}, {tab}, {t:?});",
                emit_layout(a, false)?,
                emit_tiler(t)?
            )
        }
        "complement" if nargs == 1 => {
            let a = arg_str(r, 0)?;
            format!(
                "{head}let out = layout_core::algebra::try_complement_default({});\nlet dl = layout_core::dynamic::complement_default(&{a:?}.parse().unwrap());\nrep.algebra_try(op, id, out, dl, {exp}, {tab}, \"\");",
                emit_layout(a, false)?
            )
        }
        "complement" => {
            let (a, t) = (arg_str(r, 0)?, arg_str(r, 1)?);
            format!(
                "{head}let out = layout_core::algebra::try_complement({}, {});\nlet dl = layout_core::dynamic::complement(&{a:?}.parse().unwrap(), &layout_core::parse_tuple({t:?}).unwrap());\nrep.algebra_try(op, id, out, dl, {exp}, {tab}, \"\");",
                emit_layout(a, false)?,
                emit(&parse(t)?, false)
            )
        }
        "tile_to_shape" => {
            let (b, sh) = (arg_str(r, 0)?, arg_str(r, 1)?);
            let order = r["args"][2].as_str();
            let typed_order = match order {
                Some(o) => emit(&parse(o)?, false),
                None => "layout_core::algebra::ColMajor".into(),
            };
            let dyn_order = match order {
                Some(o) => format!("Some(&layout_core::parse_tuple({o:?}).unwrap())"),
                None => "None".into(),
            };
            format!(
                "{head}let out = layout_core::algebra::try_tile_to_shape_ordered({}, {}, {typed_order});\nlet dl = layout_core::dynamic::tile_to_shape(&{b:?}.parse().unwrap(), &layout_core::parse_tuple({sh:?}).unwrap(), {dyn_order});\nrep.algebra_try(op, id, out, dl, {exp}, {tab}, \"\");",
                emit_layout(b, false)?,
                emit(&parse(sh)?, false)
            )
        }
        "logical_divide"
        | "logical_divide_mixed"
        | "zipped_divide"
        | "zipped_divide_mixed"
        | "zipped_divide_dynamic"
        | "tiled_divide"
        | "flat_divide"
        | "logical_product"
        | "zipped_product"
        | "tiled_product"
        | "flat_product" => {
            let f = op.trim_end_matches("_mixed").trim_end_matches("_dynamic");
            let (a, t) = (arg_str(r, 0)?, arg_str(r, 1)?);
            // A divide never has fewer elements than A; a product is not checked so.
            let check = if f.ends_with("divide") {
                format!("rep.algebra_try_divide(op, id, out, dl, {exp}, {tab}, {a:?});")
            } else {
                format!("rep.algebra_try(op, id, out, dl, {exp}, {tab}, \"\");")
            };
            format!(
                "{head}let out = layout_core::algebra::try_{f}({}, {});\nlet dl = layout_core::dynamic::{f}(&{a:?}.parse().unwrap(), &{t:?}.parse::<layout_core::dynamic::Tiler>().unwrap());\n{check}",
                emit_layout(a, false)?,
                emit_tiler(t)?
            )
        }
        "blocked_product" | "raked_product" => {
            let (a, b) = (arg_str(r, 0)?, arg_str(r, 1)?);
            format!(
                "{head}let out = layout_core::algebra::try_{op}({}, {});\nlet dl = layout_core::dynamic::{op}(&{a:?}.parse().unwrap(), &{b:?}.parse().unwrap());\nrep.algebra_try(op, id, out, dl, {exp}, {tab}, \"\");",
                emit_layout(a, false)?,
                emit_layout(b, false)?
            )
        }
        // The typed max_common_* need a static B (its right inverse is computed
        // at the type level); records with run-time leaves are DynLayout's.
        "max_common_layout" | "max_common_vector" => {
            let (a, b) = (arg_str(r, 0)?, arg_str(r, 1)?);
            if has_dynamic_leaf(a) || has_dynamic_leaf(b) {
                return Err(UNSUPPORTED.into());
            }
            let (ta, tb) = (emit_layout(a, false)?, emit_layout(b, false)?);
            if op == "max_common_vector" {
                format!(
                    "{head}let v = layout_core::algebra::max_common_vector({ta}, {tb});\nlet d = layout_core::dynamic::max_common_vector(&{a:?}.parse().unwrap(), &{b:?}.parse().unwrap()).map(|x| x.to_string());\nrep.text(op, id, true, &format!(\"{{v}} (DynLayout {{}})\", d.unwrap_or_default()), &format!(\"{{}} (DynLayout {{}})\", {exp}, {exp}));"
                )
            } else {
                format!(
                    "{head}let out = layout_core::algebra::max_common_layout({ta}, {tb});\nlet dl = layout_core::dynamic::max_common_layout(&{a:?}.parse().unwrap(), &{b:?}.parse().unwrap());\nrep.algebra(op, id, out, dl, {exp}, {tab});"
                )
            }
        }
        "swizzle" => {
            let (b, m, sh, n) = (
                arg_u64(r, 0)?,
                arg_u64(r, 1)?,
                r["args"][2].as_i64().ok_or("S")?,
                arg_u64(r, 3)?,
            );
            format!(
                "{head}let sw = layout_core::algebra::Swizzle::<{b}, {m}, {{ {sh} }}>;\nlet table: Vec<usize> = (0..{n}usize).map(|i| sw.apply(i)).collect();\nrep.text(op, id, true, &sw.to_string(), {exp});\nrep.table(op, id, &table, {tab});"
            )
        }
        "swizzle_layout" => {
            let (b, m, sh) = (
                arg_u64(r, 0)?,
                arg_u64(r, 1)?,
                r["args"][2].as_i64().ok_or("S")?,
            );
            let l = arg_str(r, 3)?;
            if has_dynamic_leaf(l) {
                return Err(UNSUPPORTED.into());
            }
            format!(
                "{head}let out = layout_core::algebra::composition(layout_core::algebra::Swizzle::<{b}, {m}, {{ {sh} }}>, {});\nlet table: Vec<usize> = (0..out.layout.size()).map(|i| out.call(i)).collect();\nrep.text(op, id, true, &out.to_string(), {exp});\nrep.table(op, id, &table, {tab});",
                emit_layout(l, false)?
            )
        }
        // Compact layouts of fragments: static strides (the typed stride
        // order is a type), and for a fragment a static shape (its array
        // length is a type).
        "make_layout_like" | "make_fragment_like" => {
            let a = arg_str(r, 0)?;
            let (_, stride) = parse_layout(a)?;
            if !stride.all_static() || (op == "make_fragment_like" && has_dynamic_leaf(a)) {
                return Err(UNSUPPORTED.into());
            }
            let l = emit_layout(a, false)?;
            if op == "make_layout_like" {
                lay(format!(
                    "layout_core::tensor::fragment::make_layout_like({l})"
                ))
            } else {
                lay(format!(
                    "layout_core::tensor::fragment::make_fragment_like::<f32, _>({l}).layout()"
                ))
            }
        }
        // Tensor partitions: a tensor over a buffer that covers L, the
        // partition's layout, table and data offset, all exact.
        "local_tile"
        | "inner_partition"
        | "outer_partition"
        | "local_partition"
        | "local_partition_proj"
        | "local_tile_proj" => {
            let l = emit_layout(arg_str(r, 0)?, false)?;
            // A projection: `_` (CuTe's X) drops a mode of the thread layout
            // or of the tiler and coordinate.
            let proj = match op {
                "local_partition_proj" | "local_tile_proj" => {
                    format!(", {}", emit(&parse(arg_str(r, 3)?)?, false))
                }
                _ => String::new(),
            };
            let (second, third) = if op.starts_with("local_partition") {
                (
                    emit_layout(arg_str(r, 1)?, false)?,
                    format!("{}usize", arg_u64(r, 2)?),
                )
            } else {
                let c = match &r["args"][2] {
                    Value::String(c) => emit(&parse(c)?, true),
                    Value::Number(n) => format!("{n}usize"),
                    _ => return Err("coord".into()),
                };
                (emit_tiler(arg_str(r, 1)?)?, c)
            };
            let off = r["offset"].as_u64().ok_or("offset")?;
            format!(
                "{head}let l = {l};\nlet buf = vec![0u8; l.cosize()];\nlet t = Tensor::new(&buf[..], l).unwrap();\nlet out = layout_core::tensor::partition::try_{op}(t, {second}, {third}{proj}).map(|p| (p.layout(), p.data_offset()));\nrep.partition(op, id, out, {exp}, {tab}, {off});"
            )
        }
        // TiledMMA: `[atom, atom_layout, permutation, what(, L)]`, or the
        // named variants of `tiled_mma.jsonl`; every result exact.
        "tiled_mma" | "tiled_mma_tv" => {
            let (atom, al, perm, what) = if op == "tiled_mma" {
                let (al, perm) = match arg_str(r, 1)? {
                    "default" => ("(_1,_1,_1):(_0,_0,_0)", "(_,_,_)"),
                    "atoms_2x2x1" => ("(_2,_2,_1):(_1,_2,_0)", "(_,_,_)"),
                    "atoms_2x2x1_tile_32x32x16" => ("(_2,_2,_1):(_1,_2,_0)", "(_32,_32,_16)"),
                    v => return Err(format!("unknown variant {v}")),
                };
                (arg_str(r, 0)?, al, perm, arg_str(r, 2)?)
            } else {
                (
                    arg_str(r, 0)?,
                    arg_str(r, 1)?,
                    arg_str(r, 2)?,
                    arg_str(r, 3)?,
                )
            };
            let mma = format!(
                "{head}let mma = layout_core::atom::mma::make_tiled_mma(layout_core::atom::{atom}, {}, {});\n",
                emit_layout(al, false)?,
                emit_tiler(perm)?
            );
            let check = match what {
                "get_layoutA_TV" => {
                    "rep.layout(op, id, true, mma.get_layout_a_tv(), EXP, TAB);".into()
                }
                "get_layoutB_TV" => {
                    "rep.layout(op, id, true, mma.get_layout_b_tv(), EXP, TAB);".into()
                }
                "get_layoutC_TV" => {
                    "rep.layout(op, id, true, mma.get_layout_c_tv(), EXP, TAB);".into()
                }
                "thr_layout_vmnk" => {
                    "rep.layout(op, id, true, mma.thr_layout_vmnk(), EXP, TAB);".into()
                }
                "tile_size" => {
                    "rep.text(op, id, true, &to_cute_string(&mma.tile_size()), EXP);".into()
                }
                "size" => "rep.text(op, id, true, &mma.size().to_string(), EXP);".into(),
                "print" => "rep.text(op, id, true, &mma.to_string(), EXP);".into(),
                "thrfrg_A" | "thrfrg_B" | "thrfrg_C" => format!(
                    "rep.layout(op, id, true, mma.thrfrg_{}({}), EXP, TAB);",
                    what[7..].to_lowercase(),
                    emit_layout(arg_str(r, 4)?, false)?
                ),
                w => return Err(format!("unknown query {w}")),
            };
            mma + &check.replace("EXP", &exp).replace("TAB", &tab)
        }
        // `tm.get_slice(thr_idx).partition_X(tensor)`: exact where the tiled
        // MMA's tile divides the tensor; refused where it does not (CuTe's
        // partition then addresses elements past the tensor).
        "mma_partition" => {
            let (atom, al, perm, x, l) = (
                arg_str(r, 0)?,
                arg_str(r, 1)?,
                arg_str(r, 2)?,
                arg_str(r, 3)?.to_lowercase(),
                emit_layout(arg_str(r, 4)?, false)?,
            );
            let thr = arg_u64(r, 5)?;
            let off = r["offset"].as_u64().ok_or("offset")?;
            let divides = r["tile_divides"].as_bool().unwrap_or(true);
            format!(
                "{head}let mma = layout_core::atom::mma::make_tiled_mma(layout_core::atom::{atom}, {}, {});\nlet l = {l};\nlet buf = vec![0u8; l.cosize()];\nlet t = Tensor::new(&buf[..], l).unwrap();\nlet out = mma.try_get_slice({thr}).and_then(|s| s.try_partition_{x}(t)).map(|p| (p.layout(), p.data_offset()));\nif {divides} {{ rep.partition(op, id, out, {exp}, {tab}, {off}); }} else {{ rep.refused(op, id, out.err().map(|_| \"the tiled MMA's tile does not divide the tensor\")); }}",
                emit_layout(al, false)?,
                emit_tiler(perm)?
            )
        }
        _ => return Err(format!("op {op} is not generated")),
    };
    Ok(body)
}

fn golden_dir() -> PathBuf {
    // tests/golden/partN -> the workspace root.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(3)
        .unwrap()
        .to_path_buf();
    match std::env::var("LAYOUT_GOLDEN_DIR") {
        Ok(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        Ok(d) => root.join(d),
        Err(_) => root.join("tests/golden/data"),
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=LAYOUT_GOLDEN_DIR");
    println!("cargo:rerun-if-env-changed=LAYOUT_GOLDEN_OPS");
    // For measuring: generate only these files (comma-separated names).
    let only: Vec<String> = std::env::var("LAYOUT_GOLDEN_OPS")
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    println!("cargo:rerun-if-changed=../gen.rs");
    let dir = golden_dir();
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut code = String::new();
    let mut calls = String::new();
    let mut skipped = Vec::new();
    let mut n = 0usize;
    // Records seen so far: this part takes those whose index is its number mod 2.
    let part: usize = match std::env::var("CARGO_PKG_NAME").unwrap_or_default().as_str() {
        "layout-golden-1" => 1,
        _ => 0,
    };
    let mut rec = 0usize;
    let mut mine = || {
        rec += 1;
        (rec - 1) % 2 == part
    };
    // The layout files, then the tensor-level ones under `tensor/`.
    let mut files: Vec<PathBuf> = [dir.clone(), dir.join("tensor")]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(d)
                .map(|rd| {
                    rd.filter_map(|e| e.ok().map(|e| e.path()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
        .collect();
    files.sort();
    for path in &files {
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if !only.is_empty() && !only.contains(&name) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if name == "unsound" || name == "invalid" {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                if !mine() {
                    continue;
                }
                let Ok(r) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let op = r["op"].as_str().unwrap_or("");
                let error = r["error"].as_str().unwrap_or("");
                if r["static"].as_bool() != Some(true)
                    || !REFUSED.contains(&op)
                    || (name == "invalid" && !error.starts_with("static_assert"))
                {
                    continue;
                }
                let label = format!("{name}/{op}");
                let id = r["id"].as_str().unwrap_or("?");
                let a = arg_str(&r, 0).unwrap_or("");
                if op == "complement" && r["args"].as_array().map_or(0, |x| x.len()) == 1 {
                    match emit_layout(a, false) {
                        Ok(a) => {
                            let _ = writeln!(
                                code,
                                "#[inline(never)]\nfn case_{n}(rep: &mut Report) {{\nrep.refused({label:?}, {id:?}, complement_default_refusal(&{a}));\n}}"
                            );
                            let _ = writeln!(calls, "case_{n}(rep);");
                            n += 1;
                        }
                        Err(e) => {
                            let _ = writeln!(
                                calls,
                                "rep.broken({label:?}, {:?});",
                                format!("{id}: {e}")
                            );
                        }
                    }
                    continue;
                }
                let t = arg_str(&r, 1).unwrap_or("");
                let tiler_rank = match parse_tiler(t) {
                    Ok(Tiler::Tuple(v)) => v.len(),
                    _ => 0,
                };
                if tiler_rank > rank_of_layout(a).unwrap_or(usize::MAX) {
                    // More tiler modes than layout modes: the `Mode` bound refuses it
                    // (ui-tests/tests/ui/algebra/composition_tiler_rank.rs shows the error).
                    let _ = writeln!(
                        calls,
                        "rep.refused({label:?}, {id:?}, Some(\"the tiler has more modes than the layout: no Mode bound\"));"
                    );
                    continue;
                }
                if has_dynamic_leaf(a) || has_dynamic_leaf(t) {
                    // CuTe's static_assert on a complement of run-time strides at rank > 1:
                    // the typed complement sorts by static stride, so its bound refuses it
                    // (ui-tests/tests/ui/algebra/product_dynamic_strides.rs shows the error).
                    let _ = writeln!(
                        calls,
                        "rep.refused({label:?}, {id:?}, Some(\"run-time strides at rank > 1: no sort bound\"));"
                    );
                    continue;
                }
                let layout_tiler = matches!(parse_tiler(t), Ok(Tiler::Layout(_)));
                match (emit_layout(a, false), emit_tiler(t)) {
                    (Ok(a), Ok(t)) => {
                        let _ = writeln!(
                            code,
                            "#[inline(never)]\nfn case_{n}(rep: &mut Report) {{\nrep.refused({label:?}, {id:?}, {}(&{a}, &{t}));\n}}",
                            refusal_helper(op)
                        );
                        let _ = writeln!(calls, "case_{n}(rep);");
                        n += 1;
                        // The type checker's side of the same refusal.
                        if let Some(kind) = admits_op(op) {
                            let verdict = if kind == "ComposeOp" && layout_tiler {
                                "Some(composition_verdict_text(&a, &t))".to_string()
                            } else {
                                "None".to_string()
                            };
                            let _ = writeln!(
                                code,
                                "#[inline(never)]\nfn case_{n}(rep: &mut Report) {{\nlet (a, t) = ({a}, {t});\nlet admitted = (&probe::<_, _, layout_core::algebra::admits::{kind}>(&a, &t)).admitted();\nrep.typed_refusal(\"types: {label}\", {id:?}, admitted, {}(&a, &t), {verdict});\n}}",
                                refusal_helper(op)
                            );
                            let _ = writeln!(calls, "case_{n}(rep);");
                            n += 1;
                        }
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        let _ =
                            writeln!(calls, "rep.broken({label:?}, {:?});", format!("{id}: {e}"));
                    }
                }
            }
            continue;
        }
        if !OPS.contains(&name.as_str()) && !ALGEBRA.contains(&name.as_str()) {
            skipped.push(format!(
                "({:?}, {})",
                name,
                text.lines().filter(|l| !l.trim().is_empty()).count()
            ));
            continue;
        }
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if !mine() {
                continue;
            }
            let r: Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(e) => {
                    let _ = writeln!(
                        calls,
                        "rep.broken({name:?}, {:?});",
                        format!("bad JSON: {e}")
                    );
                    continue;
                }
            };
            let is_static = r["static"].as_bool().unwrap_or(false);
            for dynamic in [false, true] {
                match case_body(&name, &r, dynamic) {
                    Ok(body) => {
                        let _ = writeln!(
                            code,
                            "#[inline(never)]\nfn case_{n}(rep: &mut Report) {{\n{body}\n}}"
                        );
                        let _ = writeln!(calls, "case_{n}(rep);");
                        n += 1;
                    }
                    Err(e) if e == UNSUPPORTED => {
                        let _ = writeln!(calls, "rep.unsupported({name:?});");
                    }
                    Err(e) => {
                        let id = r["id"].as_str().unwrap_or("?");
                        let _ =
                            writeln!(calls, "rep.broken({name:?}, {:?});", format!("{id}: {e}"));
                    }
                }
                // An all-dynamic record's second build would repeat the first; the
                // algebra's results depend on which leaves are static (CuTe merges
                // and filters only what it can prove), so CuTe's answer for the
                // static input is not the answer for its all-dynamic twin.
                if (!is_static && !has_static_leaf(&r)) || ALGEBRA.contains(&name.as_str()) {
                    break;
                }
            }
        }
    }
    let _ = writeln!(
        code,
        "/// Run this part's cases.\npub fn run(rep: &mut Report) {{\n{calls}}}"
    );
    let _ = writeln!(
        code,
        "/// Files no op of this test reads, with their record counts.\npub const SKIPPED: &[(&str, usize)] = &[{}];\n/// The ops in report order.\npub const OPS: &[&str] = &{:?};\n/// Where the vectors were read from.\npub const GOLDEN_DIR: &str = {:?};\n/// How many files the directory had.\npub const FILES_FOUND: usize = {};",
        skipped.join(", "),
        [OPS, ALGEBRA].concat(),
        dir.display().to_string(),
        files.len()
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("golden_cases.rs");
    std::fs::write(out, code).unwrap();
}

/// Whether CuTe text has a run-time integer (a number not marked `_`).
fn has_dynamic_leaf(s: &str) -> bool {
    let b = s.as_bytes();
    (0..b.len()).any(|i| {
        b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_digit() || b[i - 1] == b'_'))
    })
}

fn has_static_leaf(r: &Value) -> bool {
    r["args"].as_array().is_some_and(|a| {
        a.iter().any(|v| {
            v.as_str().is_some_and(|s| {
                s.as_bytes()
                    .windows(2)
                    .any(|w| w[0] == b'_' && w[1].is_ascii_digit())
            })
        })
    })
}
