//! Selective repair (`mini_tools::repair`): extracting a document from a model's
//! answer, building the repair request and merging the model's corrections.

use mini::{parse, parse_lenient, Code, Contract};
use mini_tools::repair::{extract, merge, repair_request, Lang, RepairRequest, TransportFix};

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

fn example(path: &str) -> String {
    let full = format!("{}/../../examples/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

fn quiz() -> Contract {
    Contract::from_json(&example("forks/quiz/contract.json")).unwrap()
}

/// A small contract: a unique id, an int and a list.
fn people() -> Contract {
    Contract::from_json(
        r#"{
            "prefix": "p",
            "core": [
                {"name": "id", "type": "str", "unique": true},
                {"name": "age", "type": "int", "min": 0, "max": 150},
                {"name": "tags", "type": "list", "item": "str"}
            ],
            "extensions": [{"name": "note", "type": "str"}]
        }"#,
    )
    .unwrap()
}

fn codes(text: &str, contract: &Contract) -> Vec<Code> {
    parse_lenient(text, contract)
        .errors()
        .iter()
        .map(|d| d.code())
        .collect()
}

fn request(doc: &str, contract: &Contract) -> RepairRequest {
    repair_request(doc, contract, Lang::En).expect("the document is invalid")
}

const Q1: &str = "q1|Where does photosynthesis mainly take place?|chloroplasts*,nucleus,mitochondria,ribosomes|1|remember|biology,cells|0.9,-1,0.25";
const Q2: &str = "q2|Which gas is released as a by-product?|carbon dioxide,oxygen*,nitrogen,hydrogen|2|understand|biology|1.1,-0.3,0.25";
const Q3: &str =
    "q3|Light reactions produce ATP and …?|NADPH*,glucose,starch,water|3|apply||1.4,0.2,0.2";

// ---------------------------------------------------------------------------
// extract
// ---------------------------------------------------------------------------

#[test]
fn extract_leaves_a_clean_document_alone() {
    let doc = example("quiz.mini");
    let ex = extract(&doc, Some("quiz"));
    assert_eq!(ex.text, doc);
    assert!(ex.fixes.is_empty());
    // blank lines before the header are not prose: kept, nothing reported
    let ex = extract("\n\np|n=0\n", Some("p"));
    assert_eq!(ex.text, "\n\np|n=0\n");
    assert!(ex.fixes.is_empty());
}

#[test]
fn extract_removes_prose_and_fences_reporting_each_fix() {
    let answer = "Sure! Here is the document you asked for.\n\n```mini\np|n=1\na|3|x\n```\nLet me know if you need more.\n";
    let ex = extract(answer, Some("p"));
    assert_eq!(ex.text, "p|n=1\na|3|x\n");
    assert_eq!(
        ex.fixes,
        vec![
            TransportFix::SkippedProse { lines: 1 },
            TransportFix::OpeningFence {
                line: 3,
                lang: Some("mini".to_string())
            },
            TransportFix::ClosingFence { line: 6 },
            TransportFix::TrailingProse { lines: 1 },
        ]
    );
    let shown: Vec<String> = ex.fixes.iter().map(ToString::to_string).collect();
    assert_eq!(shown[0], "skipped 1 line(s) of prose before the document");
    assert_eq!(
        shown[1],
        "removed the opening code fence at line 3 (```mini)"
    );
    assert!(shown[2].contains("closing code fence at line 6"));
    assert!(shown[3].contains("1 line(s) after the closing code fence"));
}

#[test]
fn extract_strips_bom_and_crlf_and_bare_fences() {
    let answer = "\u{feff}```\r\np|n=1\r\na|3|x\r\n```\r\n";
    let ex = extract(answer, Some("p"));
    assert_eq!(ex.text, "p|n=1\na|3|x\n");
    assert_eq!(
        ex.fixes,
        vec![
            TransportFix::Bom,
            TransportFix::OpeningFence {
                line: 1,
                lang: None
            },
            TransportFix::ClosingFence { line: 4 },
            TransportFix::Crlf { count: 2 },
        ]
    );
    assert_eq!(
        TransportFix::Crlf { count: 2 }.to_string(),
        "converted 2 CRLF line end(s) to LF"
    );
    assert_eq!(TransportFix::Bom.to_string(), "removed the byte-order mark");
}

#[test]
fn extract_without_prefix_finds_a_header_looking_line() {
    let answer = "The answer | with a pipe is prose.\n~~~text\nq-x_1|n=1|k=2\nz|1\n~~~";
    let ex = extract(answer, None);
    assert_eq!(ex.text, "q-x_1|n=1|k=2\nz|1\n");
    assert_eq!(
        ex.fixes,
        vec![
            TransportFix::SkippedProse { lines: 1 },
            TransportFix::OpeningFence {
                line: 2,
                lang: Some("text".to_string())
            },
            TransportFix::ClosingFence { line: 5 },
        ]
    );
    // with a prefix, a header of another family is not the document
    let ex = extract("x|n=1\np|n=0", Some("p"));
    assert_eq!(ex.text, "p|n=0");
    assert_eq!(ex.fixes, vec![TransportFix::SkippedProse { lines: 1 }]);
}

#[test]
fn extract_keeps_unfenced_trailing_prose_and_closed_blocks_count_as_prose() {
    // A closed code block before the header is prose; prose after an
    // unfenced document is kept so the parser reports it.
    let answer = "```json\n{}\n```\np|n=1\na|1|x\nThat's all.";
    let ex = extract(answer, Some("p"));
    assert_eq!(ex.text, "p|n=1\na|1|x\nThat's all.");
    assert_eq!(ex.fixes, vec![TransportFix::SkippedProse { lines: 3 }]);
}

#[test]
fn extract_without_header_takes_the_first_code_block() {
    let ex = extract("Here:\n```mini\nzz|n=1\n```\nbye", Some("p"));
    assert_eq!(ex.text, "zz|n=1\n");
    assert_eq!(ex.fixes.len(), 4);
    // no header, no fence: the text as it is
    let ex = extract("nothing here", Some("p"));
    assert_eq!(ex.text, "nothing here");
    assert!(ex.fixes.is_empty());
}

// ---------------------------------------------------------------------------
// repair_request
// ---------------------------------------------------------------------------

#[test]
fn valid_document_needs_no_request() {
    let c = quiz();
    assert!(repair_request(&example("quiz.mini"), &c, Lang::En).is_none());
    assert!(repair_request(&example("quiz.mini"), &c, Lang::Es).is_none());
}

#[test]
fn request_lists_invalid_lines_with_their_errors_and_the_answer_format() {
    let c = quiz();
    let bad_q2 = Q2.replace(",hydrogen", "");
    let doc = format!("quiz|n=3|k=4\n{Q1}\n{bad_q2}\n{Q3}");
    let req = request(&doc, &c);
    assert_eq!(req.items.len(), 1);
    assert_eq!(req.items[0].lines, 3..=3);
    assert_eq!(req.items[0].text, bad_q2);
    assert_eq!(req.items[0].errors[0].code(), Code::E07);
    assert!(req.not_repaired.is_empty());
    let p = &req.prompt;
    assert!(p.contains(&format!("[L3] {bad_q2}")), "{p}");
    assert!(p.contains("  - E07 [options]: "), "{p}");
    assert!(p.contains("quiz|n=3|k=4"), "the header is given as context");
    assert!(p.contains("\nquiz|n=1\n"), "the answer header: {p}");
    assert!(p.contains("exactly 1 line(s)"), "{p}");
    assert!(p.contains("- alone to drop"), "{p}");
    assert!(p.contains("Write nothing else"), "{p}");
    assert!(p.contains("options:mlist<str>*exactly_one"), "{p}");
    assert!(!p.contains(Q1), "valid lines are not sent");
    assert_eq!(req.answer_header(&c), "quiz|n=1");
}

#[test]
fn request_in_spanish() {
    let c = quiz();
    let doc = format!("quiz|n=2|k=4\n{Q1}\nq2|sin opciones");
    let req = repair_request(&doc, &c, Lang::Es).unwrap();
    let p = &req.prompt;
    assert!(
        p.starts_with("Un documento .mini de la familia 'quiz'"),
        "{p}"
    );
    assert!(p.contains("[L3] q2|sin opciones"), "{p}");
    assert!(p.contains("Responde con exactamente 2 línea(s)"), "{p}");
    assert!(p.contains("\nquiz|n=1\n"), "{p}");
    assert!(p.contains("No escribas nada más"), "{p}");
    assert!(!p.contains("Answer with"), "{p}");
    // the validator's messages are English in every language: said so
    assert!(
        p.contains("los mensajes del validador están en inglés"),
        "{p}"
    );
    // same items whatever the language
    assert_eq!(req.items, request(&doc, &c).items);
    assert_eq!("es".parse::<Lang>(), Ok(Lang::Es));
    assert_eq!(Lang::from_code("EN"), Some(Lang::En));
    assert!("fr".parse::<Lang>().is_err());
}

#[test]
fn split_record_is_one_item_and_merges_back() {
    let c = quiz();
    let (head, tail) = Q2.split_at(Q2.find(" as a").unwrap());
    let doc = format!("quiz|n=3|k=4\n{Q1}\n{head}\n{}\n{Q3}\n", &tail[1..]);
    assert_eq!(codes(&doc, &c), vec![Code::E05, Code::E05, Code::E04]);
    let req = request(&doc, &c);
    assert_eq!(req.items.len(), 1, "{:?}", req.items);
    let item = &req.items[0];
    assert_eq!(item.lines, 3..=4);
    assert!(item.is_split());
    assert_eq!(item.tag(), "L3-L4");
    assert_eq!(item.text, format!("{head}\n{}", &tail[1..]));
    assert_eq!(item.errors.len(), 2);
    assert!(
        req.prompt.contains(&format!("[L3-L4] {head}\n")),
        "{}",
        req.prompt
    );
    assert!(req.prompt.contains("ONE record"), "{}", req.prompt);
    // the E04 caused by the extra line is mentioned, not repaired
    assert_eq!(req.not_repaired.len(), 1);
    assert_eq!(req.not_repaired[0].code(), Code::E04);
    assert!(req.prompt.contains("  - E04: "), "{}", req.prompt);

    // the model writes the record on one line, with the break escaped
    let fixed = format!("{head}\\n{}", &tail[1..]);
    let out = merge(&doc, &req, &format!("quiz|n=1\n{fixed}\n"), &c);
    assert_eq!(out.applied, vec![0]);
    assert!(out.unresolved.is_empty() && out.dropped.is_empty());
    assert!(out.fixes.is_empty());
    assert_eq!(out.text, format!("quiz|n=3|k=4\n{Q1}\n{fixed}\n{Q3}\n"));
    let merged = parse(&out.text, &c).unwrap();
    assert_eq!(merged.records().len(), 3);
    assert_eq!(
        merged.records()[1].value["stem"],
        "Which gas is released\nas a by-product?"
    );

    // answering with the raw break again is two lines for one item
    let out = merge(&doc, &req, &format!("quiz|n=1\n{head}\n{}", &tail[1..]), &c);
    assert!(out.applied.is_empty());
    assert_eq!(out.unresolved.len(), 1);
    assert!(out.unresolved[0].reason.contains("2 correction line(s)"));
    assert_eq!(out.text, doc);
}

#[test]
fn short_lines_that_do_not_join_into_a_record_stay_separate() {
    let c = people();
    let doc = "p|n=2\na|x\nb|y";
    let req = request(doc, &c);
    let lines: Vec<_> = req.items.iter().map(|i| i.lines.clone()).collect();
    assert_eq!(lines, vec![2..=2, 3..=3]);
    assert!(req.prompt.contains("[L2] a|x") && req.prompt.contains("[L3] b|y"));
}

#[test]
fn request_mentions_header_errors_without_repairing_them() {
    let c = quiz();
    // k is missing: E12 on the header line; records then fail their count key
    let doc = format!("quiz|n=1\n{Q1}");
    let req = request(&doc, &c);
    assert!(req
        .not_repaired
        .iter()
        .any(|d| d.code() == Code::E12 && d.line() == 1));
    assert!(req.prompt.contains("E12 line 1 [k]"), "{}", req.prompt);

    // only a header error: no item, the answer is the bare header
    let c = people();
    let req = request("p|n=1|n=1\na|1|x", &c);
    assert!(req.items.is_empty());
    assert_eq!(req.not_repaired[0].code(), Code::E12);
    assert!(
        req.prompt.ends_with(
            "p|n=0\nWrite nothing else: no explanations, no code fences, no valid lines."
        ),
        "{}",
        req.prompt
    );
    let out = merge("p|n=1|n=1\na|1|x", &req, "p|n=0", &c);
    assert!(out.answer_problem.is_none() && out.is_complete());
    assert_eq!(out.text, "p|n=1|n=1\na|1|x");
}

#[test]
fn request_escapes_mention_the_contract_separator() {
    let c = Contract::from_json(
        r#"{"prefix": "s", "list_separator": ";",
            "core": [{"name": "id", "type": "str"}, {"name": "xs", "type": "list", "item": "int"}]}"#,
    )
    .unwrap();
    let req = request("s|n=1\na|1;x", &c);
    assert!(req.prompt.contains("separated by ';'"), "{}", req.prompt);
    assert!(
        req.prompt.contains("\\| \\, \\; \\* \\\" \\\\ \\n"),
        "{}",
        req.prompt
    );
}

