use serde::Deserialize;

#[derive(Deserialize, mini::Mini)]
enum Shape {
    Point,
    Circle(f64),
    Rect { w: f64, h: f64 },
}

fn main() {}
