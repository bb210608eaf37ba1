use serde::Deserialize;

#[derive(Deserialize, mini::Mini)]
#[serde(untagged)]
enum Level {
    Low,
    High,
}

fn main() {}
