//! The hand-written floor (`benches/support/floor.rs`, issue 21) measures
//! the same work as mini: it must read the text mini writes into the same
//! document, write back the very bytes mini writes, and refuse what the
//! contract refuses. The benchmarks assert this before they time it; this
//! test makes `cargo test` keep it true.

#[path = "../benches/support/data.rs"]
mod data;
#[path = "../benches/support/floor.rs"]
mod floor;

#[test]
fn the_floor_reads_and_writes_what_mini_does() {
    let doc = data::quiz(3_000);
    let text = mini::to_string(&doc).expect("generated data is valid");
    assert_eq!(floor::decode(&text).expect("floor decode"), doc);
    assert_eq!(floor::encode(&doc).expect("floor encode"), text);
    assert_eq!(floor::validate(&text), Ok(()));
}

#[test]
fn the_floor_writes_doubles_as_mini_does() {
    let mut doc = data::quiz(1);
    for x in [
        2.0,
        -3.0,
        0.1,
        -0.25,
        1.0 / 3.0,
        2.0f64.sqrt(),
        1e-5,
        9.999e-6,
        123_456_789_012_345.0,
        0.000_123_456_789_012_345_6,
        -3.999_999_999_999_999,
    ] {
        doc.items[0].irt.a = x;
        let text = mini::to_string(&doc).expect("a finite double is valid");
        assert_eq!(floor::encode(&doc).expect("floor encode"), text, "{x}");
    }
}

#[test]
fn the_floor_refuses_what_the_contract_refuses() {
    let doc = data::quiz(20);
    let text = mini::to_string(&doc).expect("generated data is valid");
    let mut lines: Vec<&str> = text.lines().collect();
    // a duplicate id: line 3 repeats line 2
    let second = lines[1];
    lines[2] = second;
    let dup = lines.join("\n");
    let contract = <data::Quiz as mini::Mini>::contract();
    let error = mini::check(&dup, &contract).expect_err("mini refuses a repeated id");
    let first = &error.diagnostics()[0];
    assert_eq!((first.code(), first.line()), (mini::Code::E11, 3));
    let fault = floor::validate(&dup).expect_err("the floor refuses it too");
    assert_eq!(fault.line, 3);
    let mut bad = data::quiz(2);
    bad.items[1].level = 9;
    assert_eq!(
        floor::encode(&bad)
            .expect_err("level 9 is out of range")
            .line,
        3
    );
}

#[test]
fn the_floor_checks_a_tuple_as_mini_does() {
    let doc = data::quiz(3);
    let text = mini::to_string(&doc).expect("generated data is valid");
    let contract = <data::Quiz as mini::Mini>::contract();
    let lines: Vec<&str> = text.lines().collect();
    // the first record's fields (its stem and options have no `|`)
    let fields: Vec<&str> = lines[1].split('|').collect();
    assert!(fields.len() >= 7 && !lines[1].contains("\\|"));
    let huge = format!("1{},0.5,0.1", "0".repeat(400));
    let mut refused = 0;
    for irt in [
        huge.as_str(),
        "1.5,0.5,0.1",
        "1.5,-4,0.1",
        "1e2,4,0.25",
        " 1.5 , 0.5 , 0.1 ",
        "1.5,4.5,0.1",
        "1.5,-4.01,0.1",
        "1.5,0.5",
        "1.5,0.5,0.1,2",
        "1.5,,0.1",
        ",0.5,0.1",
        "1e999,0.5,0.1",
        "1.5,0.5,-1e400",
        "x,0.5,0.1",
        "1.5*,0.5,0.1",
        "1\\,5,0.5,0.1",
        "1.5,0.5,0.1*",
        "1.,0.5,0.1",
        "1.5,0.5,+1",
    ] {
        let mut f = fields.clone();
        f[6] = irt;
        let record = f.join("|");
        let mut all = lines.clone();
        all[1] = &record;
        let t = all.join("\n");
        let mini = mini::check(&t, &contract).is_ok();
        assert_eq!(floor::validate(&t).is_ok(), mini, "validate, irt {irt:?}");
        assert_eq!(floor::decode(&t).is_ok(), mini, "decode, irt {irt:?}");
        refused += usize::from(!mini);
    }
    assert_eq!(refused, 15);
}

#[test]
fn the_rubric_floor_reads_what_mini_does() {
    let doc = data::rubric(3_000);
    let text = mini::to_string(&doc).expect("generated data is valid");
    assert!(text.contains("\\,"), "the descriptors carry escaped commas");
    assert_eq!(floor::rubric::decode(&text).expect("floor decode"), doc);
    // a repeated id, refused on its line by both
    let mut lines: Vec<&str> = text.lines().collect();
    let second = lines[1];
    lines[2] = second;
    let dup = lines.join("\n");
    assert!(mini::from_str::<data::Rubric>(&dup).is_err());
    assert_eq!(
        floor::rubric::decode(&dup).expect_err("repeated id").line,
        3
    );
}

