//! `importPath` resolution and the origin policy, including the WHATWG quirks that could turn a
//! same-origin-looking path into a foreign origin.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::tools::url::{check_origin, normalize_origin, resolve, ResolvedUrl, UrlError};

const BASE: &str = "https://app.example/tools/tools.json";

#[test]
fn references_resolve_like_rfc_3986() {
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
    ];
    for (reference, expected) in cases {
        let resolved = resolve(reference, BASE);
        assert_eq!(
            resolved.as_ref().map(|u| u.href.as_str()),
            Ok(expected),
            "{reference}"
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
        assert_eq!(
            resolve(reference, BASE).unwrap().origin,
            origin,
            "{reference}"
        );
    }
}

#[test]
fn the_base_keeps_its_own_port_and_query_rules() {
    let base = "http://localhost:5173/tools/tools.json?v=1";
    let url = resolve("weather.js", base).unwrap();
    assert_eq!(url.href, "http://localhost:5173/tools/weather.js");
    assert_eq!(url.origin, "http://localhost:5173");
    assert_eq!(
        resolve("", base),
        Err(UrlError::Empty),
        "an empty importPath is refused, not the manifest itself"
    );
}

#[test]
fn dangerous_references_are_refused() {
    let cases: [(&str, UrlError); 24] = [
        (
            "javascript:alert(1)",
            UrlError::UnsupportedScheme {
                scheme: "javascript".into(),
            },
        ),
        (
            "JaVaScRiPt:alert(1)",
            UrlError::UnsupportedScheme {
                scheme: "javascript".into(),
            },
        ),
        (
            "data:text/javascript,export%20const%20f=1",
            UrlError::UnsupportedScheme {
                scheme: "data".into(),
            },
        ),
        (
            "blob:https://app.example/1234",
            UrlError::UnsupportedScheme {
                scheme: "blob".into(),
            },
        ),
        (
            "file:///etc/passwd",
            UrlError::UnsupportedScheme {
                scheme: "file".into(),
            },
        ),
        (
            "ftp://app.example/x.js",
            UrlError::UnsupportedScheme {
                scheme: "ftp".into(),
            },
        ),
        ("/\\evil.example/x.js", UrlError::Backslash),
        ("\\\\evil.example/x.js", UrlError::Backslash),
        ("https:\\\\evil.example/x.js", UrlError::Backslash),
        (
            "/\t/evil.example/x.js",
            UrlError::ControlCharacter { position: 1 },
        ),
        (
            "/\n/evil.example/x.js",
            UrlError::ControlCharacter { position: 1 },
        ),
        (
            "java\nscript:alert(1)",
            UrlError::ControlCharacter { position: 4 },
        ),
        ("\u{0}x.js", UrlError::ControlCharacter { position: 0 }),
        ("x.js\u{7f}", UrlError::ControlCharacter { position: 4 }),
        (" /x.js", UrlError::Whitespace { position: 0 }),
        ("/x .js", UrlError::Whitespace { position: 2 }),
        ("/x.js\u{3000}", UrlError::Whitespace { position: 5 }),
        ("https://user@evil.example/x.js", UrlError::Userinfo),
        ("//user:pass@app.example/x.js", UrlError::Userinfo),
        ("https:/evil.example/x.js", UrlError::EmptyHost),
        ("https:///evil.example/x.js", UrlError::EmptyHost),
        ("///evil.example/x.js", UrlError::EmptyHost),
        ("https:x.js", UrlError::EmptyHost),
        ("", UrlError::Empty),
    ];
    for (reference, expected) in cases {
        assert_eq!(resolve(reference, BASE), Err(expected), "{reference:?}");
    }
}

