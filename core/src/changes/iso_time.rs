//! ISO 8601 text for epoch-millisecond times, both ways.
//!
//! Times are always handed in by the caller; this module only converts them. It never reads a
//! clock.

use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime, PrimitiveDateTime, Time};

/// `ms` after the Unix epoch as UTC ISO 8601 with milliseconds, e.g. `2025-01-02T03:04:05.678Z`.
/// Times past year 9999 print as `9999-12-31T23:59:59.999Z`.
pub fn format_iso(ms: u64) -> String {
    let nanos = i128::from(ms) * 1_000_000;
    let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| "9999-12-31T23:59:59.999Z".to_owned())
}

/// Epoch milliseconds of an ISO 8601 time: RFC 3339 (`2025-01-02T03:04:05Z`, with or without a
/// fraction, `Z` or an offset), a date and time without offset (taken as UTC, `T` or a space
/// between them, seconds optional), or a bare date (midnight UTC). Times before 1970 clamp to 0.
pub fn parse_iso(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Ok(time) = OffsetDateTime::parse(text, &Rfc3339) {
        return Some(epoch_ms(time));
    }
    let local = format_description!(
        "[year]-[month]-[day][first [T][t][ ]][hour]:[minute][optional [:[second][optional [[first [.][,]][subsecond]]]]]"
    );
    if let Ok(time) = PrimitiveDateTime::parse(text, &local) {
        return Some(epoch_ms(time.assume_utc()));
    }
    let date = format_description!("[year]-[month]-[day]");
    if let Ok(day) = Date::parse(text, &date) {
        return Some(epoch_ms(PrimitiveDateTime::new(day, Time::MIDNIGHT).assume_utc()));
    }
    None
}

fn epoch_ms(time: OffsetDateTime) -> u64 {
    let ms = time.unix_timestamp_nanos() / 1_000_000;
    u64::try_from(ms.max(0)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_with_milliseconds() {
        assert_eq!(format_iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_iso(1_735_787_045_678), "2025-01-02T03:04:05.678Z");
        assert_eq!(format_iso(u64::MAX), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn parses_the_usual_spellings() {
        let expected = Some(1_735_787_045_000);
        assert_eq!(parse_iso("2025-01-02T03:04:05Z"), expected);
        assert_eq!(parse_iso("2025-01-02T04:04:05+01:00"), expected);
        assert_eq!(parse_iso("2025-01-02T03:04:05"), expected);
        assert_eq!(parse_iso("2025-01-02 03:04:05"), expected);
        assert_eq!(parse_iso("2025-01-02T03:04:05.678Z"), Some(1_735_787_045_678));
        assert_eq!(parse_iso("2025-01-02T03:04:05.678"), Some(1_735_787_045_678));
        assert_eq!(parse_iso("2025-01-02T03:04"), Some(1_735_787_040_000));
        assert_eq!(parse_iso("2025-01-02"), Some(1_735_776_000_000));
    }

    #[test]
    fn rejects_what_is_not_a_time() {
        assert_eq!(parse_iso("before_refactor"), None);
        assert_eq!(parse_iso("2025-13-02"), None);
        assert_eq!(parse_iso(""), None);
    }

    #[test]
    fn round_trips() {
        assert_eq!(parse_iso(&format_iso(1_735_787_045_678)), Some(1_735_787_045_678));
    }
}
