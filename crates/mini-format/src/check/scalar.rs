//! Typing of one scalar text against its [`Scalar`] spec (SPEC 1.1 §4, §6).

use std::borrow::Cow;

use crate::contract::{Bound, Scalar, ScalarType};
use crate::error::Code;
use crate::number::{self, Dec};

/// A typed scalar, borrowing from the input whenever its canonical text is
/// the text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom<'a> {
    /// `str` and `enum` values.
    Str(Cow<'a, str>),
    /// An int, canonical digits (no leading zeros, no `-0`).
    Int(Cow<'a, str>),
    /// A float as written, validated (may carry leading zeros or an exponent).
    Float(Cow<'a, str>),
    /// A boolean.
    Bool(bool),
    /// A `YYYY-MM-DD` date.
    Date(Cow<'a, str>),
    /// A decimal, canonical text (SPEC 1.1 §6).
    Decimal(Cow<'a, str>),
}

impl Atom<'_> {
    /// The atom with its text owned.
    pub fn into_owned(self) -> Atom<'static> {
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        match self {
            Atom::Str(s) => Atom::Str(own(s)),
            Atom::Int(s) => Atom::Int(own(s)),
            Atom::Float(s) => Atom::Float(own(s)),
            Atom::Bool(b) => Atom::Bool(b),
            Atom::Date(s) => Atom::Date(own(s)),
            Atom::Decimal(s) => Atom::Decimal(own(s)),
        }
    }

    /// The text that identifies the value for `unique` (type-tagged).
    pub fn unique_key(&self, out: &mut String) {
        let (tag, text): (char, &str) = match self {
            Atom::Str(s) => (key_tag::STR, s),
            Atom::Int(s) => (key_tag::INT, s),
            Atom::Float(s) => {
                // numeric identity: 1.0 and 1 are the same float
                out.push('f');
                out.push_str(&Dec::parse(s).map(|d| d.format(false)).unwrap_or_default());
                return;
            }
            Atom::Bool(b) => ('b', if *b { "true" } else { "false" }),
            Atom::Date(s) => ('d', s),
            Atom::Decimal(s) => ('m', s),
        };
        out.push(tag);
        out.push_str(text);
    }
}

/// The tags that start [`Atom::unique_key`]'s keys whose text follows
/// as written. The readers that build a key without an atom (a `str`
/// field's text, a short canonical int read as an `i64`: the walk, the
/// typed reader, the serializer) push the same tag, so every consumer
/// gives the same key for the same value.
pub(crate) mod key_tag {
    /// A `str` or `enum` value.
    pub(crate) const STR: char = 's';
    /// An int (canonical digits).
    pub(crate) const INT: char = 'i';
}

/// A violation found while typing a value: the code and a message.
pub type Violation = (Code, String);

pub(super) fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let s: String = text.chars().take(MAX).collect();
        format!("{s}…")
    }
}

fn keep_or<'a>(text: Cow<'a, str>, canonical: String) -> Cow<'a, str> {
    if canonical == *text {
        text
    } else {
        Cow::Owned(canonical)
    }
}

/// Whether `text` is one of an enum's `values` (E10's test): the lengths
/// first, then the bytes one by one, with no `memcmp` call for names of a
/// few bytes (round 24 of issue 21: notes' `lang` took four calls a
/// record).
#[inline(always)]
pub(crate) fn enum_has(values: &[String], text: &str) -> bool {
    let text = text.as_bytes();
    values.iter().any(|v| {
        let v = v.as_bytes();
        v.len() == text.len() && v.iter().zip(text).all(|(a, b)| a == b)
    })
}

