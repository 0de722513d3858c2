//! What a kernel crate declares about its kernels, read from its source.
//!
//! Rust cannot state CUDA's `__launch_bounds__`, and a build tool cannot
//! know which kernels must not divide, so a crate declares both in `const`
//! items named after the kernel (its `.entry` name in upper case), next to
//! it:
//!
//! ```
//! /// 256 threads per block, at least 2 blocks per SM (`.maxntid 256, 1, 1`,
//! /// `.minnctapersm 2`).
//! pub const SGEMM_F32_LAUNCH_BOUNDS: (u32, u32) = (256, 2);
//! /// Fail the build when `sgemm_f32`'s PTX has a `div` or `rem`.
//! pub const SGEMM_F32_NO_DIVISION: bool = true;
//! /// Fail the build unless `mma_atom`'s PTX has exactly two instructions
//! /// starting with `mma.sync.aligned.m16n8k16`.
//! pub const MMA_ATOM_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
//!     &[("mma.sync.aligned.m16n8k16", 2)];
//! /// Blocks of `hgemm` run in clusters of 2 along x (CUDA's
//! /// `__cluster_dims__(2, 1, 1)`: `.reqnctapercluster 2, 1, 1`; the
//! /// kernel needs launch bounds too).
//! pub const HGEMM_CLUSTER_SIZE: u32 = 2;
//! /// `flash` may spill up to 96 bytes of stores and 128 of loads (ptxas's
//! /// `-v` figures); more, or any spill without this, fails the build.
//! pub const FLASH_SPILL_BYTES: (u32, u32) = (96, 128);
//! ```
//!
//! The values must be literals: the tool parses the source (with `syn`)
//! and evaluates nothing, cfg attributes included. A const found twice
//! (say under two cfgs) must have the same value both times. Only items
//! of a module are read (a file's, or an inline `mod`'s), not consts inside
//! functions or impls.

use std::collections::BTreeMap;
use std::path::Path;

use syn::{Expr, Item, Lit};

/// The suffix of a launch-bounds const: `(max threads per block, min blocks
/// per SM)`.
pub const LAUNCH_BOUNDS: &str = "_LAUNCH_BOUNDS";
/// The suffix of a no-division const: `bool`.
pub const NO_DIVISION: &str = "_NO_DIVISION";
/// The suffix of an expected-instructions const: `&[(&str, usize)]`.
pub const EXPECT_INSTRUCTIONS: &str = "_EXPECT_INSTRUCTIONS";
/// The suffix of a cluster-size const: `u32`, the blocks per cluster along
/// x.
pub const CLUSTER_SIZE: &str = "_CLUSTER_SIZE";

/// The suffix of a spill-allowance const: `(max spill store bytes, max
/// spill load bytes)`, as ptxas's `-v` reports them.
pub const SPILL_BYTES: &str = "_SPILL_BYTES";

/// What one kernel declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelDecls {
    /// `(max threads per block, min blocks per SM)`.
    pub launch_bounds: Option<(u32, u32)>,
    /// Whether a `div` or `rem` in its PTX fails the build.
    pub no_division: bool,
    /// Instruction prefixes and how many of them its PTX must have.
    pub expect_instructions: Vec<(String, usize)>,
    /// Blocks per cluster along x (`.reqnctapercluster N, 1, 1`).
    pub cluster_size: Option<u32>,
    /// The most ptxas may spill, `(store bytes, load bytes)`; none: no
    /// spill at all.
    pub spill_bytes: Option<(u32, u32)>,
}

/// The declarations of a crate, by kernel name in upper case (the const's
/// name without its suffix).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decls {
    /// Kernel name in upper case -> its declarations.
    pub kernels: BTreeMap<String, KernelDecls>,
    /// Each const found: the file it was first found in, its value.
    seen: BTreeMap<String, (String, Value)>,
}

impl Decls {
    /// The declarations of the kernel whose `.entry` name is `entry`.
    pub fn for_entry(&self, entry: &str) -> Option<&KernelDecls> {
        self.kernels.get(&entry.to_ascii_uppercase())
    }

