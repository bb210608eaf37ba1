use serde::Deserialize;

#[derive(Deserialize, mini::Mini)]
#[serde(tag = "kind")]
enum Internally {
    A,
    B,
}

#[derive(Deserialize, mini::Mini)]
#[serde(tag = "t", content = "c")]
enum Adjacently {
    A,
    B,
}

#[derive(Deserialize, mini::Mini)]
#[serde(tag = "kind")]
struct Tagged {
    a: u8,
}

fn main() {}
