//! Timestamps as Coder writes them: RFC 3339 in UTC with microseconds.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `2026-09-20T10:00:00.000000Z`.
pub fn now_rfc3339() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_unix(d.as_secs() as i64, d.subsec_micros())
}

/// `secs` since the epoch (and `micros`) as RFC 3339 UTC.
pub fn format_unix(secs: i64, micros: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_unix(0, 0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(format_unix(1_790_935_200, 5), "2026-10-02T10:00:00.000005Z");
        assert_eq!(format_unix(951_782_400, 0), "2000-02-29T00:00:00.000000Z");
    }
}
