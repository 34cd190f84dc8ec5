//! `importPath` resolution and the origin policy. URLs are read by a WHATWG parser (here the `url`
//! crate, in the runtime the browser's `URL`); the policy checks the origin that parser reports,
//! including for the quirks that turn a same-origin-looking path into a foreign origin.

mod common;
use common::whatwg::Whatwg;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::tools::url::{
    check_origin, normalize_origin, resolve, ParsedUrl, ResolvedUrl, UrlError, UrlParser,
};

const BASE: &str = "https://app.example/tools/tools.json";
const PAGE: &str = "https://app.example";

fn resolve_here(reference: &str) -> Result<ResolvedUrl, UrlError> {
    resolve(reference, BASE, &Whatwg)
}

fn url(reference: &str) -> ResolvedUrl {
    resolve_here(reference).expect("resolves")
}

#[test]
fn references_resolve_like_the_browser() {
    let cases = [
        ("weather.js", "https://app.example/tools/weather.js"),
        ("./weather.js", "https://app.example/tools/weather.js"),
        ("../lib/weather.js", "https://app.example/lib/weather.js"),
        ("../../../x.js", "https://app.example/x.js"),
        ("a/./b/../c.js", "https://app.example/tools/a/c.js"),
        (".", "https://app.example/tools/"),
        ("..", "https://app.example/"),
        ("sub/", "https://app.example/tools/sub/"),
        ("/tools/weather.js", "https://app.example/tools/weather.js"),
        ("/a/../b/./c.js", "https://app.example/b/c.js"),
        ("/", "https://app.example/"),
        (
            "https://app.example/x/weather.js",
            "https://app.example/x/weather.js",
        ),
        ("HTTPS://APP.Example/X.js", "https://app.example/X.js"),
        ("https://app.example", "https://app.example/"),
        (
            "//cdn.example/tools/weather.js",
            "https://cdn.example/tools/weather.js",
        ),
        (
            "weather.js?v=2#top",
            "https://app.example/tools/weather.js?v=2#top",
        ),
        ("?v=3", "https://app.example/tools/tools.json?v=3"),
        ("#frag", "https://app.example/tools/tools.json#frag"),
        ("w%20x.js", "https://app.example/tools/w%20x.js"),
        ("%2e%2E/x.js", "https://app.example/x.js"),
        ("a//b.js", "https://app.example/tools/a//b.js"),
        ("a_b:c.js", "https://app.example/tools/a_b:c.js"),
        ("/x.js?a=/../b", "https://app.example/x.js?a=/../b"),
        ("http://app.example:80/x.js", "http://app.example/x.js"),
        (
            "https://app.example:8443/x.js",
            "https://app.example:8443/x.js",
        ),
        ("https://app.example:/x.js", "https://app.example/x.js"),
        ("https://[::1]:9000/x.js", "https://[::1]:9000/x.js"),
        // Refused before parsing by the hand-written resolver; the browser reads them as below,
        // and so the policy does.
        (" /x.js", "https://app.example/x.js"),
        ("/x .js", "https://app.example/x%20.js"),
        ("/x.js\u{3000}", "https://app.example/x.js%E3%80%80"),
        ("\u{0}x.js", "https://app.example/tools/x.js"),
        ("x.js\u{7f}", "https://app.example/tools/x.js%7F"),
        ("https:x.js", "https://app.example/tools/x.js"),
        (
            "https:/evil.example/x.js",
            "https://app.example/evil.example/x.js",
        ),
    ];
    for (reference, expected) in cases {
        let resolved = resolve_here(reference);
        assert_eq!(
            resolved.as_ref().map(|u| u.href.as_str()),
            Ok(expected),
            "{reference:?}"
        );
    }
}

