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

    /// Days since 1970-01-01 (negative before it): the unit of Arrow's
    /// `Date32` and of Unix day counts (H. Hinnant's `days_from_civil`).
    ///
    /// ```
    /// let d: mini::Date = "2000-03-01".parse().unwrap();
    /// assert_eq!(d.days_since_epoch(), 11_017);
    /// assert_eq!(mini::Date::from_days_since_epoch(11_017), Some(d));
    /// ```
    pub fn days_since_epoch(&self) -> i64 {
        let (m, d) = (i64::from(self.month), i64::from(self.day));
        let y = i64::from(self.year) - i64::from(m <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01 (the inverse of
    /// [`Date::days_since_epoch`]); `None` outside 0001-01-01..=9999-12-31.
    pub fn from_days_since_epoch(days: i64) -> Option<Date> {
        let z = days.checked_add(719_468)?;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Some(Date {
            year: u16::try_from(year)
                .ok()
                .filter(|y| (1..=9999).contains(y))?,
            month: u8::try_from(month).ok()?,
            day: u8::try_from(day).ok()?,
        })
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

#[cfg(test)]
mod tests {
    use super::Date;

    #[test]
    fn every_day_round_trips_through_its_day_count() {
        let first = Date::new(1, 1, 1).unwrap().days_since_epoch();
        let last = Date::new(9999, 12, 31).unwrap().days_since_epoch();
        let mut prev: Option<Date> = None;
        for days in first..=last {
            let d = Date::from_days_since_epoch(days).unwrap();
            assert_eq!(d.days_since_epoch(), days);
            // consecutive day counts are consecutive, valid days
            assert_eq!(d.to_string().parse::<Date>(), Ok(d));
            if let Some(p) = prev {
                assert!(p < d);
            }
            prev = Some(d);
        }
        assert_eq!(Date::from_days_since_epoch(first - 1), None);
        assert_eq!(Date::from_days_since_epoch(last + 1), None);
        assert_eq!(Date::from_days_since_epoch(i64::MAX), None);
        assert_eq!(
            Date::from_days_since_epoch(0).unwrap().to_string(),
            "1970-01-01"
        );
        assert_eq!(
            Date::from_days_since_epoch(-1).unwrap().to_string(),
            "1969-12-31"
        );
    }
}
