//! `extract`, `repair-prompt` and `merge`: model output, repaired.

use super::*;

pub(super) fn extract(file: &str, prefix: Option<&str>) -> Result<Output, Output> {
    let text = text_input(file)?;
    let got = mini_tools::repair::extract(&text, prefix);
    let mut o = Output::default();
    for f in &got.fixes {
        o = o.err(format!("fixed: {f}"));
    }
    o.stdout.push_str(&got.text);
    if !got.text.ends_with('\n') {
        o.stdout.push('\n');
    }
    Ok(o)
}

/// Reads a document, extracts it from any surrounding prose (reporting the
/// fixes) and resolves its contract.
pub(super) fn extracted_document(
    file: &str,
    args: &ContractArgs,
) -> Result<(String, Contract, Output), Output> {
    let raw = text_input(file)?;
    let got = mini_tools::repair::extract(&raw, args.prefix.as_deref());
    let mut o = Output::default();
    for f in &got.fixes {
        o = o.err(format!("fixed: {f}"));
    }
    match resolve(args, mini::detect_prefix(&got.text))? {
        Resolved::Found(c) => Ok((got.text, c, o)),
        Resolved::Missing(why) => Err(unverified(why)),
    }
}

pub(super) fn repair_prompt(file: &str, args: &ContractArgs, lang: &str) -> Result<Output, Output> {
    let lang: mini_tools::repair::Lang = lang.parse().map_err(|_| {
        Output::default()
            .err(format!("error: --lang must be en or es, not '{lang}'"))
            .code(EXIT_USAGE)
    })?;
    let (text, c, o) = extracted_document(file, args)?;
    match mini_tools::repair::repair_request(&text, &c, lang) {
        None => Ok(o.err("valid: nothing to repair")),
        Some(req) => Ok(o.out(req.prompt.trim_end())),
    }
}

pub(super) fn merge(file: &str, answer: &str, args: &ContractArgs) -> Result<Output, Output> {
    let (text, c, mut o) = extracted_document(file, args)?;
    let answer_text = text_input(answer)?;
    let Some(req) = mini_tools::repair::repair_request(&text, &c, mini_tools::repair::Lang::En)
    else {
        o.stdout.push_str(&text);
        return Ok(o.err("valid: nothing to merge"));
    };
    let m = mini_tools::repair::merge(&text, &req, &answer_text, &c);
    for f in &m.fixes {
        o = o.err(format!("answer fixed: {f}"));
    }
    if let Some(p) = &m.answer_problem {
        o = o.err(format!("answer rejected: {p}"));
    }
    for i in &m.applied {
        o = o.err(format!("applied [{}]", req.items[*i].tag()));
    }
    for i in &m.dropped {
        o = o.err(format!("dropped [{}]", req.items[*i].tag()));
    }
    for u in &m.unresolved {
        o = o.err(format!(
            "unresolved [{}]: {}",
            req.items[u.item].tag(),
            u.reason
        ));
    }
    let doc = mini::parse_lenient(&m.text, &c);
    // a rejected correction: what remains wrong is what the correction got
    // wrong (the original line stays, but the model's answer is what needs
    // fixing next), listed instead of the original line's errors
    let rejected: Vec<&mini_tools::repair::Unresolved> = m
        .unresolved
        .iter()
        .filter(|u| !u.errors.is_empty())
        .collect();
    let mut shown: Vec<usize> = Vec::new();
    for d in doc.errors() {
        let at = rejected
            .iter()
            .find(|u| req.items[u.item].lines.contains(&d.line()));
        match at {
            Some(u) if !shown.contains(&u.item) => {
                shown.push(u.item);
                for e in &u.errors {
                    o = o.err(format!(
                        "remaining [{}] (the rejected correction): {e}",
                        req.items[u.item].tag()
                    ));
                }
            }
            Some(_) => {}
            None => o = o.err(format!("remaining: {d}")),
        }
    }
    o.stdout.push_str(&m.text);
    if !m.text.ends_with('\n') {
        o.stdout.push('\n');
    }
    Ok(o.code(if doc.is_valid() {
        EXIT_OK
    } else {
        EXIT_INVALID
    }))
}
