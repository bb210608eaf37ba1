//! The vector the typed reader gives a list of text (issue 21, round 32,
//! ADR 0063): with a count key, the key's value capped by what the text
//! can hold (an element and its separator take two bytes); without one,
//! the first growth a `Vec` would make on its first push (four `String`s)
//! made at once, capped the same way, and an empty list allocates nothing.
//! So the reader never reserves more than pushing one by one would, and
//! never more than the text can fill. `Vec::capacity` reports what was
//! asked for, so these are exact, not timings. A header whose count the
//! line cannot hold leaves no vector to look at (the record is refused):
//! there the bytes the decode asked the allocator for are counted
//! (`cap`'s running total), as `tests/value_alloc.rs` counts them.

use std::alloc::System;

use cap::Cap;
use mini::Mini;
use serde::{Deserialize, Serialize};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "caps", records = "rows")]
struct Caps {
    header: CapsHeader,
    rows: Vec<Row>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct CapsHeader {
    n: u64,
    k: u32,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct Row {
    id: u32,
    /// no count key
    tags: Vec<String>,
    /// as many elements as the header's `k`
    #[mini(count_key = "k")]
    words: Vec<String>,
}

/// The first record's `tags` and `words` when they are written `tags`
/// and `words` under `k`.
fn read(tags: &str, k: u32, words: &str) -> Row {
    let text = format!("caps|n=1|k={k}\n1|{tags}|{words}\n");
    let doc: Caps = mini::from_str(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    doc.rows.into_iter().next().expect("one record")
}

#[test]
fn a_list_without_a_count_key_reserves_its_first_growth_capped_by_its_text() {
    // (the field's text, the elements, the capacity)
    let cases: [(&str, &[&str], usize); 8] = [
        ("", &[], 0),
        ("a", &["a"], 1),
        ("ab", &["ab"], 2),
        ("a,b", &["a", "b"], 2),
        ("t1,t2", &["t1", "t2"], 3),
        ("one long element", &["one long element"], 4),
        ("\"q, r\",s", &["q, r", "s"], 4),
        ("a,b,c,d,e,f", &["a", "b", "c", "d", "e", "f"], 8),
    ];
    for (text, want, capacity) in cases {
        let row = read(text, 1, "w");
        assert_eq!(row.tags, want, "{text:?}");
        assert_eq!(row.tags.capacity(), capacity, "{text:?}");
    }
}

#[test]
fn a_count_keyed_list_reserves_its_count_capped_by_its_text() {
    // the header's count fits the text: reserved exactly
    let row = read("x", 3, "a,b,c");
    assert_eq!(row.words, ["a", "b", "c"]);
    assert_eq!(row.words.capacity(), 3);
    // a quoted list: the same
    let row = read("x", 2, "\"a, b\",\"c\"");
    assert_eq!(row.words, ["a, b", "c"]);
    assert_eq!(row.words.capacity(), 2);
}

/// The bytes asked of the allocator while `read` runs (every thread's:
/// the other tests of this file allocate a few hundred bytes at most).
fn bytes_asked_during<T>(read: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOC.total_allocated();
    let value = read();
    (ALLOC.total_allocated() - before, value)
}

#[test]
fn a_count_larger_than_the_text_can_hold_does_not_size_the_vector() {
    // `k` claims a million elements on a line of two: the record is
    // refused for its count (E07), and the reader's vector was sized by
    // the text (3 bytes hold at most 2 elements), not by the header. A
    // vector sized by the header would ask for 24 MB (a million
    // `String`s); the whole decode, its error message included, asks for
    // a few kilobytes.
    let text = "caps|n=1|k=1000000\n1|x|a,b\n";
    // the contract is compiled on the first read: not counted
    let _ = mini::from_str::<Caps>(text);
    let (asked, read) = bytes_asked_during(|| mini::from_str::<Caps>(text));
    let err = read.expect_err("two elements, not a million");
    assert!(err.to_string().contains("E07"), "{err}");
    assert!(
        asked < 64 * 1024,
        "the decode asked for {asked} bytes: a vector sized by the header's count"
    );
}