#[test]
fn origins_are_lower_case_without_default_ports() {
    let cases = [
        ("/x.js", "https://app.example"),
        ("https://A.Example:443/x.js", "https://a.example"),
        ("http://a.example:80/x.js", "http://a.example"),
        ("http://a.example:443/x.js", "http://a.example:443"),
        ("https://a.example:0443/x.js", "https://a.example"),
        ("//cdn.example:8080/x.js", "https://cdn.example:8080"),
    ];
    for (reference, origin) in cases {
        assert_eq!(url(reference).origin, origin, "{reference}");
    }
}

/// Whatever the parser says the origin is, that is what is checked: each reference with the
/// origin the browser gives it, and whether a page of `https://app.example` with
/// `allowedImportOrigins: ["https://cdn.example"]` may import it.
#[test]
fn the_origin_checked_is_the_one_the_browser_sees() {
    let allowed = vec!["https://cdn.example".to_string()];
    let cases: &[(&str, &str, bool)] = &[
        // A backslash is a slash in http(s) URLs.
        ("/\\evil.example/x.js", "https://evil.example", false),
        ("\\\\evil.example/x.js", "https://evil.example", false),
        ("https:\\\\evil.example/x.js", "https://evil.example", false),
        // Tabs and newlines are removed anywhere.
        ("/\t/evil.example/x.js", "https://evil.example", false),
        ("/\n/evil.example/x.js", "https://evil.example", false),
        ("/\r\n/evil.example/x.js", "https://evil.example", false),
        ("//app.ex\tample/x.js", "https://app.example", true),
        ("//cdn.exa\nmple/x.js", "https://cdn.example", true),
        // Extra slashes after a special scheme are skipped.
        ("https:///evil.example/x.js", "https://evil.example", false),
        ("https:////evil.example/x.js", "https://evil.example", false),
        // Scheme and host are case-insensitive; the default port is dropped.
        ("HTTPS://App.Example:443/x.js", "https://app.example", true),
        ("HTTPS://CDN.EXAMPLE:0443/x.js", "https://cdn.example", true),
        // Percent-encoded hosts are decoded.
        ("https://%61pp.example/x.js", "https://app.example", true),
        ("//%65vil.example/x.js", "https://evil.example", false),
        // Unicode hosts are mapped (UTS 46) and written in ASCII.
        ("//ｅｖｉｌ.example/x.js", "https://evil.example", false),
        ("//ＡＰＰ.example/x.js", "https://app.example", true),
        ("//évil.example/x.js", "https://xn--vil-9la.example", false),
        // A trailing dot is another host.
        ("//cdn.example./x.js", "https://cdn.example.", false),
        // Numeric IPv4 forms are canonicalized.
        ("http://0x7f.1/x.js", "http://127.0.0.1", false),
        ("//2130706433/x.js", "https://127.0.0.1", false),
        ("//[0:0::1]/x.js", "https://[::1]", false),
    ];
    for &(reference, origin, ok) in cases {
        let resolved = url(reference);
        assert_eq!(resolved.origin, origin, "{reference:?}");
        let expected = if ok {
            Ok(())
        } else {
            Err(UrlError::ForeignOrigin {
                origin: origin.into(),
            })
        };
        assert_eq!(
            check_origin(&resolved, PAGE, &allowed, &Whatwg),
            expected,
            "{reference:?}"
        );
    }
}

/// Browsers read `///evil.example/x.js` (against an http(s) base) as `https://evil.example/x.js`;
/// the `url` crate 2.5 refuses it ("empty host", a known deviation from the standard). Either way
/// it is refused: by the origin check in the browser, as not a URL here.
#[test]
fn three_slashes_are_refused_whichever_way_they_are_read() {
    match resolve_here("///evil.example/x.js") {
        Ok(resolved) => assert_eq!(
            check_origin(&resolved, PAGE, &[], &Whatwg),
            Err(UrlError::ForeignOrigin {
                origin: "https://evil.example".into()
            })
        ),
        Err(error) => assert!(matches!(error, UrlError::NotAUrl { .. }), "{error:?}"),
    }
}

