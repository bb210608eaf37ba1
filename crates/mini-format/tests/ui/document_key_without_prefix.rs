#[derive(mini::Mini)]
#[mini(records = "items", version = 2)]
struct Doc {
    items: Vec<Row>,
}

#[derive(mini::Mini)]
struct Row {
    id: String,
}

fn main() {}
