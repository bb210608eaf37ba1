use serde::Deserialize;

// A derive error on each type; the uses below must not add
// "the trait bound `…: mini::Mini` is not satisfied".
#[derive(Deserialize, mini::Mini)]
struct Inner {
    #[mini(unknown_key)]
    a: u8,
}

#[derive(Deserialize, mini::Mini)]
#[mini(prefix = "doc", crate = 5)]
struct Doc {
    records: Vec<Inner>,
}

#[derive(Deserialize, mini::Mini)]
struct Row<T> {
    inner: Inner,
    value: T,
}

fn main() {
    let _ = mini::from_str::<Doc>("doc|n=0");
    let _ = <Row<u8> as mini::Mini>::describe();
}
