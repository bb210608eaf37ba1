//! The line's structure read by vector compares, without `unsafe` in
//! this crate: one bit per byte, 64 bytes to a [`Block`]; escapes
//! resolved on the masks by the odd-run rule ([`escaped_bits`], as
//! simdjson resolves JSON's), so that no search restarts at a backslash.
//! No per-call setup either (memchr's vector searches pay one that short
//! fields and elements do not repay). Used by the lexer's field and list
//! fast paths (ADR 0033). A block's lanes are the widest the machine has,
//! chosen at run time ([`widest`], ADR 0059): one AVX-512 vector, two
//! AVX2 ones, or four 16-byte vectors of the `wide` crate (SSE2 on
//! x86-64, NEON on aarch64, scalar elsewhere); the sixteen-byte searches
//! below ([`find_byte`], [`plain_separators`]) are `wide`'s alone.

/// Sixteen bytes of `bytes` from `at` (`at < bytes.len()`), and how far
/// their masks must be shifted down: a tail shorter than sixteen bytes is
/// read as the slice's last sixteen (overlapping what was read: its masks
/// shifted by the overlap, the bits past the end come in as zeros), a
/// slice shorter than sixteen bytes from its bytes put together in registers
/// ([`short16`]), zeros after them.
#[inline(always)]
fn load16(bytes: &[u8], at: usize) -> (wide::u8x16, usize) {
    if let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        return (wide::u8x16::from(*chunk), 0);
    }
    if let Some(last) = bytes.last_chunk::<16>() {
        return (wide::u8x16::from(*last), at + 16 - bytes.len());
    }
    let rest = bytes.get(at..).unwrap_or_default();
    (wide::u8x16::from(short16(rest).to_le_bytes()), 0)
}

/// A slice shorter than sixteen bytes (the only length its callers,
/// [`load16`] and [`short_word`], hand it) as the low bytes of a `u128`, the
/// rest zero, read by at most two overlapping word loads and put together
/// in registers. A zero-padded copy in memory read back as one vector
/// waits for its byte stores to land (a store-to-load forward that fails).
#[inline(always)]
fn short16(rest: &[u8]) -> u128 {
    let n = rest.len();
    // the little-endian word at `from` (in bounds: the callers' lengths)
    let u64_at = |from: usize| {
        rest.get(from..)
            .and_then(<[u8]>::first_chunk::<8>)
            .map_or(0, |w| u64::from_le_bytes(*w))
    };
    let u32_at = |from: usize| {
        rest.get(from..)
            .and_then(<[u8]>::first_chunk::<4>)
            .map_or(0, |w| u32::from_le_bytes(*w))
    };
    if n >= 8 {
        // bytes 8..n are the last word's top `n - 8` bytes
        let high = u64_at(n - 8).checked_shr(8 * (16 - n) as u32).unwrap_or(0);
        u128::from(u64_at(0)) | (u128::from(high) << 64)
    } else if n >= 4 {
        let high = u32_at(n - 4).checked_shr(8 * (8 - n) as u32).unwrap_or(0);
        u128::from(u32_at(0)) | (u128::from(high) << 32)
    } else {
        rest.iter()
            .rev()
            .fold(0u128, |acc, &b| (acc << 8) | u128::from(b))
    }
}

