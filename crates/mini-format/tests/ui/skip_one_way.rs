use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, mini::Mini)]
struct Row {
    id: String,
    #[serde(skip_serializing)]
    read_only: String,
    #[serde(skip_deserializing)]
    write_only: String,
}

#[derive(Serialize, Deserialize, mini::Mini)]
enum Colour {
    Red,
    #[serde(skip_serializing)]
    Green,
}

fn main() {}
