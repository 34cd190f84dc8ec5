//! The HTTP rules for the answers the runtime gets: a run's response and `tools.json`. The host
//! only reads status, headers and body; what they mean is decided here.

/// How many characters of an error answer's body an error message quotes (pydantic-ai's 422
/// validation list, a proxy's error page): enough to say what the server said.
pub const ERROR_BODY_CHARS: usize = 2048;

/// Whether `status` is a success (2xx): anything else is an error, whatever the body.
pub fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// The start of an error answer's body, trimmed, at most [`ERROR_BODY_CHARS`] characters;
/// `None` when there is nothing to quote.
pub fn error_excerpt(body: &str) -> Option<&str> {
    let body = crate::lean::text::trim(body);
    let end = body
        .char_indices()
        .nth(ERROR_BODY_CHARS)
        .map_or(body.len(), |(at, _)| at);
    Some(crate::lean::text::trim(crate::lean::text::sub(body, ..end))).filter(|b| !b.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_2xx_is_a_success() {
        for status in [200, 201, 204, 299] {
            assert!(is_success(status), "{status}");
        }
        for status in [0, 100, 199, 300, 304, 404, 500, 599] {
            assert!(!is_success(status), "{status}");
        }
    }

    #[test]
    fn an_error_body_is_quoted_trimmed_and_bounded_by_characters() {
        assert_eq!(error_excerpt("  \n"), None);
        assert_eq!(error_excerpt(" {\"detail\": 1}\n"), Some("{\"detail\": 1}"));
        let long = "é".repeat(ERROR_BODY_CHARS + 10);
        let excerpt = error_excerpt(&long).unwrap();
        assert_eq!(excerpt.chars().count(), ERROR_BODY_CHARS);
    }
}
