//! `to-json` and `from-json`.

use super::*;

pub(super) fn to_json(
    file: &str,
    args: &ContractArgs,
    lenient: bool,
    compact: bool,
    extract: bool,
) -> Result<Output, Output> {
    // with --extract, the fixes made to the answer come first on stderr
    let (text, c, fixes) = if extract {
        extracted_document(file, args)?
    } else {
        let (text, c) = document_contract(file, args)?;
        (text, c, Output::default())
    };
    if lenient {
        let doc = mini::parse_lenient(&text, &c);
        let mut o = fixes;
        for d in doc.errors() {
            o = o.err(d.to_string());
        }
        let code = if doc.is_valid() {
            EXIT_OK
        } else {
            EXIT_INVALID
        };
        return Ok(o.out(json_text(&doc.into_canonical(), compact)).code(code));
    }
    match mini::parse(&text, &c) {
        Ok(doc) => Ok(fixes.out(json_text(&doc.into_canonical(), compact))),
        Err(e) => Ok(fixes
            .err(errors_text(&e))
            .err(format!("INVALID: {} error(s)", e.diagnostics().len()))
            .code(EXIT_INVALID)),
    }
}

pub(super) fn from_json(file: &str, args: &ContractArgs) -> Result<Output, Output> {
    json_document(file, args).map(|(text, _)| Output::default().out(text))
}

/// A canonical JSON object serialized to its `.mini` text, under the
/// contract its `prefix` names (or --contract / -p). An object the contract
/// refuses is `INVALID` with the parser's codes. Used by `from-json` and by
/// `stats` on a `.json` input (the same data, measured from its JSON side).
pub(super) fn json_document(file: &str, args: &ContractArgs) -> Result<(String, Contract), Output> {
    let bytes = read_input(file).map_err(|e| {
        Output::default()
            .err(format!("error: {e}"))
            .code(EXIT_USAGE)
    })?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        Output::default()
            .err(format!("INVALID: {file} is not a JSON document: {e}"))
            .code(EXIT_INVALID)
    })?;
    let detected = value
        .get("prefix")
        .and_then(Value::as_str)
        .map(str::to_string);
    let c = match resolve(args, detected)? {
        Resolved::Found(c) => c,
        Resolved::Missing(why) => return Err(unverified(why)),
    };
    match mini::dumps(&value, &c) {
        Ok(text) => Ok((text, c)),
        Err(e) => Err(Output::default()
            .err(errors_text(&e))
            .err(format!("INVALID: {} error(s)", e.diagnostics().len()))
            .code(EXIT_INVALID)),
    }
}
