//! `chat-runtime-agent [--port N] [--static /prefix=DIR]...`: see README.md.

use std::io::Write;
use std::process::ExitCode;

use chat_runtime_agent::{serve, Config, StaticMount};
use tokio::net::TcpListener;
use tokio::sync::watch;

const USAGE: &str = "usage: chat-runtime-agent [--port N] [--static /prefix=DIR]...
  --port N               port on 127.0.0.1 (default: $PORT, else 8080; 0 picks a free port)
  --static /prefix=DIR   serve DIR under /prefix (repeatable; a bare DIR mounts at /)
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
    let mut config = Config::default();
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
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    let port = match (port, env_port) {
        (Some(p), _) => p,
        (None, Some(p)) if !p.trim().is_empty() => parse_port(&p)?,
        _ => 8080,
    };
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
}
