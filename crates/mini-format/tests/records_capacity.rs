//! The vector the typed reader gives a document's records (issue 21, round
//! 39, ADR 0070): sized once from the header's `n` when the input still
//! has at least as many bytes as those records take, so that a true count
//! is one allocation (no growth copied, no page touched twice); capped at
//! the bytes the input has left (1 MiB when it has less), so that a false
//! count never sizes an allocation beyond what the input could justify.
//! `Vec::capacity` reports what was asked for, and the bytes asked of the
//! allocator are counted (`cap`'s running total): exact, not timings.

use std::alloc::System;
use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard, PoisonError};

use cap::Cap;
use mini::Mini;
use serde::{Deserialize, Serialize};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// Held by every test while it reads or writes: the allocator's count is
/// the process's, and the tests run on threads side by side.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The lock, whether or not a test that held it failed.
fn alone() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "wide", records = "rows")]
struct Wide {
    header: WideHeader,
    rows: Vec<Row>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct WideHeader {
    n: u64,
}

/// A record of 32 bytes in memory (its name's text on the heap).
#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct Row {
    id: u32,
    name: String,
}

/// A record line's name: 40 bytes of text.
const NAME: &str = "a name of forty bytes, give or take none";

/// A document of `records` lines whose header says `n`.
fn document(n: u64, records: usize) -> String {
    let mut text = format!("wide|n={n}\n");
    for i in 0..records {
        let _ = writeln!(text, "{i}|{NAME}");
    }
    text
}

#[test]
fn a_true_count_sizes_the_records_once() {
    let _alone = alone();
    let records = 40_000;
    let text = document(records as u64, records);
    let bytes = records * std::mem::size_of::<Row>();
    // the case this file is about: the records take more than 1 MiB and
    // less than the input has
    assert!(
        bytes > 1 << 20 && bytes < text.len(),
        "{bytes} {}",
        text.len()
    );
    let doc: Wide = mini::from_str(&text).expect("a valid document");
    assert_eq!(doc.rows.len(), records);
    assert_eq!(doc.rows.capacity(), records, "the vector grew");
}

/// The bytes asked of the allocator while `Wide` is read from `text`.
fn bytes_asked_reading(text: &str) -> (usize, mini::Result<Wide>) {
    let before = ALLOC.total_allocated();
    let read = mini::from_str::<Wide>(text);
    (ALLOC.total_allocated() - before, read)
}

#[test]
fn a_false_count_is_capped_by_the_input_left() {
    let _alone = alone();
    // a million records claimed by a header over 40,000 lines, against a
    // header one record off: both documents are refused for their count
    // (E04, the same diagnostics), and the million asks for no more than
    // the input's bytes beyond what the near miss asks for (a vector of a
    // million records would be 32 MB; the input is under 2 MB)
    let _ = mini::from_str::<Wide>("wide|n=1\n0|x\n");
    let near = document(40_001, 40_000);
    let far = document(1_000_000, 40_000);
    let (asked_near, read_near) = bytes_asked_reading(&near);
    let (asked_far, read_far) = bytes_asked_reading(&far);
    for read in [read_near, read_far] {
        let err = read.expect_err("40,000 lines, not the count");
        assert!(err.to_string().contains("E04"), "{err}");
    }
    assert!(
        asked_far < asked_near + far.len(),
        "the decode asked for {asked_far} bytes ({asked_near} for the near miss) over an input of {}",
        far.len()
    );
}

#[test]
fn a_false_count_over_a_short_input_reserves_at_most_a_mebibyte() {
    let _alone = alone();
    let text = document(u64::from(u32::MAX), 3);
    let _ = mini::from_str::<Wide>("wide|n=1\n0|x\n");
    let before = ALLOC.total_allocated();
    let read = mini::from_str::<Wide>(&text);
    let asked = ALLOC.total_allocated() - before;
    assert!(read.is_err());
    assert!(
        asked < (1 << 20) + 64 * 1024,
        "the decode asked for {asked} bytes over an input of {}",
        text.len()
    );
}

/// The bytes asked of the allocator while `doc` is written, and the text.
fn bytes_asked_writing(doc: &Wide) -> (usize, String) {
    let before = ALLOC.total_allocated();
    let text = mini::to_string(doc).expect("a valid document");
    (ALLOC.total_allocated() - before, text)
}

#[test]
fn the_writer_sizes_its_buffer_from_its_first_records_not_its_first_alone() {
    let _alone = alone();
    // a first record of five bytes before 39,999 of 45: sized from the
    // first record alone, the buffer doubles its way to the text's length
    // (asking for about twice it, and left up to twice as long as the
    // text); sized again from the first 32, it is asked for once, an
    // eighth over
    let rows: Vec<Row> = (0..40_000)
        .map(|i| Row {
            id: i,
            name: if i == 0 { "a".into() } else { NAME.into() },
        })
        .collect();
    let doc = Wide {
        header: WideHeader { n: 40_000 },
        rows,
    };
    let _ = mini::to_string(&Wide {
        header: WideHeader { n: 1 },
        rows: vec![Row {
            id: 0,
            name: "x".into(),
        }],
    });
    let (asked, text) = bytes_asked_writing(&doc);
    assert_eq!(text.lines().count(), 40_001);
    assert!(
        text.capacity() < text.len() + text.len() / 4,
        "{} bytes written in a buffer of {}",
        text.len(),
        text.capacity()
    );
    // debug builds also copy the text to check it against the engine
    // (ADR 0023): the bytes asked are the buffer's alone in release only
    if !cfg!(debug_assertions) {
        assert!(
            asked < text.len() + text.len() / 4,
            "writing {} bytes asked for {asked}",
            text.len()
        );
    }
}