// ---------------------------------------------------------------------------
// merge
// ---------------------------------------------------------------------------

#[test]
fn merge_reports_the_fixes_made_to_the_answer() {
    let c = people();
    let doc = "p|n=2\na|30|x\nb|old|y\n";
    let req = request(doc, &c);
    let answer = "\u{feff}Here is the fix:\r\n```mini\r\np|n=1\r\nb|31|y\r\n```\r\nCheers";
    let out = merge(doc, &req, answer, &c);
    assert_eq!(out.applied, vec![0]);
    assert_eq!(out.text, "p|n=2\na|30|x\nb|31|y\n");
    assert_eq!(
        out.fixes,
        vec![
            TransportFix::Bom,
            TransportFix::SkippedProse { lines: 1 },
            TransportFix::OpeningFence {
                line: 2,
                lang: Some("mini".to_string())
            },
            TransportFix::ClosingFence { line: 5 },
            TransportFix::TrailingProse { lines: 1 },
            TransportFix::Crlf { count: 2 },
        ]
    );
}

#[test]
fn invalid_correction_stays_unresolved_and_the_original_is_kept() {
    let c = people();
    let doc = "p|n=3\na|30|x\nb|old|y\nc|200|z";
    let req = request(doc, &c);
    assert_eq!(req.items.len(), 2);
    let out = merge(doc, &req, "p|n=2\nb|still old|y\nc|20|z", &c);
    assert_eq!(out.applied, vec![1]);
    assert_eq!(out.unresolved.len(), 1);
    let u = &out.unresolved[0];
    assert_eq!(u.item, 0);
    assert!(
        u.reason.contains("not a valid record (E06)"),
        "{}",
        u.reason
    );
    assert_eq!(u.errors[0].code(), Code::E06);
    assert_eq!(u.errors[0].line(), 3, "errors are on the item's line");
    assert_eq!(out.text, "p|n=3\na|30|x\nb|old|y\nc|20|z");
    assert!(!out.is_complete());
}

