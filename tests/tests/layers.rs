//! The layering of layout-core (docs/architecture.md), checked on its
//! sources: each module's imports (`crate::a::b` paths and `super::` paths
//! outside `#[cfg(test)]` modules and comments) must stay in its own layer
//! or go below it, no two modules may reach each other, and only printing
//! code imports `layout::print`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first.
const LAYERS: [&str; 7] = [
    "typelevel",
    "error",
    "layout",
    "algebra",
    "tensor",
    "atom",
    "dynamic",
];
/// `dynamic` sits on the core (typelevel to algebra), beside tensor and atom.
const DYNAMIC_MAY_NOT: [&str; 2] = ["tensor", "atom"];
/// The modules above the layers that only re-export them: the crate root
/// (`lib.rs`, with the old paths' aliases) and the prelude.
const FACADES: [&str; 2] = ["", "prelude"];
/// The modules that may import `layout::print`: printing code.
const PRINTERS: [&str; 2] = ["atom::mma", "dynamic"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../layout-core/src")
}

/// Module path (`layout::coord`; `` for lib.rs) -> file text.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(root).unwrap().with_extension("");
                let mut parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
                    parts.pop();
                }
                out.insert(parts.join("::"), std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&src(), &src(), &mut out);
    out
}

/// The text without comments, `#[cfg(test)] mod tests`, module declarations
/// and `pub use` re-exports (a parent re-exporting its children is not a
/// dependency).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::new();
    let mut in_reexport = false;
    for line in text.lines() {
        let t = line.trim_start();
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        if in_reexport {
            in_reexport = !line.contains(';');
            continue;
        }
        if t.starts_with("pub use ") || t.starts_with("pub(crate) use ") {
            in_reexport = !line.contains(';');
            continue;
        }
        let is_mod_decl = |p: &str| t.starts_with(p) && t.ends_with(';');
        if is_mod_decl("mod ") || is_mod_decl("pub mod ") || is_mod_decl("pub(crate) mod ") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The paths after each `crate::` / `super::` in `code`, as segment lists;
/// a `crate::{a::b, c}` group gives each of its top-level items.
fn paths(code: &str) -> Vec<(bool, Vec<String>)> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let read = |rest: &str| -> Vec<String> {
        let mut segs = Vec::new();
        let mut r = rest;
        loop {
            let end = r.find(|c: char| !ident(c)).unwrap_or(r.len());
            if end == 0 || !r[..1].chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                break;
            }
            segs.push(r[..end].to_string());
            match r[end..].strip_prefix("::") {
                Some(next) => r = next,
                None => break,
            }
        }
        segs
    };
    let mut out = Vec::new();
    for (kw, is_super) in [("crate::", false), ("super::", true)] {
        let mut i = 0;
        while let Some(k) = code[i..].find(kw) {
            let at = i + k;
            i = at + kw.len();
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| ident(c) && c != '$') {
                continue;
            }
            let rest = &code[i..];
            if let Some(group) = rest.strip_prefix('{') {
                // Top-level items of the group.
                let (mut depth, mut start) = (0usize, 0usize);
                let mut items = Vec::new();
                for (j, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            items.push(&group[start..j]);
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            items.push(&group[start..j]);
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                for it in items {
                    out.push((is_super, read(it.trim())));
                }
            } else {
                out.push((is_super, read(rest)));
            }
        }
    }
    out
}

/// The module each module depends on.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let resolve = |segs: &[String]| -> Option<String> {
        (1..=segs.len())
            .rev()
            .map(|n| segs[..n].join("::"))
            .find(|c| mods.contains_key(c))
    };
    let mut g = BTreeMap::new();
    for (m, text) in &mods {
        let is_folder = {
            let f = src().join(m.replace("::", "/")).join("mod.rs");
            f.exists()
        };
        let pkg: Vec<String> = if m.is_empty() {
            vec![]
        } else {
            let mut p: Vec<String> = m.split("::").map(String::from).collect();
            if !is_folder {
                p.pop();
            }
            p
        };
        let mut deps = BTreeSet::new();
        for (is_super, segs) in paths(&code(text)) {
            let full = if is_super {
                let mut p = pkg.clone();
                p.extend(segs);
                p
            } else {
                segs
            };
            if let Some(t) = resolve(&full) {
                if &t != m && !t.is_empty() {
                    deps.insert(t);
                }
            }
        }
        g.insert(m.clone(), deps);
    }
    g
}

fn layer(m: &str) -> Option<usize> {
    let top = m.split("::").next().unwrap();
    LAYERS.iter().position(|l| *l == top)
}

#[test]
fn every_module_is_in_a_layer() {
    let g = graph();
    assert!(g.len() > 40, "found {} modules under {:?}", g.len(), src());
    let stray: Vec<_> = g
        .keys()
        .filter(|m| !FACADES.contains(&m.as_str()) && layer(m).is_none())
        .collect();
    assert!(stray.is_empty(), "modules outside the layers: {stray:?}");
}

#[test]
fn no_layer_imports_a_higher_one() {
    let mut bad = Vec::new();
    for (m, deps) in graph() {
        let Some(lm) = layer(&m) else { continue };
        for t in deps {
            let lt = layer(&t).unwrap();
            let top = t.split("::").next().unwrap();
            let dynamic_ok = m.starts_with("dynamic") && !DYNAMIC_MAY_NOT.contains(&top);
            if lt > lm && !dynamic_ok || m.starts_with("dynamic") && DYNAMIC_MAY_NOT.contains(&top)
            {
                bad.push(format!("{m} -> {t}"));
            }
        }
    }
    assert!(bad.is_empty(), "imports of a higher layer: {bad:#?}");
}

#[test]
fn no_import_circle() {
    let g = graph();
    // Depth-first search for a back edge, reporting the circle.
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for t in &g[m] {
            match state.get(t.as_str()) {
                Some(1) => {
                    let i = stack.iter().position(|s| s == t).unwrap();
                    let mut c = stack[i..].to_vec();
                    c.push(t.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(t, g, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in g.keys() {
        if !state.contains_key(m) {
            let circle = visit(m, &g, &mut state, &mut Vec::new());
            assert!(
                circle.is_none(),
                "import circle: {}",
                circle.unwrap().join(" -> ")
            );
        }
    }
}

#[test]
fn computation_does_not_import_printing() {
    let bad: Vec<_> = graph()
        .into_iter()
        .filter(|(m, deps)| {
            deps.contains("layout::print")
                && m != "layout::print"
                && !PRINTERS
                    .iter()
                    .any(|p| m == p || m.starts_with(&format!("{p}::")))
        })
        .map(|(m, _)| m)
        .collect();
    assert!(bad.is_empty(), "modules importing layout::print: {bad:?}");
}

/// The checks see what they are meant to: a known edge and a known absence.
#[test]
fn the_graph_sees_imports() {
    let g = graph();
    assert!(
        g["tensor::partition"].contains("algebra::composition")
            || g["tensor::partition"].contains("algebra")
    );
    assert!(g["layout::coord"].contains("layout::congruent"));
    assert!(g["typelevel::list"].contains("typelevel::arith"));
    assert!(!g["typelevel::int"].contains("typelevel::list"));
}