/// A text of at most fifteen bytes as one word: its bytes in the low
/// fifteen bytes (the first lowest), its length in the top byte, so that
/// two texts are equal when their words are (the direct reader's enum
/// names, `de::direct::pack_name`, packed the same way). `None` for a
/// longer text.
#[inline(always)]
pub(crate) fn short_word(bytes: &[u8]) -> Option<u128> {
    (bytes.len() <= 15).then(|| short16(bytes) | (bytes.len() as u128) << 120)
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

/// How many bytes of `bytes` are `sep`, or `None` when one of them is
/// `"`, `*` or `\\` (or `sep` is zero, the padding of a short slice): the
/// test of a list or tuple text that needs no element grammar, sixteen
/// bytes a step with no branch per byte (such texts are a few numbers).
#[inline]
pub fn plain_separators(bytes: &[u8], sep: u8) -> Option<usize> {
    if sep == 0 {
        return None;
    }
    let special = [b'"', b'*', b'\\'].map(wide::u8x16::splat);
    let sep = wide::u8x16::splat(sep);
    let (mut count, mut at) = (0, 0);
    while at < bytes.len() {
        let (v, shift) = load16(bytes, at);
        let hit = v.cmp_eq(special[0]) | v.cmp_eq(special[1]) | v.cmp_eq(special[2]);
        if (hit.move_mask() as u16) >> shift != 0 {
            return None;
        }
        count += ((v.cmp_eq(sep).move_mask() as u16) >> shift).count_ones() as usize;
        at += 16;
    }
    Some(count)
}

/// The index of the first `a` or `b` in `bytes[from..]`, or `bytes.len()`:
/// [`find_byte`] for two bytes, sixteen bytes a step with no setup (a
/// short slice's zero padding lies past every real byte; a match there is
/// clamped to the end). A quoted element's runs between `""` and escapes
/// are a few bytes long, where `memchr2`'s setup cost more than the
/// search (ADR 0040). The loop is not shared with `find_byte`: one generic
/// over the set of bytes made rubric's typed decode 0.44% longer
/// (ADR 0040).
#[inline]
pub fn find_either(bytes: &[u8], from: usize, a: u8, b: u8) -> usize {
    let (va, vb) = (wide::u8x16::splat(a), wide::u8x16::splat(b));
    let mut at = from;
    while at < bytes.len() {
        let (v, shift) = load16(bytes, at);
        let m = u64::from((v.cmp_eq(va) | v.cmp_eq(vb)).move_mask() as u16) >> shift;
        if m != 0 {
            return (at + m.trailing_zeros() as usize).min(bytes.len());
        }
        at += 16;
    }
    bytes.len()
}

/// The index of the first byte of `bytes[from..]` that the escaper must
/// look at, or `bytes.len()`: a byte below CR (LF, CR and the control
/// bytes before them), `\\`, `|`, or `sep` (a separator's first byte,
/// when `SEP`). Sixteen bytes a step.
#[inline(always)]
pub fn find_escape_candidate<const SEP: bool>(bytes: &[u8], from: usize, sep: u8) -> usize {
    let (cr, slash, pipe, sep_v) = (
        wide::u8x16::splat(0x0D),
        wide::u8x16::splat(b'\\'),
        wide::u8x16::splat(b'|'),
        wide::u8x16::splat(sep),
    );
    let mut at = from;
    while at < bytes.len() {
        let (v, shift) = load16(bytes, at);
        let mut any = v.min(cr).cmp_eq(v) | v.cmp_eq(slash) | v.cmp_eq(pipe);
        if SEP {
            any |= v.cmp_eq(sep_v);
        }
        let m = u64::from(any.move_mask() as u16) >> shift;
        if m != 0 {
            // a short slice's zero padding is flagged (below CR), which lies
            // past every real byte: clamped to the end
            return (at + m.trailing_zeros() as usize).min(bytes.len());
        }
        at += 16;
    }
    bytes.len()
}

/// How a [`Block`]'s 64 bytes are held and compared: four 16-byte
/// vectors of the `wide` crate ([`Narrow`], every target), two 32-byte
/// AVX2 vectors ([`Wide256`]) or one AVX-512 vector ([`Wide512`]) on
/// x86-64 machines that have them, chosen at run time by [`widest`]. A
/// walk generic over its lanes is compiled once for each.
pub trait Lanes: Copy {
    /// The lanes' name, for tests and reports.
    const NAME: &'static str;
    /// The block's bytes as vectors.
    type Vectors: Copy;
    /// The vectors of 64 bytes.
    fn load(self, bytes: &[u8; 64]) -> Self::Vectors;
    /// One bit per byte equal to any of `set` (bit `k` for byte `k`).
    fn mask_any<const N: usize>(self, v: &Self::Vectors, set: [u8; N]) -> u64;
}

/// Four 16-byte vectors of the `wide` crate: SSE2 on x86-64, NEON on
/// aarch64, scalar elsewhere.
#[derive(Clone, Copy, Debug, Default)]
pub struct Narrow;

impl Lanes for Narrow {
    const NAME: &'static str = "narrow (4 × 16 bytes)";
    type Vectors = [wide::u8x16; 4];

    #[inline(always)]
    fn load(self, b: &[u8; 64]) -> Self::Vectors {
        let lane = |k: usize| {
            let mut v = [0u8; 16];
            v.copy_from_slice(&b[16 * k..16 * k + 16]);
            wide::u8x16::from(v)
        };
        [lane(0), lane(1), lane(2), lane(3)]
    }

    #[inline(always)]
    fn mask_any<const N: usize>(self, v: &Self::Vectors, set: [u8; N]) -> u64 {
        let mut m = 0;
        for (k, lane) in v.iter().enumerate() {
            let mut any = wide::u8x16::splat(0);
            for b in set {
                any |= lane.cmp_eq(wide::u8x16::splat(b));
            }
            m |= u64::from(any.move_mask() as u16) << (16 * k);
        }
        m
    }
}

/// Two 32-byte AVX2 vectors, through `pulp`'s token (proof, checked at
/// run time, that the machine has AVX2; `pulp` keeps the `unsafe`). Only
/// inside a function entered by [`pulp::x86::V3::vectorize`] are these
/// compares single instructions: a walk over them is called that way.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Wide256(pub pulp::x86::V3);

#[cfg(target_arch = "x86_64")]
impl Lanes for Wide256 {
    const NAME: &'static str = "avx2 (2 × 32 bytes)";
    type Vectors = [std::arch::x86_64::__m256i; 2];

    #[inline(always)]
    fn load(self, b: &[u8; 64]) -> Self::Vectors {
        pulp::bytemuck::cast(*b)
    }

    #[inline(always)]
    fn mask_any<const N: usize>(self, v: &Self::Vectors, set: [u8; N]) -> u64 {
        let simd = self.0;
        let mut m = 0;
        for (k, lane) in v.iter().enumerate() {
            let mut any = simd.avx._mm256_setzero_si256();
            for b in set {
                let eq = simd
                    .avx2
                    ._mm256_cmpeq_epi8(*lane, simd.avx._mm256_set1_epi8(b as i8));
                any = simd.avx2._mm256_or_si256(any, eq);
            }
            m |= u64::from(simd.avx2._mm256_movemask_epi8(any) as u32) << (32 * k);
        }
        m
    }
}

/// A walk over a text's blocks, generic over its lanes: [`widest`] runs
/// it with the widest lanes the machine has.
pub trait LaneWalk {
    /// What the walk gives.
    type Output;
    /// The walk, its blocks in lanes `lanes`.
    fn walk<L: Lanes>(self, lanes: L) -> Self::Output;
}

/// Runs `walk` in the widest lanes the machine has, inside a function
/// built for their features: [`Wide512`] (AVX-512, with BMI) on x86-64
/// machines of the Ice Lake generation or later, [`Wide256`] (AVX2, with
/// BMI) on other x86-64-v3 machines, [`Narrow`] elsewhere. The machine is
/// asked once ([`Chosen::detect`]); then a call costs one load, a compare
/// and a jump, and every way out is a tail call, so that a caller sets up
/// no stack frame before it. The walk's own `#[inline(always)]` functions
/// are built into that function; what it calls out of line is not.
#[inline(always)]
pub fn widest<W: LaneWalk>(walk: W) -> W::Output {
    #[cfg(target_arch = "x86_64")]
    {
        match Chosen::known() {
            Some(Chosen::Wide512(simd)) => simd.vectorize(
                #[inline(always)]
                move || walk.walk(Wide512(simd)),
            ),
            Some(Chosen::Wide256(simd)) => simd.vectorize(
                #[inline(always)]
                move || walk.walk(Wide256(simd)),
            ),
            Some(Chosen::Narrow) | None => narrow_or_first(walk),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    walk.walk(Narrow)
}

/// `walk` in [`Narrow`] lanes, or, on the first call, after asking the
/// machine: out of line, so that neither path's body makes every caller
/// of [`widest`] save registers and set up a stack frame for lanes that
/// x86-64-v3 and newer machines take once.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn narrow_or_first<W: LaneWalk>(walk: W) -> W::Output {
    match Chosen::known() {
        Some(Chosen::Narrow) => walk.walk(Narrow),
        _ => {
            Chosen::detect();
            widest(walk)
        }
    }
}

/// The lanes [`widest`] takes on this machine, each wide set with the
/// token that proves its features.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
enum Chosen {
    Wide512(pulp::x86::V4),
    Wide256(pulp::x86::V3),
    Narrow,
}

#[cfg(target_arch = "x86_64")]
static CHOSEN: std::sync::OnceLock<Chosen> = std::sync::OnceLock::new();

#[cfg(target_arch = "x86_64")]
impl Chosen {
    /// The lanes chosen, once [`Chosen::detect`] has run; in this crate's
    /// unit tests, no wider than the thread's cap
    /// ([`tests::in_lanes_up_to`]).
    #[inline(always)]
    fn known() -> Option<Chosen> {
        let chosen = CHOSEN.get().copied();
        #[cfg(test)]
        let chosen = chosen.map(Chosen::capped);
        chosen
    }

    /// `self`, or the widest lanes under this thread's cap in this crate's
    /// unit tests ([`tests::in_lanes_up_to`]).
    #[cfg(test)]
    fn capped(self) -> Chosen {
        let cap = tests::LANES_CAP.with(std::cell::Cell::get);
        match self {
            Chosen::Wide512(_) if cap < 512 => pulp::x86::V3::try_new()
                .filter(|_| cap >= 256)
                .map_or(Chosen::Narrow, Chosen::Wide256),
            Chosen::Wide256(_) if cap < 256 => Chosen::Narrow,
            other => other,
        }
    }

    /// Asks the machine, once: AVX-512 only where it costs no clock (Ice
    /// Lake and later, which have VBMI2; simdjson draws the same line): on
    /// Skylake-X the 64-byte vectors lower the core's frequency for the
    /// code around them.
    #[cold]
    fn detect() {
        CHOSEN.get_or_init(|| {
            if std::arch::is_x86_feature_detected!("avx512vbmi2") {
                if let Some(simd) = pulp::x86::V4::try_new() {
                    return Chosen::Wide512(simd);
                }
            }
            pulp::x86::V3::try_new().map_or(Chosen::Narrow, Chosen::Wide256)
        });
    }
}

/// The name of the lanes [`widest`] runs a walk in ([`crate::simd_lanes`]).
pub fn lanes_name() -> &'static str {
    struct LanesName;

    impl LaneWalk for LanesName {
        type Output = &'static str;
        fn walk<L: Lanes>(self, _: L) -> &'static str {
            L::NAME
        }
    }

    widest(LanesName)
}

