//! `check-forks`: contracts, fork invariants and fixtures of a directory.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::contract::{Contract, Registry};
use crate::error::{Code, Error, Result};
use crate::value::{equivalent, parse};
use mini::dumps;

/// One reason a family fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The SPEC code when one applies: E20 (contract), E21 (fork
    /// invariant), or the parse/serialize error met in a fixture.
    pub code: Option<Code>,
    /// What is wrong, naming the file concerned.
    pub message: String,
}

impl Problem {
    fn new(code: Option<Code>, message: impl Into<String>) -> Problem {
        Problem {
            code,
            message: message.into(),
        }
    }

    fn from_error(context: &str, e: &Error) -> Problem {
        Problem::new(e.code(), format!("{context}: {e}"))
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            Some(c) => write!(f, "{c}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The outcome for one family folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyCheck {
    /// The folder name under the checked directory.
    pub folder: String,
    /// The contract's prefix (`None` when the contract did not load).
    pub prefix: Option<String>,
    /// Records of `fixtures/valid.mini`, when it parsed.
    pub records: Option<usize>,
    /// The family and its ancestors (`q`, `a`), as far as they are known.
    pub lineage: Vec<String>,
    /// The fixture files that were checked.
    pub fixtures: Vec<String>,
    /// Every problem found (empty = the family passes).
    pub problems: Vec<Problem>,
    /// What passes but can go wrong: a list of free text with no count
    /// key ([`mini::Contract::delimiter_warnings`]). Not a failure.
    pub warnings: Vec<String>,
}

impl FamilyCheck {
    /// True when nothing is wrong.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    /// The name to show: the prefix, else the folder.
    pub fn name(&self) -> &str {
        self.prefix.as_deref().unwrap_or(&self.folder)
    }
}

/// The outcome of [`check_forks`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// Every family folder, by folder name.
    pub families: Vec<FamilyCheck>,
    /// True when every family passes.
    pub ok: bool,
}

impl CheckReport {
    /// Number of failing families.
    pub fn failed(&self) -> usize {
        self.families.iter().filter(|f| !f.passed()).count()
    }

    /// The closing line: `ALL FORKS PASS (14 forks)`, or
    /// `2 FORK(S) FAIL (14 forks)`.
    pub fn summary(&self) -> String {
        let n = self.families.len();
        if self.ok {
            format!("ALL FORKS PASS ({n} forks)")
        } else {
            format!("{} FORK(S) FAIL ({n} forks)", self.failed())
        }
    }

    /// The whole report: per family either
    /// `q      ok  (12 records, 7 fixtures, lineage q -> a)` or
    /// `x      FAIL` followed by one indented line per problem, then its
    /// warnings (`  warning: …`), then [`CheckReport::summary`]. Ends with
    /// a newline.
    pub fn render(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for fam in &self.families {
            if fam.passed() {
                writeln!(
                    f,
                    "{:6} ok  ({} records, {} fixtures, lineage {})",
                    fam.name(),
                    fam.records.unwrap_or(0),
                    fam.fixtures.len(),
                    fam.lineage.join(" -> ")
                )?;
            } else {
                writeln!(f, "{:6} FAIL", fam.name())?;
                for p in &fam.problems {
                    writeln!(f, "  - {p}")?;
                }
            }
            for w in &fam.warnings {
                writeln!(f, "  warning: {w}")?;
            }
        }
        writeln!(f, "{}", self.summary())
    }
}

/// Where two canonical values first differ (`items[3].options[0]`), under
/// the structural equality of [`equivalent`].
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    if equivalent(a, b) {
        return None;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let (va, vb) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                if let Some(d) = first_difference(va, vb, &p) {
                    return Some(d);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(va, vb, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
        }
        _ => {}
    }
    let show = |v: &Value| {
        let s = v.to_string();
        match s.char_indices().nth(80) {
            Some((i, _)) => format!("{}…", &s[..i]),
            None => s,
        }
    };
    Some(format!(
        "{}: {} vs {}",
        if path.is_empty() { "(root)" } else { path },
        show(a),
        show(b)
    ))
}

/// The first line where two texts differ, 1-based, with both lines.
fn first_line_difference(want: &str, got: &str) -> String {
    let (mut w, mut g) = (want.split('\n'), got.split('\n'));
    let mut line = 1;
    loop {
        match (w.next(), g.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                let show =
                    |s: Option<&str>| s.map_or("<end of text>".to_string(), |s| format!("{s:?}"));
                return format!("line {line}: file has {}, dumps gives {}", show(a), show(b));
            }
        }
    }
}

