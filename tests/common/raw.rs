//! A raw stdio session with the real binary: bytes in, JSON lines out, for input that no
//! MCP client would send (malformed JSON, oversized lines, invalid UTF-8…).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// How long to wait for an answer before calling the server hung. Answers take
/// microseconds; this only turns a hang into a failure instead of a stuck test run.
const HANG: Duration = Duration::from_secs(120);

pub struct RawSession {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-test","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

impl RawSession {
    /// Spawn `binary` serving stdio and complete the initialize handshake.
    pub fn start(binary: &Path) -> RawSession {
        Self::start_command(Command::new(binary))
    }

    /// Spawn `command` (which must run the server on its stdio) and initialize.
    pub fn start_command(mut command: Command) -> RawSession {
        let mut child = command
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        // Drain stderr so that logging can never block the server.
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = stderr.clone();
        let mut pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let stdin = child.stdin.take();
        let mut session = RawSession {
            child,
            stdin,
            lines,
            stderr,
        };
        let init = session.call(INITIALIZE);
        assert_eq!(init["id"], "init", "{init}");
        assert!(init["result"]["protocolVersion"].is_string(), "{init}");
        session.send_line(INITIALIZED);
        session
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Write raw bytes to the server's stdin.
    pub fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    pub fn send_line(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send(&bytes);
    }

    /// A writer for the server's stdin that another thread can own.
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.stdin.take().expect("stdin is open")
    }

    pub fn give_stdin(&mut self, stdin: ChildStdin) {
        self.stdin = Some(stdin);
    }

    /// The next line the server writes, as raw bytes.
    pub fn next_raw(&self) -> Vec<u8> {
        match self.lines.recv_timeout(HANG) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!(
                "the server wrote nothing for {HANG:?}: it hangs\nstderr:\n{}",
                self.stderr_text()
            ),
            Err(RecvTimeoutError::Disconnected) => panic!(
                "the server closed stdout (it exited or crashed)\nstderr:\n{}",
                self.stderr_text()
            ),
        }
    }

    /// The next message the server writes: one JSON-RPC 2.0 object per line.
    pub fn next(&self) -> Value {
        let line = self.next_raw();
        let value: Value = serde_json::from_slice(&line).unwrap_or_else(|e| {
            panic!(
                "the server wrote a line that is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&line[..line.len().min(500)])
            )
        });
        assert_eq!(value["jsonrpc"], "2.0", "{value}");
        value
    }

    /// Nothing more arrives within `wait` (for input that must not be answered).
    pub fn expect_silence(&self, wait: Duration) {
        if let Ok(line) = self.lines.recv_timeout(wait) {
            panic!(
                "expected no answer, got {}",
                String::from_utf8_lossy(&line[..line.len().min(500)])
            );
        }
    }

    pub fn call(&mut self, line: &str) -> Value {
        self.send_line(line);
        self.next()
    }

    /// The server still answers a real request correctly.
    pub fn assert_serving(&mut self) {
        let pong = self.call(r#"{"jsonrpc":"2.0","id":"alive","method":"ping"}"#);
        assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "alive", "result": {}}));
        let read = self.call(
            r#"{"jsonrpc":"2.0","id":"alive-read","method":"resources/read","params":{"uri":"resource://catalog/capabilities"}}"#,
        );
        assert_eq!(read["id"], "alive-read", "{read}");
        let text = read["result"]["contents"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("\"limits\""), "{read}");
    }

    /// (current, peak) resident memory in KiB, from /proc (Linux).
    pub fn memory_kib(&self) -> (u64, u64) {
        super::hostile::memory_kib(self.pid())
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Close stdin and wait for the server to exit; returns its status and stderr.
    pub fn finish(mut self) -> (ExitStatus, String) {
        drop(self.stdin.take());
        let status = self.child.wait().expect("wait for the server");
        // Give the stderr thread a moment to drain what is left.
        std::thread::sleep(Duration::from_millis(100));
        (status, self.stderr_text())
    }
}

impl Drop for RawSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
