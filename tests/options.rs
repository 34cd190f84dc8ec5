//! The app's options (`crate::options`): defaults, limits and the error each bad member gets.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg(feature = "coder")]
use chat_runtime::coder::options::CoderConfig;
#[cfg(feature = "coder")]
use chat_runtime::coder::options::{check_chat_texts, is_uuid, url_origin, CoderAuth};
use chat_runtime::json::{Map, Value};
#[cfg(feature = "coder")]
use chat_runtime::options::AGUI_ONLY_OPTIONS;
use chat_runtime::options::{
    OptionsError, RunInput, RuntimeOptions, DEFAULT_TOOLS_URL, MAX_ROUNDS, MAX_TOOL_RESULT_BYTES,
    MAX_TOOL_TIMEOUT_MS, RUNTIME_OPTION_KEYS, RUN_REQUEST_KEYS,
};
use chat_runtime::protocol::input::Omitted;
use chat_runtime::session::{HistoryMode, Pending, SessionConfig};

fn map(json: &str) -> Map {
    match Value::parse(json).unwrap() {
        Value::Object(map) => map,
        other => panic!("not an object: {other:?}"),
    }
}

fn runtime(json: &str) -> Result<RuntimeOptions, OptionsError> {
    RuntimeOptions::from_json(map(json))
}

