//! Injectable time. Everything that depends on "now" (expiry, pruning cutoffs, audit stamps)
//! takes an `Arc<dyn Clock>` so tests can move time deterministically instead of sleeping.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A source of the current time.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> Timestamp;
}

/// The shared clock handle every time-dependent component takes.
pub type SharedClock = Arc<dyn Clock>;

/// Milliseconds since the Unix epoch, UTC. Serialized as an RFC 3339 string with millisecond
/// precision and a `Z` suffix (`2026-12-02T16:32:08.123Z`), so the state files stay readable
/// and sort lexicographically in time order (for years 0000-9999).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

/// Why a string is not an accepted RFC 3339 timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid timestamp: {0}")]
pub struct TimestampParseError(&'static str);

impl Timestamp {
    /// The Unix epoch.
    pub const EPOCH: Timestamp = Timestamp(0);

    /// From Unix milliseconds.
    pub const fn from_unix_millis(ms: i64) -> Self {
        Timestamp(ms)
    }

    /// Unix milliseconds.
    pub const fn unix_millis(self) -> i64 {
        self.0
    }

    /// `self + d`, saturating at the representable range.
    pub fn saturating_add(self, d: Duration) -> Self {
        Timestamp(self.0.saturating_add(duration_ms(d)))
    }

    /// `self - d`, saturating at the representable range.
    pub fn saturating_sub(self, d: Duration) -> Self {
        Timestamp(self.0.saturating_sub(duration_ms(d)))
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2026-12-02T16:32:08.123Z`. Years are clamped to
    /// 0000..=9999 so the output always has the fixed 24-character shape.
    pub fn to_rfc3339(self) -> String {
        const MIN: i64 = -62_167_219_200_000; // 0000-01-01T00:00:00Z
        const MAX: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
        let ms = self.0.clamp(MIN, MAX);
        let days = ms.div_euclid(86_400_000);
        let rem = ms.rem_euclid(86_400_000);
        let (y, m, d) = civil_from_days(days);
        let (h, mi, s, milli) = (
            rem / 3_600_000,
            (rem / 60_000) % 60,
            (rem / 1000) % 60,
            rem % 1000,
        );
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+00:00|-00:00)`; only UTC is accepted, the
    /// fraction is truncated to milliseconds. Accepts everything [`Self::to_rfc3339`] writes.
    pub fn parse_rfc3339(s: &str) -> Result<Self, TimestampParseError> {
        let b = s.as_bytes();
        if b.len() < 20 {
            return Err(TimestampParseError("too short"));
        }
        let num = |from: usize, len: usize| -> Result<i64, TimestampParseError> {
            let part = b
                .get(from..from + len)
                .ok_or(TimestampParseError("truncated"))?;
            if !part.iter().all(u8::is_ascii_digit) {
                return Err(TimestampParseError("expected digits"));
            }
            Ok(part
                .iter()
                .fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0')))
        };
        let sep = |at: usize, want: &[u8]| -> Result<(), TimestampParseError> {
            match b.get(at) {
                Some(c) if want.contains(c) => Ok(()),
                _ => Err(TimestampParseError("unexpected separator")),
            }
        };
        let y = num(0, 4)?;
        sep(4, b"-")?;
        let mo = num(5, 2)?;
        sep(7, b"-")?;
        let d = num(8, 2)?;
        sep(10, b"Tt ")?;
        let h = num(11, 2)?;
        sep(13, b":")?;
        let mi = num(14, 2)?;
        sep(16, b":")?;
        let sec = num(17, 2)?;
        if !(1..=12).contains(&mo)
            || d < 1
            || d > days_in_month(y, mo as u32) as i64
            || h > 23
            || mi > 59
            || sec > 59
        {
            return Err(TimestampParseError("field out of range"));
        }
        let mut i = 19;
        let mut millis = 0i64;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                if i - start < 3 {
                    millis = millis * 10 + i64::from(b[i] - b'0');
                }
                i += 1;
            }
            let digits = i - start;
            if digits == 0 {
                return Err(TimestampParseError("empty fraction"));
            }
            for _ in digits..3 {
                millis *= 10;
            }
        }
        match &b[i..] {
            b"Z" | b"z" | b"+00:00" | b"-00:00" => {}
            _ => return Err(TimestampParseError("only UTC (Z) is accepted")),
        }
        let days = days_from_civil(y, mo as u32, d as u32);
        Ok(Timestamp(
            days * 86_400_000 + h * 3_600_000 + mi * 60_000 + sec * 1000 + millis,
        ))
    }
}

fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

// Howard Hinnant's civil calendar algorithms (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({})", self.to_rfc3339())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Timestamp::parse_rfc3339(&s).map_err(serde::de::Error::custom)
    }
}

/// The real wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl SystemClock {
    /// A shared handle to the system clock.
    pub fn shared() -> SharedClock {
        Arc::new(SystemClock)
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp(unix_millis_of(SystemTime::now()))
    }
}

/// Milliseconds from the Unix epoch to `t`, negative before it (a clock set before 1970 must
/// not read as a time after it).
fn unix_millis_of(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => duration_ms(d),
        Err(e) => -duration_ms(e.duration()),
    }
}

