//! The `mini` command-line tool; see `mini --help`.
#![forbid(unsafe_code)]

mod cli;

fn main() {
    std::process::exit(cli::main());
}