/// The error's code, field and message.
fn refused(result: Result<RuntimeOptions, OptionsError>) -> (&'static str, String, String) {
    match result {
        Err(OptionsError::Field {
            code,
            field,
            message,
        }) => (code, field.into_owned(), message.into_owned()),
        Err(other) => panic!("not a field error: {other:?}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn only_run_url_gives_every_default() {
    let options = runtime(r#"{"runUrl":"/agent"}"#).unwrap();
    let defaults = SessionConfig::default();
    assert_eq!(options.config.run_url, "/agent");
    assert_eq!(options.config.history, HistoryMode::Full);
    assert_eq!(options.config.max_rounds, defaults.max_rounds);
    assert_eq!(options.config.tool_timeout_ms, defaults.tool_timeout_ms);
    assert_eq!(
        options.config.max_tool_result_bytes,
        defaults.max_tool_result_bytes
    );
    assert!(options.config.headers.is_empty());
    assert_eq!(options.tools_url.as_deref(), Some(DEFAULT_TOOLS_URL));
    assert_eq!(DEFAULT_TOOLS_URL, "/tools/tools.json");
    assert_eq!(options.catalog.prefix(), None);
    assert!(options.allowed_import_origins.is_empty());
}

#[test]
fn every_data_option_is_read() {
    let options = runtime(
        r#"{"runUrl":"/a/{threadId}","toolsUrl":"/t.json","history":"new",
            "omitRequestFields":["parentRunId"],"headers":{"x-tenant":"7"},"maxToolResultBytes":5,"maxRounds":2,
            "toolTimeoutMs":9,"toolNamePrefix":"web_","allowedImportOrigins":["https://cdn.example"]}"#,
    )
    .unwrap();
    assert_eq!(options.config.history, HistoryMode::New);
    assert_eq!(
        options.config.omit,
        Omitted::from_names(["parentRunId"]).unwrap()
    );
    assert_eq!(options.config.max_tool_result_bytes, 5);
    assert_eq!(options.config.max_rounds, 2);
    assert_eq!(options.config.tool_timeout_ms, 9);
    assert_eq!(
        options.config.headers,
        vec![("x-tenant".to_owned(), "7".to_owned())]
    );
    assert_eq!(options.tools_url.as_deref(), Some("/t.json"));
    assert_eq!(options.catalog.prefix(), Some("web_"));
    assert_eq!(options.allowed_import_origins, ["https://cdn.example"]);
    // The keys the boundary hands over are exactly those read.
    assert_eq!(RUNTIME_OPTION_KEYS.len(), 11);
    #[cfg(feature = "coder")]
    assert_eq!(options.config.coder, None);
}

#[test]
fn null_tools_url_means_no_tools_json_and_null_elsewhere_means_absent() {
    let options = runtime(
        r#"{"runUrl":"/a","toolsUrl":null,"history":null,"maxRounds":null,"headers":null}"#,
    )
    .unwrap();
    assert_eq!(options.tools_url, None);
    assert_eq!(options.config.history, HistoryMode::Full);
    assert_eq!(
        options.config.max_rounds,
        SessionConfig::default().max_rounds
    );
}

#[test]
fn run_url_is_required() {
    assert_eq!(
        refused(runtime("{}")),
        (
            "options/invalid",
            "runUrl".to_owned(),
            "`runUrl` is required".to_owned()
        )
    );
    let (code, field, _) = refused(runtime(r#"{"runUrl":5}"#));
    assert_eq!((code, field.as_str()), ("options/invalid", "runUrl"));
}

#[test]
fn limits_are_positive_and_bounded() {
    for (key, max) in [
        ("maxToolResultBytes", MAX_TOOL_RESULT_BYTES),
        ("maxRounds", MAX_ROUNDS),
        ("toolTimeoutMs", MAX_TOOL_TIMEOUT_MS),
    ] {
        let message = format!("`{key}` must be a positive integer up to {max}");
        for bad in [
            "0".to_owned(),
            (u64::from(max) + 1).to_string(),
            "1.5".into(),
            "\"3\"".into(),
            "-1".into(),
        ] {
            let json = format!(r#"{{"runUrl":"/a","{key}":{bad}}}"#);
            assert_eq!(
                refused(runtime(&json)),
                ("options/invalid", key.to_owned(), message.clone()),
                "{json}"
            );
        }
        let json = format!(r#"{{"runUrl":"/a","{key}":{max}}}"#);
        assert!(runtime(&json).is_ok(), "{json}");
    }
    assert_eq!(MAX_TOOL_RESULT_BYTES, 1 << 28);
    assert_eq!(MAX_ROUNDS, 1000);
    assert_eq!(MAX_TOOL_TIMEOUT_MS, 3_600_000);
}

#[test]
fn history_is_full_or_new() {
    assert_eq!(
        refused(runtime(r#"{"runUrl":"/a","history":"all"}"#)),
        (
            "options/invalid",
            "history".to_owned(),
            r#"`history` must be "full" or "new", not "all""#.to_owned()
        )
    );
}

#[test]
fn omit_request_fields_names_run_agent_input_members() {
    let options = runtime(r#"{"runUrl":"/a","omitRequestFields":["runId","state"]}"#).unwrap();
    assert_eq!(
        options.config.omit,
        Omitted::from_names(["state", "runId"]).unwrap()
    );
    assert_eq!(
        runtime(r#"{"runUrl":"/a","omitRequestFields":null}"#)
            .unwrap()
            .config
            .omit,
        Omitted::default()
    );
    // `messages`, `resume`, a misspelt member, a non-string, a non-array: one refusal that
    // names what can be omitted.
    for json in [
        r#"["state","messages"]"#,
        r#"["resume"]"#,
        r#"["runid"]"#,
        r#"["state",1]"#,
        r#""state""#,
    ] {
        assert_eq!(
            refused(runtime(&format!(
                r#"{{"runUrl":"/a","omitRequestFields":{json}}}"#
            ))),
            (
                "options/invalid",
                "omitRequestFields".to_owned(),
                "`omitRequestFields` is an array of RunAgentInput members other than `messages` \
                 and `resume`: threadId, runId, protocolVersion, parentRunId, state, tools, \
                 context, forwardedProps"
                    .to_owned()
            ),
            "{json}"
        );
    }
}

#[test]
fn tools_url_must_be_a_string_or_null() {
    assert_eq!(
        refused(runtime(r#"{"runUrl":"/a","toolsUrl":false}"#)).2,
        "`toolsUrl` must be a string or null"
    );
}

#[test]
fn headers_must_be_strings_without_lone_surrogates() {
    assert_eq!(
        refused(runtime(r#"{"runUrl":"/a","headers":{"x":1}}"#)).2,
        "header `x` must be a string"
    );
    let (_, field, message) = refused(runtime(r#"{"runUrl":"/a","headers":{"x":"\ud800"}}"#));
    assert_eq!(field, "headers");
    assert!(message.contains("lone UTF-16 surrogate"), "{message}");
    assert_eq!(
        refused(runtime(r#"{"runUrl":"/a","headers":[]}"#)).1,
        "headers"
    );
}

#[test]
fn a_bad_prefix_is_the_catalogs_error() {
    match runtime(r#"{"runUrl":"/a","toolNamePrefix":"no spaces"}"#) {
        Err(OptionsError::Prefix(e)) => assert_eq!(e.code(), "tools/bad-prefix"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_first_bad_member_is_reported() {
    // `maxRounds` comes before `toolTimeoutMs` in the reading order.
    let (_, field, _) = refused(runtime(
        r#"{"runUrl":"/a","toolTimeoutMs":0,"maxRounds":0}"#,
    ));
    assert_eq!(field, "maxRounds");
}

fn run(json: &str) -> Result<RunInput, OptionsError> {
    RunInput::from_json(map(json))
}

#[test]
fn an_empty_run_request_is_a_turn_with_nothing_new() {
    let input = run("{}").unwrap();
    assert!(input.messages.is_empty() && input.context.is_empty() && input.resume.is_empty());
    assert_eq!(input.state, None);
    assert_eq!(input.forwarded_props, None);
    assert_eq!(input.pending, Pending::Settle);
    assert!(!input.new_chat);
    // The Coder build also reads `busyBehavior`.
    assert_eq!(
        RUN_REQUEST_KEYS.len(),
        7 + usize::from(cfg!(feature = "coder"))
    );
}

#[test]
fn new_chat_is_a_boolean() {
    assert!(run(r#"{"newChat":true}"#).unwrap().new_chat);
    assert!(!run(r#"{"newChat":null}"#).unwrap().new_chat);
    let Err(OptionsError::Field { code, field, .. }) = run(r#"{"newChat":"yes"}"#) else {
        panic!("a string newChat is refused");
    };
    assert_eq!((code, field.as_ref()), ("run/bad-request", "newChat"));
}

#[test]
fn run_members_are_read_and_null_state_is_kept() {
    let input = run(
        r#"{"messages":[{"id":"u1","role":"user","content":"hi"}],"context":null,
            "state":null,"forwardedProps":{"a":1},"pending":"run"}"#,
    )
    .unwrap();
    assert_eq!(input.messages.len(), 1);
    assert_eq!(input.state, Some(Value::Null));
    assert_eq!(
        input.forwarded_props.map(|v| v.to_string()),
        Some(r#"{"a":1}"#.to_owned())
    );
    assert_eq!(input.pending, Pending::Run);
}

#[test]
fn a_malformed_run_member_names_the_field_and_the_place() {
    match run(r#"{"messages":[{"role":"user","content":"hi"}]}"#) {
        Err(OptionsError::Field {
            code,
            field,
            message,
        }) => {
            assert_eq!((code, &*field), ("run/bad-request", "messages"));
            assert!(
                message.starts_with("`messages` is malformed: [0]"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    match run(r#"{"pending":"later"}"#) {
        Err(OptionsError::Field { field, message, .. }) => {
            assert_eq!(field, "pending");
            assert_eq!(message, r#"`pending` must be "settle" or "run""#);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_run_input_becomes_the_sessions_request_for_its_thread() {
    let request = run(r#"{"messages":[{"id":"u1","role":"user","content":"hi"}],"pending":"run"}"#)
        .unwrap()
        .into_request("t1".to_owned(), Some(42));
    assert_eq!(request.thread_id, "t1");
    assert_eq!(request.messages.len(), 1);
    assert_eq!(request.now_ms, Some(42));
    assert_eq!(request.pending, Pending::Run);
}

#[test]
fn an_absent_null_or_agui_backend_is_ag_ui_and_still_needs_run_url() {
    for backend in ["", r#","backend":null"#, r#","backend":{"type":"agui"}"#] {
        let options = runtime(&format!(r#"{{"runUrl":"/a"{backend}}}"#)).unwrap();
        #[cfg(feature = "coder")]
        assert_eq!(options.config.coder, None, "{backend}");
        assert_eq!(options.config.run_url, "/a");
        let json = format!("{{{}}}", backend.trim_start_matches(','));
        let (code, field, _) = refused(runtime(&json));
        assert_eq!(
            (code, field.as_str()),
            ("options/invalid", "runUrl"),
            "{json}"
        );
    }
    assert!(RUNTIME_OPTION_KEYS.contains(&"backend"));
}

#[test]
#[cfg(feature = "coder")]
fn a_coder_backend_is_the_sessions_coder_config_and_needs_no_run_url() {
    let options = runtime(
        r#"{"backend":{"type":"coder","baseUrl":"/api/v2","organizationId":"0f1e2d3c-4b5a-4697-8877-665544332211","sessionToken":"tok"},
            "toolsUrl":"/t.json","toolTimeoutMs":9}"#,
    )
    .unwrap();
    assert_eq!(
        options.config.coder,
        Some(CoderConfig {
            base_url: "/api/v2".to_owned(),
            organization_id: "0f1e2d3c-4b5a-4697-8877-665544332211".to_owned(),
            session_token: Some("tok".to_owned()),
            max_reconnects: None,
            create: String::new(),
        })
    );
    assert_eq!(options.config.tool_timeout_ms, 9);
    assert_eq!(options.tools_url.as_deref(), Some("/t.json"));
    // The token is the session's to send (a Coder header and the stream's query), never one of
    // the app's `headers`.
    assert!(options.config.headers.is_empty());

    for token in ["", r#","sessionToken":null"#] {
        let json = format!(
            r#"{{"backend":{{"type":"coder","baseUrl":"https://coder.example/api/v2","organizationId":"0f1e2d3c-4b5a-4697-8877-665544332211"{token}}}}}"#
        );
        let coder = runtime(&json).unwrap().config.coder.unwrap();
        assert_eq!(coder.session_token, None, "{json}");
        assert_eq!(coder.base_url, "https://coder.example/api/v2");
    }
}

#[test]
#[cfg(feature = "coder")]
fn a_bad_backend_is_refused_naming_the_member() {
    let coder = |members: &str| format!(r#"{{"backend":{{"type":"coder"{members}}}}}"#);
    let ok = r#","baseUrl":"/api/v2","organizationId":"0f1e2d3c-4b5a-4697-8877-665544332211""#;
    let cases = [
        (r#"{"runUrl":"/a","backend":"coder"}"#.to_owned(), "backend"),
        (r#"{"runUrl":"/a","backend":[]}"#.to_owned(), "backend"),
        (r#"{"runUrl":"/a","backend":{}}"#.to_owned(), "backend.type"),
        (
            r#"{"runUrl":"/a","backend":{"type":"AGUI"}}"#.to_owned(),
            "backend.type",
        ),
        (
            r#"{"runUrl":"/a","backend":{"type":7}}"#.to_owned(),
            "backend.type",
        ),
        (
            r#"{"runUrl":"/a","backend":{"type":"agui","baseUrl":"/x"}}"#.to_owned(),
            "backend",
        ),
        (
            coder(r#","organizationId":"0f1e2d3c-4b5a-4697-8877-665544332211""#),
            "backend.baseUrl",
        ),
        (
            coder(r#","baseUrl":"","organizationId":"0f1e2d3c-4b5a-4697-8877-665544332211""#),
            "backend.baseUrl",
        ),
        (
            coder(r#","baseUrl":null,"organizationId":"0f1e2d3c-4b5a-4697-8877-665544332211""#),
            "backend.baseUrl",
        ),
        (coder(r#","baseUrl":"/api/v2""#), "backend.organizationId"),
        (
            coder(r#","baseUrl":"/api/v2","organizationId":5"#),
            "backend.organizationId",
        ),
        (
            coder(&format!(r#"{ok},"sessionToken":5"#)),
            "backend.sessionToken",
        ),
        (
            coder(&format!(r#"{ok},"sessionToken":"""#)),
            "backend.sessionToken",
        ),
        (coder(&format!(r#"{ok},"organization":"o""#)), "backend"),
    ];
    for (json, expected) in cases {
        let (code, field, message) = refused(runtime(&json));
        assert_eq!(
            (code, field.as_str()),
            ("options/invalid", expected),
            "{json}: {message}"
        );
    }
    let (_, _, message) = refused(runtime(&coder(&format!(r#"{ok},"organization":"o""#))));
    assert_eq!(message, r#"`backend` has no member "organization""#);
}

#[test]
#[cfg(feature = "coder")]
fn a_refused_session_token_is_never_quoted() {
    // A token no header can carry (a lone surrogate, `\ud800`): refused, and the message does
    // not repeat it (errors reach logs and error trackers).
    let json = r#"{"backend":{"type":"coder","baseUrl":"/b","organizationId":"0f1e2d3c-4b5a-4697-8877-665544332211","sessionToken":"secret\ud800"}}"#;
    let (code, field, message) = refused(runtime(json));
    assert_eq!(
        (code, field.as_str()),
        ("options/invalid", "backend.sessionToken")
    );
    assert!(!message.contains("secret"), "{message}");
}

#[test]
#[cfg(feature = "coder")]
fn ag_ui_only_options_are_refused_with_the_coder_backend() {
    assert_eq!(
        AGUI_ONLY_OPTIONS,
        [
            "runUrl",
            "history",
            "omitRequestFields",
            "headers",
            "maxRounds"
        ]
    );
    let backend = r#""backend":{"type":"coder","baseUrl":"/api/v2","organizationId":"0f1e2d3c-4b5a-4697-8877-665544332211"}"#;
    for (key, value) in [
        ("runUrl", r#""/agent""#),
        ("history", r#""new""#),
        ("omitRequestFields", r#"["state"]"#),
        ("headers", r#"{"x-tenant":"7"}"#),
        ("maxRounds", "3"),
    ] {
        let json = format!(r#"{{{backend},"{key}":{value}}}"#);
        assert_eq!(
            refused(runtime(&json)),
            (
                "options/invalid",
                key.to_owned(),
                format!("`{key}` is an AG-UI option: the coder backend does not use it")
            ),
            "{json}"
        );
        // `null` is absent, as for every option.
        let json = format!(r#"{{{backend},"{key}":null}}"#);
        assert!(runtime(&json).is_ok(), "{json}");
    }
}

/// The AG-UI build (no `coder` feature) refuses a Coder backend, naming the build that has one;
/// a malformed `backend` is refused as in the build with both.
#[test]
#[cfg(not(feature = "coder"))]
fn the_ag_ui_build_refuses_a_coder_backend_naming_the_coder_build() {
    let json = r#"{"backend":{"type":"coder","baseUrl":"/api/v2","organizationId":"o"}}"#;
    let (code, field, message) = refused(runtime(json));
    assert_eq!((code, field.as_str()), ("options/invalid", "backend.type"));
    assert!(message.contains("chat-runtime/coder"), "{message}");
    for (json, expected) in [
        (r#"{"runUrl":"/a","backend":"coder"}"#, "backend"),
        (r#"{"runUrl":"/a","backend":[]}"#, "backend"),
        (r#"{"runUrl":"/a","backend":{}}"#, "backend.type"),
        (
            r#"{"runUrl":"/a","backend":{"type":"AGUI"}}"#,
            "backend.type",
        ),
        (r#"{"runUrl":"/a","backend":{"type":7}}"#, "backend.type"),
        (
            r#"{"runUrl":"/a","backend":{"type":"agui","baseUrl":"/x"}}"#,
            "backend",
        ),
    ] {
        let (code, field, message) = refused(runtime(json));
        assert_eq!(
            (code, field.as_str()),
            ("options/invalid", expected),
            "{json}: {message}"
        );
    }
}

#[cfg(feature = "coder")]
const ORG: &str = "0f1e2d3c-4b5a-4697-8877-665544332211";

#[test]
#[cfg(feature = "coder")]
fn organization_id_must_be_a_uuid_as_coderd_reads_one() {
    let with = |org: &str| {
        runtime(&format!(
            r#"{{"backend":{{"type":"coder","baseUrl":"/api/v2","organizationId":"{org}"}}}}"#
        ))
    };
    for bad in [
        "o",
        "not-a-uuid",
        "0f1e2d3c-4b5a-4697-8877-66554433221",
        "0f1e2d3c-4b5a-4697-8877-6655443322111",
        "0f1e2d3cx4b5a-4697-8877-665544332211",
        "g f1e2d3c-4b5a-4697-8877-66554433221",
    ] {
        let (code, field, message) = refused(with(bad));
        assert_eq!(
            (code, field.as_str()),
            ("options/invalid", "backend.organizationId"),
            "{bad}"
        );
        assert!(message.contains("must be a UUID"), "{message}");
    }
    for good in [
        ORG,
        "0F1E2D3C-4B5A-4697-8877-665544332211",
        "{0f1e2d3c-4b5a-4697-8877-665544332211}",
        "urn:uuid:0f1e2d3c-4b5a-4697-8877-665544332211",
        "0f1e2d3c4b5a46978877665544332211",
    ] {
        assert!(with(good).is_ok(), "{good}");
        assert!(is_uuid(good));
    }
}

#[test]
#[cfg(feature = "coder")]
fn csrf_token_and_the_cross_origin_opt_in_are_read() {
    let options = runtime(&format!(
        r#"{{"backend":{{"type":"coder","baseUrl":"/api/v2","organizationId":"{ORG}","csrfToken":"c5rf","allowCrossOriginToken":true}}}}"#
    ))
    .unwrap();
    assert_eq!(
        options.coder_auth,
        CoderAuth {
            csrf_token: Some("c5rf".into()),
            allow_cross_origin_token: true,
        }
    );
    assert_eq!(
        runtime(r#"{"runUrl":"/a"}"#).unwrap().coder_auth,
        CoderAuth::default()
    );
    for (member, field) in [
        (r#","csrfToken":"""#, "backend.csrfToken"),
        (r#","csrfToken":5"#, "backend.csrfToken"),
        (
            r#","allowCrossOriginToken":"yes""#,
            "backend.allowCrossOriginToken",
        ),
    ] {
        let json = format!(
            r#"{{"backend":{{"type":"coder","baseUrl":"/api/v2","organizationId":"{ORG}"{member}}}}}"#
        );
        let (code, got, message) = refused(runtime(&json));
        assert_eq!((code, got.as_str()), ("options/invalid", field), "{json}");
        assert!(!message.contains("c5rf"));
    }
    // An AG-UI backend takes neither.
    let (_, field, _) = refused(runtime(
        r#"{"runUrl":"/a","backend":{"type":"agui","csrfToken":"x"}}"#,
    ));
    assert_eq!(field, "backend");
}

#[test]
#[cfg(feature = "coder")]
fn a_session_token_is_refused_for_another_origin_unless_allowed() {
    let page = Some("https://app.example");
    let with = |base: &str, extra: &str| {
        runtime(&format!(
            r#"{{"backend":{{"type":"coder","baseUrl":"{base}","organizationId":"{ORG}"{extra}}}}}"#
        ))
        .unwrap()
    };
    let token = r#","sessionToken":"tok""#;
    // Same origin, or relative: fine.
    for base in [
        "/api/v2",
        "api/v2",
        "https://app.example/api/v2",
        "HTTPS://APP.example:443/api/v2",
        "//app.example/api/v2",
    ] {
        assert!(with(base, token).check_token_origin(page).is_ok(), "{base}");
    }
    // Another origin with a token: refused, naming baseUrl and the opt-in.
    for base in [
        "https://coder.example/api/v2",
        "http://app.example/api/v2",
        "https://app.example:8443/api/v2",
        "//coder.example/api/v2",
    ] {
        let err = with(base, token).check_token_origin(page).unwrap_err();
        let OptionsError::Field {
            code,
            field,
            message,
        } = err
        else {
            panic!("{err:?}")
        };
        assert_eq!(
            (code, &*field),
            ("options/invalid", "backend.baseUrl"),
            "{base}"
        );
        assert!(message.contains("allowCrossOriginToken"), "{message}");
        assert!(!message.contains("tok\""), "{message}");
        // Opted in, or no token (cookie mode: the browser's own rules apply): fine.
        let allowed = format!(r#"{token},"allowCrossOriginToken":true"#);
        assert!(with(base, &allowed).check_token_origin(page).is_ok());
        assert!(with(base, "").check_token_origin(page).is_ok());
    }
    // AG-UI has nothing to check; a host without an origin refuses any absolute URL.
    assert!(runtime(r#"{"runUrl":"/a"}"#)
        .unwrap()
        .check_token_origin(page)
        .is_ok());
    assert!(with("https://coder.example/api/v2", token)
        .check_token_origin(None)
        .is_err());
    assert!(with("/api/v2", token).check_token_origin(None).is_ok());
}

#[test]
#[cfg(feature = "coder")]
fn url_origins_are_normalised() {
    assert_eq!(
        url_origin("https://User@Coder.Example:443/x?y#z", None).as_deref(),
        Some("https://coder.example")
    );
    assert_eq!(
        url_origin("http://h:8080/", None).as_deref(),
        Some("http://h:8080")
    );
    assert_eq!(
        url_origin("//h/x", Some("https://p")).as_deref(),
        Some("https://h")
    );
    assert_eq!(url_origin("//h/x", None), None);
    assert_eq!(url_origin("/api/v2", None), None);
    assert_eq!(url_origin("https:///x", None), None);
}

#[test]
#[cfg(feature = "coder")]
fn a_chats_run_needs_text_that_is_not_blank() {
    assert!(check_chat_texts(&[(0, "hi")]).is_ok());
    assert!(check_chat_texts(&[(0, " hi "), (1, "there")]).is_ok());
    for (texts, field) in [
        (vec![(0, "")], "messages[0].content"),
        (vec![(0, "ok"), (2, " \n\t")], "messages[2].content"),
        (vec![], "messages"),
    ] {
        let Err(OptionsError::Field {
            code, field: got, ..
        }) = check_chat_texts(&texts)
        else {
            panic!("{texts:?} accepted")
        };
        assert_eq!((code, &*got), ("run/bad-request", field));
    }
}

#[test]
#[cfg(feature = "coder")]
fn a_coder_backends_creation_options_become_the_create_bodys_members() {
    let uuid = "0f1e2d3c-4b5a-4697-8877-665544332211";
    let options = runtime(&format!(
        r#"{{"backend":{{"type":"coder","baseUrl":"/api/v2","organizationId":"{uuid}",
            "modelConfigId":"{uuid}","systemPrompt":"Be brief.","labels":{{"team":"a"}},
            "mcpServerIds":["{uuid}"],"reasoningEffort":"high","planMode":"plan","maxReconnects":5}}}}"#
    ))
    .unwrap();
    let coder = options.config.coder.unwrap();
    assert_eq!(coder.max_reconnects, Some(5));
    let members: serde_json::Value =
        serde_json::from_str(&format!("{{\"x\":0{}}}", coder.create)).unwrap();
    assert_eq!(
        members,
        serde_json::json!({"x":0,"model_config_id":uuid,"system_prompt":"Be brief.",
            "reasoning_effort":"high","plan_mode":"plan","labels":{"team":"a"},"mcp_server_ids":[uuid]})
    );
    for (member, field) in [
        (r#""modelConfigId":"gpt""#, "backend.modelConfigId"),
        (r#""labels":{"n":1}"#, "backend.labels"),
        (r#""mcpServerIds":["x"]"#, "backend.mcpServerIds"),
        (r#""maxReconnects":-1"#, "backend.maxReconnects"),
    ] {
        let json = format!(
            r#"{{"backend":{{"type":"coder","baseUrl":"/api/v2","organizationId":"{uuid}",{member}}}}}"#
        );
        let (code, got, _) = refused(runtime(&json));
        assert_eq!((code, got.as_str()), ("options/invalid", field), "{member}");
    }
}
