//! The input of the streaming commands (`validate`, `diagnose`, `to-json
//! --stream`), read one physical line at a time: memory is bounded by the
//! longest line (at most the reader's line limit plus its slack), whatever
//! the input size.

use std::io::{BufRead, BufReader, Read};

/// Why reading stopped before the end of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The input could not be read.
    Io(String),
    /// A line is not UTF-8: its 1-based number and the byte offset of the
    /// first invalid sequence, counted from the start of that line.
    Utf8 {
        /// 1-based physical line.
        line: usize,
        /// Byte offset within the line.
        offset: usize,
    },
    /// A line is longer than the limit (bytes, without its line break).
    TooLong {
        /// 1-based physical line.
        line: usize,
        /// The limit.
        limit: usize,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Io(e) => write!(f, "{e}"),
            Failure::Utf8 { line, offset } => write!(
                f,
                "invalid UTF-8 at line {line}, byte offset {offset} in the line"
            ),
            Failure::TooLong { line, limit } => {
                write!(f, "line {line} is longer than {limit} bytes")
            }
        }
    }
}

/// Where the first invalid UTF-8 sequence of `bytes` is: its 1-based line
/// and the byte offset within that line. `None` when `bytes` are UTF-8.
pub fn utf8_failure(bytes: &[u8]) -> Option<Failure> {
    let at = std::str::from_utf8(bytes).err()?.valid_up_to();
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    Some(Failure::Utf8 {
        line,
        offset: at - start,
    })
}

/// The input, line by line.
pub struct LineInput {
    input: Box<dyn BufRead>,
    name: String,
    /// Number of the last line read (1-based; 0 before the first).
    line: usize,
    /// Longest line accepted, in bytes, without its line break.
    limit: usize,
}

impl LineInput {
    /// Opens `file` (`-` for stdin); lines longer than `limit` bytes (BOM,
    /// CR and LF not counted) are a [`Failure::TooLong`].
    pub fn open(file: &str, limit: usize) -> Result<LineInput, Failure> {
        let input: Box<dyn Read> = if file == "-" {
            Box::new(std::io::stdin())
        } else {
            Box::new(
                std::fs::File::open(file)
                    .map_err(|e| Failure::Io(format!("cannot read {file}: {e}")))?,
            )
        };
        Ok(LineInput {
            input: Box::new(BufReader::with_capacity(1 << 16, input)),
            name: if file == "-" { "stdin" } else { file }.to_string(),
            line: 0,
            limit,
        })
    }

    /// Reads the next physical line into `buf` (replacing its content),
    /// with its LF when it has one. `Ok(false)` at the end of the input.
    /// The line is checked to be UTF-8.
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> Result<bool, Failure> {
        buf.clear();
        // BOM (3), CR and LF are not counted in the limit
        let cap = self.limit.saturating_add(5);
        let n = (&mut self.input)
            .take(cap as u64)
            .read_until(b'\n', buf)
            .map_err(|e| Failure::Io(format!("cannot read {}: {e}", self.name)))?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        let body = buf.strip_suffix(b"\n").unwrap_or(buf);
        if n == cap && buf.last() != Some(&b'\n') {
            return Err(Failure::TooLong {
                line: self.line,
                limit: self.limit,
            });
        }
        if let Err(e) = std::str::from_utf8(body) {
            return Err(Failure::Utf8 {
                line: self.line,
                offset: e.valid_up_to(),
            });
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_utf8_offset_is_counted_within_its_line() {
        assert_eq!(utf8_failure(b"ok\nok"), None);
        assert_eq!(
            utf8_failure(b"quiz|n=1|k=4\nq1|caf\xe9|x"),
            Some(Failure::Utf8 { line: 2, offset: 6 })
        );
        assert_eq!(
            utf8_failure(b"\xff"),
            Some(Failure::Utf8 { line: 1, offset: 0 })
        );
    }
}
