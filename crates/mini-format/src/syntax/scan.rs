//! A small word-at-a-time byte search: the first byte of a set of up to a
//! few values, eight bytes per step, without `unsafe` and without a
//! per-call setup (memchr's vector searches pay a setup that short list
//! elements and values do not repay, and it has no search for more than
//! three bytes). Used by the lexer's list fast path and by the escaper.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The index of the first byte of `bytes[from..]` that is in `set`, or
/// `bytes.len()` when there is none.
#[inline]
pub fn find_any<const N: usize>(bytes: &[u8], from: usize, set: [u8; N]) -> usize {
    let mut i = from;
    // each byte of the set in every lane, once
    let splats = set.map(|b| LO * u64::from(b));
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let w = u64::from_le_bytes(*chunk);
        // the high bit of every byte equal to one of the set, and possibly
        // of bytes above such a byte (a borrow): the lowest set bit is exact
        let mut m = 0;
        for s in splats {
            let x = w ^ s;
            m |= x.wrapping_sub(LO) & !x;
        }
        m &= HI;
        if m != 0 {
            // the lowest flagged byte of each mask is a real match, so the
            // lowest of their union is the first one
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // the last bytes: the slice's last eight bytes read as one word (they
    // overlap what was searched), the bytes before `i` masked off; exact
    // masks, since a masked-off match must not flag a byte above it
    let n = bytes.len();
    if i >= n {
        return n;
    }
    let Some(last) = bytes
        .get(n.saturating_sub(8)..)
        .and_then(<[u8]>::first_chunk::<8>)
    else {
        return (i..n).find(|&k| set.contains(&bytes[k])).unwrap_or(n);
    };
    let w = u64::from_le_bytes(*last);
    let mut m = 0;
    for b in set {
        m |= eq_mask_exact(w, b);
    }
    m &= u64::MAX << ((8 - (n - i)) * 8);
    if m == 0 {
        n
    } else {
        n - 8 + (m.trailing_zeros() / 8) as usize
    }
}

/// The high bit of exactly the bytes of `w` equal to `b` (no borrow from
/// one byte to the next).
#[inline(always)]
fn eq_mask_exact(w: u64, b: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = w ^ (LO * u64::from(b));
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

/// Sixteen bytes of `bytes` from `at` (`at < bytes.len()`), and how far
/// their masks must be shifted down: a tail shorter than sixteen bytes is
/// read as the slice's last sixteen (overlapping what was read: its masks
/// shifted by the overlap, the bits past the end come in as zeros), a
/// slice shorter than sixteen bytes from a zero-padded copy.
#[inline(always)]
fn load16(bytes: &[u8], at: usize) -> (wide::u8x16, usize) {
    if let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        return (wide::u8x16::from(*chunk), 0);
    }
    if let Some(last) = bytes.last_chunk::<16>() {
        return (wide::u8x16::from(*last), at + 16 - bytes.len());
    }
    let mut pad = [0u8; 16];
    let rest = bytes.get(at..).unwrap_or_default();
    pad[..rest.len()].copy_from_slice(rest);
    (wide::u8x16::from(pad), 0)
}

/// One bit per byte of `v` equal to `b`.
#[inline(always)]
fn eq_bits(v: wide::u8x16, b: u8) -> u64 {
    // `move_mask` gives the sixteen lanes' high bits in its low 16 bits
    u64::from(v.cmp_eq(wide::u8x16::splat(b)).move_mask() as u16)
}

/// The index of the first `b` in `bytes[from..]`, or `bytes.len()`:
/// sixteen bytes a step, with no setup (the texts searched are short).
#[inline]
pub fn find_byte(bytes: &[u8], from: usize, b: u8) -> usize {
    let mut at = from;
    while at < bytes.len() {
        let (v, shift) = load16(bytes, at);
        let m = eq_bits(v, b) >> shift;
        if m != 0 {
            return (at + m.trailing_zeros() as usize).min(bytes.len());
        }
        at += 16;
    }
    bytes.len()
}

/// 64 bytes of a line read for structure: for each byte of `set`, one bit
/// per byte equal to it (bit `k` for byte `base + k`; bytes past the end
/// read as zero, which no set holds), sixteen bytes at a time by the
/// `wide` crate's vector compares (SSE2 on x86-64, NEON on aarch64).
pub struct Block;

impl Block {
    /// The masks of `set` over `bytes[base..base + 64]`.
    #[inline(always)]
    pub fn read<const N: usize>(bytes: &[u8], base: usize, set: [u8; N]) -> [u64; N] {
        let mut masks = [0; N];
        for lane in 0..4 {
            let at = base + 16 * lane;
            if at >= bytes.len() {
                // past the end: no byte of the set
                break;
            }
            let (v, shift) = load16(bytes, at);
            for (m, b) in masks.iter_mut().zip(set) {
                *m |= (eq_bits(v, b) >> shift) << (16 * lane);
            }
        }
        masks
    }

    /// The bytes of the block that may follow a backslash under an ASCII
    /// separator `sep`: `|` `,` `*` `"` `\\` `n` and `sep` (a dangling
    /// backslash escapes the position past the end, which is none).
    #[inline(always)]
    pub fn escapable(bytes: &[u8], base: usize, sep: u8) -> u64 {
        let mut m = 0;
        for lane in 0..4 {
            let at = base + 16 * lane;
            if at >= bytes.len() {
                break;
            }
            let (v, shift) = load16(bytes, at);
            // the lanes' compares or-ed as vectors, one mask taken
            let mut any = v.cmp_eq(wide::u8x16::splat(sep));
            for b in [b'|', b',', b'*', b'"', b'\\', b'n'] {
                any |= v.cmp_eq(wide::u8x16::splat(b));
            }
            let bits = u64::from(any.move_mask() as u16);
            m |= (bits >> shift) << (16 * lane);
        }
        m
    }
}

/// The bytes escaped by a backslash in a block, given its backslashes and
/// whether its first byte is escaped by the previous block (`carry`, 0 or
/// 1, updated for the next block): the byte after each backslash that
/// starts an odd-numbered place in a run of backslashes (simdjson's
/// odd-run rule).
#[inline(always)]
pub fn escaped_bits(backslash: u64, carry: &mut u64) -> u64 {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let potential = backslash & !*carry;
    let maybe = potential << 1;
    let codes = ((maybe | ODD).wrapping_sub(potential)) ^ ODD;
    let escaped = codes ^ (backslash | *carry);
    let escape = codes & backslash;
    *carry = escape >> 63;
    escaped
}

#[cfg(test)]
mod tests {
    use super::find_any;

    #[test]
    fn finds_what_a_byte_loop_finds() {
        let alphabet = b"ab,;\\\"*|\n\r\x80\xff\x01\x7f";
        let mut rng = crate::test_rng(0x1234_5678_9abc_def1);
        for _ in 0..50_000 {
            let state = rng();
            let len = (state % 40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|k| alphabet[((state >> (k % 60)) as usize + k * 7) % alphabet.len()])
                .collect();
            let from = if len == 0 {
                0
            } else {
                (state >> 20) as usize % (len + 1)
            };
            let sets: [&[u8]; 3] = [b",\\\"", b"\\|\n\r;", b"\xff"];
            for set in sets {
                let want = (from..len)
                    .find(|&i| set.contains(&bytes[i]))
                    .unwrap_or(len);
                let got = match set.len() {
                    3 => find_any(&bytes, from, [set[0], set[1], set[2]]),
                    5 => find_any(&bytes, from, [set[0], set[1], set[2], set[3], set[4]]),
                    _ => find_any(&bytes, from, [set[0]]),
                };
                assert_eq!(got, want, "{bytes:?} from {from} set {set:?}");
            }
        }
        assert_eq!(find_any(b"", 0, [b'a']), 0);
        assert_eq!(find_any(b"abc", 3, [b'a']), 3);
    }
}
