//! Exact decimal numbers: lexical forms of SPEC 1.1 §4 and exact comparison.
//!
//! Numbers never go through binary floating point to be compared or
//! printed: an `int` of any length and a `float` keep every digit they were
//! written with (see ADR 0003 of this project). A float must still be finite
//! as an IEEE double (`1e400` is E06), like every other implementation.

use std::cmp::Ordering;

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `int ::= "-"? DIGIT+` (ASCII digits only).
pub fn is_int(s: &str) -> bool {
    all_digits(s.strip_prefix('-').unwrap_or(s))
}

/// `float ::= "-"? DIGIT+ ( "." DIGIT+ )? ( ( "e" | "E" ) ( "+" | "-" )? DIGIT+ )?`
pub fn is_float_syntax(s: &str) -> bool {
    float_form(s).is_some()
}

/// One pass over a float: `Some(has_exponent)` when `s` has float syntax.
pub(crate) fn float_form(s: &str) -> Option<bool> {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return None;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return None;
        }
    }
    if i == b.len() {
        return Some(false);
    }
    if !matches!(b[i], b'e' | b'E') {
        return None;
    }
    i += 1;
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    (digits(&mut i) && i == b.len()).then_some(true)
}

/// `decimal ::= "-"? DIGIT+ ( "." DIGIT+ )?`
pub fn is_decimal(s: &str) -> bool {
    let t = s.strip_prefix('-').unwrap_or(s);
    match t.split_once('.') {
        Some((i, f)) => all_digits(i) && all_digits(f),
        None => all_digits(t),
    }
}

/// Whether this build holds ints beyond `i64`/`u64` exactly: true with the
/// `arbitrary_precision` feature; without it such an int is E06 with a
/// message that names the feature (ADR 0019).
pub const ARBITRARY_PRECISION: bool = cfg!(feature = "arbitrary_precision");

/// Whether canonical int text is held exactly by this build: always with
/// the `arbitrary_precision` feature; otherwise when it fits `i64` or `u64`
/// (ADR 0019: no int is silently rounded).
pub fn int_is_held_exactly(canonical: &str) -> bool {
    cfg!(feature = "arbitrary_precision")
        || canonical.parse::<i64>().is_ok()
        || canonical.parse::<u64>().is_ok()
}

/// The E06 message for an int this build does not hold exactly.
pub fn unheld_int_message(digits: &str) -> String {
    format!(
        "int '{digits}' is beyond the 64-bit range this build holds exactly: \
         enable the `arbitrary_precision` feature of mini-format for exact big ints"
    )
}

/// The canonical text of an int: no leading zeros, no sign on zero.
pub fn canonical_int(s: &str) -> String {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        "0".to_string()
    } else if neg {
        format!("-{digits}")
    } else {
        digits.to_string()
    }
}

/// True when `s` is an int already in canonical form (no leading zeros,
/// no `-0`): [`canonical_int`] would return it unchanged.
pub fn is_canonical_int(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    match digits.as_bytes() {
        [] => false,
        [b'0'] => digits.len() == s.len(),
        [first, ..] => *first != b'0' && all_digits(digits),
    }
}

/// The canonical JSON spelling of a float written `s` (valid float syntax),
/// as [`Dec::format`] with `keep_point` gives it, without allocating when
/// `s` is already canonical (`0.25`, `-1.5`) and with one small allocation
/// for a plain integer (`3` → `3.0`). `None` when [`Dec::parse`] refuses it.
pub fn canonical_float(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    if s.len() <= 30 && !s.contains(['e', 'E']) {
        match s.split_once('.') {
            Some((int, frac)) => {
                let int_digits = int.strip_prefix('-').unwrap_or(int);
                let int_ok = int_digits == "0" || is_canonical_int(int_digits);
                let frac_ok = all_digits(frac) && !frac.ends_with('0');
                if int_ok && frac_ok {
                    return Some(Cow::Borrowed(s));
                }
            }
            None if is_canonical_int(s) => {
                let mut t = String::with_capacity(s.len() + 2);
                t.push_str(s);
                t.push_str(".0");
                return Some(Cow::Owned(t));
            }
            None => {}
        }
    }
    Dec::parse(s).map(|d| Cow::Owned(d.format(true)))
}

