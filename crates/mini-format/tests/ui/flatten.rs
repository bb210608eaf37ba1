use mini::Mini;
use serde::Deserialize;

#[derive(Deserialize, Mini)]
struct Inner {
    a: u8,
}

#[derive(Deserialize, mini::Mini)]
struct Outer {
    id: String,
    #[serde(flatten)]
    inner: Inner,
}

fn main() {
    let _ = Inner::describe();
}
