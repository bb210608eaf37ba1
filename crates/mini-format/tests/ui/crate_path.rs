#[derive(mini::Mini)]
#[mini(prefix = "a", crate = "not a path")]
struct Doc {
    records: Vec<Row>,
}

#[derive(mini::Mini)]
#[mini(crate = "mini", desc = "levels")]
enum Level {
    Low,
}

#[derive(mini::Mini)]
struct Row {
    level: Level,
}

fn main() {}
