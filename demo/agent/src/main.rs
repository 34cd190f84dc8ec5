//! `chat-runtime-agent [--mode demo|script|gateway] [--port N] [--static /prefix=DIR]... [--pace-ms N]
//! [--llm-url URL --model NAME] [--coder-deadline-ms N] [--coder-token T [--coder-sign-in]]
//! [--coder-prefix P]`:
//! see README.md.

use std::io::Write;
use std::process::ExitCode;

use chat_runtime_agent::llm::LlmConfig;
use chat_runtime_agent::{serve, Config, Mode, StaticMount};
use tokio::net::TcpListener;
use tokio::sync::watch;

const USAGE: &str =
    "usage: chat-runtime-agent [--mode demo|script|gateway] [--port N] [--static /prefix=DIR]...
                          [--pace-ms N] [--llm-url URL --model NAME]
                          [--coder-deadline-ms N] [--coder-token T [--coder-sign-in]]
                          [--coder-prefix P [--coder-only-prefix]]
  --mode demo|script|gateway
                         demo (default): the rule-based demo agent answers runs;
                         script: only responses queued with POST /test/script (the e2e tests);
                         gateway: streams like Jaeger's AI gateway (RFC 0002: UI tool calls
                         inside a turn that goes on, a backend tool's result)
  --port N               port on 127.0.0.1 (default: $PORT, else 8080; 0 picks a free port)
  --static /prefix=DIR   serve DIR under /prefix (repeatable; a bare DIR mounts at /)
  --pace-ms N            demo mode: pause before each streamed token (default 25; 0 for tests)
  --llm-url URL          demo mode: answer with an OpenAI-compatible server instead of the
                         planner, e.g. http://127.0.0.1:11434/v1 (http only; $LLM_API_KEY is
                         sent as a bearer token when set)
  --model NAME           the model for --llm-url, e.g. llama3.2
  --coder-deadline-ms N  the Coder mock's requires_action deadline (default 300000, 5 min)
  --coder-token T        the session token the Coder mock's chat routes require (default none)
  --coder-sign-in        every HTML page signs the browser in to the Coder mock: the HttpOnly
                         coder_session_token cookie (T) and Coder's CSRF meta tag and cookie
  --coder-prefix P       where the Coder mock's chat routes live (default /api/v2/chats;
                         /api/experimental/chats is served too)
  --coder-only-prefix    serve the chat routes under --coder-prefix only (builds after #29548)
Prints `listening on http://127.0.0.1:PORT` once ready. Ctrl-C / SIGTERM stops it.";

struct Args {
    port: u16,
    config: Config,
}

fn parse_port(s: &str) -> Result<u16, String> {
    s.trim().parse().map_err(|_| format!("invalid port {s:?}"))
}

fn parse_args(
    args: impl IntoIterator<Item = String>,
    env_port: Option<String>,
) -> Result<Option<Args>, String> {
    let mut port = None;
    let mut config = Config {
        pace_ms: 25,
        ..Config::default()
    };
    let (mut llm_url, mut model) = (None, None);
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or(format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--port" => port = Some(parse_port(&value("--port")?)?),
            "--static" => config
                .statics
                .push(StaticMount::parse(&value("--static")?)?),
            "--mode" => config.mode = Mode::parse(&value("--mode")?)?,
            "--pace-ms" => {
                let v = value("--pace-ms")?;
                config.pace_ms = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("invalid --pace-ms {v:?}"))?;
            }
            "--llm-url" => llm_url = Some(value("--llm-url")?),
            "--model" => model = Some(value("--model")?),
            "--coder-deadline-ms" => {
                let v = value("--coder-deadline-ms")?;
                config.coder.deadline_ms = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("invalid --coder-deadline-ms {v:?}"))?;
            }
            "--coder-token" => {
                config.coder.token = Some(value("--coder-token")?).filter(|t| !t.is_empty())
            }
            "--coder-sign-in" => config.coder.sign_in = true,
            "--coder-only-prefix" => config.coder.only_prefix = true,
            "--coder-prefix" => {
                let v = value("--coder-prefix")?;
                let p = v.trim_end_matches('/');
                if !p.starts_with('/') || p.len() < 2 {
                    return Err(format!("--coder-prefix {v:?}: a path like /api/v2/chats"));
                }
                config.coder.prefix = p.to_string();
            }
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    if config.coder.sign_in && config.coder.token.is_none() {
        return Err("--coder-sign-in needs --coder-token T (the session it signs in)".into());
    }
    let port = match (port, env_port) {
        (Some(p), _) => p,
        (None, Some(p)) if !p.trim().is_empty() => parse_port(&p)?,
        _ => 8080,
    };
    config.llm = match (llm_url, model) {
        (Some(url), model) => Some(LlmConfig::parse(&url, model.as_deref().unwrap_or(""))?),
        (None, Some(_)) => return Err("--model needs --llm-url URL".into()),
        (None, None) => None,
    };
    if config.llm.is_some() && config.mode == Mode::Script {
        return Err("--llm-url works in --mode demo only".into());
    }
    Ok(Some(Args { port, config }))
}