    /// Every const found, as (kernel name in upper case, const name).
    pub fn consts(&self) -> impl Iterator<Item = (&str, &str)> {
        self.seen.keys().map(|name| {
            let kernel = [
                LAUNCH_BOUNDS,
                NO_DIVISION,
                EXPECT_INSTRUCTIONS,
                CLUSTER_SIZE,
                SPILL_BYTES,
            ]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .unwrap_or(name);
            (kernel, name.as_str())
        })
    }

    /// Reads every `.rs` file under `dir` (recursively; files in sorted
    /// order). Errors: one line per problem.
    pub fn scan_dir(dir: &Path) -> Result<Decls, Vec<String>> {
        let mut files = Vec::new();
        rs_files(dir, &mut files)
            .map_err(|e| vec![format!("cannot read {}: {e}", dir.display())])?;
        files.sort();
        let mut decls = Decls::default();
        let mut errors = Vec::new();
        for file in files {
            match std::fs::read_to_string(&file) {
                Ok(src) => {
                    if let Err(e) = decls.add_source(&file.display().to_string(), &src) {
                        errors.extend(e);
                    }
                }
                Err(e) => errors.push(format!("cannot read {}: {e}", file.display())),
            }
        }
        if errors.is_empty() {
            Ok(decls)
        } else {
            Err(errors)
        }
    }

    /// Adds the declarations of one source file (`file` names it in
    /// messages). Errors: one line per problem (a file `syn` cannot parse,
    /// a value that is not a literal of the right shape, a const declared
    /// twice with different values).
    pub fn add_source(&mut self, file: &str, src: &str) -> Result<(), Vec<String>> {
        let ast = syn::parse_file(src).map_err(|e| {
            let at = e.span().start();
            vec![format!(
                "{file}:{}:{}: cannot parse: {e}",
                at.line,
                at.column + 1
            )]
        })?;
        let mut errors = Vec::new();
        self.add_items(file, &ast.items, &mut errors);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    fn add_items(&mut self, file: &str, items: &[Item], errors: &mut Vec<String>) {
        for item in items {
            match item {
                Item::Const(c) => {
                    let name = c.ident.to_string();
                    if let Err(e) = self.add_const(file, &name, &c.expr) {
                        errors.push(format!("{file}: {name}: {e}"));
                    }
                }
                Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.add_items(file, items, errors);
                    }
                }
                _ => {}
            }
        }
    }

    fn add_const(&mut self, file: &str, name: &str, expr: &Expr) -> Result<(), String> {
        let (kernel, value) = if let Some(k) = name.strip_suffix(LAUNCH_BOUNDS) {
            (k, Value::LaunchBounds(launch_bounds(expr)?))
        } else if let Some(k) = name.strip_suffix(NO_DIVISION) {
            (
                k,
                Value::NoDivision(bool_lit(expr).ok_or("expected `true` or `false`")?),
            )
        } else if let Some(k) = name.strip_suffix(EXPECT_INSTRUCTIONS) {
            (k, Value::Expect(expect_instructions(expr)?))
        } else if let Some(k) = name.strip_suffix(CLUSTER_SIZE) {
            let n: u32 = int_lit(expr).ok_or("expected an integer literal")?;
            if !(1..=16).contains(&n) {
                return Err(format!("a cluster has 1 to 16 blocks, not {n}"));
            }
            (k, Value::Cluster(n))
        } else if let Some(k) = name.strip_suffix(SPILL_BYTES) {
            (k, Value::Spills(spill_bytes(expr)?))
        } else {
            return Ok(());
        };
        if kernel.is_empty() {
            return Err("names no kernel (nothing before the suffix)".into());
        }
        if let Some((first, old)) = self.seen.get(name) {
            return if *old == value {
                Ok(())
            } else {
                Err(format!(
                    "declared twice with different values, {old} and {value} (first in {first}; \
                     cfgs are not evaluated)"
                ))
            };
        }
        let decls = self.kernels.entry(kernel.to_string()).or_default();
        match &value {
            Value::LaunchBounds(b) => decls.launch_bounds = Some(*b),
            Value::NoDivision(b) => decls.no_division = *b,
            Value::Expect(v) => decls.expect_instructions = v.clone(),
            Value::Cluster(n) => decls.cluster_size = Some(*n),
            Value::Spills(b) => decls.spill_bytes = Some(*b),
        }
        self.seen
            .insert(name.to_string(), (file.to_string(), value));
        Ok(())
    }
}

