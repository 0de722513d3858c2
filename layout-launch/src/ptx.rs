//! What the PTX text says about its kernels: each `.entry`'s name and the
//! size and kind of each of its parameters. No driver is needed; [`Module`]
//! keeps this list to name the kernels it has when a lookup fails, and a
//! [`Launch`] checks its arguments' count and sizes against it.
//!
//! [`Module`]: crate::Module
//! [`Launch`]: crate::Launch

/// One kernel entry point of a PTX module, as its text declares it.
///
/// ```
/// let ptx = ".visible .entry scale(\n\t.param .u64 .ptr .align 1 scale_param_0,\n\t.param .u32 scale_param_1\n)\n{\n\tret;\n}\n";
/// let entries = layout_launch::entry_points(ptx);
/// assert_eq!(entries[0].name, "scale");
/// assert_eq!(entries[0].param_bytes, Some(vec![8, 4]));
/// use layout_launch::{Param, ParamKind};
/// assert_eq!(entries[0].params.as_ref().unwrap()[0], Param { bytes: 8, kind: ParamKind::Pointer });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The kernel's name (what [`Module::kernel`](crate::Module::kernel)
    /// looks up).
    pub name: String,
    /// The byte size of each parameter, in order: 8 for a pointer or a
    /// 64-bit scalar, 4 for a 32-bit one, `N * size` for an array
    /// `.b8 name[N]` (how structs are passed). `None` when a parameter's
    /// type is not one this reader knows; then launches go unchecked.
    pub param_bytes: Option<Vec<usize>>,
    /// Each parameter's size and kind, in order; `None` where
    /// `param_bytes` is.
    pub params: Option<Vec<Param>>,
}

/// One kernel parameter as the PTX declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its size in bytes.
    pub bytes: usize,
    /// What it holds.
    pub kind: ParamKind,
}

/// What a kernel parameter holds, as far as its PTX type says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `.u64 .ptr`: a pointer (Rust's compiler marks its pointer
    /// parameters so; nvcc's are plain `.u64`, read as [`ParamKind::Int`]).
    Pointer,
    /// `.u32`, `.s64`, `.b64`, ...: an integer (or an unmarked pointer).
    Int,
    /// `.f32`, `.f64`, `.f16`: a float.
    Float,
    /// `.b8 name[N]`: N bytes, a struct passed by value (such as
    /// `layout_device::Global`, 16 bytes).
    Bytes,
}

impl Param {
    /// How an error message names it: `pointer`, `u64`, `f32`, `16-byte struct`.
    pub fn describe(&self) -> String {
        match self.kind {
            ParamKind::Pointer => "pointer".to_string(),
            ParamKind::Int => format!("u{}", 8 * self.bytes),
            ParamKind::Float => format!("f{}", 8 * self.bytes),
            ParamKind::Bytes => format!("{}-byte struct", self.bytes),
        }
    }
}

/// The entry points (`.entry NAME(...)`) of a PTX text, in the order the
/// text declares them; comments are skipped.
///
/// ```
/// let ptx = "// .entry not_this(\n.visible .entry a()\n{\n\tret;\n}\n.entry b(\n\t.param .u64 b_param_0\n)\n{\n\tret;\n}\n";
/// let names: Vec<String> = layout_launch::entry_points(ptx).into_iter().map(|e| e.name).collect();
/// assert_eq!(names, ["a", "b"]);
/// ```
pub fn entry_points(ptx: &str) -> Vec<EntryPoint> {
    let text = strip_comments(ptx);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = find_directive(rest, ".entry") {
        rest = &rest[at + ".entry".len()..];
        let body = rest.trim_start();
        let name_len = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%'))
            .unwrap_or(body.len());
        if name_len == 0 {
            continue;
        }
        let name = body[..name_len].to_string();
        let after = body[name_len..].trim_start();
        let params = match after.strip_prefix('(') {
            Some(params) => params
                .find(')')
                .and_then(|close| params_of(&params[..close])),
            // No parameter list: a kernel without parameters.
            None => Some(Vec::new()),
        };
        let param_bytes = params.as_ref().map(|p| p.iter().map(|p| p.bytes).collect());
        out.push(EntryPoint {
            name,
            param_bytes,
            params,
        });
    }
    out
}

