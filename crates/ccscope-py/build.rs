//! Records where this build of ccscope comes from, for every result it writes: the commit of
//! the ccscope source tree it was built from and whether that tree had uncommitted changes
//! (`CCSCOPE_GIT_COMMIT`, `CCSCOPE_GIT_DIRTY`). Built outside a git checkout (an sdist), both
//! read "unknown"; so they do in a copy of the tree inside some other repository.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Every file of the source tree whose change may make the build dirty: the Rust sources, the
/// Python package and the project files (not the built extension, which each build rewrites).
fn sources(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("Cargo.toml"), root.join("pyproject.toml")];
    let mut stack = vec![root.join("crates"), root.join("python")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("rs" | "py" | "toml" | "pyi")
            ) {
                out.push(path);
            }
        }
    }
    out
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    // The ccscope tree's own repository only, not one it may sit inside (a vendored copy).
    let own = git(&root, &["rev-parse", "--show-toplevel"])
        .and_then(|top| Path::new(&top).canonicalize().ok())
        .is_some_and(|top| root.canonicalize().is_ok_and(|r| r == top));
    let commit = if own {
        git(&root, &["rev-parse", "HEAD"])
    } else {
        None
    };
    // Only changes inside the ccscope tree count, not a checkout it may sit in.
    let dirty = commit.as_ref().and_then(|_| {
        git(
            &root,
            &["status", "--porcelain", "--untracked-files=no", "--", "."],
        )
    });
    let dirty = match dirty {
        Some(s) if s.is_empty() => "false",
        Some(_) => "true",
        None => "unknown",
    };
    println!(
        "cargo:rustc-env=CCSCOPE_GIT_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    println!("cargo:rustc-env=CCSCOPE_GIT_DIRTY={dirty}");
    for dir in ["--git-dir", "--git-common-dir"] {
        if let Some(d) = git(&root, &["rev-parse", dir]) {
            let d = if Path::new(&d).is_absolute() {
                PathBuf::from(d)
            } else {
                root.join(d)
            };
            for f in ["HEAD", "index", "packed-refs", "refs/heads"] {
                println!("cargo:rerun-if-changed={}", d.join(f).display());
            }
        }
    }
    for f in sources(&root) {
        println!("cargo:rerun-if-changed={}", f.display());
    }
}
