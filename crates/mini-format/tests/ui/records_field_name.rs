#[derive(mini::Mini)]
#[mini(prefix = "quiz")]
struct Quiz {
    header: Header,
    items: Vec<Question>,
}

#[derive(mini::Mini)]
#[mini(prefix = "poll", records = "rows")]
struct Poll {
    header: Header,
    answers: Vec<Question>,
}

#[derive(mini::Mini)]
#[mini(prefix = "empty")]
struct Empty {
    header: Header,
}

#[derive(mini::Mini)]
struct Header {
    n: u32,
}

#[derive(mini::Mini)]
struct Question {
    stem: String,
}

fn main() {}
