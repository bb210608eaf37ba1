use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, mini::Mini)]
struct Row {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

fn main() {}