/// `(m, e)` with value `m × 10^e` for a short plain number (`-?D+(.D+)?`,
/// at most 18 digits), read without allocating; `None` otherwise.
fn small_parts(s: &str) -> Option<(i64, i64)> {
    let b = s.as_bytes();
    let neg = b.first() == Some(&b'-');
    let mut m: i64 = 0;
    let mut digits = 0;
    let mut frac = None;
    for (i, &c) in b.iter().enumerate().skip(usize::from(neg)) {
        match c {
            b'0'..=b'9' => {
                digits += 1;
                if digits > 18 {
                    return None;
                }
                m = m * 10 + i64::from(c - b'0');
            }
            b'.' if frac.is_none() && digits > 0 && i + 1 < b.len() => frac = Some(i),
            _ => return None,
        }
    }
    if digits == 0 {
        return None;
    }
    let e = frac.map_or(0, |p| -((b.len() - p - 1) as i64));
    Some((if neg { -m } else { m }, e))
}

/// Compares `a.0 × 10^a.1` with `b.0 × 10^b.1` exactly when both fit once
/// brought to the same exponent; `None` when they do not.
fn cmp_scaled(a: (i64, i64), b: (i64, i64)) -> Option<Ordering> {
    if a.1 == b.1 {
        // the same scale (an int against an integral bound): nothing to
        // multiply
        return Some(a.0.cmp(&b.0));
    }
    let e = a.1.min(b.1);
    let scale = |(m, x): (i64, i64)| -> Option<i128> {
        let k = u32::try_from(x - e).ok().filter(|&k| k <= 18)?;
        Some(i128::from(m) * 10i128.pow(k))
    };
    Some(scale(a)?.cmp(&scale(b)?))
}

/// The value of an int written in canonical form (no leading zero, no
/// `-0`) with at most 18 digits: every such int is an `i64`. `None` for any
/// other text (the caller takes the general path).
#[inline]
pub fn small_canonical_int(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let neg = b.first() == Some(&b'-');
    let digits = &b[usize::from(neg)..];
    if digits.is_empty() || digits.len() > 18 || (digits[0] == b'0' && (digits.len() > 1 || neg)) {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + i64::from(d);
    }
    Some(if neg { -v } else { v })
}

/// Walks a plain list of ints, each element in the canonical form
/// [`small_canonical_int`] reads (an optional `-`, 1 to 18 digits, no
/// leading zero, no `-0`), separated by the ASCII byte `sep`, and hands
/// each value to `each` as its digits end (ADR 0052): one walk over the
/// bytes, no element cut first. Returns how many elements there are.
/// `None` for anything else (an empty text, a space, a `+`, a leading
/// zero, an escape, a quote, a marker, an empty element, more digits) or
/// when `each` returns false; the caller then reads the list by its
/// general walk, which decides. Also `None` under the separator `-` (a
/// contract may choose it): there a `-` cuts the list before it could
/// be a sign (`-1` is an empty element and `1`).
#[inline(always)]
pub fn canonical_int_list(raw: &[u8], sep: u8, mut each: impl FnMut(i64) -> bool) -> Option<usize> {
    if raw.is_empty() || sep == b'-' {
        return None;
    }
    let (mut i, mut n) = (0, 0);
    loop {
        let neg = raw.get(i) == Some(&b'-');
        i += usize::from(neg);
        let first = i;
        let mut v: i64 = 0;
        while let Some(d) = raw.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d <= 9) {
            // wrapping: past 18 digits the value is refused below
            v = v.wrapping_mul(10).wrapping_add(i64::from(d));
            i += 1;
        }
        let digits = i - first;
        if digits == 0 || digits > 18 || (raw[first] == b'0' && (digits > 1 || neg)) {
            return None;
        }
        if !each(if neg { -v } else { v }) {
            return None;
        }
        n += 1;
        match raw.get(i) {
            None => return Some(n),
            Some(&c) if c == sep => i += 1,
            Some(_) => return None,
        }
    }
}

