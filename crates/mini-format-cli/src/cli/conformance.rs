//! `conformance`: the suite runner.

use super::*;

pub(super) fn conformance(dirs: &[PathBuf], forks: Option<&Path>) -> Result<Output, Output> {
    let runner = Runner::new(forks.map(Path::to_path_buf));
    let mut o = Output::default();
    let (mut passed, mut failed) = (0, 0);
    for dir in dirs {
        let report = runner.run_dir(dir).map_err(|e| {
            Output::default()
                .err(format!("error: {e}"))
                .code(EXIT_USAGE)
        })?;
        for f in report.outcomes.iter().filter(|f| f.failure.is_some()) {
            o = o.out(format!(
                "FAIL {}: {}",
                f.id,
                f.failure.as_deref().unwrap_or("")
            ));
        }
        passed += report.passed();
        failed += report.failed();
    }
    let code = if failed > 0 { EXIT_INVALID } else { EXIT_OK };
    Ok(o.out(format!("{passed} passed, {failed} failed"))
        .code(code))
}
