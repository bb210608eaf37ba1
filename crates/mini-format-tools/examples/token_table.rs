//! Prints the markdown token tables of `docs/tokens.md`: the 14 upstream
//! families (`forks/<prefix>/fixtures/valid.mini`, n = 12 records each),
//! o200k_base, every format, the savings of `.mini`, their means next to the
//! reference's published means, and a reconciliation with the reference's
//! published per-family counts.
//!
//! ```text
//! cargo run --release --features tokens --example token_table
//! ```
//!
//! The conformance data is read from `../shared/conformance` next to the
//! crate, or from the directory in `MINI_CONFORMANCE`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mini::Contract;
use mini_tools::tokens::{render_canonical, Encoding, Format, Stats};
use serde_json::Value;

/// The reference's published means (`benchmark/results/summary_12.csv`
/// upstream, o200k_base, n = 12), in this crate's sign convention:
/// `.mini` vs compact JSON, vs TOON, vs CSV.
const PUBLISHED_MEANS: [(&str, Format, f64); 3] = [
    ("compact JSON", Format::JsonCompact, -33.8),
    ("TOON", Format::Toon, -37.4),
    ("CSV (flattened)", Format::Csv, 5.0),
];

/// The reference's published per-family token counts (same file): `.mini`,
/// compact JSON, pretty JSON, CSV, TOON, flattened TOON.
const PUBLISHED: [(&str, [usize; 6]); 14] = [
    ("a", [813, 1314, 2097, 811, 1537, 928]),
    ("card", [523, 753, 1151, 493, 859, 543]),
    ("cat", [381, 609, 1021, 367, 737, 406]),
    ("cls", [384, 615, 1101, 419, 736, 472]),
    ("code", [613, 848, 1282, 569, 952, 613]),
    ("log", [524, 755, 1144, 496, 906, 568]),
    ("map", [252, 388, 635, 220, 258, 258]),
    ("ner", [227, 375, 659, 204, 253, 253]),
    ("q", [1162, 1737, 2626, 1165, 1999, 1284]),
    ("r", [380, 562, 957, 373, 647, 426]),
    ("s", [314, 482, 815, 278, 574, 325]),
    ("sum", [591, 813, 1207, 559, 933, 612]),
    ("tc", [499, 758, 1205, 472, 878, 522]),
    ("us", [459, 705, 1121, 442, 799, 487]),
];

const COLS: [Format; 6] = [
    Format::Mini,
    Format::JsonCompact,
    Format::JsonPretty,
    Format::Csv,
    Format::Toon,
    Format::ToonFlat,
];

const VERSUS: [Format; 4] = [
    Format::JsonCompact,
    Format::Toon,
    Format::Csv,
    Format::ToonFlat,
];

fn conformance_dir() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance"),
    }
}

/// Integral floats written as integers (`0.0` → `0`).
fn plain_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            let s = n.to_string();
            if let Some(int) = s.strip_suffix(".0") {
                if let Ok(n) = int.parse::<serde_json::Number>() {
                    *v = Value::Number(n);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(plain_numbers),
        Value::Object(o) => o.values_mut().for_each(plain_numbers),
        _ => {}
    }
}

/// The canonical object in the shape the reference benchmarked (its SPEC 1.0
/// canonical form): no `prefix` key, no `n`/`v` in the header, integral
/// header floats written as integers. Key order is kept.
fn reference_shape(canonical: &Value) -> Value {
    let mut v = canonical.clone();
    if let Value::Object(o) = &mut v {
        o.shift_remove("prefix");
        if let Some(h) = o.get_mut("header") {
            if let Value::Object(h) = h {
                h.shift_remove("n");
                h.shift_remove("v");
            }
            plain_numbers(h);
        }
    }
    v
}

/// Stats of one family: as this crate measures it (SPEC 1.1 canonical
/// object) and on the reference's object shape.
fn family(dir: &Path, enc: Encoding) -> mini::Result<(Stats, Stats)> {
    let contract = Contract::from_path(dir.join("contract.json"))?;
    let text = std::fs::read_to_string(dir.join("fixtures/valid.mini"))?;
    let s = mini_tools::tokens::stats(&text, &contract, enc)?;
    let canonical = mini::parse(&text, &contract)?.into_canonical();
    let r = render_canonical(&reference_shape(&canonical), &contract)?;
    let old = Stats::from_renderings(&r, contract.prefix(), s.records, enc)?;
    Ok((s, old))
}

