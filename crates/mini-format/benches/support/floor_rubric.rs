//! The floor's reader for the rubric family (issue 21, thirteenth round):
//! a hand-written, safe-Rust reader for exactly `data::Rubric`'s document
//! shape, into the same structs, with every rule of its contract checked:
//! the header's required `n`, `levels` and `course`, the field count (6, no
//! extension), escapes, the `unique` int id (a hash set of the ids' values
//! with the floor's cheap hash; the Rust type holds a `u32`), the two plain
//! lists (no `*`, as many elements as the header's `levels`, every
//! descriptor unescaped, every point an int that fits the `u32`), the
//! bounded float (`weight` in 0..=1) and the bool (`true`, `false`, `1`,
//! `0`), and `n` against the number of record lines.
//!
//! It answers one question the quiz floor cannot: whether the rubric
//! family's distance to serde_json (its descriptors carry one or two `\,`
//! each, work JSON does not have) is the format's or mini's. It reuses the
//! quiz floor's scanning (`find`, `Fields`, `elements`, `unescape`), so the
//! two floors read escapes alike; like it, it knows no diagnostics beyond a
//! static reason and the line, and reads no quoted list element.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use super::{
    body, count, elements, find, float, head, header_entries, ids, int, owned, Fault, Fields, Fx, R,
};
use crate::data::{Criterion, Rubric, RubricHeader};

/// The claimed ids, by value.
type IntIds = HashSet<i64, BuildHasherDefault<Fx>>;

fn header(line: &str) -> R<RubricHeader> {
    let (mut n, mut levels, mut course) = (None, None, None);
    header_entries(line, "rubric", |key, value, esc| {
        match key {
            "n" => n = Some(count(value, "n < 0")?),
            "levels" => levels = Some(count(value, "levels out of range")?),
            "course" => course = Some(owned(value, esc)),
            _ => {}
        }
        Ok(())
    })?;
    Ok(RubricHeader {
        n: n.ok_or("header lacks n")?,
        levels: levels.ok_or("header lacks levels")?,
        course: course.ok_or("header lacks course")?,
    })
}

fn boolean(raw: &str) -> R<bool> {
    match raw {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err("expected bool"),
    }
}

/// One record line into a `Criterion`, every rule checked; its id claimed.
#[inline]
fn criterion(line: &str, levels: u32, seen: &mut IntIds, scratch: &mut String) -> R<Criterion> {
    let mut f = Fields::new(line);
    let id = int(f.required()?.0)?;
    if !seen.insert(id) {
        return Err("duplicate id");
    }
    let id = u32::try_from(id).map_err(|_| "id does not fit a u32")?;
    let (raw, esc) = f.required()?;
    if raw.is_empty() {
        return Err("name is empty");
    }
    let name = owned(raw, esc);
    // a count key: as many elements as `levels` (the vector sized from it,
    // capped by what the field can hold: one element per two bytes)
    let descriptors = f.text_list(levels, scratch)?;
    if descriptors.len() != levels as usize {
        return Err("descriptors: not as many as levels");
    }
    let (raw, _) = f.required()?;
    let mut points = Vec::with_capacity((levels as usize).min(raw.len() / 2 + 1));
    let n = elements(raw, |t, _, marked| {
        if marked {
            return Err("marker in a plain list");
        }
        points.push(u32::try_from(int(t)?).map_err(|_| "point does not fit a u32")?);
        Ok(())
    })?;
    if n != levels as usize {
        return Err("points: not as many as levels");
    }
    let weight = float(f.required()?.0)?;
    if !(0.0..=1.0).contains(&weight) {
        return Err("weight out of range");
    }
    let required = boolean(f.required()?.0)?;
    if f.next()?.is_some() {
        return Err("too many fields");
    }
    Ok(Criterion {
        id,
        name,
        descriptors,
        points,
        weight,
        required,
    })
}

/// Reads a rubric document into a `Rubric`, every rule checked.
pub fn decode(text: &str) -> Result<Rubric, Fault> {
    let (header, rest) = head(text, header)?;
    let mut seen: IntIds = ids(header.n);
    let mut scratch = String::new();
    let criteria = body(text, rest, header.n, |line| {
        criterion(line, header.levels, &mut seen, &mut scratch)
    })?;
    Ok(Rubric { header, criteria })
}

impl Fields<'_> {
    /// The next field read as a plain list of text in one walk (no `*`, no
    /// quoted element): each element unescaped into its `String` as the
    /// field is cut, instead of cutting the field, then its elements, then
    /// unescaping each (three walks over the same bytes). Each element is
    /// built in `item`, a scratch buffer every element of the document
    /// shares, and copied out at its length.
    /// `levels` sizes the vector, capped by what the field can hold.
    fn text_list(&mut self, levels: u32, item: &mut String) -> R<Vec<String>> {
        let line = self.line;
        let b = line.as_bytes();
        if self.pos > b.len() {
            return Err("too few fields");
        }
        let start = self.pos;
        item.clear();
        let mut list = Vec::with_capacity((levels as usize).min((b.len() - start) / 2 + 1));
        // where the element's next run of bytes starts
        let mut run = start;
        let mut empty_field = true;
        loop {
            let i = find(b, run, [b',', b'|', b'\\', b'"']);
            let piece = &line[run..i.min(b.len())];
            if item.is_empty() {
                item.push_str(piece.trim_start_matches([' ', '\t']));
            } else {
                item.push_str(piece);
            }
            match b.get(i) {
                Some(b'\\') => {
                    let c = match b.get(i + 1) {
                        Some(b'n') => '\n',
                        Some(&c @ (b'|' | b',' | b'*' | b'"' | b'\\')) => c as char,
                        _ => return Err("invalid escape"),
                    };
                    item.push(c);
                    run = i + 2;
                    empty_field = false;
                    continue;
                }
                Some(b'"') => return Err("quoted element (not read by the floor)"),
                _ => {}
            }
            // an element ends: `,`, `|` or the line's end
            let kept = item.trim_end_matches([' ', '\t']).len();
            if b.get(i) == Some(&b',') || !empty_field || kept > 0 {
                // a trailing `*` after an even run of `\` marks the element
                // (refused: a plain list)
                let raw = line[..i.min(b.len())].trim_end_matches([' ', '\t']);
                if let Some(before) = raw.strip_suffix('*') {
                    let slashes = before.len() - before.trim_end_matches('\\').len();
                    if slashes % 2 == 0 {
                        return Err("marker in a plain list");
                    }
                }
                // copied once more, at its exact length (as serde_json copies
                // its scratch buffer): one allocation per element
                list.push(item[..kept].to_owned());
                item.clear();
            }
            empty_field = false;
            match b.get(i) {
                Some(b',') => run = i + 1,
                _ => {
                    self.pos = i + 1;
                    return Ok(list);
                }
            }
        }
    }
}
