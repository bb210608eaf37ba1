#[derive(mini::Mini)]
#[mini(prefix = "a")]
#[mini(prefix = "b")]
struct Doc {
    records: Vec<Row>,
}

#[derive(mini::Mini)]
struct Row {
    #[mini(unique, unique)]
    id: String,
    #[mini(min = 1)]
    #[mini(min = 2, max = 3)]
    level: u8,
}

fn main() {}
