#[derive(mini::Mini)]
#[mini(prefix = "x")]
enum Level {
    Low,
    #[mini(desc = "high")]
    High,
}

fn main() {}
