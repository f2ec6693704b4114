//! One stdio session with an MCP server, as the bench tools speak it: requests serialised
//! up front, responses framed by newline only, so that the client costs little next to the
//! server. Shared by `bench-driver` and `bench-builds` (each includes it with `#[path]`).

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

/// A server to start: a label for the tables, the program and its arguments.
#[derive(Clone)]
pub struct Server {
    pub label: String,
    pub program: PathBuf,
    pub args: Vec<String>,
}

pub fn initialize_request() -> String {
    json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench-driver", "version": "1"}
        }
    })
    .to_string()
        + "\n"
}

pub fn read_request(id: usize, uri: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": uri}})
        .to_string()
        + "\n"
}

pub struct Session {
    pub child: Child,
    pub stdin: BufWriter<ChildStdin>,
    pub stdout: BufReader<ChildStdout>,
    pub line: Vec<u8>,
}

impl Session {
    pub fn spawn(server: &Server) -> Result<Session, String> {
        let mut child = Command::new(&server.program)
            .args(&server.args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", server.program.display()))?;
        let stdin = BufWriter::new(child.stdin.take().expect("piped stdin"));
        let stdout = BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped stdout"));
        Ok(Session {
            child,
            stdin,
            stdout,
            line: Vec::with_capacity(1 << 16),
        })
    }

    pub fn send(&mut self, message: &str) -> Result<(), String> {
        self.stdin
            .write_all(message.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("write: {e}"))
    }

    /// The next line from the server; an error at end of output.
    pub fn receive(&mut self) -> Result<&[u8], String> {
        self.line.clear();
        let n = self
            .stdout
            .read_until(b'\n', &mut self.line)
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("the server closed its output".into());
        }
        Ok(&self.line)
    }

    pub fn initialize(&mut self) -> Result<(), String> {
        self.send(&initialize_request())?;
        let line = self.receive()?;
        if !is_result(line) {
            return Err(format!(
                "initialize failed: {}",
                String::from_utf8_lossy(line)
            ));
        }
        self.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
    }

    pub fn status(&self, field: &str) -> u64 {
        proc_status(self.child.id(), field)
    }

    pub fn finish(mut self) {
        drop(self.stdin);
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1))
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return;
                }
            }
        }
    }
}

/// A success response, judged from its first bytes: both servers write `"result"` before the
/// payload (and an error response has no `"result"` key at all).
pub fn is_result(line: &[u8]) -> bool {
    let head = &line[..line.len().min(96)];
    head.windows(9).any(|w| w == b"\"result\":")
}

pub fn proc_status(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The `p`th percentile (0-100) of sorted values, nearest rank.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}