fn read_text(path: &Path) -> std::result::Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn read_json(path: &Path) -> std::result::Result<Value, String> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// A `.mini` fixture and its canonical JSON: the text parses strictly, the
/// canonical object it gives equals the JSON (structurally), and the JSON
/// serializes back to the text byte for byte, trailing line feeds of the
/// file aside.
fn check_pair(c: &Contract, mini: &Path, json: &Path, out: &mut Vec<Problem>) -> Option<usize> {
    let mname = file_name(mini);
    let jname = file_name(json);
    let text = match read_text(mini) {
        Ok(t) => t,
        Err(e) => {
            out.push(Problem::new(None, e));
            return None;
        }
    };
    let doc = match parse(&text, c) {
        Ok(d) => Some(d),
        Err(e) => {
            out.push(Problem::from_error(
                &format!("{mname} does not validate"),
                &e,
            ));
            None
        }
    };
    let want = match read_json(json) {
        Ok(v) => v,
        Err(e) => {
            out.push(Problem::new(None, e));
            return None;
        }
    };
    if let Some(doc) = &doc {
        if let Some(d) = first_difference(&doc.to_canonical(), &want, "") {
            out.push(Problem::new(
                None,
                format!("{mname} parses to a canonical object that differs from {jname} at {d}"),
            ));
        }
    }
    match dumps(&want, c) {
        Ok(got) => {
            let expected = text.trim_end_matches('\n');
            if got != expected {
                out.push(Problem::new(
                    None,
                    format!(
                        "{jname} does not serialize to {mname} byte for byte ({})",
                        first_line_difference(expected, &got)
                    ),
                ));
            }
        }
        Err(e) => out.push(Problem::from_error(
            &format!("{jname} does not serialize"),
            &e,
        )),
    }
    // both directions, as the reference's roundtrip_ok
    if doc.is_some() {
        if let Err(e) = mini::check_roundtrip(&want, c) {
            out.push(Problem::new(None, format!("{jname}: {e}")));
        }
    }
    doc.map(|d| d.records().len())
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Checks the fixtures of one family into `fam`.
fn check_fixtures(c: &Contract, dir: &Path, fam: &mut FamilyCheck) {
    let fx = dir.join("fixtures");
    let (valid, canon) = (fx.join("valid.mini"), fx.join("canonical.json"));
    if !valid.is_file() || !canon.is_file() {
        fam.problems.push(Problem::new(
            None,
            "missing fixtures/valid.mini or fixtures/canonical.json",
        ));
    } else {
        fam.fixtures.push("valid.mini".into());
        fam.fixtures.push("canonical.json".into());
        fam.records = check_pair(c, &valid, &canon, &mut fam.problems);
    }
    let (esc, esc_json) = (fx.join("escaping.mini"), fx.join("escaping.json"));
    match (esc.is_file(), esc_json.is_file()) {
        (true, true) => {
            fam.fixtures.push("escaping.mini".into());
            fam.fixtures.push("escaping.json".into());
            check_pair(c, &esc, &esc_json, &mut fam.problems);
        }
        (true, false) => {
            fam.fixtures.push("escaping.mini".into());
            match read_text(&esc) {
                Ok(t) => {
                    if let Err(e) = parse(&t, c) {
                        fam.problems
                            .push(Problem::from_error("escaping.mini does not validate", &e));
                    }
                }
                Err(e) => fam.problems.push(Problem::new(None, e)),
            }
        }
        (false, true) => fam.problems.push(Problem::new(
            None,
            "fixtures/escaping.json has no escaping.mini",
        )),
        (false, false) => {}
    }
    let mut bad: Vec<PathBuf> = std::fs::read_dir(&fx)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let n = file_name(p);
                    n.starts_with("bad_") && n.ends_with(".mini") && p.is_file()
                })
                .collect()
        })
        .unwrap_or_default();
    bad.sort();
    for b in bad {
        let name = file_name(&b);
        match read_text(&b) {
            Ok(t) => {
                if parse(&t, c).is_ok() {
                    fam.problems.push(Problem::new(
                        None,
                        format!("{name} should be rejected but validates"),
                    ));
                }
            }
            Err(e) => fam.problems.push(Problem::new(None, e)),
        }
        fam.fixtures.push(name);
    }
}