#[test]
fn numeric_ipv4_forms_match_the_dotted_page_origin() {
    let base = "http://127.0.0.1/tools/tools.json";
    for reference in [
        "http://0x7f.1/x.js",
        "http://0x7f000001/x.js",
        "http://2130706433/x.js",
        "http://0177.0.0.1/x.js",
        "http://127.1/x.js",
    ] {
        let resolved = resolve(reference, base, &Whatwg).expect("resolves");
        assert_eq!(resolved.href, "http://127.0.0.1/x.js", "{reference}");
        assert_eq!(
            check_origin(&resolved, "http://127.0.0.1", &[], &Whatwg),
            Ok(()),
            "{reference}"
        );
    }
}

#[test]
fn unicode_hosts_and_allowed_entries_meet_in_ascii() {
    let allowed = vec!["https://BÜCHER.example".to_string()];
    for reference in [
        "https://bücher.example/x.js",
        "https://xn--bcher-kva.example/x.js",
        "//B%C3%BCcher.example/x.js",
    ] {
        let resolved = url(reference);
        assert_eq!(
            resolved.origin, "https://xn--bcher-kva.example",
            "{reference}"
        );
        assert_eq!(
            check_origin(&resolved, PAGE, &allowed, &Whatwg),
            Ok(()),
            "{reference}"
        );
    }
}

#[test]
fn a_scheme_relative_to_another_base_scheme_is_an_authority() {
    // With an `https:` base, `https:/evil.example/x.js` is a path on the base's host (above);
    // with an `http:` base it names the host.
    let resolved = resolve(
        "https:/evil.example/x.js",
        "http://app.example/tools/tools.json",
        &Whatwg,
    )
    .expect("resolves");
    assert_eq!(resolved.href, "https://evil.example/x.js");
    assert_eq!(
        check_origin(&resolved, "http://app.example", &[], &Whatwg),
        Err(UrlError::ForeignOrigin {
            origin: "https://evil.example".into()
        })
    );
}