fn pct(x: f64) -> String {
    format!("{x:+.1} %")
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs.fold((0.0, 0_usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

fn print_tokens_table(all: &[Stats]) {
    let mut head = String::from("| family | n |");
    let mut rule = String::from("| --- | ---: |");
    for f in COLS {
        head.push_str(&format!(" {} |", f.label()));
        rule.push_str(" ---: |");
    }
    for f in VERSUS {
        head.push_str(&format!(" .mini vs {} |", f.label()));
        rule.push_str(" ---: |");
    }
    println!("{head}\n{rule}");
    for s in all {
        let mut line = format!("| {} | {} |", s.prefix, s.records);
        for f in COLS {
            line.push_str(&format!(" {} |", s.tokens(f)));
        }
        for f in VERSUS {
            line.push_str(&format!(" {} |", pct(-s.saving_pct(Format::Mini, f))));
        }
        println!("{line}");
    }
    let mut line = String::from("| **total / mean** | |");
    for f in COLS {
        line.push_str(&format!(
            " {} |",
            all.iter().map(|s| s.tokens(f)).sum::<usize>()
        ));
    }
    for f in VERSUS {
        let m = mean(all.iter().map(|s| -s.saving_pct(Format::Mini, f)));
        line.push_str(&format!(" **{}** |", pct(m)));
    }
    println!("{line}");
}

fn main() -> ExitCode {
    let enc = Encoding::O200kBase;
    let forks = conformance_dir().join("forks");
    let mut dirs: Vec<PathBuf> = match std::fs::read_dir(&forks) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("fixtures/valid.mini").is_file())
            .collect(),
        Err(e) => {
            eprintln!("cannot read {}: {e}", forks.display());
            return ExitCode::FAILURE;
        }
    };
    dirs.sort();
    let (mut now, mut old) = (Vec::new(), Vec::new());
    for d in &dirs {
        match family(d, enc) {
            Ok((s, o)) => {
                now.push(s);
                old.push(o);
            }
            Err(e) => {
                eprintln!("{}: {e}", d.display());
                return ExitCode::FAILURE;
            }
        }
    }
    if now.is_empty() {
        eprintln!(
            "no family with fixtures/valid.mini under {}",
            forks.display()
        );
        return ExitCode::FAILURE;
    }

    println!(
        "### Tokens per format ({enc}, SPEC 1.1 canonical object)\n\n\
         Savings = (.mini − other) / other × 100: negative = .mini needs fewer tokens.\n"
    );
    print_tokens_table(&now);

    println!("\n### Means of the {} families\n", now.len());
    println!("| .mini vs | this crate (SPEC 1.1 object) | this crate (reference's object shape) | reference, published |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, f, published) in PUBLISHED_MEANS {
        println!(
            "| {name} | {:+.2} % | {:+.2} % | {} |",
            mean(now.iter().map(|s| -s.saving_pct(Format::Mini, f))),
            mean(old.iter().map(|s| -s.saving_pct(Format::Mini, f))),
            pct(published)
        );
    }

    println!(
        "\n### Reconciliation: the reference's object shape vs its published counts\n\n\
         Each cell: tokens measured here on the reference's object shape; `= ` when equal to\n\
         the published count, otherwise the published count follows.\n"
    );
    let mut head = String::from("| family |");
    let mut rule = String::from("| --- |");
    for f in COLS {
        head.push_str(&format!(" {} |", f.label()));
        rule.push_str(" ---: |");
    }
    println!("{head}\n{rule}");
    let (mut equal, mut compared) = (0, 0);
    for s in &old {
        let Some((_, published)) = PUBLISHED.iter().find(|(p, _)| *p == s.prefix) else {
            println!("| {} | (not in the published table) |", s.prefix);
            continue;
        };
        let mut line = format!("| {} |", s.prefix);
        for (f, want) in COLS.iter().zip(published) {
            let got = s.tokens(*f);
            compared += 1;
            if got == *want {
                equal += 1;
                line.push_str(&format!(" = {got} |"));
            } else {
                line.push_str(&format!(" {got} (published {want}) |"));
            }
        }
        println!("{line}");
    }
    println!("\n{equal} of {compared} counts equal the published ones.");
    ExitCode::SUCCESS
}
