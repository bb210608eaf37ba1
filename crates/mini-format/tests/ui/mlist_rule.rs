#[derive(mini::Mini)]
struct Row {
    #[mini(mlist = "exactly-one", selected = "answer")]
    options: Vec<String>,
    answer: usize,
    #[mini(mlist = "all", selected = "picked")]
    more: Vec<String>,
    picked: Vec<usize>,
}

fn main() {}