/// One 64-byte AVX-512 vector, through `pulp`'s token: a byte's mask
/// is one compare into a mask register.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Wide512(pub pulp::x86::V4);

#[cfg(target_arch = "x86_64")]
impl Lanes for Wide512 {
    const NAME: &'static str = "avx512 (1 × 64 bytes)";
    type Vectors = std::arch::x86_64::__m512i;

    #[inline(always)]
    fn load(self, b: &[u8; 64]) -> Self::Vectors {
        pulp::bytemuck::cast(*b)
    }

    #[inline(always)]
    fn mask_any<const N: usize>(self, v: &Self::Vectors, set: [u8; N]) -> u64 {
        let simd = self.0;
        let mut m = 0;
        for b in set {
            m |= simd
                .avx512bw
                ._mm512_cmpeq_epi8_mask(*v, simd.avx512f._mm512_set1_epi8(b as i8));
        }
        m
    }
}

/// 64 bytes of a line read for structure, held as lanes `L` ([`Narrow`]:
/// four 16-byte vectors of the `wide` crate; [`Wide256`]: two AVX2
/// vectors): for a byte value, one
/// bit per byte equal to it (bit `k` for byte `base + k`; bytes past the
/// end of the line hold no bit). A block is loaded once and asked for as
/// many masks as its reader needs. The last, partial block of a text of
/// 64 bytes or more is read as the text's last 64 bytes, its masks shifted
/// down to `base` (no copy); only a shorter text is copied into a
/// zero-padded block, out of the hot loop (ADR 0034, 0035: the code a
/// record runs must stay small).
pub struct Block<L: Lanes = Narrow> {
    lanes: L::Vectors,
    arch: L,
    /// How far the lanes start before `base` (an overlapping last block).
    shift: u32,
    /// The bits of the bytes that are in the line.
    live: u64,
}