/// A declared value, as parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    LaunchBounds((u32, u32)),
    NoDivision(bool),
    Expect(Vec<(String, usize)>),
    Cluster(u32),
    Spills((u32, u32)),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::LaunchBounds(b) => write!(f, "{b:?}"),
            Value::NoDivision(b) => write!(f, "{b}"),
            Value::Expect(v) => write!(f, "{v:?}"),
            Value::Cluster(n) => write!(f, "{n}"),
            Value::Spills(b) => write!(f, "{b:?}"),
        }
    }
}

/// `expr` without parentheses and invisible groups.
fn bare(mut expr: &Expr) -> &Expr {
    loop {
        match expr {
            Expr::Paren(p) => expr = &p.expr,
            Expr::Group(g) => expr = &g.expr,
            _ => return expr,
        }
    }
}

fn lit(expr: &Expr) -> Option<&Lit> {
    match bare(expr) {
        Expr::Lit(l) => Some(&l.lit),
        _ => None,
    }
}

fn bool_lit(expr: &Expr) -> Option<bool> {
    match lit(expr)? {
        Lit::Bool(b) => Some(b.value),
        _ => None,
    }
}

fn int_lit<T: std::str::FromStr>(expr: &Expr) -> Option<T>
where
    T::Err: std::fmt::Display,
{
    match lit(expr)? {
        Lit::Int(i) => i.base10_parse().ok(),
        _ => None,
    }
}

/// `(threads, blocks)`: two integer literals, both at least 1.
fn launch_bounds(expr: &Expr) -> Result<(u32, u32), String> {
    const SHAPE: &str = "expected (max threads per block, min blocks per SM), two integer literals";
    let Expr::Tuple(t) = bare(expr) else {
        return Err(SHAPE.into());
    };
    let v: Vec<u32> = t
        .elems
        .iter()
        .map(int_lit)
        .collect::<Option<_>>()
        .ok_or(SHAPE)?;
    match v[..] {
        [threads, blocks] if threads >= 1 && blocks >= 1 => Ok((threads, blocks)),
        [_, _] => Err("threads and blocks must be at least 1".into()),
        _ => Err(SHAPE.into()),
    }
}

/// `(stores, loads)`: two integer literals, bytes.
fn spill_bytes(expr: &Expr) -> Result<(u32, u32), String> {
    const SHAPE: &str = "expected (spill store bytes, spill load bytes), two integer literals";
    let Expr::Tuple(t) = bare(expr) else {
        return Err(SHAPE.into());
    };
    match t.elems.iter().map(int_lit).collect::<Option<Vec<u32>>>() {
        Some(v) if v.len() == 2 => Ok((v[0], v[1])),
        _ => Err(SHAPE.into()),
    }
}

/// `&[("prefix", count), ...]` (or the array without `&`).
fn expect_instructions(expr: &Expr) -> Result<Vec<(String, usize)>, String> {
    const SHAPE: &str = "expected &[(\"instruction\", count), ...] of string and integer literals";
    let mut e = bare(expr);
    if let Expr::Reference(r) = e {
        e = bare(&r.expr);
    }
    let Expr::Array(a) = e else {
        return Err(SHAPE.into());
    };
    a.elems
        .iter()
        .map(|el| {
            let Expr::Tuple(t) = bare(el) else {
                return Err(SHAPE.to_string());
            };
            match (
                t.elems.first().and_then(lit),
                t.elems.get(1).and_then(int_lit),
                t.elems.len(),
            ) {
                (Some(Lit::Str(s)), Some(n), 2) if !s.value().trim().is_empty() => {
                    Ok((s.value().trim().to_string(), n))
                }
                _ => Err(SHAPE.to_string()),
            }
        })
        .collect()
}

