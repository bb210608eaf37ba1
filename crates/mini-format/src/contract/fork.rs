//! The fork invariants of SPEC 1.1 §10 that a contract pair can be checked
//! for (I2–I4), reported as E21 on line 0.

use super::{Contract, Kind};
use crate::error::{Code, Diagnostic};

fn e21(msg: String) -> Diagnostic {
    Diagnostic::new(Code::E21, 0, None, msg)
}

/// The structural identity of a kind: what a fork may not change
/// (type, element type, enumeration, marker rule and canonical keys, tuple
/// layout). Descriptions, ranges and arity may differ.
fn same_shape(a: &Kind, b: &Kind) -> bool {
    match (a, b) {
        (Kind::Scalar(x), Kind::Scalar(y)) => x.ty == y.ty && x.values == y.values,
        (Kind::List { item: x, .. }, Kind::List { item: y, .. }) => {
            x.ty == y.ty && x.values == y.values
        }
        (
            Kind::MList {
                item: x,
                marker: mx,
                items_key: ix,
                selected_key: sx,
                ..
            },
            Kind::MList {
                item: y,
                marker: my,
                items_key: iy,
                selected_key: sy,
                ..
            },
        ) => x.ty == y.ty && x.values == y.values && mx == my && ix == iy && sx == sy,
        (Kind::Tuple(x), Kind::Tuple(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|(c, d)| {
                    c.name == d.name
                        && c.scalar.ty == d.scalar.ty
                        && c.scalar.values == d.scalar.values
                })
        }
        _ => false,
    }
}

/// Checks `child` against `parent`: I2 (the parent's required header keys
/// stay required; `n` is always required), I3 (the child's fields start with
/// every parent field — core then extensions — with the same names, order
/// and types, and the same list separator) and I4 (fields added after the
/// inherited ones are optional). Returns every violation (empty = valid fork).
pub fn check_fork(child: &Contract, parent: &Contract) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for k in parent.header_keys().iter().filter(|k| k.required) {
        if !child.header_key(&k.name).is_some_and(|c| c.required) {
            out.push(e21(format!(
                "I2: header key '{}' is required by parent '{}' but not by '{}'",
                k.name,
                parent.prefix(),
                child.prefix()
            )));
        }
    }
    if child.separator() != parent.separator() {
        out.push(e21(format!(
            "I3: list separator {:?} differs from the parent's {:?}",
            child.separator(),
            parent.separator()
        )));
    }
    let (cf, pf) = (child.fields(), parent.fields());
    if cf.len() < pf.len() {
        out.push(e21(format!(
            "I3: '{}' has {} fields but must start with the {} fields of '{}'",
            child.prefix(),
            cf.len(),
            pf.len(),
            parent.prefix()
        )));
    }
    for (i, (c, p)) in cf.iter().zip(pf).enumerate() {
        if c.name != p.name {
            out.push(e21(format!(
                "I3: field {} is '{}' but the parent's is '{}' (inherited fields keep names and order)",
                i + 1,
                c.name,
                p.name
            )));
        } else if !same_shape(&c.kind, &p.kind) {
            out.push(e21(format!(
                "I3: field '{}' changes type from {} to {}",
                c.name,
                p.kind.signature(),
                c.kind.signature()
            )));
        }
    }
    for c in cf.iter().skip(pf.len()) {
        if !c.optional {
            out.push(e21(format!(
                "I4: new field '{}' must be an optional extension after the inherited fields",
                c.name
            )));
        }
    }
    out
}