/// A clock that only moves when told to; for tests.
#[derive(Debug)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    /// A clock frozen at `start`.
    pub fn new(start: Timestamp) -> Self {
        ManualClock(AtomicI64::new(start.0))
    }

    /// A shared manual clock; keep the `Arc` to move time and pass a clone as `Arc<dyn Clock>`.
    pub fn shared(start: Timestamp) -> Arc<ManualClock> {
        Arc::new(ManualClock::new(start))
    }

    /// Jump to `t` (may go backwards).
    pub fn set(&self, t: Timestamp) {
        self.0.store(t.0, Ordering::SeqCst);
    }

    /// Move forward by `d`.
    pub fn advance(&self, d: Duration) {
        self.0.fetch_add(duration_ms(d), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_system_time_on_both_sides_of_the_epoch() {
        let at = |ms: i64| match u64::try_from(ms) {
            Ok(after) => UNIX_EPOCH + Duration::from_millis(after),
            Err(_) => UNIX_EPOCH - Duration::from_millis(ms.unsigned_abs()),
        };
        assert_eq!(unix_millis_of(at(1_500)), 1_500);
        assert_eq!(unix_millis_of(at(-1_500)), -1_500);
        assert_eq!(unix_millis_of(UNIX_EPOCH), 0);
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(Timestamp::EPOCH.to_rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(Timestamp::EPOCH.to_string(), "1970-01-01T00:00:00.000Z");
        // 2026-12-02T16:32:08.123Z
        let t = Timestamp::parse_rfc3339("2026-12-02T16:32:08.123Z").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-12-02T16:32:08.123Z");
        assert_eq!(t.unix_millis(), 1_796_229_128_123);
        assert_eq!(
            Timestamp::from_unix_millis(951_782_400_000).to_rfc3339(),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            Timestamp::from_unix_millis(-1).to_rfc3339(),
            "1969-12-31T23:59:59.999Z"
        );
    }

    #[test]
    fn parse_variants_and_rejections() {
        let a = Timestamp::parse_rfc3339("2024-02-29T10:00:00Z").unwrap();
        let b = Timestamp::parse_rfc3339("2024-02-29T10:00:00.000000+00:00").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            Timestamp::parse_rfc3339("2024-02-29T10:00:00.5Z")
                .unwrap()
                .unix_millis()
                - a.unix_millis(),
            500
        );
        for bad in [
            "2023-02-29T10:00:00Z",
            "2024-13-01T10:00:00Z",
            "2024-01-01T10:00:00+01:00",
            "2024-01-01T10:00:00",
            "2024-01-01T10:00:00.Z",
            "garbage",
        ] {
            assert!(Timestamp::parse_rfc3339(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parse_checks_every_field_at_its_edges() {
        let ms = |s: &str| Timestamp::parse_rfc3339(s).map(Timestamp::unix_millis);
        // The smallest and largest value of each field is accepted...
        assert_eq!(ms("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(ms("1970-01-01t00:00:00z"), Ok(0));
        assert_eq!(ms("1970-01-01 00:00:00-00:00"), Ok(0));
        assert_eq!(ms("1970-12-31T23:59:59Z"), Ok(31_535_999_000));
        assert_eq!(ms("1970-01-01T00:00:00.123456Z"), Ok(123));
        assert_eq!(ms("1970-01-01T00:00:00.07Z"), Ok(70));
        // Days at the edges of the calendar's 400-year eras format back as they were read.
        for t in [
            "2000-02-29T12:00:00.000Z",
            "2000-03-01T00:00:00.000Z",
            "1600-02-29T23:59:59.999Z",
            "2400-02-29T00:00:00.000Z",
            "1999-12-31T23:59:59.999Z",
            "2100-03-01T00:00:00.000Z",
        ] {
            assert_eq!(Timestamp::parse_rfc3339(t).unwrap().to_rfc3339(), t);
        }
        // Leap years: every fourth, but not centuries, but every fourth century.
        assert!(ms("2000-02-29T00:00:00Z").is_ok() && ms("2400-02-29T00:00:00Z").is_ok());
        assert!(ms("1900-02-29T00:00:00Z").is_err() && ms("2100-02-29T00:00:00Z").is_err());
        // ...and one past it is refused, as is any other separator.
        for bad in [
            "1970-00-01T00:00:00Z",
            "1970-01-00T00:00:00Z",
            "1970-01-32T00:00:00Z",
            "1970-04-31T00:00:00Z",
            "1970-01-01T24:00:00Z",
            "1970-01-01T00:60:00Z",
            "1970-01-01T00:00:60Z",
            "1970/01-01T00:00:00Z",
            "1970-01/01T00:00:00Z",
            "1970-01-01X00:00:00Z",
            "1970-01-01T00-00:00Z",
            "1970-01-01T00:00-00Z",
            "1970-01-01T00:00:00,5Z",
            "1970-01-01T00:00:00.5",
            "1970-01-01T00:00:00Zjunk",
            "197a-01-01T00:00:00Z",
            "+970-01-01T00:00:00Z",
        ] {
            assert!(ms(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn roundtrip_many() {
        let mut ms = -62_000_000_000_000i64;
        while ms < 253_000_000_000_000 {
            let t = Timestamp::from_unix_millis(ms);
            assert_eq!(Timestamp::parse_rfc3339(&t.to_rfc3339()).unwrap(), t);
            ms += 7_777_777_777_777;
        }
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let c = ManualClock::new(Timestamp::from_unix_millis(1000));
        assert_eq!(c.now().unix_millis(), 1000);
        c.advance(Duration::from_secs(2));
        assert_eq!(c.now().unix_millis(), 3000);
        c.set(Timestamp::EPOCH);
        assert_eq!(c.now(), Timestamp::EPOCH);
        assert!(SystemClock.now().unix_millis() > 1_600_000_000_000);
    }

    #[test]
    fn serde_is_rfc3339_string() {
        let t = Timestamp::from_unix_millis(1_796_229_128_123);
        let s = serde_json::to_string(&t).unwrap();
        assert_eq!(s, "\"2026-12-02T16:32:08.123Z\"");
        let back: Timestamp = serde_json::from_str(&s).unwrap();
        assert_eq!(back, t);
    }
}