/// The double of a float written in plain form (`-?DIGITS(.DIGITS)?`, no
/// exponent) with at most 15 digits in all, correctly rounded: the digits
/// are an exact integer below 2^53 and the power of ten (at most 10^15) is
/// exact, so one IEEE division rounds correctly (Clinger's fast path).
/// A zero is `0.0`, whatever its sign (see [`float_value`]). `None` for
/// any other text (the caller parses it in full).
#[inline]
pub fn fast_plain_float(s: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let b = s.as_bytes();
    let neg = b.first() == Some(&b'-');
    let body = &b[usize::from(neg)..];
    if body.is_empty() || body.len() > 16 {
        return None;
    }
    let (mut m, mut digits, mut point) = (0u64, 0usize, None);
    for (k, &c) in body.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                m = m * 10 + u64::from(c - b'0');
                digits += 1;
            }
            // a point needs a digit on each side
            b'.' if point.is_none() && k > 0 && k + 1 < body.len() => point = Some(k),
            _ => return None,
        }
    }
    if digits > 15 {
        return None;
    }
    let frac = point.map_or(0, |p| body.len() - p - 1);
    // m < 10^15 < 2^53: exact as a double
    #[allow(clippy::cast_precision_loss)]
    let v = m as f64 / POW10[frac];
    // a zero has no sign (see [`float_value`])
    Some(if neg && m != 0 { -v } else { v })
}

/// The double of a float written `s` (float syntax), as the canonical
/// number has it: correctly rounded, and a zero written with a minus sign
/// (`-0`, `-0.00`) is zero, since the canonical number of a zero has no
/// sign ([`Dec`]). An underflow (`-1e-400`) keeps its sign, as the
/// canonical number's double does. `None` when `s` does not parse.
pub fn float_value(s: &str) -> Option<f64> {
    if let Some(v) = fast_plain_float(s) {
        return Some(v);
    }
    let v = s.parse::<f64>().ok()?;
    if v == 0.0 && v.is_sign_negative() {
        let mantissa = s.split(['e', 'E']).next().unwrap_or(s);
        if mantissa.bytes().all(|b| matches!(b, b'0' | b'-' | b'.')) {
            return Some(0.0);
        }
    }
    Some(v)
}

/// Compares `v` with `d` exactly when `d` is small (its digits fit an
/// `i64` and its exponent is within ±18); `None` otherwise.
#[inline]
pub fn cmp_small_int(v: i64, d: &Dec) -> Option<Ordering> {
    cmp_scaled((v, 0), d.small_parts()?)
}

/// Compares `v` (the correctly rounded double of the number written
/// `text`) with the bound `d`, exactly: a strict answer from the doubles is
/// exact, since rounding to nearest is monotonic (`round(x) < round(d)`
/// implies `x < d`); a tie of the doubles is decided on the text.
#[inline]
pub fn cmp_float(v: f64, text: &str, d: &Dec) -> Option<Ordering> {
    match v.partial_cmp(&d.as_f64()) {
        Some(Ordering::Equal) | None => cmp_text(text, d),
        o => o,
    }
}

