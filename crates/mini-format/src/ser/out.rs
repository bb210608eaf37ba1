//! Where the text goes: a `String` ([`crate::to_string`]) or a writer
//! ([`crate::to_writer`]) through a small buffer of whole records.

use std::io::Write;

use super::sink::{Abort, R};

/// The buffer is handed to the writer once it holds this many bytes (at a
/// record boundary).
pub(super) const FLUSH_AT: usize = 8 * 1024;

/// The output. Records are written at the end of `buf`; with a writer,
/// `buf` is handed over at a record boundary once it holds [`FLUSH_AT`]
/// bytes. After the first error nothing more is written: the text would be
/// refused anyway (the serializer goes on only to collect every error).
pub(super) struct Out<'w> {
    pub(super) buf: String,
    writer: Option<&'w mut dyn Write>,
    /// An error was found: nothing more is written.
    pub(super) failed: bool,
    /// Every byte of the text, written or not (debug builds only: the text
    /// the engine checks to compare with the serializer's own checks).
    #[cfg(debug_assertions)]
    shadow: String,
}

impl<'w> Out<'w> {
    pub(super) fn new(writer: Option<&'w mut dyn Write>) -> Self {
        Out {
            buf: String::with_capacity(if writer.is_some() {
                FLUSH_AT + 1024
            } else {
                256
            }),
            writer,
            failed: false,
            #[cfg(debug_assertions)]
            shadow: String::new(),
        }
    }

    /// Makes room, in a `String` output, for about `more` bytes still to
    /// come (capped at 64 MiB), so that the text is not copied at every
    /// doubling of its buffer. A writer's buffer is handed over instead.
    pub(super) fn expect(&mut self, more: usize) {
        if self.writer.is_none() && !self.failed {
            self.buf.reserve(more.min(64 << 20));
        }
    }

    /// Ends the text that began at `start` (a record, or the header at 0):
    /// `bad` when it has an error. Hands the buffer to the writer when it
    /// is full enough.
    pub(super) fn end(&mut self, start: usize, bad: bool) -> R {
        if bad && !self.failed {
            self.failed = true;
            #[cfg(debug_assertions)]
            self.shadow.push_str(&self.buf);
            self.buf.clear();
            return Ok(());
        }
        if self.failed {
            #[cfg(debug_assertions)]
            self.shadow.push_str(&self.buf[start..]);
            self.buf.truncate(start);
            return Ok(());
        }
        if self.buf.len() >= FLUSH_AT {
            if let Some(w) = self.writer.as_mut() {
                w.write_all(self.buf.as_bytes()).map_err(Abort::Io)?;
                #[cfg(debug_assertions)]
                self.shadow.push_str(&self.buf);
                self.buf.clear();
            }
        }
        Ok(())
    }

    /// The whole text as written so far (debug builds).
    #[cfg(debug_assertions)]
    pub(super) fn text(&self) -> String {
        let mut t = self.shadow.clone();
        if !self.failed {
            t.push_str(&self.buf);
        }
        t
    }

    /// Ends a valid document: the rest goes to the writer (which is
    /// flushed), or the text is returned.
    pub(super) fn finish(self) -> std::io::Result<String> {
        match self.writer {
            Some(w) => {
                w.write_all(self.buf.as_bytes())?;
                w.flush()?;
                Ok(String::new())
            }
            None => Ok(self.buf),
        }
    }
}