/// The rubric floor reads its descriptors in one walk (`text_list`): it
/// must agree with mini on every list it accepts (the same strings) and
/// refuse what mini refuses.
#[test]
fn the_rubric_floor_reads_a_text_list_as_mini_does() {
    let doc = data::rubric(3);
    let text = mini::to_string(&doc).expect("generated data is valid");
    let lines: Vec<&str> = text.lines().collect();
    let mut refused = 0;
    for descriptors in [
        "a,b,c,d",
        " a , b ,c,d ",
        "a\\, x,b,c,d",
        "a\\,,b,c,d",
        "a \\| b,b\\\\,c,d",
        "a\\n b,b,c,d",
        "a\\*,b,c,d",
        "a\\, ,b,c,d",
        "a*,b,c,d",
        "a,b,c,d *",
        "a\\\\*,b,c,d",
        "a\\q,b,c,d",
        "a,b,c",
        "a,b,c,d,e",
        "",
        "a,,c,d",
        "a,b,c,",
    ] {
        // the first record with this descriptors field (its other fields
        // hold no escape)
        let mut fields: Vec<String> = lines[1].split('|').map(str::to_string).collect();
        assert_eq!(fields.len(), 6);
        fields[2] = descriptors.to_string();
        let record = fields.join("|");
        let mut all = lines.clone();
        all[1] = &record;
        let t = all.join("\n");
        let by_mini = mini::from_str::<data::Rubric>(&t).ok();
        let by_floor = floor::rubric::decode(&t).ok();
        assert_eq!(by_floor, by_mini, "descriptors {descriptors:?}");
        refused += usize::from(by_mini.is_none());
    }
    assert_eq!(refused, 7);
}

/// The notes floor reads the bench's document (CSV-quoted elements, every
/// text escaped) into mini's `Notes`, and on single lines gives mini's
/// value or, like mini, an error: one line per rule it checks.
#[test]
fn the_notes_floor_reads_and_refuses_what_mini_does() {
    let doc = data::notes(300);
    let text = data::notes_text_quoted(&doc);
    assert!(floor::notes::decode(&text).expect("floor decode") == doc);
    let one = |line: &str| format!("notes|n=1|source=a\\|b\n{line}\n");
    for line in [
        "1||b|x|a|en",
        "1|t||x|a|en",
        "1|t|b|x||en",
        "1|t|b|x|a|EN",
        "1|t|b|\"x\"*|a|en",
        "1|t|b|\"x*\"|a|en",
        "1|t|b|x*|a|en",
        "1|t|b|x ,y *|a|en",
        "1|t|b|\"a\" \"b\"|a|en",
        "1|t|b|\"a\\q\"|a|en",
        "1|t|b|a\\q|a|en",
        "1|t|b|\"a|a|en",
        "1|t\\q|b|x|a|en",
        "-1|t|b|x|a|en",
        "x|t|b|x|a|en",
        "1|t|b|x|a|en|extra",
        "1|t|b|x|a",
    ] {
        let t = one(line);
        assert!(
            mini::from_str::<data::Notes>(&t).is_err(),
            "mini reads {line}"
        );
        assert!(floor::notes::decode(&t).is_err(), "the floor reads {line}");
    }
    for (line, quotes) in [
        ("1|t|b| \"x\"\"y\" , z |a|en", &["x\"y", "z"][..]),
        ("1|t|b|\"\",\"a,b\"|a|en", &["", "a,b"]),
        ("1|t|b|a,,b|a|en", &["a", "", "b"]),
        ("1|t|b|a,|a|en", &["a", ""]),
        ("1|t|b|ab\"c|a|en", &["ab\"c"]),
        ("1|t|b|\"x\\*\"|a|en", &["x*"]),
        ("1|t|b|x\\*,\\\\|a|en", &["x*", "\\"]),
        ("1|t|b||a|en", &[]),
    ] {
        let t = one(line);
        let want: data::Notes = mini::from_str(&t).expect("mini reads it");
        let got = floor::notes::decode(&t).expect("the floor reads it");
        assert_eq!(got.notes[0].quotes, quotes, "{line}");
        assert!(got == want, "{line}");
    }
    // n against the record lines
    assert!(floor::notes::decode("notes|n=2\n1|t|b|x|a|en\n").is_err());
}

/// The floors' `find` (32 bytes a step, then eight, then one) gives the
/// first byte of its set at every length and position, from every start,
/// as a byte-by-byte search does.
#[test]
fn the_floors_find_agrees_with_a_byte_search() {
    for len in 0..100 {
        for hit in 0..=len {
            let mut bytes = vec![b'a'; len];
            if hit < len {
                bytes[hit] = b'\\';
            }
            if hit + 40 < len {
                bytes[hit + 40] = b'|';
            }
            for from in 0..=len {
                let naive = (from..len)
                    .find(|&i| matches!(bytes[i], b'|' | b'\\'))
                    .unwrap_or(len);
                let found = floor::find(&bytes, from, [b'|', b'\\']);
                assert_eq!(found, naive, "{len} {hit} {from}");
            }
        }
    }
}
