//! The README's step table against the step kinds' descriptors (`model::steps`): every kind
//! is documented, in order, with exactly the modifiers it accepts, and shown observing
//! something exactly when it does. A kind or a modifier added to the language and not to the
//! README (or the other way round) fails here.

use mcp_conformance_lang::model::steps::{KIND_MODIFIERS, STEP_KINDS};

/// One row of the table: the kind, its modifiers as listed after `+`, and whether its
/// observation column shows one.
#[derive(Debug, PartialEq)]
struct Row {
    kind: String,
    modifiers: Vec<String>,
    observes: bool,
}

/// The word a backticked token starts with: `nowait: H` -> `nowait`.
fn word(token: &str) -> String {
    token
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

fn rows(readme: &str) -> Vec<Row> {
    let start = readme.find("\n## Steps\n").expect("a Steps section");
    let section = &readme[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    section[..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split(" | ").collect();
            let first = cells[0].trim_start_matches("| ");
            let (head, tail) = first.split_once(" + ").unwrap_or((first, ""));
            let kind = word(head.trim_start_matches('`'));
            let modifiers = tail
                .split('`')
                .skip(1)
                .step_by(2)
                .map(word)
                .filter(|w| KIND_MODIFIERS.contains(&w.as_str()))
                .collect();
            let observation = cells.last().map_or("", |c| c.trim_end_matches(" |").trim());
            Row {
                kind,
                modifiers,
                observes: observation != "—",
            }
        })
        .collect()
}

#[test]
fn the_readme_documents_every_step_kind_as_the_language_defines_it() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("conformance/README.md");
    let documented = rows(&readme);
    let defined: Vec<Row> = STEP_KINDS
        .iter()
        .map(|k| Row {
            kind: k.name.to_owned(),
            modifiers: k.modifiers.iter().map(|m| (*m).to_owned()).collect(),
            observes: k.observes,
        })
        .collect();
    assert_eq!(documented, defined);
}
