#[derive(mini::Mini)]
#[mini(prefix = quiz)]
#[mini(separator = ",")]
#[mini(version = "2")]
#[mini(name = 3)]
struct Doc {
    records: Vec<Row>,
}

#[derive(mini::Mini)]
#[mini(prefix = "y", version = -1)]
#[mini(records)]
struct Doc2 {
    records: Vec<Row>,
}

#[derive(mini::Mini)]
struct Row {
    #[mini(unique = true)]
    id: String,
    #[mini(min = true)]
    #[mini(max = -"x")]
    a: i32,
    #[mini(min = 1.0e999)]
    b: f64,
    #[mini(count_key = k)]
    #[mini(desc = 1)]
    c: Vec<String>,
    #[mini(mlist)]
    d: Vec<String>,
    #[mini(extension(yes))]
    e: Option<String>,
}

fn main() {}
