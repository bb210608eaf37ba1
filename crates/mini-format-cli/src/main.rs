//! The `mini` command-line tool; see `mini --help`.
#![forbid(unsafe_code)]

mod cli;
mod lines;

fn main() {
    std::process::exit(cli::main());
}