/// Checks every family under `dir` (each `DIR/<folder>/contract.json`) the
/// way the upstream `mini check-forks` does, and reports every problem
/// instead of stopping at the first:
///
/// 1. the contract loads (E20), its folder is named after its prefix and no
///    other folder declares the same prefix (E21);
/// 2. a fork's parent is in the directory and the fork invariants I2–I4
///    hold against it (E21, [`crate::contract::check_fork`]); the parent
///    chain must not loop;
/// 3. `fixtures/valid.mini` and `fixtures/canonical.json` exist, the text
///    parses strictly, its canonical object equals the JSON structurally
///    ([`crate::value::equivalent`]), and `dumps(canonical.json)` equals the
///    text byte for byte once the file's trailing line feeds are removed
///    (dumps writes no final newline while fixture files end with one: the
///    upstream check compares against `text.rstrip("\n")`; a CR is kept, so
///    a CRLF file fails);
/// 4. `escaping.mini` and `escaping.json`, when present, pass the same pair
///    checks (both directions); every `bad_*.mini` is rejected by the strict
///    parser.
///
/// `Err` only when `dir` cannot be read. The report's [`CheckReport::ok`]
/// is true when every family passes (a directory without families passes).
pub fn check_forks(dir: impl AsRef<Path>) -> Result<CheckReport> {
    let dir = dir.as_ref();
    let mut folders: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map_err(|e| Error::message(format!("cannot read {}: {e}", dir.display())))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("contract.json").is_file())
        .map(|p| (file_name(&p), p))
        .collect();
    folders.sort();
    let mut reg = Registry::new();
    let mut families: Vec<FamilyCheck> = Vec::with_capacity(folders.len());
    let mut contracts: Vec<Option<Contract>> = Vec::with_capacity(folders.len());
    for (folder, path) in &folders {
        let mut fam = FamilyCheck {
            folder: folder.clone(),
            prefix: None,
            records: None,
            lineage: Vec::new(),
            fixtures: Vec::new(),
            problems: Vec::new(),
            warnings: Vec::new(),
        };
        let loaded = match Contract::from_path(path.join("contract.json")) {
            Ok(c) => Some(c),
            Err(e) => {
                let diags = e.diagnostics();
                if diags.is_empty() {
                    fam.problems
                        .push(Problem::new(Some(Code::E20), format!("contract.json: {e}")));
                } else {
                    for d in diags {
                        fam.problems.push(Problem::new(
                            Some(d.code()),
                            format!("contract.json: {}", d.message()),
                        ));
                    }
                }
                None
            }
        };
        if let Some(c) = &loaded {
            fam.prefix = Some(c.prefix().to_string());
            fam.warnings = c.delimiter_warnings();
            if c.prefix() != folder {
                fam.problems.push(Problem::new(
                    Some(Code::E21),
                    format!(
                        "folder '{folder}' must be named after its prefix '{}'",
                        c.prefix()
                    ),
                ));
            }
            if reg.insert(c.clone()).is_err() {
                fam.problems.push(Problem::new(
                    Some(Code::E21),
                    format!("prefix '{}' is declared by another folder too", c.prefix()),
                ));
            }
        }
        families.push(fam);
        contracts.push(loaded);
    }
    let fork_errors: BTreeMap<String, Vec<_>> = reg.check_forks();
    for ((fam, c), (_, path)) in families.iter_mut().zip(&contracts).zip(&folders) {
        let Some(c) = c else { continue };
        if let Some(diags) = fork_errors.get(c.prefix()) {
            for d in diags {
                fam.problems
                    .push(Problem::new(Some(d.code()), d.message().to_string()));
            }
        }
        // lineage, guarding against loops
        let mut lineage = vec![c.prefix().to_string()];
        let mut cur = c.parent();
        while let Some(p) = cur {
            if lineage.iter().any(|l| l == p) {
                fam.problems.push(Problem::new(
                    Some(Code::E21),
                    format!("the parent chain loops: {} -> {p}", lineage.join(" -> ")),
                ));
                break;
            }
            lineage.push(p.to_string());
            cur = reg.get(p).and_then(Contract::parent);
        }
        fam.lineage = lineage;
        check_fixtures(c, path, fam);
    }
    let ok = families.iter().all(FamilyCheck::passed);
    Ok(CheckReport { families, ok })
}