/// A parser that reports an origin of its own choosing: the policy uses it as reported.
struct Reports(&'static str);

impl UrlParser for Reports {
    fn parse(&self, input: &str, base: Option<&str>) -> Result<ParsedUrl, String> {
        let mut parsed = Whatwg.parse(input, base)?;
        if base.is_some() {
            parsed.origin = self.0.to_string();
        }
        Ok(parsed)
    }
}

#[test]
fn the_origin_is_the_parsers_not_derived_from_the_href() {
    let resolved = resolve("/x.js", BASE, &Reports("https://evil.example")).expect("resolves");
    assert_eq!(resolved.href, "https://app.example/x.js");
    assert_eq!(resolved.origin, "https://evil.example");
    assert_eq!(
        check_origin(&resolved, PAGE, &[], &Whatwg),
        Err(UrlError::ForeignOrigin {
            origin: "https://evil.example".into()
        })
    );
}

#[test]
fn the_base_keeps_its_own_port_and_query_rules() {
    let base = "http://localhost:5173/tools/tools.json?v=1";
    let url = resolve("weather.js", base, &Whatwg).unwrap();
    assert_eq!(url.href, "http://localhost:5173/tools/weather.js");
    assert_eq!(url.origin, "http://localhost:5173");
    assert_eq!(
        resolve("", base, &Whatwg),
        Err(UrlError::Empty),
        "an empty importPath is refused, not the manifest itself"
    );
}

#[test]
fn the_policy_refuses_other_schemes_credentials_and_empty_references() {
    let scheme = |scheme: &str| UrlError::UnsupportedScheme {
        scheme: scheme.into(),
    };
    let cases = [
        ("javascript:alert(1)", scheme("javascript")),
        ("JaVaScRiPt:alert(1)", scheme("javascript")),
        // The parser drops the newline: this is `javascript:`.
        ("java\nscript:alert(1)", scheme("javascript")),
        ("data:text/javascript,export%20const%20f=1", scheme("data")),
        ("blob:https://app.example/1234", scheme("blob")),
        ("file:///etc/passwd", scheme("file")),
        ("ftp://app.example/x.js", scheme("ftp")),
        ("https://user@evil.example/x.js", UrlError::Userinfo),
        ("//user:pass@app.example/x.js", UrlError::Userinfo),
        ("//:pass@app.example/x.js", UrlError::Userinfo),
        ("https:\\\\u@app.example/x.js", UrlError::Userinfo),
        ("", UrlError::Empty),
        (" ", UrlError::Empty),
        ("\t\n\r\u{0} ", UrlError::Empty),
    ];
    for (reference, expected) in cases {
        assert_eq!(resolve_here(reference), Err(expected), "{reference:?}");
    }
}

#[test]
fn what_the_parser_refuses_is_not_a_url() {
    for reference in [
        "//",
        "//:443/x.js",
        "https://",
        "//[::1/x.js",
        "//[nope]/x.js",
        "//[::1]x/x.js",
        "//a.example:99999/x.js",
        "//a.example:8o/x.js",
        "//a.example:1:2/x.js",
        "//a%/x.js",
        "//a b.example/x.js",
        "//a<b.example/x.js",
    ] {
        assert!(
            matches!(resolve_here(reference), Err(UrlError::NotAUrl { .. })),
            "{reference:?}: {:?}",
            resolve_here(reference)
        );
    }
}

#[test]
fn a_bad_base_is_reported_as_such() {
    for base in [
        "/tools/tools.json",
        "file:///tools.json",
        "https://",
        "https://u:p@app.example/tools.json",
        "",
    ] {
        assert!(
            matches!(
                resolve("x.js", base, &Whatwg),
                Err(UrlError::BadBase { .. })
            ),
            "{base}"
        );
    }
}

#[test]
fn error_messages_are_lower_case() {
    let errors = [
        resolve_here("javascript:x").unwrap_err(),
        resolve_here("//[nope]/x").unwrap_err(),
        resolve_here("//u@x").unwrap_err(),
        resolve_here("").unwrap_err(),
        resolve("x", "file:///x", &Whatwg).unwrap_err(),
    ];
    for error in errors {
        let message = error.to_string();
        assert!(message.starts_with(|c: char| c.is_lowercase()), "{message}");
    }
}

#[test]
fn same_origin_imports_are_allowed() {
    assert_eq!(check_origin(&url("/x.js"), PAGE, &[], &Whatwg), Ok(()));
    assert_eq!(
        check_origin(
            &url("https://app.example/x.js"),
            "https://APP.example:443/",
            &[],
            &Whatwg
        ),
        Ok(()),
        "the page origin is compared normalized"
    );
}

#[test]
fn foreign_imports_need_allowed_import_origins() {
    let foreign = url("//cdn.example/x.js");
    assert_eq!(
        check_origin(&foreign, PAGE, &[], &Whatwg),
        Err(UrlError::ForeignOrigin {
            origin: "https://cdn.example".into()
        })
    );
    let allowed = vec!["https://CDN.example:443".to_string()];
    assert_eq!(check_origin(&foreign, PAGE, &allowed, &Whatwg), Ok(()));
    assert_eq!(
        check_origin(&url("http://app.example/x.js"), PAGE, &[], &Whatwg),
        Err(UrlError::ForeignOrigin {
            origin: "http://app.example".into()
        }),
        "the scheme is part of the origin"
    );
    assert!(check_origin(&url("https://app.example:8443/x.js"), PAGE, &[], &Whatwg).is_err());
}

#[test]
fn allowed_entries_that_are_not_origins_match_nothing() {
    let foreign = url("//cdn.example/lib/x.js");
    for entry in [
        "https://cdn.example/lib/",
        "https://cdn.example?",
        "https://cdn.example/#",
        "cdn.example",
        "https://user@cdn.example",
        "blob:https://cdn.example/1234",
        "*",
    ] {
        assert!(
            check_origin(&foreign, PAGE, &[entry.to_string()], &Whatwg).is_err(),
            "{entry}"
        );
    }
    assert!(
        check_origin(&url("/x.js"), "null", &[], &Whatwg).is_err(),
        "an opaque page origin allows nothing"
    );
}

#[test]
fn origins_normalize() {
    let cases = [
        ("https://A.example:443/", "https://a.example"),
        ("http://a.example:8080", "http://a.example:8080"),
        ("HTTPS://BÜCHER.example", "https://xn--bcher-kva.example"),
        ("http://0x7f.1", "http://127.0.0.1"),
        ("https://[0:0::1]:443", "https://[::1]"),
    ];
    for (value, origin) in cases {
        assert_eq!(
            normalize_origin(value, &Whatwg).as_deref(),
            Ok(origin),
            "{value}"
        );
    }
    for value in [
        "https://a.example/x",
        "https://a.example?q",
        "https://a.example#f",
        "https://u:p@a.example",
        "ftp://a.example",
        "null",
        "",
    ] {
        assert_eq!(
            normalize_origin(value, &Whatwg),
            Err(UrlError::NotAnOrigin {
                value: value.into()
            }),
            "{value}"
        );
    }
}

/// A parser that refuses everything, quoting its input as some browsers' messages do.
struct Echoes;

impl UrlParser for Echoes {
    fn parse(&self, input: &str, _base: Option<&str>) -> Result<ParsedUrl, String> {
        Err(format!("{input} is not a valid url"))
    }
}

#[test]
fn long_values_are_shortened_in_errors() {
    let long = "a".repeat(500);
    let short = |s: &str| s.chars().count() <= 101;
    let Err(UrlError::UnsupportedScheme { scheme }) = resolve_here(&format!("{long}:x")) else {
        panic!("expected an unsupported scheme");
    };
    assert!(short(&scheme), "{}", scheme.len());
    let Err(UrlError::BadBase { base, reason }) = resolve("x", &format!("{long}:x"), &Whatwg)
    else {
        panic!("expected a bad base");
    };
    assert!(short(&base) && short(&reason), "{base} {reason}");
    let Err(UrlError::BadBase { base, reason }) = resolve("x", &long, &Echoes) else {
        panic!("expected a bad base");
    };
    assert!(short(&base) && short(&reason), "{base} {reason}");
    let Err(UrlError::NotAnOrigin { value }) = normalize_origin(&long, &Whatwg) else {
        panic!("expected not an origin");
    };
    assert!(short(&value));
}

/// The base parses, the reference is refused with a message that quotes it.
struct EchoesReferences;

impl UrlParser for EchoesReferences {
    fn parse(&self, input: &str, base: Option<&str>) -> Result<ParsedUrl, String> {
        match base {
            None => Whatwg.parse(input, None),
            Some(_) => Err(format!("{input} is not a valid url")),
        }
    }
}

#[test]
fn a_parser_message_quoting_the_input_is_shortened() {
    let long = "b".repeat(500);
    let Err(UrlError::NotAUrl { reason }) = resolve(&long, BASE, &EchoesReferences) else {
        panic!("expected not a url");
    };
    assert!(reason.chars().count() <= 101, "{}", reason.len());
}

#[test]
fn arbitrary_bytes_never_panic() {
    let samples = [
        "[",
        "]",
        "//[",
        "//]",
        ":",
        "::",
        "//:",
        "?",
        "#",
        "%",
        "%2",
        "/..",
        "/./",
        "a:",
        "-:x",
        "//a:",
        "//a]:1",
        "//[]",
        "http:",
        "http://",
        "http:///",
        "é",
        "ı:x",
        "//a.example:00000",
    ];
    for sample in samples {
        let _ = resolve(sample, BASE, &Whatwg);
        let _ = resolve("x", sample, &Whatwg);
        let _ = normalize_origin(sample, &Whatwg);
    }
}
