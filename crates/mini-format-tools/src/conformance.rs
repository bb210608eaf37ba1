//! The conformance runner: runs language-neutral cases (`cases/*.json`, the
//! upstream format) with the five modes judged as the upstream
//! `conformance/README.en.md` specifies. Shared by `tests/conformance.rs`
//! and `mini conformance`.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::contract::{check_fork, Contract};
use crate::error::{Diagnostic, Error, Result};
use crate::value::{equivalent, parse, parse_lenient};
use mini::dumps;

/// One case of the suite.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// Unique id.
    pub id: String,
    /// Category (file).
    #[serde(default)]
    pub category: String,
    /// What the case checks.
    #[serde(default)]
    pub description: String,
    /// `strict`, `lenient`, `dumps`, `contract` or `fork`.
    pub mode: String,
    /// Official family whose contract the case uses.
    #[serde(default)]
    pub family: Option<String>,
    /// Embedded contract.
    #[serde(default)]
    pub contract: Option<Value>,
    /// Parent family name or embedded contract (fork mode).
    #[serde(default)]
    pub parent: Option<Value>,
    /// Input: text, canonical object, contract or null.
    #[serde(default)]
    pub input: Value,
    /// Expected outcome.
    pub expected: Value,
    /// Build features of `mini-format` the case needs (only
    /// `arbitrary_precision` is known): a build without them does not run
    /// the case and reports it as not run, never as passed.
    #[serde(default)]
    pub requires: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct CaseFile {
    cases: Vec<Case>,
}

/// The outcome of one case.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The case id.
    pub id: String,
    /// The file it came from.
    pub file: PathBuf,
    /// Why it failed (`None` = passed or not run).
    pub failure: Option<String>,
    /// Why it was not run (a build feature it requires is off).
    pub not_run: Option<String>,
}

/// The outcomes of a run.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Every case run, in order.
    pub outcomes: Vec<Outcome>,
}

impl Report {
    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.failure.is_none() && o.not_run.is_none())
            .count()
    }

    /// Cases that failed.
    pub fn failed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.failure.is_some()).count()
    }

    /// Cases not run (a build feature they require is off).
    pub fn not_run(&self) -> usize {
        self.outcomes.iter().filter(|o| o.not_run.is_some()).count()
    }

    /// The closing line: `N passed, M failed`, then `, K not run` when some
    /// cases could not run in this build.
    pub fn summary(&self) -> String {
        let mut s = format!("{} passed, {} failed", self.passed(), self.failed());
        if self.not_run() > 0 {
            s.push_str(&format!(", {} not run", self.not_run()));
        }
        s
    }
}

/// Where family contracts are looked up: `DIR/forks/<family>/contract.json`
/// for each case directory, then the extra directories given.
#[derive(Debug, Clone, Default)]
pub struct Runner {
    forks: Vec<PathBuf>,
}

type Pairs = BTreeSet<(String, usize)>;

/// `validate` (which checks without keeping values, see
/// [`crate::check::Scratch::check_only`]) must report exactly the
/// diagnostics of the parse.
fn validate_agrees(
    text: &str,
    c: &Contract,
    errors: &[Diagnostic],
) -> std::result::Result<(), String> {
    let checked = crate::validate(text, c);
    if checked == errors {
        Ok(())
    } else {
        Err(format!(
            "validate reports {} but the parse {}",
            show(&pairs(&checked)),
            show(&pairs(errors))
        ))
    }
}

fn pairs(diags: &[Diagnostic]) -> Pairs {
    diags
        .iter()
        .map(|d| (d.code().to_string(), d.line()))
        .collect()
}

fn expected_pairs(v: &Value) -> std::result::Result<Pairs, String> {
    let arr = v.as_array().ok_or("expected.errors is not an array")?;
    arr.iter()
        .map(|e| {
            let code = e
                .get("code")
                .and_then(Value::as_str)
                .ok_or("error without code")?;
            let line = e
                .get("line")
                .and_then(Value::as_u64)
                .ok_or("error without line")?;
            Ok((code.to_string(), line as usize))
        })
        .collect()
}

fn show(p: &Pairs) -> String {
    let v: Vec<String> = p.iter().map(|(c, l)| format!("{c}@{l}")).collect();
    format!("[{}]", v.join(" "))
}

fn compact(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 400 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(400).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}

impl Runner {
    /// A runner that also looks for families in `forks`.
    pub fn new(forks: impl IntoIterator<Item = PathBuf>) -> Runner {
        Runner {
            forks: forks.into_iter().collect(),
        }
    }

