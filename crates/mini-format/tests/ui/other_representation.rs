use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, mini::Mini)]
#[serde(transparent)]
struct Id {
    value: String,
}

#[derive(Clone, Serialize, Deserialize, mini::Mini)]
#[serde(from = "Id", into = "Id")]
struct Wrapped {
    value: String,
}

impl From<Id> for Wrapped {
    fn from(id: Id) -> Self {
        Wrapped { value: id.value }
    }
}

impl From<Wrapped> for Id {
    fn from(w: Wrapped) -> Self {
        Id { value: w.value }
    }
}

fn main() {}
