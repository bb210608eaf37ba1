//! The model side: `prompt`, `grammar`, `to-schema`, `from-schema`, `tokens`, `stats`.

use super::*;

pub(super) fn prompt(
    args: ContractArgs,
    lang: &str,
    example: Option<usize>,
) -> Result<Output, Output> {
    let lang: mini_tools::prompt::Lang = lang.parse().map_err(usage)?;
    let c = named_contract(&args)?;
    Ok(Output::default().out(mini_tools::prompt::spec_block(&c, lang, example).trim_end()))
}

pub(super) fn grammar(
    args: ContractArgs,
    format: &str,
    records: Option<usize>,
) -> Result<Output, Output> {
    let format: mini_tools::grammar::GrammarFormat = format.parse().map_err(|_| {
        usage(format!(
            "--format must be gbnf, lark or regex, not '{format}'"
        ))
    })?;
    let c = named_contract(&args)?;
    Ok(Output::default().out(mini_tools::grammar::grammar(&c, format, records).trim_end()))
}

pub(super) fn to_schema(
    family: Option<&str>,
    prefix: Option<String>,
    contract: Option<PathBuf>,
    record: bool,
    forks: Option<PathBuf>,
) -> Result<Output, Output> {
    // the positional FAMILY is a prefix, or a contract.json path
    let (prefix, contract) = match family {
        Some(f) if f.ends_with(".json") || Path::new(f).is_file() => (None, Some(PathBuf::from(f))),
        Some(f) => (Some(f.to_string()), contract),
        None => (prefix, contract),
    };
    let c = named_contract(&ContractArgs {
        contract,
        prefix,
        forks,
    })?;
    Ok(Output::default().out(json_text(&mini_tools::schema::to_schema(&c, record), false)))
}

pub(super) fn from_schema(
    file: &str,
    prefix: Option<&str>,
    strict: bool,
    name: Option<&str>,
    records_key: Option<&str>,
) -> Result<Output, Output> {
    let bytes = read_input(file).map_err(usage)?;
    let schema: Value =
        serde_json::from_slice(&bytes).map_err(|e| usage(format!("{file}: not JSON: {e}")))?;
    let (c, warnings) = match mini_tools::schema::from_schema(&schema, prefix, strict) {
        Ok(got) => got,
        Err(e) => return Ok(Output::default().err(errors_text(&e)).code(EXIT_INVALID)),
    };
    let mut o = Output::default();
    for w in warnings {
        o = o.err(format!("warning: {w}"));
    }
    if name.is_none() && records_key.is_none() {
        return Ok(o.out(json_text(c.to_value(), false)));
    }
    // --name and --records-key rewrite the contract, which is loaded again
    // (a records key the format refuses is E20, as in a contract.json)
    let mut raw = c.to_value().clone();
    if let Value::Object(m) = &mut raw {
        if let Some(n) = name {
            m.insert("name".to_string(), n.into());
        }
        if let Some(k) = records_key {
            m.insert("records_key".to_string(), k.into());
        }
    }
    match Contract::from_value(raw) {
        Ok(c) => Ok(o.out(json_text(c.to_value(), false))),
        Err(e) => Ok(o.err(errors_text(&e)).code(EXIT_INVALID)),
    }
}

#[cfg(feature = "tokens")]
pub(super) fn encoding(enc: &str) -> Result<mini_tools::tokens::Encoding, Output> {
    enc.parse().map_err(|_| {
        usage(format!(
            "--enc must be o200k_base or cl100k_base, not '{enc}'"
        ))
    })
}

#[cfg(feature = "tokens")]
pub(super) fn tokens(file: &str, enc: &str) -> Result<Output, Output> {
    let enc = encoding(enc)?;
    let text = text_input(file)?;
    // the count `mini stats` shows for the same document
    let n = mini_tools::tokens::count_document(&text, enc).map_err(|e| usage(e.to_string()))?;
    Ok(Output::default().out(format!("{n} tokens ({}), {} bytes", enc.name(), text.len())))
}

#[cfg(feature = "tokens")]
pub(super) fn stats(
    file: &str,
    args: &ContractArgs,
    enc: &str,
    format: &str,
) -> Result<Output, Output> {
    let enc = encoding(enc)?;
    if format != "table" && format != "json" {
        return Err(usage(format!(
            "--format must be table or json, not '{format}'"
        )));
    }
    let (text, c) = if is_json_input(file)? {
        json_document(file, args)?
    } else {
        document_contract(file, args)?
    };
    match mini_tools::tokens::stats(&text, &c, enc) {
        Ok(st) if format == "json" => Ok(Output::default().out(json_text(
            &serde_json::to_value(&st).unwrap_or(Value::Null),
            false,
        ))),
        Ok(st) => Ok(Output::default().out(st.render_table().trim_end())),
        Err(e) => Ok(Output::default().err(errors_text(&e)).code(EXIT_INVALID)),
    }
}

/// Whether `stats` reads a canonical JSON object: a file ending in `.json`,
/// or a file whose first non-blank byte is `{` (a `.mini` document starts
/// with its prefix, a letter). Stdin is read as `.mini`.
#[cfg(feature = "tokens")]
fn is_json_input(file: &str) -> Result<bool, Output> {
    if file.ends_with(".json") {
        return Ok(true);
    }
    if file == "-" {
        return Ok(false);
    }
    let bytes = read_input(file).map_err(usage)?;
    Ok(bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'))
}