#[test]
fn correction_is_checked_under_the_original_header() {
    // k=4 from the document header still applies to a correction
    let c = quiz();
    let bad = Q2.replace(",hydrogen", "");
    let doc = format!("quiz|n=2|k=4\n{Q1}\n{bad}");
    let req = request(&doc, &c);
    let three_options = bad.clone();
    let out = merge(&doc, &req, &format!("quiz|n=1\n{three_options}"), &c);
    assert_eq!(out.unresolved.len(), 1);
    assert_eq!(out.unresolved[0].errors[0].code(), Code::E07);
    let out = merge(&doc, &req, &format!("quiz|n=1\n{Q2}"), &c);
    assert_eq!(out.applied, vec![0]);
    assert!(parse(&out.text, &c).is_ok());
}

#[test]
fn unique_clash_is_unresolved() {
    let c = people();
    let doc = "p|n=4\na|30|x\nb|old|y\nc|old|z\nd|40|w";
    let req = request(doc, &c);
    assert_eq!(req.items.len(), 2);
    // item 0 takes an id owned by a later valid record (d); item 1 an id
    // taken by an earlier applied correction.
    let out = merge(doc, &req, "p|n=2\nd|31|y\nc|32|z", &c);
    assert_eq!(out.applied, vec![1]);
    assert_eq!(out.unresolved.len(), 1);
    assert!(
        out.unresolved[0].reason.contains("unique value (id)"),
        "{}",
        out.unresolved[0].reason
    );
    assert_eq!(out.unresolved[0].errors[0].code(), Code::E11);
    assert_eq!(out.text, "p|n=4\na|30|x\nb|old|y\nc|32|z\nd|40|w");

    let out = merge(doc, &req, "p|n=2\nb2|31|y\nb2|32|z", &c);
    assert_eq!(out.applied, vec![0]);
    assert_eq!(out.unresolved[0].item, 1);
    assert_eq!(out.unresolved[0].errors[0].code(), Code::E11);
}

