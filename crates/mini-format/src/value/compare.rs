//! Structural equality of canonical objects, as the conformance suite
//! judges it: object keys compared as sets (a missing key counts as null),
//! numbers compared numerically (`-1` ≡ `-1.0`, relative tolerance 1e-12),
//! booleans never equal to numbers.

use serde_json::Value;

use crate::number::Dec;

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    let (sa, sb) = (a.to_string(), b.to_string());
    if let (Some(x), Some(y)) = (Dec::parse(&sa), Dec::parse(&sb)) {
        if x == y {
            return true;
        }
    }
    match (sa.parse::<f64>(), sb.parse::<f64>()) {
        (Ok(x), Ok(y)) => {
            let diff = (x - y).abs();
            diff <= 1e-12 || diff <= 1e-12 * x.abs().max(y.abs())
        }
        _ => false,
    }
}

/// True when `a` and `b` are the same canonical value (see module docs).
pub fn equivalent(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equivalent(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.iter()
                .all(|(k, v)| equivalent(v, y.get(k).unwrap_or(&Value::Null)))
                && y.iter().all(|(k, v)| x.contains_key(k) || v.is_null())
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_numerically_and_missing_keys_are_null() {
        assert!(equivalent(
            &json!({"a": -1, "b": null}),
            &json!({"a": -1.0})
        ));
        assert!(!equivalent(&json!({"a": 1}), &json!({"a": true})));
        assert!(!equivalent(&json!([1, 2]), &json!([1])));
        assert!(equivalent(&json!(0.1), &json!(0.1000000000000001)));
        assert!(!equivalent(&json!("1"), &json!(1)));
    }
}
