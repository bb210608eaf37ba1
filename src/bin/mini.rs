//! The `mini` command-line tool; see `mini --help`.
#![forbid(unsafe_code)]

fn main() {
    std::process::exit(mini::cli::main());
}
