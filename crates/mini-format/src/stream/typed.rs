//! Typed records from a reader, one line at a time.

use std::io::BufRead;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;

use crate::check::Engine;
use crate::check::{HeaderInfo, Scratch};
use crate::contract::Contract;
use crate::de::{read_record, Cursor};
use crate::error::{Error, Result};
use crate::read::{IoLines, Limits};

/// Reads typed records from `reader` under `contract`, one line at a time
/// (only the current line is held in memory, plus the values of `unique`
/// fields seen so far).
///
/// Each item is a record or the errors of one line: header errors first
/// (if any), then one item per record line, then a final E04 (or E01) if the
/// count is wrong. Iteration ends after that.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Todo { title: String, done: bool }
///
/// let contract = mini::Contract::from_json(r#"{"prefix": "todo",
///     "core": [{"name": "title", "type": "str"}, {"name": "done", "type": "bool"}]}"#).unwrap();
/// let input = "todo|n=3\nbuy milk|false\nbroken\nwrite docs|true\n";
/// let items: Vec<mini::Result<Todo>> = mini::stream::records(input.as_bytes(), &contract).collect();
/// assert_eq!(items.len(), 3);
/// assert_eq!(items[0].as_ref().unwrap().title, "buy milk");
/// assert_eq!(items[1].as_ref().unwrap_err().diagnostics()[0].line(), 3);
/// assert!(items[2].as_ref().unwrap().done);
/// ```
pub fn records<T: DeserializeOwned, R: BufRead>(
    reader: R,
    contract: &Contract,
) -> Records<'_, T, R> {
    records_with_limits(reader, contract, Limits::default())
}

/// [`records`] under given [`Limits`] (a limit breach is the last item).
pub fn records_with_limits<T: DeserializeOwned, R: BufRead>(
    reader: R,
    contract: &Contract,
    limits: Limits,
) -> Records<'_, T, R> {
    Records {
        lines: IoLines::new(reader, limits),
        engine: Engine::new(contract),
        finished: false,
        scratch: Scratch::check_only(),
        cursor: Cursor::default(),
        _t: PhantomData,
    }
}

/// The iterator of [`records`].
pub struct Records<'c, T, R> {
    /// The one line reader, over the `BufRead`.
    lines: IoLines<R>,
    /// The engine's line-by-line state (header, unique values, counts),
    /// shared with `mini::parse` and the typed deserializer.
    engine: Engine<'c>,
    finished: bool,
    /// The engine's buffers, reused from line to line (emptied between
    /// lines): the header, and the lines that break a rule.
    scratch: Scratch<'static>,
    /// The single-pass reader's buffers, likewise.
    cursor: Cursor<'static>,
    _t: PhantomData<fn() -> T>,
}

impl<'c, T: DeserializeOwned, R: BufRead> Records<'c, T, R> {
    /// The header read so far (after the first item).
    pub fn header(&self) -> Option<&HeaderInfo> {
        self.engine.header()
    }

    fn finish(&mut self) -> Option<Result<T>> {
        self.finished = true;
        self.engine
            .document_error()
            .map(|d| Err(Error::invalid(vec![d])))
    }
}

impl<T: DeserializeOwned, R: BufRead> Iterator for Records<'_, T, R> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        if self.finished {
            return None;
        }
        loop {
            let line = match self.lines.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => return self.finish(),
                Err(e) => {
                    self.finished = true;
                    return Some(Err(e));
                }
            };
            let mut scratch = std::mem::take(&mut self.scratch).recycle();
            if !self.engine.has_header() {
                self.engine.check_line(line, &mut scratch);
                self.scratch = scratch.recycle();
                let errors = self.engine.take_errors();
                if errors.is_empty() {
                    continue;
                }
                return Some(Err(Error::invalid(errors)));
            }
            // the record through the same single-pass reader as `from_str`
            let mut cursor = std::mem::take(&mut self.cursor).recycle();
            let item = match read_record(
                &mut self.engine,
                &mut cursor,
                &mut scratch,
                line,
                PhantomData::<T>,
            ) {
                Ok(v) => Ok(v),
                Err(e) => {
                    let errors = self.engine.take_errors();
                    if e.is_stopped() {
                        Err(Error::invalid(errors))
                    } else {
                        Err(e.prepend(errors))
                    }
                }
            };
            self.cursor = cursor.recycle();
            self.scratch = scratch.recycle();
            return Some(item);
        }
    }
}