fn rs_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            rs_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Result<Decls, Vec<String>> {
        let mut d = Decls::default();
        d.add_source("lib.rs", src).map(|()| d)
    }

    fn kernel(d: &Decls, k: &str) -> KernelDecls {
        d.for_entry(k)
            .cloned()
            .unwrap_or_else(|| panic!("no {k} in {d:?}"))
    }

    #[test]
    fn spill_allowance_of_a_kernel() {
        let d = parse("pub const FLASH_SPILL_BYTES: (u32, u32) = (96, 0x80);").unwrap();
        assert_eq!(kernel(&d, "flash").spill_bytes, Some((96, 128)));
        assert_eq!(kernel(&d, "FLASH").launch_bounds, None);
        for bad in ["(96,)", "(1, 2, 3)", "96", "(1, -2)", "(X, 2)"] {
            let e = parse(&format!("const K_SPILL_BYTES: (u32, u32) = {bad};")).unwrap_err();
            assert_eq!(
                e,
                ["lib.rs: K_SPILL_BYTES: expected (spill store bytes, spill load bytes), two integer literals"],
                "{bad}"
            );
        }
    }

    #[test]
    fn cluster_size_of_a_kernel() {
        let d = parse("pub const HGEMM_CLUSTER_SIZE: u32 = 2;").unwrap();
        assert_eq!(kernel(&d, "hgemm").cluster_size, Some(2));
        let e = parse("const K_CLUSTER_SIZE: u32 = 32;").unwrap_err();
        assert_eq!(
            e,
            ["lib.rs: K_CLUSTER_SIZE: a cluster has 1 to 16 blocks, not 32"]
        );
    }

    #[test]
    fn launch_bounds_of_a_kernel() {
        let d = parse(
            r#"
            /// Doc.
            pub const SGEMM_F32_LAUNCH_BOUNDS: (u32, u32) = (256, 2);
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn sgemm_f32(a: *const f32) {}
            "#,
        )
        .unwrap();
        assert_eq!(d.kernels.len(), 1);
        let k = kernel(&d, "sgemm_f32");
        assert_eq!(k.launch_bounds, Some((256, 2)));
        assert!(!k.no_division);
        assert!(k.expect_instructions.is_empty());
    }

    #[test]
    fn literal_forms() {
        let d = parse("const A_LAUNCH_BOUNDS: (u32, u32) = ((1_024u32), 0x2);").unwrap();
        assert_eq!(kernel(&d, "a").launch_bounds, Some((1024, 2)));
    }

    #[test]
    fn no_division_true_and_false() {
        let d = parse(
            "pub const T_NO_DIVISION: bool = true;
             pub const F_NO_DIVISION: bool = false;",
        )
        .unwrap();
        assert!(kernel(&d, "t").no_division);
        assert!(!kernel(&d, "f").no_division);
    }

    #[test]
    fn expect_instructions_list() {
        let d = parse(
            r#"pub const MMA_ATOM_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
                   &[("mma.sync.aligned.m16n8k16", 2), ("ldmatrix", 0)];"#,
        )
        .unwrap();
        assert_eq!(
            kernel(&d, "mma_atom").expect_instructions,
            vec![
                ("mma.sync.aligned.m16n8k16".to_string(), 2),
                ("ldmatrix".to_string(), 0)
            ]
        );
    }

    #[test]
    fn found_under_cfgs_and_in_inline_modules() {
        let d = parse(
            r#"
            #[cfg(target_arch = "nvptx64")]
            pub mod device {
                #[cfg(not(feature = "never"))]
                pub const K_LAUNCH_BOUNDS: (u32, u32) = (128, 4);
                mod deeper { const K_NO_DIVISION: bool = true; }
            }
            "#,
        )
        .unwrap();
        assert_eq!(
            kernel(&d, "k"),
            KernelDecls {
                launch_bounds: Some((128, 4)),
                no_division: true,
                expect_instructions: vec![],
                cluster_size: None,
                spill_bytes: None,
            }
        );
    }

    #[test]
    fn same_value_twice_is_fine_different_values_are_not() {
        let same = parse(
            r#"#[cfg(feature = "a")] const K_LAUNCH_BOUNDS: (u32, u32) = (256, 2);
               #[cfg(not(feature = "a"))] const K_LAUNCH_BOUNDS: (u32, u32) = (256, 2);"#,
        )
        .unwrap();
        assert_eq!(kernel(&same, "k").launch_bounds, Some((256, 2)));
        let e = parse(
            r#"#[cfg(feature = "a")] const K_LAUNCH_BOUNDS: (u32, u32) = (256, 2);
               #[cfg(not(feature = "a"))] const K_LAUNCH_BOUNDS: (u32, u32) = (512, 1);"#,
        )
        .unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(
            e[0].contains(
                "K_LAUNCH_BOUNDS: declared twice with different values, (256, 2) and (512, 1)"
            ),
            "{e:?}"
        );
        let e = parse("const K_NO_DIVISION: bool = true; const K_NO_DIVISION: bool = false;")
            .unwrap_err();
        assert!(e[0].contains("true and false"), "{e:?}");
    }

    #[test]
    fn values_must_be_literals() {
        let e = parse(
            "const THREADS: u32 = 256;
             const A_LAUNCH_BOUNDS: (u32, u32) = (THREADS, 2);
             const B_LAUNCH_BOUNDS: (u32, u32) = (256, 2, 1);
             const C_LAUNCH_BOUNDS: (u32, u32) = (0, 2);
             const D_NO_DIVISION: bool = !false;
             const E_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[(\"mma\", N)];",
        )
        .unwrap_err();
        assert_eq!(e.len(), 5, "{e:?}");
        assert!(
            e[0].starts_with("lib.rs: A_LAUNCH_BOUNDS: expected (max threads"),
            "{e:?}"
        );
        assert!(
            e[1].starts_with("lib.rs: B_LAUNCH_BOUNDS: expected"),
            "{e:?}"
        );
        assert_eq!(
            e[2],
            "lib.rs: C_LAUNCH_BOUNDS: threads and blocks must be at least 1"
        );
        assert_eq!(e[3], "lib.rs: D_NO_DIVISION: expected `true` or `false`");
        assert!(
            e[4].starts_with("lib.rs: E_EXPECT_INSTRUCTIONS: expected &["),
            "{e:?}"
        );
    }

    #[test]
    fn other_items_are_ignored() {
        let d = parse(
            "const SMEM_BYTES: usize = 16384;
             static K_LAUNCH_BOUNDS: (u32, u32) = (1, 1);
             fn f() { const K_NO_DIVISION: bool = true; }
             impl S { const K_NO_DIVISION: bool = true; }
             mod outside;",
        )
        .unwrap();
        assert_eq!(d, Decls::default());
    }

    #[test]
    fn a_suffix_alone_names_no_kernel() {
        let e = parse("const _LAUNCH_BOUNDS: (u32, u32) = (1, 1);").unwrap_err();
        assert_eq!(
            e,
            vec!["lib.rs: _LAUNCH_BOUNDS: names no kernel (nothing before the suffix)"]
        );
    }

    #[test]
    fn unparsable_source_names_the_place() {
        let e = parse("const A: u32 = ;").unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("lib.rs:1:"), "{e:?}");
        assert!(e[0].contains("cannot parse"), "{e:?}");
    }

    #[test]
    fn scan_dir_reads_nested_files() {
        let dir = std::env::temp_dir().join(format!("layout-ptx-decl-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("gpu")).unwrap();
        std::fs::write(dir.join("lib.rs"), "mod gpu;").unwrap();
        std::fs::write(
            dir.join("gpu/mod.rs"),
            "pub const K_LAUNCH_BOUNDS: (u32, u32) = (64, 8);",
        )
        .unwrap();
        std::fs::write(dir.join("notes.txt"), "const X_NO_DIVISION: bool = true;").unwrap();
        let d = Decls::scan_dir(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        let d = d.unwrap();
        assert_eq!(d.kernels.len(), 1);
        assert_eq!(kernel(&d, "k").launch_bounds, Some((64, 8)));
    }
}
