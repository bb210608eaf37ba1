//! The names renamed by ADR 0019 still work, as deprecated aliases of the
//! new ones (same results).
#![allow(deprecated)]

use mini::Contract;

fn contract() -> Contract {
    Contract::from_json(r#"{"prefix": "t", "core": [{"name": "x", "type": "int"}]}"#).unwrap()
}

#[test]
fn old_names_give_the_new_results() {
    let c = contract();
    let text = "t|n=2\n1\n2";
    let limits: mini::ParseOptions = mini::Limits::default();
    assert_eq!(
        mini::parse_with(text, &c, &limits).unwrap().to_canonical(),
        mini::parse_with_limits(text, &c, &limits)
            .unwrap()
            .to_canonical()
    );
    assert_eq!(
        mini::parse_lenient_with(text, &c, &limits)
            .unwrap()
            .to_canonical(),
        mini::parse_lenient_with_limits(text, &c, &limits)
            .unwrap()
            .to_canonical()
    );
    let report: mini::Diagnostics = mini::parse_lenient(text, &c).diagnostics();
    let _: mini::ParseReport = report;
    let v: serde_json::Value = mini::from_str_with(text, &c).unwrap();
    assert_eq!(
        v,
        mini::from_str_with_contract::<serde_json::Value>(text, &c).unwrap()
    );
    assert_eq!(
        mini::to_string_with(&v, &c).unwrap(),
        mini::to_string_with_contract(&v, &c).unwrap()
    );
    let mut r = mini::Reader::with_options(&c, mini::ReaderOptions::default());
    assert_eq!(r.push(b"t|n=1\n5\n").unwrap().len(), 1);
}
