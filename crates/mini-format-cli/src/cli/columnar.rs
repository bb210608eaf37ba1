//! `mini to-parquet` and `mini to-arrow`: documents into one columnar file
//! (crate `mini-format-arrow`, ADR 0030), read line by line in bounded
//! memory.

use std::io::{BufRead, BufReader};

use mini_arrow::{Converter, Input, Options, Summary};

use super::*;

/// The arguments of `to-parquet` and `to-arrow`.
#[derive(Debug, Args)]
pub struct ColumnarArgs {
    /// A .mini file, a directory (every `.mini` file in it, in name order,
    /// with `source` and `source_line` columns) or `-` for stdin.
    input: String,
    #[command(flatten)]
    contract: ContractArgs,
    /// The file to write; replaced only when the command succeeds (a
    /// lenient run that reported problems still writes it).
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    out: PathBuf,
    /// Keep the valid records of invalid documents: every problem goes to
    /// stderr, the file holds the valid records, and the exit code is 1 if
    /// there was any problem. Without it, the first problem is exit 1 and
    /// no file is written.
    #[arg(long)]
    lenient: bool,
    /// Rows per record batch (and per Arrow IPC message).
    #[arg(long, value_name = "N", default_value_t = 8192)]
    batch_size: usize,
    /// Add the `source` and `source_line` columns for a single file or
    /// stdin too.
    #[arg(long)]
    source: bool,
}

/// Which file to write.
#[derive(Debug, Clone, Copy)]
pub enum Columnar {
    /// Parquet (`to-parquet`).
    Parquet,
    /// An Arrow IPC stream (`to-arrow`).
    ArrowIpc,
}

fn usage_err(msg: impl AsRef<str>) -> Output {
    Output::default()
        .err(format!("error: {}", msg.as_ref()))
        .code(EXIT_USAGE)
}

/// The prefix named by the first significant line of `reader`, and the
/// bytes read to find it (at most one line past the blank ones).
fn first_prefix(reader: &mut dyn BufRead) -> (Option<String>, Vec<u8>) {
    let mut seen = Vec::new();
    loop {
        let start = seen.len();
        match reader
            .take(mini::Limits::default().max_line_bytes as u64 + 2)
            .read_until(b'\n', &mut seen)
        {
            Ok(0) | Err(_) => return (None, seen),
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&seen[start..]);
        let text = line.trim_start_matches('\u{feff}').trim();
        if !text.is_empty() {
            return (header_prefix(text), seen);
        }
    }
}

/// `mini to-parquet` / `mini to-arrow`.
pub fn to_columnar(a: &ColumnarArgs, format: Columnar) -> Result<Output, Output> {
    if a.batch_size == 0 {
        return Err(usage_err("--batch-size must be at least 1"));
    }
    let path = Path::new(&a.input);
    let mut source = a.source;
    // the inputs, and the prefix the first one names
    let mut stdin_head: Option<(Vec<u8>, BufReader<std::io::Stdin>)> = None;
    let (files, detected): (Vec<(String, PathBuf)>, Option<String>) = if a.input == "-" {
        let mut r = BufReader::with_capacity(1 << 16, std::io::stdin());
        let (p, head) = first_prefix(&mut r);
        stdin_head = Some((head, r));
        (Vec::new(), p)
    } else if path.is_dir() {
        source = true;
        let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(path)
            .map_err(|e| usage_err(format!("cannot read {}: {e}", path.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "mini"))
            .map(|p| {
                (
                    p.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                    p,
                )
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(usage_err(format!("no .mini file in {}", path.display())));
        }
        let detected = std::fs::File::open(&files[0].1)
            .ok()
            .and_then(|f| first_prefix(&mut BufReader::new(f)).0);
        (files, detected)
    } else {
        let f = std::fs::File::open(path)
            .map_err(|e| usage_err(format!("cannot read {}: {e}", a.input)))?;
        let detected = first_prefix(&mut BufReader::new(f)).0;
        (vec![(a.input.clone(), path.to_path_buf())], detected)
    };
    let contract = match resolve(&a.contract, detected)? {
        Resolved::Found(c) => c,
        Resolved::Missing(why) => return Err(unverified(why)),
    };
    let options = Options {
        batch_size: a.batch_size,
        lenient: a.lenient,
        source,
        ..Options::default()
    };
    let converter = Converter::new(&contract, options).map_err(|e| usage_err(e.to_string()))?;

    // write next to OUT, rename on success
    let tmp = a.out.with_file_name(format!(
        ".{}.tmp-{}",
        a.out.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let file = std::fs::File::create(&tmp)
        .map_err(|e| usage_err(format!("cannot write {}: {e}", tmp.display())))?;
    let out = std::io::BufWriter::with_capacity(1 << 16, file);
    let inputs: Vec<Input<'_>> = match stdin_head {
        Some((head, rest)) => {
            // the bytes read to find the prefix, then the rest of stdin
            vec![Input::reader("-", std::io::Cursor::new(head).chain(rest))]
        }
        None => files
            .iter()
            .map(|(id, p)| Input::file(p).with_id(id.clone()))
            .collect(),
    };
    let written = match format {
        Columnar::Parquet => converter.write_parquet(inputs, out),
        Columnar::ArrowIpc => converter.write_ipc(inputs, out),
    };
    let summary: Summary = match written {
        Ok(s) => s,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            let mut o = Output::default();
            if e.diagnostics().is_empty() {
                return Err(usage_err(e.to_string()));
            }
            for d in e.diagnostics() {
                o = o.out(d.to_string());
            }
            return Err(o
                .out(format!(
                    "INVALID: nothing written to {} (use --lenient to keep the valid records)",
                    a.out.display()
                ))
                .code(EXIT_INVALID));
        }
    };
    std::fs::rename(&tmp, &a.out).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        usage_err(format!("cannot write {}: {e}", a.out.display()))
    })?;
    let mut o = Output::default();
    for d in &summary.diagnostics {
        o = o.err(d.to_string());
    }
    let line = format!(
        "wrote {}: {} record(s) from {} document(s), {} batch(es)",
        a.out.display(),
        summary.records,
        summary.documents,
        summary.batches
    );
    Ok(if summary.diagnostics.is_empty() {
        o.out(format!("OK: {line}"))
    } else {
        o.out(format!(
            "LENIENT: {line}; {} problem(s) on stderr",
            summary.diagnostics.len()
        ))
        .code(EXIT_INVALID)
    })
}