    fn family(&self, name: &str, case_dir: &Path) -> std::result::Result<Contract, String> {
        let mut dirs = vec![case_dir.join("forks")];
        dirs.extend(self.forks.iter().cloned());
        for d in dirs {
            let p = d.join(name).join("contract.json");
            if p.is_file() {
                return Contract::from_path(&p).map_err(|e| format!("family '{name}': {e}"));
            }
        }
        Err(format!(
            "family '{name}' not found (looked in DIR/forks and --forks)"
        ))
    }

    fn contract_of(&self, case: &Case, dir: &Path) -> std::result::Result<Contract, String> {
        match (&case.family, &case.contract) {
            (Some(f), _) => self.family(f, dir),
            (None, Some(c)) => {
                Contract::from_value(c.clone()).map_err(|e| format!("embedded contract: {e}"))
            }
            (None, None) => Err("case has neither family nor contract".to_string()),
        }
    }

    /// Runs one case; `Err` carries the reason it failed.
    pub fn run_case(&self, case: &Case, dir: &Path) -> std::result::Result<(), String> {
        let exp = &case.expected;
        match case.mode.as_str() {
            "strict" => {
                let c = self.contract_of(case, dir)?;
                let text = case.input.as_str().ok_or("input is not text")?;
                let res = parse(text, &c);
                let errors = match &res {
                    Ok(_) => &[][..],
                    Err(e) => e.diagnostics(),
                };
                validate_agrees(text, &c, errors)?;
                if let Some(errs) = exp.get("errors") {
                    let want = expected_pairs(errs)?;
                    return match res {
                        Ok(_) => Err(format!("accepted; expected errors {}", show(&want))),
                        Err(e) if pairs(e.diagnostics()) == want => Ok(()),
                        Err(e) => Err(format!(
                            "errors {} != expected {} ({e})",
                            show(&pairs(e.diagnostics())),
                            show(&want)
                        )),
                    };
                }
                let doc = res.map_err(|e| format!("rejected: {e}"))?;
                let got = doc.to_canonical();
                if let Some(want) = exp.get("canonical") {
                    if !equivalent(&got, want) {
                        return Err(format!(
                            "canonical {} != expected {}",
                            compact(&got),
                            compact(want)
                        ));
                    }
                }
                if let Some(mini) = exp.get("mini").and_then(Value::as_str) {
                    let text = dumps(&got, &c).map_err(|e| format!("dumps failed: {e}"))?;
                    if text != mini {
                        return Err(format!("dumps {text:?} != expected {mini:?}"));
                    }
                    let again = parse(&text, &c).map_err(|e| format!("re-parse failed: {e}"))?;
                    if !equivalent(&again.to_canonical(), &got) {
                        return Err("round trip changed the canonical object".to_string());
                    }
                }
                Ok(())
            }
            "lenient" => {
                let c = self.contract_of(case, dir)?;
                let text = case.input.as_str().ok_or("input is not text")?;
                let doc = parse_lenient(text, &c);
                validate_agrees(text, &c, doc.errors())?;
                let got_pairs = pairs(doc.errors());
                let want_pairs = match exp.get("errors") {
                    Some(e) => expected_pairs(e)?,
                    None => Pairs::new(),
                };
                if got_pairs != want_pairs {
                    return Err(format!(
                        "errors {} != expected {}",
                        show(&got_pairs),
                        show(&want_pairs)
                    ));
                }
                match exp.get("canonical") {
                    Some(want) => {
                        if !doc.has_header() {
                            return Err("no document was built".to_string());
                        }
                        let got = doc.to_canonical();
                        if !equivalent(&got, want) {
                            return Err(format!(
                                "canonical {} != expected {}",
                                compact(&got),
                                compact(want)
                            ));
                        }
                    }
                    None => {
                        if doc.has_header() {
                            return Err("a document was built; expected none".to_string());
                        }
                    }
                }
                if let Some(d) = exp.get("diagnostics") {
                    let diag = doc.diagnostics();
                    if let Some(want) = d.get("invalid_lines") {
                        let want: Vec<usize> =
                            serde_json::from_value(want.clone()).map_err(|e| e.to_string())?;
                        if diag.invalid_lines != want {
                            return Err(format!(
                                "invalid_lines {:?} != expected {want:?}",
                                diag.invalid_lines
                            ));
                        }
                    }
                    if let Some(want) = d.get("missing_records").and_then(Value::as_u64) {
                        // The suite's number is `max(0, n − lines)` and 0 when
                        // nothing is claimed missing; ours keeps an unknown n
                        // unknown (None), which claims nothing (ADR 0006).
                        let got = diag.missing_records.unwrap_or(0);
                        if got != want {
                            return Err(format!(
                                "missing_records {:?} != expected {want}",
                                diag.missing_records
                            ));
                        }
                    }
                }
                Ok(())
            }
            "dumps" => {
                let c = self.contract_of(case, dir)?;
                let res = dumps(&case.input, &c);
                // `to_string_with_contract` must agree with `dumps`, text
                // for text and error for error (one serializer, ADR 0023)
                let typed = mini::to_string_with_contract(&case.input, &c);
                let same = match (&res, &typed) {
                    (Ok(a), Ok(b)) => a == b,
                    (Err(a), Err(b)) => pairs(a.diagnostics()) == pairs(b.diagnostics()),
                    _ => false,
                };
                if !same {
                    return Err(format!(
                        "to_string_with_contract {typed:?} differs from dumps {res:?}"
                    ));
                }
                if exp.get("rejected").and_then(Value::as_bool) == Some(true) {
                    let e = match res {
                        Ok(t) => return Err(format!("serialized {t:?}; expected a rejection")),
                        Err(e) => e,
                    };
                    // as upstream's runner: the serializer's error (its
                    // first diagnostic) has one of the expected pairs; the
                    // diagnostics after it are not judged
                    if let Some(errs) = exp.get("errors") {
                        let want = expected_pairs(errs)?;
                        let first = e
                            .diagnostics()
                            .first()
                            .map(|d| (d.code().to_string(), d.line()));
                        if !first.as_ref().is_some_and(|p| want.contains(p)) {
                            let got = first
                                .map_or("no diagnostic".to_string(), |(c, l)| format!("{c}@{l}"));
                            return Err(format!(
                                "first error {got} not among expected {} ({e})",
                                show(&want)
                            ));
                        }
                    }
                    return Ok(());
                }
                let text = res.map_err(|e| format!("dumps failed: {e}"))?;
                let want = exp
                    .get("mini")
                    .and_then(Value::as_str)
                    .ok_or("expected.mini missing")?;
                if text != want {
                    return Err(format!("dumps {text:?} != expected {want:?}"));
                }
                parse(&text, &c).map_err(|e| format!("output rejected by strict parse: {e}"))?;
                Ok(())
            }
            "contract" => {
                let got = match Contract::from_value(case.input.clone()) {
                    Ok(_) => Pairs::new(),
                    Err(e) => pairs(e.diagnostics()),
                };
                let want = expected_pairs(exp.get("errors").unwrap_or(&Value::Array(vec![])))?;
                if got != want {
                    return Err(format!("errors {} != expected {}", show(&got), show(&want)));
                }
                Ok(())
            }
            "fork" => {
                let child = self.contract_of(case, dir)?;
                let parent = match &case.parent {
                    Some(Value::String(p)) => self.family(p, dir)?,
                    Some(v @ Value::Object(_)) => Contract::from_value(v.clone())
                        .map_err(|e| format!("parent contract: {e}"))?,
                    _ => return Err("fork case without parent".to_string()),
                };
                let got = pairs(&check_fork(&child, &parent));
                let want = expected_pairs(exp.get("errors").unwrap_or(&Value::Array(vec![])))?;
                if got != want {
                    return Err(format!("errors {} != expected {}", show(&got), show(&want)));
                }
                Ok(())
            }
            other => Err(format!("unknown mode '{other}'")),
        }
    }