#[cfg(test)]
impl Block<Narrow> {
    /// The block of `bytes` at `base` (`base < bytes.len()`, or an empty
    /// block), in [`Narrow`] lanes.
    #[inline(always)]
    pub fn load(bytes: &[u8], base: usize) -> Block {
        Block::load_in(Narrow, bytes, base)
    }
}

impl<L: Lanes> Block<L> {
    /// The block of `bytes` at `base` (`base < bytes.len()`, or an empty
    /// block), in lanes `arch`.
    #[inline(always)]
    pub fn load_in(arch: L, bytes: &[u8], base: usize) -> Block<L> {
        let (b, shift, live) = match bytes.get(base..).and_then(<[u8]>::first_chunk::<64>) {
            Some(full) => (*full, 0, u64::MAX),
            None => match bytes.last_chunk::<64>() {
                // `base + 64 > len >= 64`: the lanes start `shift` bytes
                // before `base`, and the bits above the end are gone once
                // shifted
                Some(last) => {
                    let shift = (base + 64 - bytes.len()).min(64) as u32;
                    (*last, shift, u64::MAX.checked_shr(shift).unwrap_or(0))
                }
                None => {
                    let (b, live) = zero_padded_tail(bytes, base);
                    (b, 0, live)
                }
            },
        };
        Block {
            lanes: arch.load(&b),
            arch,
            shift,
            live,
        }
    }