#[test]
fn dash_drops_the_line() {
    let c = people();
    // prose the model slipped between records: dropping it makes the
    // document valid again
    let doc = "p|n=2\na|30|x\nI hope this helps!\nb|31|y\n";
    let req = request(doc, &c);
    assert_eq!(req.items.len(), 1);
    let out = merge(doc, &req, "p|n=1\n -", &c);
    assert_eq!(out.dropped, vec![0]);
    assert_eq!(out.text, "p|n=2\na|30|x\nb|31|y\n");
    assert!(parse(&out.text, &c).is_ok());

    // dropping a real record: n is not rewritten, E04 shows the loss
    let doc = "p|n=2\na|30|x\nb|old|y";
    let req = request(doc, &c);
    let out = merge(doc, &req, "p|n=1\n-", &c);
    assert_eq!(out.dropped, vec![0]);
    assert_eq!(out.text, "p|n=2\na|30|x\n");
    assert_eq!(codes(&out.text, &c), vec![Code::E04]);
}

#[test]
fn truncated_document_keeps_its_e04_after_the_merge() {
    let c = quiz();
    let doc = example("truncated.mini");
    let req = request(&doc, &c);
    assert_eq!(req.items.len(), 2, "{:?}", req.items);
    assert_eq!(req.items[0].lines, 3..=3, "q2 has 3 options for k=4");
    assert_eq!(req.items[1].lines, 5..=5, "the cut line");
    assert_eq!(req.not_repaired.len(), 1);
    assert_eq!(req.not_repaired[0].code(), Code::E04);
    assert!(req.prompt.contains("n=5"), "{}", req.prompt);

    let q4 = "q4|Pick the equation: 6CO2 + 6H2O → ?|C6H12O6 + 6O2*,CH4 + O2,H2O,CO|4|analyze|chemistry|1.6,0.9,0.15";
    let answer = format!("```\nquiz|n=2\n{Q2}\n{q4}\n```");
    let out = merge(&doc, &req, &answer, &c);
    assert_eq!(out.applied, vec![0, 1]);
    assert!(out.is_complete());
    assert!(
        out.text.starts_with("quiz|n=5|k=4|topic=photosynthesis\n"),
        "n is never rewritten"
    );
    let merged = parse_lenient(&out.text, &c);
    assert_eq!(merged.records().len(), 4);
    let errors: Vec<Code> = merged.errors().iter().map(|d| d.code()).collect();
    assert_eq!(errors, vec![Code::E04], "only the missing record remains");
}