    /// Runs every `cases/*.json` under `dir` (or every `*.json` in `dir`
    /// itself when it has no `cases/` folder).
    pub fn run_dir(&self, dir: &Path) -> Result<Report> {
        let cases_dir = if dir.join("cases").is_dir() {
            dir.join("cases")
        } else {
            dir.to_path_buf()
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&cases_dir)
            .map_err(|e| Error::message(format!("cannot read {}: {e}", cases_dir.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        let mut report = Report::default();
        for file in files {
            let text = std::fs::read_to_string(&file)?;
            let cf: CaseFile = serde_json::from_str(&text)
                .map_err(|e| Error::message(format!("{}: not a case file: {e}", file.display())))?;
            for case in cf.cases {
                if let Some(missing) = case.requires.iter().find(|f| !feature_on(f)) {
                    report.outcomes.push(Outcome {
                        id: case.id.clone(),
                        file: file.clone(),
                        failure: None,
                        not_run: Some(format!("needs mini-format's `{missing}` feature")),
                    });
                    continue;
                }
                let r = catch_unwind(AssertUnwindSafe(|| self.run_case(&case, dir)))
                    .unwrap_or_else(|_| Err("the implementation panicked".to_string()));
                report.outcomes.push(Outcome {
                    id: case.id.clone(),
                    file: file.clone(),
                    failure: r.err(),
                    not_run: None,
                });
            }
        }
        Ok(report)
    }
}

/// Whether a build feature a case requires is on in this build.
fn feature_on(feature: &str) -> bool {
    match feature {
        "arbitrary_precision" => mini::ARBITRARY_PRECISION,
        _ => false,
    }
}