/// Types `text` (already unescaped and trimmed, not empty) as `spec`,
/// checking enumeration (E10), lexical form (E06) and, when `ranged`, the
/// bounds (E13).
pub fn check_atom<'a>(
    text: Cow<'a, str>,
    spec: &Scalar,
    ranged: bool,
) -> Result<Atom<'a>, Violation> {
    let atom = match spec.ty {
        ScalarType::Str => return Ok(Atom::Str(text)),
        ScalarType::Enum => {
            if spec.values.iter().any(|v| *v == *text) {
                return Ok(Atom::Str(text));
            }
            return Err(not_in_enum(&text, spec));
        }
        ScalarType::Bool => {
            return match &*text {
                "true" | "1" => Ok(Atom::Bool(true)),
                "false" | "0" => Ok(Atom::Bool(false)),
                other => Err(ill_formed("expected true/false/1/0, got", other)),
            }
        }
        ScalarType::Int => {
            // fast path: a canonical int of up to 18 digits is its own
            // canonical text and an i64 (held exactly by every build)
            if let Some(v) = check_small_int(&text, spec, ranged) {
                v?;
                return Ok(Atom::Int(text));
            }
            Atom::Int(long_int(text)?)
        }
        ScalarType::Float => {
            let Some(has_exp) = number::float_form(&text) else {
                return Err(ill_formed("expected number, got", &text));
            };
            // Without an exponent, a short number is within the exact range
            // and finite as a double: no need to parse it twice more.
            if text.len() > 300 || has_exp {
                wide_float(&text)?;
            }
            Atom::Float(text)
        }
        ScalarType::Date => {
            if !number::is_date(&text) {
                return Err(ill_formed("expected date YYYY-MM-DD, got", &text));
            }
            Atom::Date(text)
        }
        ScalarType::Decimal => {
            if !number::is_decimal(&text) {
                return Err(ill_formed("expected decimal, got", &text));
            }
            let canon = number::canonical_decimal(&text);
            Atom::Decimal(keep_or(text, canon))
        }
    };
    if ranged && (spec.min.is_some() || spec.max.is_some()) && may_be_out(&atom, spec) {
        check_range(&atom, spec)?;
    }
    Ok(atom)
}

/// Whether `atom` may be out of `spec`'s bounds: a short plain float is
/// compared as a double (exact, [`number::cmp_float`]); anything else is
/// left to [`check_range`], which decides and words the error.
#[inline]
fn may_be_out(atom: &Atom<'_>, spec: &Scalar) -> bool {
    match atom {
        Atom::Float(t) => match number::fast_plain_float(t) {
            Some(v) => out_of_bounds(spec, |m| number::cmp_float(v, t, m)),
            None => true,
        },
        _ => true,
    }
}

/// E10: a value outside its enumeration (out of line: errors are cold).
#[cold]
#[inline(never)]
fn not_in_enum(text: &str, spec: &Scalar) -> Violation {
    (
        Code::E10,
        format!("'{}' not in {{{}}}", shorten(text), spec.values.join("|")),
    )
}

/// E06 with `what` and the value (out of line: errors are cold).
#[cold]
#[inline(never)]
fn ill_formed(what: &str, text: &str) -> Violation {
    (Code::E06, format!("{what} '{}'", shorten(text)))
}