async fn stop_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1), std::env::var("PORT").ok()) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("chat-runtime-agent: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut args = args;
    if let Some(llm) = &mut args.config.llm {
        llm.api_key = std::env::var("LLM_API_KEY").ok().filter(|k| !k.is_empty());
    }
    for m in &args.config.statics {
        if !m.dir.is_dir() {
            eprintln!(
                "chat-runtime-agent: warning: --static {}={}: not a directory",
                m.prefix,
                m.dir.display()
            );
        }
    }
    let listener = match TcpListener::bind(("127.0.0.1", args.port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "chat-runtime-agent: cannot listen on 127.0.0.1:{}: {e}",
                args.port
            );
            return ExitCode::FAILURE;
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    let (tx, rx) = watch::channel(false);
    tokio::spawn(async move {
        stop_signal().await;
        let _ = tx.send(true);
    });
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on http://127.0.0.1:{port}");
        let _ = out.flush();
    }
    match serve(listener, args.config, rx).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chat-runtime-agent: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str], env: Option<&str>) -> Result<Option<Args>, String> {
        parse_args(v.iter().map(|s| s.to_string()), env.map(str::to_string))
    }

    #[test]
    fn port_from_flag_env_default() {
        assert_eq!(args(&[], None).unwrap().unwrap().port, 8080);
        assert_eq!(args(&[], Some("9000")).unwrap().unwrap().port, 9000);
        assert_eq!(
            args(&["--port", "0"], Some("9000")).unwrap().unwrap().port,
            0
        );
        assert_eq!(args(&["--port=1234"], None).unwrap().unwrap().port, 1234);
        assert!(args(&["--port", "x"], None).is_err());
        assert!(args(&["--port"], None).is_err());
        assert!(args(&["--bogus"], None).is_err());
        assert!(args(&["--help"], None).unwrap().is_none());
    }

    #[test]
    fn static_mounts_repeat() {
        let a = args(
            &["--static", "/pkg=pkg", "--static=/=tests/e2e/pages"],
            None,
        )
        .unwrap()
        .unwrap();
        let prefixes: Vec<_> = a.config.statics.iter().map(|m| m.prefix.as_str()).collect();
        assert_eq!(prefixes, ["/pkg", "/"]);
    }

    #[test]
    fn modes_pace_and_llm() {
        let a = args(&[], None).unwrap().unwrap();
        assert_eq!(a.config.mode, Mode::Demo);
        assert_eq!(a.config.pace_ms, 25);
        assert!(a.config.llm.is_none());
        let a = args(&["--mode", "script", "--pace-ms=0"], None)
            .unwrap()
            .unwrap();
        assert_eq!(a.config.mode, Mode::Script);
        assert_eq!(a.config.pace_ms, 0);
        assert!(args(&["--mode", "chat"], None).is_err());
        assert_eq!(a.config.coder.deadline_ms, 300_000);
        assert_eq!(a.config.coder.prefix, "/api/v2/chats");
        let a = args(
            &[
                "--coder-deadline-ms",
                "50",
                "--coder-token=t",
                "--coder-prefix",
                "/x/",
            ],
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(a.config.coder.deadline_ms, 50);
        assert_eq!(a.config.coder.token.as_deref(), Some("t"));
        assert_eq!(a.config.coder.prefix, "/x");
        assert!(args(&["--coder-deadline-ms", "x"], None).is_err());
        assert!(args(&["--coder-prefix", "/"], None).is_err());
        let a = args(
            &[
                "--llm-url",
                "http://127.0.0.1:11434/v1",
                "--model",
                "llama3.2",
            ],
            None,
        )
        .unwrap()
        .unwrap();
        let llm = a.config.llm.unwrap();
        assert_eq!(llm.path, "/v1/chat/completions");
        assert_eq!(llm.model, "llama3.2");
        assert!(args(&["--llm-url", "http://x/v1"], None).is_err());
        assert!(args(&["--model", "m"], None).is_err());
        assert!(args(
            &["--mode", "script", "--llm-url", "http://x", "--model", "m"],
            None
        )
        .is_err());
    }
}
