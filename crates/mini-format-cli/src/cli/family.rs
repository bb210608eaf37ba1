//! Fork families: `list-forks`, `check-forks`, `new-fork`.

use super::*;

pub(super) fn list_forks(dir: &Path) -> Result<Output, Output> {
    let fams = mini_tools::family::list_families(dir).map_err(|e| usage(e.to_string()))?;
    Ok(Output::default().out(mini_tools::family::render_families(&fams).trim_end()))
}

pub(super) fn check_forks(dir: &Path) -> Result<Output, Output> {
    let report = mini_tools::family::check_forks(dir).map_err(|e| usage(e.to_string()))?;
    let code = if report.ok { EXIT_OK } else { EXIT_INVALID };
    Ok(Output::default().out(report.render().trim_end()).code(code))
}

pub(super) fn new_fork(
    dir: &Path,
    prefix: &str,
    from: Option<&str>,
    add: &[String],
    name: Option<&str>,
) -> Result<Output, Output> {
    let fields = add
        .iter()
        .map(|a| mini_tools::family::parse_field_arg(a))
        .collect::<mini::Result<Vec<(String, String)>>>()
        .map_err(|e| usage(e.to_string()))?;
    match mini_tools::family::new_fork_named(dir, prefix, from, &fields, name) {
        Ok(path) => Ok(Output::default().out(format!("created {}", path.display()))),
        Err(e) => Ok(Output::default().err(errors_text(&e)).code(EXIT_INVALID)),
    }
}
