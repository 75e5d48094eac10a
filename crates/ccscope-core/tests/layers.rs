//! Imports flow one way: each unit of the crate (a top-level module, or one of `control`'s
//! layers) imports only from its own layer and the layers listed before it. Paths through
//! `crate::`, `super::` and `self::` are checked, in code and tests alike; a parent's re-exports
//! of its children (`pub use window::...`) are the usual facade and are not.

use std::path::Path;

/// The layers, lowest first.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["time"],
    &["rng"],
    &["units"],
    &["scenario"],
    &["control"],
    &["control/window"],
    &["control/rate"],
    &["control/receiver"],
    &["control/media"],
    &["control/catalog"],
    &["net"],
    &["apps"],
    &["transport"],
    &["config"],
    &["round"],
    &["build"],
    &["realnet"],
];

fn layer(unit: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| l.contains(&unit))
        .unwrap_or_else(|| panic!("{unit} is in no layer"))
}

/// The unit of a module path: `["control", "window", "aimd"]` is in `control/window`.
fn unit(path: &[&str]) -> String {
    match path {
        ["control", sub @ ("window" | "rate" | "receiver" | "media" | "catalog"), ..] => {
            format!("control/{sub}")
        }
        [first, ..] => first.to_string(),
        [] => String::new(),
    }
}

/// Every source file under `dir` with its module path.
fn sources(dir: &Path, module: &[String], out: &mut Vec<(Vec<String>, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let mut module = module.to_vec();
        let name = path.file_stem().unwrap().to_str().unwrap();
        if !["mod", "lib"].contains(&name) {
            module.push(name.to_string());
        }
        if path.is_dir() {
            sources(&path, &module, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((module, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

#[test]
fn imports_respect_the_layers() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut files,
    );
    let mut wrong = Vec::new();
    for (module, text) in files.iter().filter(|(m, _)| !m.is_empty()) {
        let module: Vec<&str> = module.iter().map(String::as_str).collect();
        let from = unit(&module);
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for token in line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
                let mut segments = token.split("::").filter(|s| !s.is_empty()).peekable();
                let mut path = match segments.next() {
                    Some("crate") => Vec::new(),
                    Some("self") => module.clone(),
                    Some("super") => module[..module.len() - 1].to_vec(),
                    _ => continue,
                };
                while segments.next_if_eq(&"super").is_some() {
                    path.pop();
                }
                path.extend(segments);
                let to = unit(&path);
                if !to.is_empty() && layer(&to) > layer(&from) {
                    wrong.push(format!(
                        "{} imports {to}: {}",
                        module.join("::"),
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}
