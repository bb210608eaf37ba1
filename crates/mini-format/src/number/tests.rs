//! The tests of `number.rs` (moved out when the file passed 800 lines,
//! ADR 0052).

use super::*;

/// The fast path gives std's correctly rounded double, or declines.
#[test]
fn fast_plain_float_is_std_or_nothing() {
    let mut rng = crate::test_rng(0x5eed_f10a_7000_0001);
    let alphabet = b"0123456789.-e";
    let mut decided = 0;
    for _ in 0..200_000 {
        let state = rng();
        let len = 1 + (state % 18) as usize;
        let text: String = (0..len)
            .map(|k| {
                let r = (state >> (k * 3 % 61)) as usize + k * 5;
                char::from(
                    alphabet[r % if k == 0 {
                        11
                    } else {
                        10 + usize::from(r % 7 == 0)
                    }],
                )
            })
            .collect();
        if let Some(v) = fast_plain_float(&text) {
            decided += 1;
            assert!(float_form(&text) == Some(false), "{text}");
            let std = text.parse::<f64>().unwrap();
            // a zero has no sign
            let want = if std == 0.0 { 0.0 } else { std };
            assert_eq!(v.to_bits(), want.to_bits(), "{text}");
        }
    }
    assert!(decided > 50_000, "the fast path decided only {decided}");
    assert_eq!(fast_plain_float("-0.0").map(f64::to_bits), Some(0));
    assert_eq!(float_value("-0e5").map(f64::to_bits), Some(0));
    assert!(float_value("-1e-400").is_some_and(|v| v == 0.0 && v.is_sign_negative()));
    for t in [
        "0.1",
        "123456789012345",
        "0.00000000000001",
        "9.99999999999999",
    ] {
        assert_eq!(
            fast_plain_float(t).map(f64::to_bits),
            Some(t.parse::<f64>().unwrap().to_bits())
        );
    }
    for t in [
        "1.",
        ".5",
        "1e5",
        "1234567890123456",
        "--1",
        "",
        "-",
        "1.2.3",
        "+1",
    ] {
        assert_eq!(fast_plain_float(t), None, "{t}");
    }
}

#[test]
fn lexical_forms() {
    for ok in ["0", "-12", "007"] {
        assert!(is_int(ok), "{ok}");
    }
    for bad in ["", "+1", "1.0", "-", "١٢", " 1"] {
        assert!(!is_int(bad), "{bad}");
    }
    for ok in ["0", "1.5", "-2.5e-1", "1E+3", "00.5"] {
        assert!(is_float_syntax(ok), "{ok}");
    }
    for bad in [".5", "1.", "+1", "NaN", "Infinity", "1e", "1.5.2", ""] {
        assert!(!is_float_syntax(bad), "{bad}");
    }
    for ok in ["1", "-0.00", "007.50"] {
        assert!(is_decimal(ok), "{ok}");
    }
    for bad in ["1e3", "1,5", ".5", "+1", "1."] {
        assert!(!is_decimal(bad), "{bad}");
    }
}

#[test]
fn canonical_forms() {
    assert_eq!(canonical_int("007"), "7");
    assert_eq!(canonical_int("-000"), "0");
    assert_eq!(
        canonical_int("123456789012345678901234567890"),
        "123456789012345678901234567890"
    );
    assert_eq!(canonical_decimal("007.50"), "7.50");
    assert_eq!(canonical_decimal("-0.00"), "0.00");
    assert_eq!(canonical_decimal("-000.10"), "-0.10");
}

#[test]
fn canonical_fast_paths_agree_with_dec() {
    let texts = [
        "0",
        "-0",
        "007",
        "12",
        "-12",
        "100",
        "0.25",
        "-0.5",
        "1.10",
        "00.5",
        "-0.0",
        "1e3",
        "1.5E+3",
        "2.5e-1",
        "0.000001",
        "123456789012345678901234567890.5",
        "1e-40",
        "-3.14159",
        "5.0",
        "10.01",
        "0.1e1",
    ];
    for t in texts {
        assert_eq!(
            canonical_float(t).map(|c| c.into_owned()),
            Dec::parse(t).map(|d| d.format(true)),
            "{t}"
        );
        assert_eq!(
            is_canonical_int(t),
            is_int(t) && canonical_int(t) == t,
            "{t}"
        );
        for b in [
            "0",
            "-1",
            "1",
            "0.25",
            "-4.0",
            "4",
            "1e3",
            "99999999999999999999",
        ] {
            let bound = Dec::parse(b).unwrap();
            assert_eq!(
                cmp_text(t, &bound),
                Dec::parse(t).map(|v| v.cmp(&bound)),
                "{t} vs {b}"
            );
        }
    }
    assert_eq!(cmp_text("1e10001", &Dec::parse("1").unwrap()), None);
    assert_eq!(cmp_text("x", &Dec::parse("1").unwrap()), None);
}

#[test]
fn absurd_exponents_are_refused() {
    assert!(Dec::parse("1e-99999999999999999999").is_none());
    assert!(Dec::parse("1e10001").is_none());
    assert!(Dec::parse("1e9999").is_some());
    assert!(Dec::parse("0e-20000").is_some());
}

#[test]
fn exact_comparison() {
    let d = |s| Dec::parse(s).unwrap();
    assert!(d("1.0000000000000000000001") > d("1"));
    assert!(d("-2.5e-1") == d("-0.25"));
    assert!(d("-3") < d("-2.99"));
    assert!(d("0") == d("-0.0"));
    assert!(d("1e3") == d("1000"));
}

#[test]
fn formatting() {
    let f = |s: &str, k| Dec::parse(s).unwrap().format(k);
    assert_eq!(f("1.0", false), "1");
    assert_eq!(f("1.0", true), "1.0");
    assert_eq!(f("-2.5e-1", false), "-0.25");
    assert_eq!(f("00.5", true), "0.5");
    assert_eq!(f("1e20", false), "100000000000000000000");
    assert_eq!(f("1e-40", false), "1e-40");
    assert_eq!(
        Dec::parse("1e40").unwrap().integer_text().unwrap(),
        format!("1{}", "0".repeat(40))
    );
    assert_eq!(Dec::parse("-2.0").unwrap().integer_text().unwrap(), "-2");
    assert_eq!(Dec::parse("2.5").unwrap().integer_text(), None);
    assert_eq!(f("-0.0", false), "0");
    assert_eq!(format_f64(0.1).unwrap(), "0.1");
    assert_eq!(format_f64(-1.0).unwrap(), "-1");
    assert_eq!(format_f64(1e-7).unwrap(), "0.0000001");
    assert!(format_f64(f64::NAN).is_none());
}

#[test]
fn dates() {
    assert!(is_date("2024-02-29"));
    assert!(!is_date("2023-02-29"));
    assert!(!is_date("0000-01-01"));
    assert!(!is_date("2024-13-01"));
    assert!(!is_date("2024/01/01"));
    assert!(!is_date("2024-01-01T00:00"));
    assert!(is_date("9999-12-31"));
}
