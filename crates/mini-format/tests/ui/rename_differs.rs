use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, mini::Mini)]
struct Row {
    #[serde(rename(serialize = "out", deserialize = "in"))]
    both: String,
    #[serde(rename(deserialize = "other"))]
    one_way: String,
}

#[derive(Serialize, Deserialize, mini::Mini)]
#[serde(rename_all(serialize = "UPPERCASE", deserialize = "lowercase"))]
enum Colour {
    Red,
}

fn main() {}
