//! The writer's fast path for floats that are short decimals (ADR 0070):
//! prices, scores and weights of a few places, the floats a model's
//! records hold most often.
//!
//! A float `v` is written in its shortest round-trip digits, as `Display`
//! writes them ([`super::leaf::put_f64`]). When `v` is the double nearest
//! to a decimal `D` of at most [`PLACES`] places and at most 15 significant
//! digits, `D` is those digits: any two decimals of at most 15 significant
//! digits round to different doubles (`f64::DIGITS`), so no other decimal
//! as short rounds to `v`, and `D` (its trailing zeros dropped) is the
//! only shortest one. Whether `v` is such a double is one exact test: `D`
//! is `m / 10^PLACES` for the integer `m` nearest to `v * 10^PLACES`, and
//! `v` is its nearest double exactly when the division `m as f64 /
//! 10^PLACES` (correctly rounded, as parsing `D` is) gives `v` back. The
//! test decides; the multiplication only proposes `m`, so its rounding
//! can make the path refuse, never write a wrong digit.

use super::leaf::push_u64;

/// The most decimal places the fast path writes.
const PLACES: u32 = 4;

/// `10^PLACES` (exact as an `f64` too).
const SCALE: u64 = 10u64.pow(PLACES);

/// The bound below which `|v| * 10^PLACES` keeps the decimal at 15
/// significant digits or fewer.
const BOUND: f64 = 1e15;

/// Appends `v` (finite, not zero) when it is the double nearest to a
/// decimal of at most four places and 15 significant digits, in the digits
/// `Display` writes: whether it did (nothing is written when not).
#[inline]
pub(super) fn put_short_decimal(out: &mut String, v: f64) -> bool {
    let scale = SCALE as f64;
    let a = v.abs();
    let y = a * scale;
    // the infinities too (a NaN makes `m` zero below)
    if y >= BOUND {
        return false;
    }
    // the nearest integer (`y` is not negative, and below 2^53: the
    // conversion through `i64` is one instruction, through `u64` eight)
    let m = (y + 0.5) as i64 as u64;
    if m == 0 || m as f64 / scale != a {
        return false;
    }
    if v < 0.0 {
        out.push('-');
    }
    push_u64(out, m / SCALE);
    let f = (m % SCALE) as u32;
    if f != 0 {
        out.push('.');
        let (high, low) = (f / 100, f % 100);
        if low == 0 {
            push_pair(out, high);
        } else {
            push_digit(out, high / 10);
            push_digit(out, high % 10);
            push_pair(out, low);
        }
    }
    true
}

/// Appends the two places of `pair` (`1..100`) without a zero on the
/// right: `5` is `05`, `50` is `5`.
#[inline(always)]
fn push_pair(out: &mut String, pair: u32) {
    push_digit(out, pair / 10);
    if pair % 10 != 0 {
        push_digit(out, pair % 10);
    }
}

/// Appends one digit (`0..10`).
#[inline(always)]
fn push_digit(out: &mut String, d: u32) {
    out.push(char::from(b'0' + d as u8));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every short decimal of up to eight places and many magnitudes, and
    /// the neighbours of each, is written as `Display` writes it, or left
    /// to the general path; the fast path takes every decimal of up to four
    /// places below `10^11`.
    #[test]
    fn short_decimals_are_written_as_display_writes_them() {
        let mut next = crate::test_rng(0x6a09_e667_f3bc_c908);
        let mut out = String::new();
        let mut taken = 0;
        for i in 0..300_000u64 {
            let r = next();
            let places = (r >> 60) as i32 % 9;
            let digits = (r >> 8) % 10u64.pow(1 + (r >> 56) as u32 % 15);
            let mut v = digits as f64 / 10f64.powi(places);
            if r & 1 == 1 {
                v = -v;
            }
            // the decimal itself, then the doubles next to it
            for (k, x) in [
                v,
                f64::from_bits(v.to_bits() + 1),
                f64::from_bits(v.to_bits().wrapping_sub(1)),
            ]
            .into_iter()
            .enumerate()
            {
                if x == 0.0 || !x.is_finite() {
                    continue;
                }
                out.clear();
                if put_short_decimal(&mut out, x) {
                    taken += 1;
                    assert_eq!(out, format!("{x}"), "{x:?} (case {i})");
                } else {
                    assert!(out.is_empty());
                    let short = k == 0 && places <= PLACES as i32 && x.abs() < 1e11;
                    assert!(!short, "{x} was refused (case {i})");
                }
            }
        }
        assert!(taken > 100_000, "the fast path wrote only {taken}");
    }

    /// What the path writes for the usual shapes, and what it leaves.
    #[test]
    fn the_usual_shapes() {
        let write = |x: f64| {
            let mut out = String::new();
            put_short_decimal(&mut out, x).then_some(out)
        };
        assert_eq!(write(0.35).as_deref(), Some("0.35"));
        assert_eq!(write(-2.5).as_deref(), Some("-2.5"));
        assert_eq!(write(0.0001).as_deref(), Some("0.0001"));
        assert_eq!(write(12.0).as_deref(), Some("12"));
        assert_eq!(write(1e10 + 0.25).as_deref(), Some("10000000000.25"));
        assert_eq!(
            write(99_999_999_999.999_9).as_deref(),
            Some("99999999999.9999")
        );
        assert_eq!(write(0.00001), None);
        assert_eq!(write(0.1 + 0.2), None);
        assert_eq!(write(1.0 / 3.0), None);
        assert_eq!(write(1e11), None);
        assert_eq!(write(f64::NAN), None);
        assert_eq!(write(f64::INFINITY), None);
    }
}
