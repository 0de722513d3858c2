//! docs/first-kernel.md shows the template's files whole: each block
//! after a `<!-- file: PATH -->` marker must be that file, byte for byte,
//! so the page stays what CI builds (kernels/template/build-outside.sh).

use std::path::Path;

#[test]
fn the_first_kernel_page_shows_the_template_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/first-kernel.md")).unwrap();
    let mut shown = Vec::new();
    let mut rest = doc.as_str();
    while let Some(at) = rest.find("<!-- file: ") {
        rest = &rest[at + "<!-- file: ".len()..];
        let (path, after) = rest
            .split_once(" -->\n")
            .expect("a marker ends with ` -->`");
        // The fence line (```rust, ```toml), then the file, then ```.
        let (_fence, body) = after.split_once('\n').expect("a code block follows");
        let end = body.find("\n```\n").expect("the code block ends") + 1;
        let file =
            std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(
            body[..end] == file,
            "docs/first-kernel.md shows {path} other than it is"
        );
        shown.push(path.to_string());
        rest = &body[end..];
    }
    assert_eq!(
        shown,
        [
            "kernels/template/Cargo.toml",
            "kernels/template/src/lib.rs",
            "kernels/template/host/Cargo.toml",
            "kernels/template/host/src/main.rs",
        ]
    );
}
