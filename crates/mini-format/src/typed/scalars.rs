//! [`Date`] and [`Decimal`]: the two scalar types SPEC 1.1 added, as Rust
//! types that serialize to their canonical JSON strings.

use std::fmt;
use std::str::FromStr;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::number;

/// A calendar day `YYYY-MM-DD` (proleptic Gregorian, 0001-01-01 to
/// 9999-12-31). Serializes as its text.
///
/// ```
/// let d: mini::Date = "2024-02-29".parse().unwrap();
/// assert_eq!((d.year(), d.month(), d.day()), (2024, 2, 29));
/// assert!("2023-02-29".parse::<mini::Date>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// A date, if it names an existing day.
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        let text = format!("{year:04}-{month:02}-{day:02}");
        number::is_date(&text).then_some(Date { year, month, day })
    }

    /// The year.
    pub fn year(&self) -> u16 {
        self.year
    }

    /// The month (1–12).
    pub fn month(&self) -> u8 {
        self.month
    }

    /// The day of the month.
    pub fn day(&self) -> u8 {
        self.day
    }
}

/// Error for a text that is not a valid [`Date`] or [`Decimal`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScalarParseError(String);

impl FromStr for Date {
    type Err = ScalarParseError;
    fn from_str(s: &str) -> Result<Date, ScalarParseError> {
        if !number::is_date(s) {
            return Err(ScalarParseError(format!(
                "expected date YYYY-MM-DD, got '{s}'"
            )));
        }
        let n = |r: std::ops::Range<usize>| s[r].parse::<u16>().unwrap_or(0);
        Ok(Date {
            year: n(0..4),
            month: n(5..7) as u8,
            day: n(8..10) as u8,
        })
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Date;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a date YYYY-MM-DD")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Date, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

/// An exact base-10 number in canonical form (SPEC 1.1 §6): no leading
/// zeros, no sign on zero, every fractional digit kept (`007.50` → `7.50`).
/// Serializes as its text, like the canonical JSON object.
///
/// ```
/// let d: mini::Decimal = "-007.50".parse().unwrap();
/// assert_eq!(d.as_str(), "-7.50");
/// assert!("1e3".parse::<mini::Decimal>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Decimal(String);

impl Decimal {
    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for Decimal {
    type Err = ScalarParseError;
    fn from_str(s: &str) -> Result<Decimal, ScalarParseError> {
        if !number::is_decimal(s) {
            return Err(ScalarParseError(format!("expected decimal, got '{s}'")));
        }
        Ok(Decimal(number::canonical_decimal(s)))
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Decimal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Decimal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Decimal;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a decimal string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Decimal, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
                Ok(Decimal(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
                Ok(Decimal(v.to_string()))
            }
        }
        d.deserialize_str(V)
    }
}
