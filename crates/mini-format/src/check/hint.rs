//! Hints for a model's answer read without `extract`: a first or last line
//! that looks like prose or a Markdown fence is named as such, with the
//! remedy, instead of being read as a broken header or a cut record.

/// What the hints tell the user to do.
pub const EXTRACT_REMEDY: &str = "extract the document from the answer first \
     (`mini extract`, or `--extract` on validate/to-json/diagnose; in Rust, \
     mini_tools::repair::extract)";

/// What the E05 (too few fields) of a document's last record line says
/// after its message when the line looks like part of a record: the line,
/// read alone or as it streams in, does not say it (nothing tells it is the
/// last one yet).
pub const TRUNCATION_NOTE: &str = "; it is the last line: the answer looks truncated";

/// How every note on the last line begins (see [`without_end_note`]).
const END_NOTE_START: &str = "; it is the last line";

/// A Markdown code fence line (```` ``` ```` or `~~~`, with or without a
/// language tag).
pub fn looks_like_fence(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A line of prose rather than a `.mini` line: no field separator `|`, at
/// least four words, and it ends a sentence or introduces one (`.`, `!`,
/// `?`, `:`), as "Here is the list:" or "Let me know if you need more!".
pub fn looks_like_prose(text: &str) -> bool {
    let t = text.trim();
    !t.contains('|') && t.split_whitespace().count() >= 4 && t.ends_with(['.', '!', '?', ':'])
}

/// The hint for a first line that is not a header (E02): `None` when it
/// looks like a header with another prefix.
pub fn header_hint(text: &str) -> Option<String> {
    let what = if looks_like_fence(text) {
        "a Markdown fence (```)"
    } else if looks_like_prose(text)
        || text
            .split('|')
            .next()
            .is_some_and(|p| p.trim().contains(' '))
    {
        "prose"
    } else {
        return None;
    };
    Some(format!(
        "; the first line looks like {what}, not a header: {EXTRACT_REMEDY}"
    ))
}

/// The note on the last record line's error: a fence or prose is named
/// (the answer is wrapped, not cut); anything else looks truncated.
pub fn end_note(text: &str) -> String {
    if looks_like_fence(text) {
        format!(
            "{END_NOTE_START} and looks like a Markdown fence (```), not a record: {EXTRACT_REMEDY}"
        )
    } else if looks_like_prose(text) {
        format!(
            "{END_NOTE_START} and looks like prose, not a record: if the model wrote text \
             after the document, {EXTRACT_REMEDY}; otherwise the answer looks truncated"
        )
    } else {
        TRUNCATION_NOTE.to_string()
    }
}

/// The note a document's last record line gets on its first error once
/// the document ends, when the line looks like a Markdown fence or prose
/// (the engine's, and the serializer's for the text it writes): `None`
/// for any other line.
pub fn fence_or_prose_note(text: &str) -> Option<String> {
    (looks_like_fence(text) || looks_like_prose(text)).then(|| end_note(text))
}

/// `d` with `note` after its message (the last line's note).
pub fn with_note(d: &crate::Diagnostic, note: &str) -> crate::Diagnostic {
    crate::Diagnostic::new(
        d.code(),
        d.line(),
        d.field().map(str::to_string),
        format!("{}{note}", d.message()),
    )
}

/// A message without the note [`end_note`] added to the last line's E05
/// (a line read alone or as it streams in has none).
pub fn without_end_note(message: &str) -> &str {
    message
        .rfind(END_NOTE_START)
        .map_or(message, |i| &message[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_prose_are_told_from_records() {
        assert!(looks_like_fence("```"));
        assert!(looks_like_fence("```mini"));
        assert!(looks_like_fence("~~~"));
        assert!(!looks_like_fence("q1|a`b"));
        assert!(looks_like_prose("Let me know if you need anything else!"));
        assert!(looks_like_prose("Sure! Here is the triage:"));
        // a record cut in its first field, or a short value, is not prose
        assert!(!looks_like_prose("Where does photosynthesis take"));
        assert!(!looks_like_prose("q1|Is this a question?|yes"));
        assert!(!looks_like_prose("done."));
        assert_eq!(end_note("q3|Where does"), TRUNCATION_NOTE);
        assert!(end_note("```").contains("Markdown fence"));
        for m in [
            format!("record has 1 fields, core requires 3{}", end_note("```")),
            format!(
                "record has 1 fields, core requires 3{}",
                end_note("Hope this helps, bye now!")
            ),
            format!("record has 1 fields, core requires 3{TRUNCATION_NOTE}"),
        ] {
            assert_eq!(without_end_note(&m), "record has 1 fields, core requires 3");
        }
        assert_eq!(header_hint("todo|n=2"), None);
        assert_eq!(header_hint("other|n=2"), None);
        assert!(header_hint("Sure! Here is the triage you asked for:")
            .is_some_and(|h| h.contains("prose")));
        assert!(header_hint("```mini").is_some_and(|h| h.contains("fence")));
    }
}