#[test]
fn unusual_hosts_and_ports_are_refused() {
    let bad_host = |host: &str| UrlError::BadHost { host: host.into() };
    let bad_port = |port: &str| UrlError::BadPort { port: port.into() };
    let cases = [
        ("//%65vil.example/x.js", bad_host("%65vil.example")),
        ("//évil.example/x.js", bad_host("évil.example")),
        ("//ｅｖｉｌ.example/x.js", bad_host("ｅｖｉｌ.example")),
        ("//[::1/x.js", bad_host("[::1")),
        ("//[nope]/x.js", bad_host("[nope]")),
        ("//[::1]x/x.js", bad_host("[::1]x")),
        ("//a.example:99999/x.js", bad_port("99999")),
        ("//a.example:8o/x.js", bad_port("8o")),
        ("//a.example:1:2/x.js", bad_port("1:2")),
        ("//:443/x.js", UrlError::EmptyHost),
        ("//", UrlError::EmptyHost),
    ];
    for (reference, expected) in cases {
        assert_eq!(resolve(reference, BASE), Err(expected), "{reference:?}");
    }
}

#[test]
fn a_bad_base_is_reported_as_such() {
    for base in ["/tools/tools.json", "file:///tools.json", "https://"] {
        assert!(
            matches!(resolve("x.js", base), Err(UrlError::BadBase { .. })),
            "{base}"
        );
    }
}

#[test]
fn error_messages_are_lower_case() {
    let errors = [
        resolve("javascript:x", BASE).unwrap_err(),
        resolve("/\\x", BASE).unwrap_err(),
        resolve("//u@x", BASE).unwrap_err(),
    ];
    for error in errors {
        let message = error.to_string();
        assert!(message.starts_with(|c: char| c.is_lowercase()), "{message}");
    }
}

fn url(reference: &str) -> ResolvedUrl {
    resolve(reference, BASE).expect("resolves")
}

#[test]
fn same_origin_imports_are_allowed() {
    assert_eq!(
        check_origin(&url("/x.js"), "https://app.example", &[]),
        Ok(())
    );
    assert_eq!(
        check_origin(
            &url("https://app.example/x.js"),
            "https://APP.example:443/",
            &[]
        ),
        Ok(()),
        "the page origin is compared normalized"
    );
}

#[test]
fn foreign_imports_need_allowed_import_origins() {
    let foreign = url("//cdn.example/x.js");
    assert_eq!(
        check_origin(&foreign, "https://app.example", &[]),
        Err(UrlError::ForeignOrigin {
            origin: "https://cdn.example".into()
        })
    );
    let allowed = vec!["https://CDN.example:443".to_string()];
    assert_eq!(
        check_origin(&foreign, "https://app.example", &allowed),
        Ok(())
    );
    assert_eq!(
        check_origin(&url("http://app.example/x.js"), "https://app.example", &[]),
        Err(UrlError::ForeignOrigin {
            origin: "http://app.example".into()
        }),
        "the scheme is part of the origin"
    );
    assert!(check_origin(
        &url("https://app.example:8443/x.js"),
        "https://app.example",
        &[]
    )
    .is_err());
}

#[test]
fn allowed_entries_that_are_not_origins_match_nothing() {
    let foreign = url("//cdn.example/lib/x.js");
    for entry in [
        "https://cdn.example/lib/",
        "cdn.example",
        "https://user@cdn.example",
        "*",
    ] {
        assert!(
            check_origin(&foreign, "https://app.example", &[entry.to_string()]).is_err(),
            "{entry}"
        );
    }
    assert!(
        check_origin(&url("/x.js"), "null", &[]).is_err(),
        "an opaque page origin allows nothing"
    );
}

#[test]
fn origins_normalize() {
    assert_eq!(
        normalize_origin("https://A.example:443/").as_deref(),
        Ok("https://a.example")
    );
    assert_eq!(
        normalize_origin("http://a.example:8080").as_deref(),
        Ok("http://a.example:8080")
    );
    assert!(matches!(
        normalize_origin("https://a.example/x"),
        Err(UrlError::NotAnOrigin { .. })
    ));
}

#[test]
fn long_values_are_shortened_in_errors() {
    let host = "a".repeat(500);
    let Err(UrlError::BadHost { host: quoted }) = resolve(&format!("//{host}%/x"), BASE) else {
        panic!("expected a bad host");
    };
    assert!(quoted.chars().count() <= 101, "{}", quoted.len());
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
        let _ = resolve(sample, BASE);
        let _ = resolve("x", sample);
        let _ = normalize_origin(sample);
    }
}
