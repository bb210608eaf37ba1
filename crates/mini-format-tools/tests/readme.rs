//! The READMEs as a reader sees them on GitHub: no rustdoc-hidden lines
//! (`# …` inside a ```rust block shows literally there), and the workspace
//! README's first two commands unchanged. Their code runs as doctests
//! (`src/lib.rs` includes the workspace README; each crate its own).

const READMES: [(&str, &str); 4] = [
    ("README.md", include_str!("../../../README.md")),
    (
        "crates/mini-format/README.md",
        include_str!("../../mini-format/README.md"),
    ),
    (
        "crates/mini-format-tools/README.md",
        include_str!("../README.md"),
    ),
    (
        "crates/mini-format-cli/README.md",
        include_str!("../../mini-format-cli/README.md"),
    ),
];

#[test]
fn rust_blocks_hide_no_lines() {
    for (path, text) in READMES {
        let mut in_rust = false;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                in_rust = !in_rust && line.trim_start_matches('`').starts_with("rust");
                continue;
            }
            assert!(
                !(in_rust && (line.starts_with("# ") || line == "#")),
                "{path}:{}: a hidden doctest line shows literally on GitHub: {line}",
                i + 1
            );
        }
    }
}

#[test]
fn the_first_two_commands_stay_as_they_are() {
    let first: Vec<&str> = READMES[0]
        .1
        .lines()
        .skip_while(|l| *l != "```sh")
        .skip(1)
        .take(2)
        .collect();
    assert_eq!(
        first,
        [
            // the main job on a shipped example: `mini ask` with a recorded
            // model (crates/mini-format-cli/tests/ask.rs runs the same line)
            r#"cargo run -p mini-format-cli -- ask -p quiz --forks examples/forks --task-file examples/model/task.txt --model-cmd "sh examples/model/replay.sh"   # ask a (recorded) model, get validated JSON"#,
            "cargo test --workspace                                                              # all tests, incl. the upstream conformance suite",
        ]
    );
}

#[test]
fn the_readme_has_an_install_section_and_a_tutorial() {
    let readme = READMES[0].1;
    for needle in [
        "## Install",
        "cargo install --path crates/mini-format-cli",
        "## Five-minute tutorial",
        "mini_tools::repair",
        "mini_tools::workflow",
        "docs/workflow.md",
        "docs/contract.md",
        "../shared/conformance",
    ] {
        assert!(readme.contains(needle), "README lacks {needle:?}");
    }
}