/// Compares the number written `s` (int, float or decimal syntax) with `d`
/// exactly, without allocating: the same answer as
/// `Dec::parse(s).map(|v| v.cmp(d))` (`None` when that parse fails).
pub fn cmp_text(s: &str, d: &Dec) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (small_parts(s), d.small_parts()) {
        if let Some(o) = cmp_scaled(a, b) {
            return Some(o);
        }
    }
    let has_exp = float_form(s)?;
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let (mant, exp) = match has_exp.then(|| body.find(['e', 'E'])).flatten() {
        Some(p) => (&body[..p], body[p + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let exp = exp.checked_sub(i64::try_from(frac.len()).ok()?)?;
    let all = || int.bytes().chain(frac.bytes());
    let total = int.len() + frac.len();
    let lead = all().take_while(|&b| b == b'0').count();
    let zero = lead == total;
    let point = if zero {
        0
    } else {
        let p = exp.checked_add(i64::try_from(total - lead).ok()?)?;
        if !(-MAX_EXPONENT..=MAX_EXPONENT).contains(&p) {
            return None;
        }
        p
    };
    let neg = neg && !zero;
    if neg != d.neg {
        return Some(if neg {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    let magnitude = if zero || d.is_zero() {
        (!zero).cmp(&!d.is_zero())
    } else {
        let dp = d.exp + d.digits.len() as i64;
        point.cmp(&dp).then_with(|| {
            let mut mine = all().skip(lead).map(|b| b - b'0');
            let mut theirs = d.digits.iter().copied();
            loop {
                match (mine.next(), theirs.next()) {
                    (None, None) => return Ordering::Equal,
                    (x, y) => match x.unwrap_or(0).cmp(&y.unwrap_or(0)) {
                        Ordering::Equal => continue,
                        o => return o,
                    },
                }
            }
        })
    };
    Some(if neg { magnitude.reverse() } else { magnitude })
}

/// The canonical text of a decimal (SPEC 1.1 §6): leading zeros of the
/// integer part dropped, no sign on a zero value, every fractional digit kept.
pub fn canonical_decimal(s: &str) -> String {
    let (neg, body) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let zero = int == "0" && frac.is_none_or(|f| f.bytes().all(|b| b == b'0'));
    let mut out = String::with_capacity(s.len());
    if neg && !zero {
        out.push('-');
    }
    out.push_str(int);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// The largest decimal exponent (position of the leading digit) an exact
/// number may have: doubles span about ±324, so this only rejects texts like
/// `1e-99999999999999999999`, which no implementation could hold exactly.
pub const MAX_EXPONENT: i64 = 10_000;

/// The most digits an integer is written with by the serializer.
pub const MAX_WRITTEN_DIGITS: i64 = 4096;

/// An exact decimal value: `(-1)^neg × digits × 10^exp`, with `digits`
/// free of leading and trailing zeros (empty for zero).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dec {
    neg: bool,
    digits: Vec<u8>,
    exp: i64,
    /// [`Dec::small_parts`], computed once: a range bound is compared with
    /// every value of its field.
    small: Option<(i64, i64)>,
    /// The correctly rounded double, as bits (for [`cmp_float`]).
    f64_bits: u64,
}

impl Dec {
    /// Parses any JSON-number-like text (int, float, decimal forms, and the
    /// `1.5E+3` forms serde_json prints). `None` if it is not one, or if its
    /// decimal exponent is beyond ±[`MAX_EXPONENT`] (far past any double).
    pub fn parse(s: &str) -> Option<Dec> {
        if !is_float_syntax(s) {
            return None;
        }
        let (neg, body) = match s.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, s),
        };
        let (mant, exp) = match body.find(['e', 'E']) {
            Some(p) => (&body[..p], body[p + 1..].parse::<i64>().ok()?),
            None => (body, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
        let mut exp = exp.checked_sub(i64::try_from(frac.len()).ok()?)?;
        let lead = digits.iter().take_while(|&&d| d == 0).count();
        digits.drain(..lead);
        while digits.last() == Some(&0) {
            digits.pop();
            exp = exp.checked_add(1)?;
        }
        if digits.is_empty() {
            return Some(Dec::new(false, digits, 0));
        }
        let magnitude = exp + digits.len() as i64;
        if !(-MAX_EXPONENT..=MAX_EXPONENT).contains(&magnitude) {
            return None;
        }
        Some(Dec::new(neg, digits, exp))
    }

    fn new(neg: bool, digits: Vec<u8>, exp: i64) -> Dec {
        let small = (digits.len() <= 18 && exp.abs() <= 40).then(|| {
            let m = digits.iter().fold(0i64, |m, &d| m * 10 + i64::from(d));
            (if neg { -m } else { m }, exp)
        });
        let f64_bits = {
            let mut t = String::with_capacity(digits.len() + 8);
            if neg {
                t.push('-');
            }
            if digits.is_empty() {
                t.push('0');
            }
            t.extend(digits.iter().map(|&d| char::from(b'0' + d)));
            t.push('e');
            t.push_str(&exp.to_string());
            t.parse::<f64>().map_or(0, f64::to_bits)
        };
        Dec {
            neg,
            digits,
            exp,
            small,
            f64_bits,
        }
    }

    /// The correctly rounded double of the value (±infinity beyond the
    /// doubles).
    pub fn as_f64(&self) -> f64 {
        f64::from_bits(self.f64_bits)
    }

    /// `(m, e)` with value `m × 10^e` when the value has at most 18
    /// significant digits and a small exponent.
    fn small_parts(&self) -> Option<(i64, i64)> {
        self.small
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// True when the value is an integer.
    pub fn is_integral(&self) -> bool {
        self.exp >= 0
    }

    fn magnitude_cmp(&self, other: &Dec) -> Ordering {
        if self.is_zero() || other.is_zero() {
            return self.digits.len().min(1).cmp(&other.digits.len().min(1));
        }
        // position of the most significant digit
        let a = self.exp + self.digits.len() as i64;
        let b = other.exp + other.digits.len() as i64;
        a.cmp(&b).then_with(|| {
            let n = self.digits.len().max(other.digits.len());
            for i in 0..n {
                let x = self.digits.get(i).copied().unwrap_or(0);
                let y = other.digits.get(i).copied().unwrap_or(0);
                match x.cmp(&y) {
                    Ordering::Equal => continue,
                    o => return o,
                }
            }
            Ordering::Equal
        })
    }

    /// The digits of an integral value, never with an exponent
    /// (`1e40` → `1` followed by 40 zeros); `None` for a fraction.
    /// Values that would need more than [`MAX_WRITTEN_DIGITS`] digits give
    /// `None` too (a JSON `1e999999999` must not allocate a gigabyte).
    pub fn integer_text(&self) -> Option<String> {
        if !self.is_integral() || self.exp > MAX_WRITTEN_DIGITS {
            return None;
        }
        if self.is_zero() {
            return Some("0".to_string());
        }
        let mut out = String::with_capacity(self.digits.len() + self.exp as usize + 1);
        if self.neg {
            out.push('-');
        }
        out.extend(self.digits.iter().map(|d| char::from(b'0' + d)));
        out.extend(std::iter::repeat_n('0', self.exp as usize));
        Some(out)
    }

    /// Plain decimal text: integral values without a point (or with `.0`
    /// when `keep_point`), fractions with their minimal digits. Values whose
    /// plain form would need more than 30 padding zeros use an exponent
    /// (`1.5e+40`, `1e-35`).
    pub fn format(&self, keep_point: bool) -> String {
        let mut out = String::new();
        if self.neg {
            out.push('-');
        }
        let digits: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        if self.is_zero() {
            out.push('0');
            if keep_point {
                out.push_str(".0");
            }
            return out;
        }
        let len = self.digits.len() as i64;
        let point = len + self.exp; // digits before the decimal point
        if self.exp > 30 || point < -30 {
            let e = point - 1;
            out.push_str(&digits[..1]);
            if digits.len() > 1 {
                out.push('.');
                out.push_str(&digits[1..]);
            }
            out.push('e');
            out.push(if e < 0 { '-' } else { '+' });
            out.push_str(&e.unsigned_abs().to_string());
            return out;
        }
        if self.exp >= 0 {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', self.exp as usize));
            if keep_point {
                out.push_str(".0");
            }
        } else if point > 0 {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(&digits);
        }
        out
    }
}

impl PartialOrd for Dec {
    fn partial_cmp(&self, other: &Dec) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Dec {
    fn cmp(&self, other: &Dec) -> Ordering {
        match (self.neg, other.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.magnitude_cmp(other),
            (true, true) => other.magnitude_cmp(self),
        }
    }
}

/// True when a float text denotes a finite IEEE double.
pub fn is_finite_double(s: &str) -> bool {
    s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Formats an `f64` exactly (shortest round-trip digits), integral values
/// without `.0`: the number spelling of the serializer.
pub fn format_f64(x: f64) -> Option<String> {
    if !x.is_finite() {
        return None;
    }
    let s = format!("{x:e}");
    Dec::parse(&s).map(|d| d.format(false))
}

/// True for a valid `YYYY-MM-DD` day of the proleptic Gregorian calendar
/// between 0001-01-01 and 9999-12-31.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = &s[r];
        all_digits(part).then(|| part.parse().ok()).flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    if y == 0 || !(1..=12).contains(&m) || d == 0 {
        return false;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    d <= days
}

#[cfg(test)]
mod tests;
