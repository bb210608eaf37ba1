//! `canonical_roundtrip`: a generated contract and a valid object survive
//! `dumps` and `parse` both ways.

use crate::*;

use arbitrary::Unstructured;

use mini::value::{self, equivalent};
use mini::Code;

/// A generated contract and a canonical object that is valid under it (types,
/// bounds, arity, count keys, marker rules, unique fields, no outer
/// whitespace) go through `dumps` and back.
///
/// Asserts that `dumps` succeeds, that its text parses strictly to an
/// object equivalent to the one written (`n` recomputed, `v` and defaults
/// added, line breaks read back as LF, decimals canonical, an empty
/// optional list read back as null), and that `dumps(parse(t)) == t`
/// (when defaults are involved, that `parse(dumps(parse(t))) ≡ parse(t)`).
/// The one documented rejection is a record whose only core field writes
/// nothing and whose extensions are null: its line is blank, so the check
/// parse reports E04 (ADR 0004, upstream 0017 D-11).
pub fn canonical_roundtrip(input: &CanonicalInput) {
    let mut g = Gen {
        u: Unstructured::new(&input.values.0),
    };
    let b = build(&input.contract, &mut g);
    let c = &b.contract;
    let Drawn {
        obj,
        want,
        blank,
        null_singles,
    } = draw_object(&b, &mut g);
    let result = mini::dumps(&obj, c);
    typed_writes_as_dumps(&obj, c, &result);
    if null_singles && tolerated("null-single-component") {
        return;
    }
    match result {
        Err(e) if blank && codes(e.diagnostics()) == [Code::E04].into() => {}
        Err(e) => fail(format!(
            "dumps refused a valid object{}: {}\ncontract: {}\nobject: {obj}",
            if null_singles {
                " (it has a one-component tuple whose component is null)"
            } else {
                ""
            },
            render(e.diagnostics()),
            c.to_value()
        )),
        Ok(t) => {
            if blank {
                fail(format!(
                    "a blank record line was written and accepted:\n{t}"
                ));
            }
            let doc = match value::parse(&t, c) {
                Ok(d) => d,
                Err(e) => fail(format!("dumps output does not parse: {e}\n{t}")),
            };
            let got = doc.to_canonical();
            if !equivalent(&got, &want) {
                fail(format!(
                    "parse(dumps(o)) is not o:\n  {got}\nvs\n  {want}\ncontract: {}\ntext:\n{t}",
                    c.to_value()
                ));
            }
            match mini::dumps(&got, c) {
                Ok(t2) if t2 == t => {}
                Ok(t2) if b.defaults => match value::parse(&t2, c) {
                    Ok(d2) if equivalent(&d2.to_canonical(), &got) => {}
                    _ => fail(format!("dumps ∘ parse changed the object:\n{t}\nvs\n{t2}")),
                },
                Ok(t2) => fail(format!("dumps(parse(t)) != t:\n{t}\nvs\n{t2}")),
                Err(e) => fail(format!("dumps refused its own parsed output: {e}\n{t}")),
            }
        }
    }
}