/// The text with `//` and `/* */` comments replaced by spaces.
///
/// One pass over the text: the shipped PTX has tens of thousands of line
/// comments and no block comment, so searching afresh for both kinds at
/// every comment would read the rest of the text each time.
fn strip_comments(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut rest = ptx;
    while let Some(slash) = rest.find('/') {
        let (before, from) = rest.split_at(slash);
        out.push_str(before);
        if let Some(line) = from.strip_prefix("//") {
            out.push(' ');
            rest = line.find('\n').map_or("", |e| &line[e..]);
        } else if let Some(block) = from.strip_prefix("/*") {
            out.push(' ');
            rest = block.find("*/").map_or("", |e| &block[e + 2..]);
        } else {
            out.push('/');
            rest = &from[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The offset of `directive` where it stands as a word of its own.
fn find_directive(text: &str, directive: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(directive) {
        let at = from + at;
        let before = text[..at].chars().next_back();
        let after = text[at + directive.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if !word(before) && !word(after) && before != Some('.') {
            return Some(at);
        }
        from = at + directive.len();
    }
    None
}

/// The parameters of a parameter list (the text between the parentheses).
fn params_of(list: &str) -> Option<Vec<Param>> {
    if list.trim().is_empty() {
        return Some(Vec::new());
    }
    list.split(',').map(param).collect()
}

/// One parameter: `.param .TYPE [.ptr ...] [.align N] name[[N]]`.
fn param(param: &str) -> Option<Param> {
    let mut words = param.split_whitespace();
    if words.next()? != ".param" {
        return None;
    }
    let mut ty = None;
    let mut pointer = false;
    let mut name = None;
    for w in words {
        if let Some(t) = w.strip_prefix('.') {
            if t == "ptr" {
                pointer = true;
            } else if ty.is_none() {
                ty = type_of(t);
            }
        } else if w.chars().all(|c| c.is_ascii_digit()) {
            // The N of `.align N`.
        } else {
            name = Some(w);
        }
    }
    let ((size, kind), name) = (ty?, name?);
    match name.split_once('[') {
        None if pointer => Some(Param {
            bytes: size,
            kind: ParamKind::Pointer,
        }),
        None => Some(Param { bytes: size, kind }),
        Some((_, count)) => {
            let count: usize = count.strip_suffix(']')?.trim().parse().ok()?;
            Some(Param {
                bytes: size.checked_mul(count)?,
                kind: ParamKind::Bytes,
            })
        }
    }
}

/// The size and kind of a PTX fundamental type (`u64`, `f32`, `b8`, ...).
fn type_of(ty: &str) -> Option<(usize, ParamKind)> {
    let (kind, bits) = ty.split_at(1);
    let kind = match kind {
        "u" | "s" | "b" => ParamKind::Int,
        "f" => ParamKind::Float,
        _ => return None,
    };
    let bytes = match bits {
        "8" => 1,
        "16" => 2,
        "32" => 4,
        "64" => 8,
        _ => return None,
    };
    Some((bytes, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry points of the project's kernels, as the Rust compiler's
    /// NVPTX backend writes them (kernels/scripts/build-ptx.sh).
    const KERNELS: &str = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.7\n.target sm_90\n.address_size 64\n\n\t// .globl\thgemm_f16\n.visible .entry hgemm_f16(\n\t.param .u64 .ptr .align 1 hgemm_f16_param_0,\n\t.param .u64 .ptr .align 1 hgemm_f16_param_1,\n\t.param .u64 .ptr .align 1 hgemm_f16_param_2,\n\t.param .u64 hgemm_f16_param_3,\n\t.param .u64 hgemm_f16_param_4,\n\t.param .u64 hgemm_f16_param_5\n)\n{\n\tret;\n}\n\t// .globl\tmma_atom\n.visible .entry mma_atom(\n\t.param .u64 .ptr .align 1 mma_atom_param_0,\n\t.param .u64 .ptr .align 1 mma_atom_param_1,\n\t.param .u64 .ptr .align 1 mma_atom_param_2,\n\t.param .u32 mma_atom_param_3\n)\n{\n\tret;\n}\n.visible .entry sgemm_f32(\n\t.param .u64 .ptr .align 1 sgemm_f32_param_0,\n\t.param .u64 .ptr .align 1 sgemm_f32_param_1,\n\t.param .u64 .ptr .align 1 sgemm_f32_param_2,\n\t.param .u64 sgemm_f32_param_3,\n\t.param .u64 sgemm_f32_param_4,\n\t.param .u64 sgemm_f32_param_5\n)\n.maxntid 256, 1, 1\n.minnctapersm 2\n{\n\tret;\n}\n";

    #[test]
    fn strips_both_kinds_of_comment_and_keeps_a_lone_slash() {
        let text = "a / b // c .entry x(\n/* d // e */f /* unclosed";
        assert_eq!(strip_comments(text), "a / b  \n f  ");
    }

    /// The shipped PTX (4.4 MB, about 34,000 line comments) is read in one
    /// pass: every entry the kernels crate exports is found.
    #[test]
    fn reads_the_shipped_ptx() {
        let ptx = include_str!("../../layout-gpu/ptx/layout_kernels.ptx");
        let e = entry_points(ptx);
        assert_eq!(e.len(), ptx.matches(".visible .entry ").count());
        assert!(e.iter().all(|e| e.params.is_some()));
    }

    #[test]
    fn reads_the_kernels_entry_points() {
        let e = entry_points(KERNELS);
        let names: Vec<&str> = e.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["hgemm_f16", "mma_atom", "sgemm_f32"]);
        assert_eq!(e[0].param_bytes, Some(vec![8; 6]));
        assert_eq!(e[1].param_bytes, Some(vec![8, 8, 8, 4]));
        assert_eq!(e[2].param_bytes, Some(vec![8; 6]));
        let kinds: Vec<ParamKind> = e[1]
            .params
            .as_ref()
            .unwrap()
            .iter()
            .map(|p| p.kind)
            .collect();
        use ParamKind::*;
        assert_eq!(kinds, [Pointer, Pointer, Pointer, Int]);
    }

    /// A kernel over `layout_device` buffers, as rustc writes it: the
    /// buffers are 16-byte structs (pointer and length).
    #[test]
    fn reads_struct_and_float_parameters() {
        let ptx = ".visible .entry scale(\n\t.param .align 8 .b8 scale_param_0[16],\n\t.param .align 8 .b8 scale_param_1[16],\n\t.param .f32 scale_param_2,\n\t.param .u64 scale_param_3\n)\n{\n\tret;\n}\n";
        let e = entry_points(ptx);
        let p = e[0].params.clone().unwrap();
        let text: Vec<String> = p.iter().map(Param::describe).collect();
        assert_eq!(text, ["16-byte struct", "16-byte struct", "f32", "u64"]);
        assert_eq!(e[0].param_bytes, Some(vec![16, 16, 4, 8]));
    }

    #[test]
    fn reads_nvcc_style_entries_and_struct_parameters() {
        let ptx = ".visible .entry sin_kernel(\n\t.param .u64 sin_kernel_param_0,\n\t.param .u32 sin_kernel_param_2\n)\n{}\n\
                   .entry with_struct (.param .align 8 .b8 p0[24], .param .f16 h, .param .s8 c)\n{}\n\
                   .entry no_params\n{}\n.entry empty()\n{}\n";
        let e = entry_points(ptx);
        let got: Vec<(&str, Option<Vec<usize>>)> = e
            .iter()
            .map(|e| (e.name.as_str(), e.param_bytes.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("sin_kernel", Some(vec![8, 4])),
                ("with_struct", Some(vec![24, 2, 1])),
                ("no_params", Some(vec![])),
                ("empty", Some(vec![])),
            ]
        );
    }

    #[test]
    fn skips_comments_and_other_directives() {
        let ptx = "/* .entry in_block(.param .u64 x) */\n// .entry in_line(\n.func helper(.param .u64 x)\n{}\n.entry real(.param .u64 x) // .entry trailing(\n{}\n.entryish\n";
        let names: Vec<String> = entry_points(ptx).into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["real"]);
    }

    #[test]
    fn an_unknown_parameter_type_leaves_the_sizes_unknown() {
        let e = entry_points(".entry k(.param .u64 a, .param .texref t)\n{}\n");
        assert_eq!(e[0].name, "k");
        assert_eq!(e[0].param_bytes, None);
        assert!(entry_points("no entries here").is_empty());
        // Unterminated comment and list: no panic.
        assert!(entry_points("/* .entry x(").is_empty());
        assert_eq!(entry_points(".entry x(.param .u64 a")[0].param_bytes, None);
    }
}
