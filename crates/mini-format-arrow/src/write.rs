//! The Parquet and Arrow IPC writers over the batches.

use std::io::Write;

use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::reader::{Converter, Input, Summary};
use crate::Result;

/// The Parquet properties [`Converter::write_parquet`] uses: Snappy
/// compression and row groups of at most 64 Ki rows (the writer holds one
/// row group's encoded pages in memory until it is flushed).
pub fn default_writer_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(64 * 1024))
        .build()
}

impl Converter {
    /// Writes the batches of `inputs` to `out` as one Parquet file
    /// ([`default_writer_properties`]). Strict: the first problem is an
    /// error and the file is left unfinished (write to a temporary file and
    /// rename it on success). Lenient: the diagnostics are in the summary.
    pub fn write_parquet<'a, I, W>(&'a self, inputs: I, out: W) -> Result<Summary>
    where
        I: IntoIterator<Item = Input<'a>>,
        W: Write + Send,
    {
        self.write_parquet_with(inputs, out, default_writer_properties())
    }

    /// [`Converter::write_parquet`] with the caller's writer properties.
    pub fn write_parquet_with<'a, I, W>(
        &'a self,
        inputs: I,
        out: W,
        props: WriterProperties,
    ) -> Result<Summary>
    where
        I: IntoIterator<Item = Input<'a>>,
        W: Write + Send,
    {
        let mut writer = ArrowWriter::try_new(out, self.schema(), Some(props))?;
        let mut batches = self.batches(inputs);
        for batch in batches.by_ref() {
            writer.write(&batch?)?;
        }
        writer.close()?;
        Ok(batches.into_summary())
    }

    /// Writes the batches of `inputs` to `out` as an Arrow IPC stream
    /// (`.arrows`), with the same rules as [`Converter::write_parquet`].
    pub fn write_ipc<'a, I, W>(&'a self, inputs: I, out: W) -> Result<Summary>
    where
        I: IntoIterator<Item = Input<'a>>,
        W: Write,
    {
        let mut writer = arrow_ipc::writer::StreamWriter::try_new(out, &self.schema())?;
        let mut batches = self.batches(inputs);
        for batch in batches.by_ref() {
            writer.write(&batch?)?;
        }
        writer.finish()?;
        Ok(batches.into_summary())
    }
}
