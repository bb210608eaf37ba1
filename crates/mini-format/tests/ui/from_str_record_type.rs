use serde::Deserialize;

#[derive(Deserialize, mini::Mini)]
struct Question {
    stem: String,
}

fn main() {
    let _ = mini::from_str::<Question>("quiz|n=1\n2+2?");
}
