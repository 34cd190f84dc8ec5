//! Answering AG-UI interrupts: the calls open interrupts hold, the `resume` a run sends, and
//! the ISO 8601 parser of `expiresAt`.

use crate::session::error::SessionError;

use crate::json::Value;

use crate::protocol::event::{Interrupt, ResumeEntry, ResumeStatus};
use crate::tools::schema::{validate, PatternMatcher, Violation};

/// The tool calls the open `interrupts` name: the server's until they are resumed.
pub(in crate::session) fn held_calls(interrupts: &[Interrupt]) -> Vec<String> {
    interrupts
        .iter()
        .filter_map(|i| i.tool_call_id.clone())
        .collect()
}

/// The `resume` a run sends: the app's `answers`, each payload of a `resolved` answer checked
/// against its interrupt's `responseSchema` (by the validator of tool arguments), then a
/// `cancelled` answer for each open interrupt the app left unanswered that is past its
/// `expiresAt` at `now_ms`. An interrupt answered twice, a payload off its schema, or an open
/// interrupt left unanswered that has not expired refuses the run. An answer to an interrupt
/// the thread does not hold (the app kept it across a reload) is sent as it is.
pub(in crate::session) fn answer_interrupts(
    thread_id: &str,
    open: &[Interrupt],
    mut answers: Vec<ResumeEntry>,
    now_ms: Option<u64>,
    patterns: &dyn PatternMatcher,
) -> Result<Vec<ResumeEntry>, SessionError> {
    for (at, answer) in answers.iter().enumerate() {
        let bad = |message: String, violation: Option<Violation>| SessionError::BadResume {
            interrupt_id: answer.interrupt_id.clone(),
            message,
            violation,
        };
        if answers[..at]
            .iter()
            .any(|a| a.interrupt_id == answer.interrupt_id)
        {
            return Err(bad("it is answered twice".to_owned(), None));
        }
        let schema = open
            .iter()
            .find(|i| i.id == answer.interrupt_id)
            .and_then(|i| i.response_schema.as_ref());
        if let (ResumeStatus::Resolved, Some(schema)) = (&answer.status, schema) {
            let payload = answer.payload.clone().unwrap_or(Value::Null);
            validate(&Value::Object(schema.clone()), &payload, patterns).map_err(|v| {
                bad(
                    format!(
                        "the payload does not match its responseSchema: {}",
                        v.to_text()
                    ),
                    Some(v),
                )
            })?;
        }
    }
    let mut unanswered = Vec::new();
    for interrupt in open {
        if answers.iter().any(|a| a.interrupt_id == interrupt.id) {
            continue;
        }
        let expired = match (now_ms, interrupt.expires_at.as_deref().and_then(epoch_ms)) {
            // Before 1970 is negative: expired for every clock.
            (Some(now), Some(at)) => i64::try_from(now).map_or(true, |now| now >= at),
            _ => false,
        };
        if expired {
            answers.push(ResumeEntry {
                interrupt_id: interrupt.id.clone(),
                status: ResumeStatus::Cancelled,
                payload: None,
                metadata: None,
            });
        } else {
            unanswered.push(interrupt.id.clone());
        }
    }
    if !unanswered.is_empty() {
        return Err(SessionError::UnansweredInterrupts {
            thread_id: thread_id.to_owned(),
            ids: unanswered,
        });
    }
    Ok(answers)
}

/// An ISO 8601 date-time (`2026-05-01T12:00:00Z`, `2026-05-01T14:00:00.5+02:00`, years 0000 to
/// 9999) as ms since the Unix epoch, negative before 1970; `None` for any other text (such an
/// `expiresAt` never expires).
pub(in crate::session) fn epoch_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let digits = b.get(from..from + len)?;
        digits.iter().try_fold(0i64, |n, d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    };
    let sep = |at: usize, c: &[u8]| b.get(at).is_some_and(|x| c.contains(x));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut at = 19;
    let mut millis = 0;
    if sep(at, b".") {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            if at - start < 3 {
                millis = millis * 10 + i64::from(b[at] - b'0');
            }
            at += 1;
        }
        if at == start {
            return None;
        }
        for _ in (at - start)..3 {
            millis *= 10;
        }
    }
    let offset_min = match b.get(at) {
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if at + 6 == b.len() && sep(at + 3, b":") => {
            let minutes = num(at + 1, 2)? * 60 + num(at + 4, 2)?;
            if *sign == b'+' {
                minutes
            } else {
                -minutes
            }
        }
        _ => return None,
    };
    // Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_min * 60;
    // At most 10,000 years either way: far inside i64 milliseconds.
    Some(seconds * 1000 + millis)
}

#[cfg(test)]
mod epoch_tests {
    use super::epoch_ms;

    #[test]
    fn dates_on_both_sides_of_1970_and_the_ends_of_the_range() {
        for (text, ms) in [
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59Z", -1_000),
            ("1969-12-31T23:59:59.999Z", -1),
            ("1970-01-01T01:00:00+01:00", 0),
            ("2000-01-01T00:00:00Z", 946_684_800_000),
            ("0001-01-01T00:00:00Z", -62_135_596_800_000),
            ("0000-03-01T00:00:00Z", -62_162_035_200_000),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        ] {
            assert_eq!(epoch_ms(text), Some(ms), "{text}");
        }
    }

    #[test]
    fn any_text_parses_or_is_none_and_never_panics() {
        let base = "1969-12-31T23:59:59.123456-12:34";
        assert!(epoch_ms(base).is_some());
        let bytes = base.as_bytes();
        for cut in 0..bytes.len() {
            let _ = epoch_ms(&base[..cut]);
            for b in [b'0', b'9', b'-', b'+', b':', b'.', b'Z', b'T', b' ', b'x'] {
                let mut changed = bytes.to_vec();
                changed[cut] = b;
                let _ = epoch_ms(std::str::from_utf8(&changed).unwrap());
            }
        }
        for text in [
            "",
            "-",
            "-0001-01-01T00:00:00Z",
            "99999-01-01T00:00:00Z",
            "é",
        ] {
            assert_eq!(epoch_ms(text), None, "{text}");
        }
    }
}
