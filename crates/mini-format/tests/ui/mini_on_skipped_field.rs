use serde::Deserialize;

#[derive(Deserialize, mini::Mini)]
struct Row {
    id: String,
    #[serde(skip)]
    #[mini(unique)]
    cache: String,
}

fn main() {}
