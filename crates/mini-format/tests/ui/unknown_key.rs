#[derive(mini::Mini)]
#[mini(prefix = "x", record = "items")]
struct Doc {
    items: Vec<Row>,
}

#[derive(mini::Mini)]
struct Row {
    #[mini(uniq)]
    id: String,
    #[mini(desc = "ok", prefix = "no")]
    name: String,
}

fn main() {}
