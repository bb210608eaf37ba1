#[derive(mini::Mini)]
struct Row<T> {
    value: T,
}

#[derive(mini::Mini)]
struct Fixed<const N: usize> {
    id: String,
}

fn main() {}