    /// A mask of the lanes' bits, moved to the block's own bits.
    #[inline(always)]
    fn place(&self, m: u64) -> u64 {
        m.checked_shr(self.shift).unwrap_or(0) & self.live
    }

    /// One bit per byte equal to `b`.
    #[inline(always)]
    pub fn mask(&self, b: u8) -> u64 {
        self.place(self.arch.mask_any(&self.lanes, [b]))
    }

    /// The masks of `set`.
    #[inline(always)]
    pub fn masks<const N: usize>(&self, set: [u8; N]) -> [u64; N] {
        // a loop, not `array::map`: a closure's body may stay out of line,
        // outside the function built for the lanes' features
        let mut out = [0; N];
        for (m, b) in out.iter_mut().zip(set) {
            *m = self.mask(b);
        }
        out
    }

    /// One bit per byte equal to any of `set` (the lanes' compares or-ed
    /// as vectors, one mask taken).
    #[inline(always)]
    pub fn mask_any<const N: usize>(&self, set: [u8; N]) -> u64 {
        self.place(self.arch.mask_any(&self.lanes, set))
    }

    /// The bytes that may follow a backslash under an ASCII separator
    /// `sep`: `|` `,` `*` `"` `\\` `n` and `sep` (a dangling backslash
    /// escapes the position past the end, which is none). Branch-free:
    /// a byte at a time by a table cost more on escape-heavy text (the
    /// loop's exit mispredicted; ADR 0035).
    #[inline(always)]
    pub fn escapable(&self, sep: u8) -> u64 {
        self.mask_any([sep, b'|', b',', b'*', b'"', b'\\', b'n'])
    }
}

