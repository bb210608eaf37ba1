// `through_serde` is a flag: it takes no value.
#[derive(serde::Deserialize, mini::Mini)]
#[mini(through_serde = true)]
struct Row {
    name: String,
}

fn main() {}