#[test]
fn answer_with_a_wrong_header_or_line_count_applies_nothing() {
    let c = people();
    let doc = "p|n=3\na|30|x\nb|old|y\nc|old|z";
    let req = request(doc, &c);

    // wrong n, right number of lines: per-item verdicts are still given
    let out = merge(doc, &req, "p|n=3\nb|31|y\nc|bad|z", &c);
    assert!(out.applied.is_empty() && out.dropped.is_empty());
    let problem = out.answer_problem.clone().unwrap();
    assert!(
        problem.contains("declares n=3 but 2 correction(s)"),
        "{problem}"
    );
    assert_eq!(out.unresolved.len(), 2);
    assert!(out.unresolved[0]
        .reason
        .ends_with("would have been a valid correction"));
    assert!(out.unresolved[1].reason.contains("not a valid record"));
    assert_eq!(out.unresolved[1].errors[0].code(), Code::E06);
    assert_eq!(out.text, doc);

    // no header at all
    let out = merge(doc, &req, "b|31|y\nc|32|z", &c);
    assert!(out.applied.is_empty());
    assert!(out
        .answer_problem
        .unwrap()
        .contains("does not start with the header p|n=2"));
    assert!(out.unresolved[0]
        .reason
        .contains("would have been a valid correction"));

    // too few lines: nothing can be matched
    let out = merge(doc, &req, "p|n=2\nb|31|y", &c);
    assert!(out.applied.is_empty());
    assert_eq!(out.unresolved.len(), 2);
    assert!(out.unresolved[1]
        .reason
        .contains("has 1 correction line(s) but 2"));
    assert!(out.unresolved.iter().all(|u| u.errors.is_empty()));
    assert_eq!(out.text, doc);

    // empty answer
    let out = merge(doc, &req, "", &c);
    assert_eq!(out.unresolved.len(), 2);
    assert!(out.answer_problem.unwrap().contains("empty"));

    // extra header keys are tolerated
    let out = merge(doc, &req, "p|n=2|v=1\nb|31|y\nc|32|z", &c);
    assert_eq!(out.applied, vec![0, 1]);
}