/// The last bytes of a text shorter than 64 bytes, zero-padded, and
/// the bits they hold.
#[inline(never)]
fn zero_padded_tail(bytes: &[u8], base: usize) -> ([u8; 64], u64) {
    let rest = bytes.get(base..).unwrap_or_default();
    let mut b = [0u8; 64];
    let n = rest.len().min(64);
    b[..n].copy_from_slice(&rest[..n]);
    (b, 1u64.checked_shl(n as u32).map_or(u64::MAX, |x| x - 1))
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
pub(crate) mod tests {
    use super::{escaped_bits, find_byte, find_either, plain_separators, Block, Lanes, Narrow};
    use std::cell::Cell;

    thread_local! {
        /// Set by [`in_lanes_up_to`]: the widest lanes [`super::widest`]
        /// may take on this thread, in bits.
        pub(super) static LANES_CAP: Cell<u32> = const { Cell::new(512) };
    }

    /// Runs `test` with every walk of this thread in lanes of at most
    /// `bits` (128: [`Narrow`]), so that a machine with wider ones tests
    /// the narrower paths too.
    pub(crate) fn in_lanes_up_to(bits: u32, test: impl FnOnce()) {
        LANES_CAP.with(|c| c.set(bits));
        test();
        LANES_CAP.with(|c| c.set(512));
    }

    /// The lanes a walk takes on this machine under a cap of `bits`.
    fn expected_lanes(bits: u32) -> &'static str {
        #[cfg(target_arch = "x86_64")]
        {
            if bits >= 512
                && std::arch::is_x86_feature_detected!("avx512vbmi2")
                && pulp::x86::V4::is_available()
            {
                return super::Wide512::NAME;
            }
            if bits >= 256 && pulp::x86::V3::is_available() {
                return super::Wide256::NAME;
            }
        }
        let _ = bits;
        Narrow::NAME
    }

    /// A machine with AVX-512 of the Ice Lake generation or later reads
    /// in 64-byte lanes, another with AVX2 and the rest of x86-64-v3 in
    /// 32-byte ones, any other in 16-byte ones; the tests' cap takes each
    /// narrower set in turn.
    #[test]
    fn the_widest_lanes_are_the_machines() {
        let widest = expected_lanes(512);
        assert_eq!(crate::simd_lanes(), widest);
        for bits in [256, 128] {
            in_lanes_up_to(bits, || {
                assert_eq!(crate::simd_lanes(), expected_lanes(bits))
            });
        }
        in_lanes_up_to(128, || assert_eq!(crate::simd_lanes(), Narrow::NAME));
        assert_eq!(crate::simd_lanes(), widest);
    }

    /// Every lane set gives the same masks, exactly the bytes asked for, at
    /// every byte value and position (a full block, the overlapping last
    /// block of a longer text, the zero-padded block of a short one).
    #[test]
    fn every_lane_set_masks_exactly_the_bytes_asked_for() {
        fn masks<L: Lanes>(lanes: L, bytes: &[u8], base: usize, b: u8) -> (u64, u64) {
            let block = Block::load_in(lanes, bytes, base);
            (block.mask(b), block.mask_any([b, 0xff]))
        }
        #[cfg(target_arch = "x86_64")]
        let wide = pulp::x86::V3::try_new().map(super::Wide256);
        #[cfg(target_arch = "x86_64")]
        let widest = pulp::x86::V4::try_new().map(super::Wide512);
        for len in [10usize, 64, 100] {
            for at in 0..len {
                for b in [0u8, 1, b'|', b'\\', 0x7f, 0x80, 0xfe] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    let base = if len == 100 && at >= 64 { 64 } else { 0 };
                    let bit = 1u64 << ((at - base.min(at)) % 64);
                    let in_block = at >= base && at < base + 64;
                    let (m, any) = masks(Narrow, &bytes, base, b);
                    assert_eq!(
                        m,
                        if in_block { bit } else { 0 },
                        "len {len} at {at} byte {b}"
                    );
                    assert_eq!(any, m, "len {len} at {at} byte {b}");
                    #[cfg(target_arch = "x86_64")]
                    if let Some(lanes) = wide {
                        assert_eq!(masks(lanes, &bytes, base, b), (m, any), "len {len} at {at}");
                    }
                    #[cfg(target_arch = "x86_64")]
                    if let Some(lanes) = widest {
                        assert_eq!(masks(lanes, &bytes, base, b), (m, any), "len {len} at {at}");
                    }
                }
            }
        }
    }

    /// A short slice put together in registers is the slice, zero-padded,
    /// at every length below sixteen (each byte distinct, none zero, so a
    /// byte out of place or a pad byte not zero shows).
    #[test]
    fn a_short_slice_is_its_bytes_then_zeros() {
        let bytes: Vec<u8> = (1..=32).collect();
        for from in 0..16 {
            for n in 0..16 {
                let rest = &bytes[from..from + n];
                let mut want = [0u8; 16];
                want[..n].copy_from_slice(rest);
                assert_eq!(
                    super::short16(rest).to_le_bytes(),
                    want,
                    "from {from}, {n} bytes"
                );
            }
        }
    }

    /// Every byte value, in every lane position, under separators in and
    /// out of the escapable set: the mask takes exactly the bytes
    /// `is_escapable` takes.
    #[test]
    fn escapable_is_exact_for_every_byte() {
        for sep in [
            b',', b';', b'|', b'*', b'"', b'\\', b'n', b'\t', b'-', b'l', b'N',
        ] {
            for b in 0..=255u8 {
                let bytes = [b; 64];
                let want = b.is_ascii()
                    && crate::syntax::lex::is_escapable(char::from(b), char::from(sep));
                let mask = Block::load(&bytes, 0).escapable(sep);
                assert_eq!(
                    mask,
                    if want { u64::MAX } else { 0 },
                    "byte {b:#04x}, sep {sep}"
                );
                #[cfg(target_arch = "x86_64")]
                if let Some(simd) = pulp::x86::V3::try_new() {
                    let wide = Block::load_in(super::Wide256(simd), &bytes, 0).escapable(sep);
                    assert_eq!(wide, mask, "byte {b:#04x}, sep {sep}, 32-byte lanes");
                }
                #[cfg(target_arch = "x86_64")]
                if let Some(simd) = pulp::x86::V4::try_new() {
                    let wide = Block::load_in(super::Wide512(simd), &bytes, 0).escapable(sep);
                    assert_eq!(wide, mask, "byte {b:#04x}, sep {sep}, 64-byte lanes");
                }
            }
        }
    }

    /// The masks and the search give what a byte loop gives, at every
    /// offset and length around the sixteen-byte lanes and 64-byte blocks
    /// (a short slice, a last block read overlapped or copied, lanes past
    /// the end); the bytes a backslash may escape are those
    /// `is_escapable` takes, none past the end.
    #[test]
    fn masks_and_search_are_what_a_byte_loop_finds() {
        let alphabet = b"ab,;\\\"*|n\n\r\x80\xff\x01\x7f";
        let mut rng = crate::test_rng(0x1234_5678_9abc_def1);
        for _ in 0..20_000 {
            let len = (rng() % 150) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[(rng() % alphabet.len() as u64) as usize])
                .collect();
            let base = if len == 0 { 0 } else { (rng() as usize) % len };
            let [pipe, comma, slash] = Block::load(&bytes, base).masks([b'|', b',', b'\\']);
            for (mask, b) in [(pipe, b'|'), (comma, b','), (slash, b'\\')] {
                let want = (0..64)
                    .filter(|k| bytes.get(base + k) == Some(&b))
                    .fold(0u64, |m, k| m | 1 << k);
                assert_eq!(mask, want, "{bytes:?} from {base} byte {b}");
            }
            let block = Block::load(&bytes, base);
            assert_eq!(
                block.mask_any([b'|', b'\\']),
                pipe | slash,
                "{bytes:?} from {base}"
            );
            let sep = [b',', b';', b'|'][(rng() % 3) as usize];
            let escapable = (0..64)
                .filter(|k| {
                    bytes.get(base + k).is_some_and(|&b| {
                        b.is_ascii()
                            && crate::syntax::lex::is_escapable(char::from(b), char::from(sep))
                    })
                })
                .fold(0u64, |m, k| m | 1 << k);
            assert_eq!(
                block.escapable(sep),
                escapable,
                "{bytes:?} from {base}, sep {sep}"
            );
            let want = (base..len).find(|&i| bytes[i] == b'\\').unwrap_or(len);
            assert_eq!(
                find_byte(&bytes, base, b'\\'),
                want,
                "{bytes:?} from {base}"
            );
            let want = (base..len)
                .find(|&i| matches!(bytes[i], b'"' | b'\\'))
                .unwrap_or(len);
            assert_eq!(
                find_either(&bytes, base, b'"', b'\\'),
                want,
                "{bytes:?} from {base}"
            );
            // the separators of a plain text, read overlapped or put
            // together in registers at every length
            let text = &bytes[base..];
            let want = match text.iter().any(|b| matches!(b, b'"' | b'*' | b'\\')) {
                true => None,
                false => Some(text.iter().filter(|&&b| b == sep).count()),
            };
            assert_eq!(plain_separators(text, sep), want, "{text:?} sep {sep}");
            let plain: Vec<u8> = text
                .iter()
                .copied()
                .filter(|b| !matches!(b, b'"' | b'*' | b'\\'))
                .collect();
            let want = plain.iter().filter(|&&b| b == sep).count();
            assert_eq!(plain_separators(&plain, sep), Some(want), "{plain:?}");
        }
        assert_eq!(plain_separators(b"1,2", 0), None, "a zero separator");
        assert_eq!(plain_separators(b"", b','), Some(0));
        assert_eq!(find_byte(b"", 0, b'a'), 0);
        assert_eq!(find_either(b"", 0, b'a', b'b'), 0);
    }

    /// The odd-run rule: the byte after each backslash that starts a pair
    /// is escaped, across blocks by the carry.
    #[test]
    fn escapes_are_resolved_by_the_odd_run_rule() {
        let mut rng = crate::test_rng(0x0dd5_0dd5_0dd5_0dd5);
        for _ in 0..5_000 {
            let len = 1 + (rng() % 200) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| if rng() % 3 == 0 { b'\\' } else { b'x' })
                .collect();
            // the definition: walk left to right, a backslash escapes the
            // next byte and is consumed with it
            let mut want = vec![false; len + 1];
            let mut i = 0;
            while i < len {
                if bytes[i] == b'\\' {
                    want[i + 1] = true;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            let mut carry = 0;
            let mut base = 0;
            while base < len {
                let [slash] = Block::load(&bytes, base).masks([b'\\']);
                let esc = escaped_bits(slash, &mut carry);
                for k in 0..64 {
                    if base + k <= len && (base + k < len || base + 64 > len) {
                        assert_eq!(
                            esc >> k & 1 == 1,
                            want[base + k],
                            "{bytes:?} at {}",
                            base + k
                        );
                    }
                }
                base += 64;
            }
            assert_eq!(carry == 1, len % 64 == 0 && want[len], "{bytes:?}");
        }
    }
}
