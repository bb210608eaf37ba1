#[derive(mini::Mini)]
struct Pair(String, u32);

#[derive(mini::Mini)]
struct Unit;

#[derive(mini::Mini)]
union Bits {
    a: u32,
    b: f32,
}

fn main() {}
