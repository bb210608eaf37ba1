#[derive(mini::Mini)]
struct Row {
    #[mini(selected = "answer")]
    options: Vec<String>,
    answer: usize,
}

fn main() {}