/// An int that is not a canonical one of up to 18 digits: its lexical
/// form, its canonical digits, and whether this build holds it.
#[inline(never)]
fn long_int(text: Cow<'_, str>) -> Result<Cow<'_, str>, Violation> {
    if !number::is_int(&text) {
        return Err(ill_formed("expected int, got", &text));
    }
    let digits = if number::is_canonical_int(&text) {
        text
    } else {
        let canon = number::canonical_int(&text);
        keep_or(text, canon)
    };
    if !number::int_is_held_exactly(&digits) {
        return Err((Code::E06, number::unheld_int_message(&shorten(&digits))));
    }
    Ok(digits)
}

/// The exponent and finiteness rules of a float with an exponent or over
/// 300 characters.
#[inline(never)]
fn wide_float(text: &str) -> Result<(), Violation> {
    if Dec::parse(text).is_none() {
        return Err((
            Code::E06,
            format!(
                "number '{}' has an exponent beyond ±{}",
                shorten(text),
                number::MAX_EXPONENT
            ),
        ));
    }
    if !number::is_finite_double(text) {
        return Err((
            Code::E06,
            format!("number '{}' is not a finite double", shorten(text)),
        ));
    }
    Ok(())
}

/// The bounds of an int already read as `v` (written `text`).
/// The fast path of [`check_atom`] for an int: a canonical int of up to
/// 18 digits (its own canonical text, an i64 every build holds exactly),
/// as its value, its range checked when `ranged`. `None`: not such an int
/// (`check_atom` decides). Always in line: as a call it cost the
/// validator's walk 61 instructions a record in quiz (ADR 0068).
#[inline(always)]
pub(crate) fn check_small_int(
    text: &str,
    spec: &Scalar,
    ranged: bool,
) -> Option<Result<i64, Violation>> {
    let v = number::small_canonical_int(text)?;
    Some(if ranged {
        check_int_range(v, text, spec).map(|()| v)
    } else {
        Ok(v)
    })
}

fn check_int_range(v: i64, text: &str, spec: &Scalar) -> Result<(), Violation> {
    if out_of_bounds(spec, |m| {
        number::cmp_small_int(v, m).or_else(|| number::cmp_text(text, m))
    }) {
        // the message (and the exact verdict) of the general rule
        check_range(&Atom::Int(Cow::Borrowed(text)), spec)?;
    }
    Ok(())
}

/// Whether a number is below `spec`'s min or above its max, by `cmp`
/// (the number against a bound; `None`: not comparable, not out).
fn out_of_bounds(spec: &Scalar, cmp: impl Fn(&number::Dec) -> Option<std::cmp::Ordering>) -> bool {
    let cmp = |b: &Bound| match b {
        Bound::Number(m) => cmp(m),
        Bound::Date(_) => None,
    };
    let below = spec
        .min
        .as_ref()
        .is_some_and(|m| cmp(m) == Some(std::cmp::Ordering::Less));
    let above = spec
        .max
        .as_ref()
        .is_some_and(|m| cmp(m) == Some(std::cmp::Ordering::Greater));
    below || above
}

/// Types a float field, component or element and gives its value: the
/// rules of [`check_atom`]'s float branch (syntax, exponent, finiteness
/// and, when `ranged`, the bounds), for the single-pass deserializer, which
/// hands serde the double without reading the text again. A short float
/// without exponent is parsed once and compared with its bounds as doubles
/// ([`number::cmp_float`], exact); any other goes through [`check_atom`].
pub fn check_float(text: Cow<'_, str>, spec: &Scalar, ranged: bool) -> Result<f64, Violation> {
    let fast = number::fast_plain_float(&text);
    if fast.is_some() || plain_finite_float(&text) {
        // plain float syntax always parses, and is finite at this length
        let v: f64 = fast
            .or_else(|| number::float_value(&text))
            .unwrap_or(f64::NAN);
        if ranged && out_of_bounds(spec, |m| number::cmp_float(v, &text, m)) {
            check_range(&Atom::Float(text), spec)?;
        }
        return Ok(v);
    }
    match check_atom(text, spec, ranged)? {
        Atom::Float(t) => Ok(number::float_value(&t).unwrap_or(f64::NAN)),
        _ => Err((Code::E06, "expected number".to_string())),
    }
}

/// [`check_float`] for the typed reader, its common case in line: a
/// short plain float ([`number::fast_plain_float`]) with no bound to
/// compare it with is its double. A bounded one is compared out of line,
/// and any other goes through [`check_float`]. The validation walk keeps
/// calling `check_float`: in line there, it grew the walk (ADR 0068).
#[inline(always)]
pub(crate) fn read_float(
    text: Cow<'_, str>,
    spec: &Scalar,
    ranged: bool,
) -> Result<f64, Violation> {
    match number::fast_plain_float(&text) {
        Some(v) if !ranged || (spec.min.is_none() && spec.max.is_none()) => Ok(v),
        Some(v) => float_within_bounds(text, v, spec),
        None => check_float(text, spec, ranged),
    }
}

/// The bounds of a short plain float read as `v` (written `text`): `v`,
/// or E13 (the message of the general rule).
#[inline(never)]
fn float_within_bounds(text: Cow<'_, str>, v: f64, spec: &Scalar) -> Result<f64, Violation> {
    if out_of_bounds(spec, |m| number::cmp_float(v, &text, m)) {
        check_range(&Atom::Float(text), spec)?;
    }
    Ok(v)
}

/// Whether `text` is a float written plainly (no exponent) in at most 300
/// characters: such a float always parses, to a finite double, so its
/// syntax is its verdict when no bound asks for its value (`check_float`;
/// `mini::check`'s walk, which then does not read the double, ADR 0041).
#[inline(always)]
pub(crate) fn plain_finite_float(text: &str) -> bool {
    text.len() <= 300 && number::float_form(text) == Some(false)
}

#[inline(never)]
fn check_range(atom: &Atom<'_>, spec: &Scalar) -> Result<(), Violation> {
    let below = |b: &Bound| -> bool {
        match (atom, b) {
            (Atom::Date(d), Bound::Date(m)) => **d < **m,
            (Atom::Int(t) | Atom::Float(t) | Atom::Decimal(t), Bound::Number(m)) => {
                number::cmp_text(t, m) == Some(std::cmp::Ordering::Less)
            }
            _ => false,
        }
    };
    let above = |b: &Bound| -> bool {
        match (atom, b) {
            (Atom::Date(d), Bound::Date(m)) => **d > **m,
            (Atom::Int(t) | Atom::Float(t) | Atom::Decimal(t), Bound::Number(m)) => {
                number::cmp_text(t, m) == Some(std::cmp::Ordering::Greater)
            }
            _ => false,
        }
    };
    let text = match atom {
        Atom::Int(t) | Atom::Float(t) | Atom::Decimal(t) | Atom::Date(t) => t,
        _ => return Ok(()),
    };
    if let Some(m) = spec.min.as_ref().filter(|m| below(m)) {
        return Err((
            Code::E13,
            format!("{} < min {}", shorten(text), bound_text(m)),
        ));
    }
    if let Some(m) = spec.max.as_ref().filter(|m| above(m)) {
        return Err((
            Code::E13,
            format!("{} > max {}", shorten(text), bound_text(m)),
        ));
    }
    Ok(())
}

/// The text of a bound, for messages.
pub fn bound_text(b: &Bound) -> String {
    match b {
        Bound::Number(d) => d.format(false),
        Bound::Date(s) => s.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::Dec;

    fn float(min: Option<&str>, max: Option<&str>) -> Scalar {
        let bound = |b: Option<&str>| b.map(|t| Bound::Number(Dec::parse(t).unwrap()));
        Scalar {
            ty: ScalarType::Float,
            values: Vec::new(),
            min: bound(min),
            max: bound(max),
        }
    }

    /// The typed reader's float (`read_float`, its common case in line)
    /// gives what `check_float` gives, bit for bit and code for code, on
    /// every kind of text and of bound, ranged or not (ADR 0068).
    #[test]
    fn read_float_is_check_float() {
        let specs = [
            float(None, None),
            float(Some("-4"), Some("4")),
            float(Some("0"), None),
            float(None, Some("0.5")),
            float(Some("0.1"), Some("0.1")),
        ];
        let texts = [
            "0",
            "-0",
            "-0.00",
            "1.5",
            "-2.25",
            "4",
            "4.0000000000001",
            "-4.01",
            "0.1",
            "0.5",
            "0.50000000000001",
            "123456789012345",
            "1234567890123456",
            "0.00000000000001",
            "1e3",
            "-1e-400",
            "1e400",
            "2.5E-1",
            "1.",
            ".5",
            "--1",
            "+1",
            "1.2.3",
            "",
            "-",
            "abc",
            "0x10",
        ];
        let mut checked = 0;
        for spec in &specs {
            for ranged in [true, false] {
                for text in texts {
                    let want = check_float(Cow::Borrowed(text), spec, ranged);
                    let got = read_float(Cow::Borrowed(text), spec, ranged);
                    match (&want, &got) {
                        (Ok(a), Ok(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{text}"),
                        (Err(a), Err(b)) => assert_eq!(a, b, "{text}"),
                        _ => panic!("{text} {ranged}: {want:?} against {got:?}"),
                    }
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, specs.len() * 2 * texts.len());
        // the bounds are compared when ranged, on the in-line path too
        let bounded = &specs[1];
        assert_eq!(
            read_float(Cow::Borrowed("4.5"), bounded, true)
                .unwrap_err()
                .0,
            Code::E13
        );
        assert_eq!(
            read_float(Cow::Borrowed("4.5"), bounded, false).ok(),
            Some(4.5)
        );
        assert_eq!(
            read_float(Cow::Borrowed("1e9"), bounded, true)
                .unwrap_err()
                .0,
            Code::E13
        );
        assert_eq!(
            read_float(Cow::Borrowed("1.x"), bounded, true)
                .unwrap_err()
                .0,
            Code::E06
        );
    }
}