#[test]
fn merge_keeps_the_rest_of_the_document_byte_for_byte() {
    let c = people();
    let doc = "\u{feff}p|n=3\r\na|30|x\r\n\r\nb|old|y\r\nc|old|z";
    let req = request(doc, &c);
    let lines: Vec<_> = req.items.iter().map(|i| i.lines.clone()).collect();
    assert_eq!(lines, vec![4..=4, 5..=5]);
    let out = merge(doc, &req, "p|n=2\nb|31|y\nc|32|z", &c);
    assert_eq!(out.text, "\u{feff}p|n=3\r\na|30|x\r\n\r\nb|31|y\r\nc|32|z");
    assert!(parse(&out.text, &c).is_ok());
}

#[test]
fn a_correction_that_is_a_header_or_two_records_is_rejected() {
    let c = people();
    let doc = "p|n=1\nb|old|y";
    let req = request(doc, &c);
    let out = merge(doc, &req, "p|n=1\np|n=1", &c);
    assert_eq!(out.unresolved.len(), 1);
    // a lone CR inside a line is a raw line break too
    let out = merge(doc, &req, "p|n=1\nb|31|y\rc|32|z", &c);
    assert_eq!(out.unresolved.len(), 1);
    assert!(
        out.unresolved[0].reason.contains("raw line break"),
        "{}",
        out.unresolved[0].reason
    );
    assert_eq!(out.text, doc);
}
