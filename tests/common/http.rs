//! HTTP helpers for the integration tests: start `skillpack serve --http` on a free
//! loopback port, talk to it with rmcp's Streamable HTTP client, or send hand-made HTTP
//! requests (exact control of `Host`, `Origin`, half-sent bodies) over a raw socket.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, serve_client_with_lifecycle};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub type HttpClient = RunningService<RoleClient, ()>;

/// How long any single step of an HTTP test may take before the test fails instead of
/// hanging: generous, since CI machines are slow and shared.
pub const STEP: Duration = Duration::from_secs(20);

/// A running `skillpack serve --http 127.0.0.1:0 …`, killed on drop.
pub struct HttpServer {
    child: Child,
    pub addr: SocketAddr,
    stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    /// Start the binary with extra `serve` arguments and environment; waits for the
    /// "serving" log line and takes the port from it.
    pub fn start(binary: &Path, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        Self::start_on(binary, "127.0.0.1:0", args, env)
    }

    pub fn start_on(binary: &Path, addr: &str, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        Self::start_command(Command::new(binary), addr, args, env)
    }

    /// Start `command` (the binary, or a wrapper such as strace whose last argument is the
    /// binary) with `serve --http ADDR` and `args` appended.
    pub fn start_command(
        mut command: Command,
        addr: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> HttpServer {
        command
            .args(["serve", "--http", addr])
            .args(args)
            .env("RUST_LOG", "info,rmcp=warn")
            .env("NO_COLOR", "1")
            .env_remove("SKILLPACK_AUTH_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("spawn skillpack serve --http");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (found_tx, found_rx) = std::sync::mpsc::channel();
        let pipe = child.stderr.take().expect("stderr");
        let log = stderr.clone();
        std::thread::spawn(move || {
            let mut found_tx = Some(found_tx);
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                log.lock().unwrap().push_str(&line);
                log.lock().unwrap().push('\n');
                if let Some(addr) = listening_addr(&line)
                    && let Some(tx) = found_tx.take()
                {
                    let _ = tx.send(addr);
                }
            }
        });
        let addr = match found_rx.recv_timeout(STEP) {
            Ok(addr) => addr,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "skillpack serve --http did not start:\n{}",
                    stderr.lock().unwrap()
                );
            }
        };
        HttpServer {
            child,
            addr,
            stderr,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's resident and peak memory (`VmRSS`, `VmHWM`) in KiB, from `/proc`.
    pub fn memory_kib(&self) -> (u64, u64) {
        super::hostile::memory_kib(self.pid())
    }

    /// Everything the server wrote to stderr so far.
    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The log once it contains `needle` (lines arrive through a pipe, a moment after the
    /// response that caused them); panics after [`STEP`].
    pub fn wait_for_log(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let log = self.log();
            if log.contains(needle) {
                return log;
            }
            assert!(start.elapsed() < STEP, "{needle:?} never logged:\n{log}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.pid().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{name} failed");
    }

    /// Wait for the process to exit (bounded by `limit`); `None` if it is still running.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `… url=http://127.0.0.1:PORT/mcp …` from the start-up log line.
fn listening_addr(line: &str) -> Option<SocketAddr> {
    if !line.contains("serving MCP over Streamable HTTP") {
        return None;
    }
    let rest = &line[line.find("url=http://")? + "url=http://".len()..];
    let end = rest.find('/')?;
    rest[..end].parse().ok()
}

/// Connect rmcp's client with the `initialize` handshake (2025-era lifecycle).
pub async fn connect_legacy(url: &str, token: Option<&str>) -> HttpClient {
    let transport = StreamableHttpClientTransport::from_config(config(url, token));
    tokio::time::timeout(STEP, ().serve(transport))
        .await
        .expect("initialize timed out")
        .expect("initialize over HTTP")
}

/// Connect rmcp's client with the stateless 2026-07-28 lifecycle (`server/discover`).
pub async fn connect_modern(url: &str, token: Option<&str>) -> HttpClient {
    let transport = StreamableHttpClientTransport::from_config(config(url, token));
    tokio::time::timeout(
        STEP,
        serve_client_with_lifecycle(
            (),
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        ),
    )
    .await
    .expect("discover timed out")
    .expect("discover over HTTP")
}

fn config(url: &str, token: Option<&str>) -> StreamableHttpClientTransportConfig {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    match token {
        Some(token) => config.auth_header(token.to_owned()),
        None => config,
    }
}

/// A parsed HTTP/1.1 response.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC message in the body (plain JSON, or the last `data:` of an SSE body).
    pub fn json(&self) -> serde_json::Value {
        let text = if self
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            self.body
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .rfind(|data| !data.is_empty())
                .unwrap_or_default()
                .to_owned()
        } else {
            self.body.clone()
        };
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }
}

/// One HTTP request on its own connection. `headers` are sent as given (`Host` included
/// when present, else the server's address); `Connection: close` and `Content-Length` are
/// added.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    let stream = tokio::time::timeout(STEP, TcpStream::connect(addr))
        .await
        .expect("connect timed out")
        .expect("connect");
    let head = request_head(addr, method, path, headers, body.len());
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    // Written while the answer is read: the server may answer (413, 401…) and close before
    // reading a large body. The write failing then is expected, and the answer is still
    // there to read.
    let (mut read, mut write) = stream.into_split();
    let send = async move {
        let _ = write.write_all(&bytes).await;
        write
    };
    let (_write, response) = tokio::join!(send, read_response(&mut read));
    response
}

pub fn request_head(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body_len: usize,
) -> String {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (key, value) in headers {
        head.push_str(&format!("{key}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {body_len}\r\nConnection: close\r\n\r\n"
    ));
    head
}

/// Read one response head (up to the blank line), e.g. an interim `100 Continue`.
async fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match tokio::time::timeout(STEP, stream.read(&mut byte))
            .await
            .expect("response head timed out")
        {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Read a whole `Connection: close` response.
pub async fn read_response(stream: &mut (impl AsyncRead + Unpin)) -> RawResponse {
    let mut raw = Vec::new();
    // A reset after the response (server closed with unread request bytes) still leaves
    // the response in `raw`.
    let _ = tokio::time::timeout(STEP, stream.read_to_end(&mut raw))
        .await
        .expect("response timed out");
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> RawResponse {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("incomplete HTTP response: {text:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("bad status line: {head:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    RawResponse {
        status,
        headers,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// Headers of a 2026-07-28 request (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
pub fn modern_headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    headers
}

/// A 2026-07-28 JSON-RPC request body with the per-request `_meta`.
pub fn modern_body(id: u64, method: &str, mut params: serde_json::Value) -> Vec<u8> {
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "skillpack-tests", "version": "0"},
    });
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": method, "params": params,
    }))
    .unwrap()
}

/// `resources/read` of `uri` over 2026-07-28 with extra headers (Host, Origin, auth…).
pub async fn modern_read(addr: SocketAddr, uri: &str, extra: &[(&str, &str)]) -> RawResponse {
    let mut headers = modern_headers("resources/read", Some(uri));
    headers.extend_from_slice(extra);
    let body = modern_body(1, "resources/read", serde_json::json!({"uri": uri}));
    request(addr, "POST", "/mcp", &headers, &body).await
}

/// A legacy `initialize` request body.
pub fn initialize_body(version: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "skillpack-tests", "version": "0"},
        },
    }))
    .unwrap()
}

pub const LEGACY_HEADERS: [(&str, &str); 2] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

/// Legacy (2025-11-25) request headers: no per-request `Mcp-*` headers to keep in step
/// with the body, so any body can be sent.
pub fn legacy_headers() -> Vec<(&'static str, &'static str)> {
    let mut headers = LEGACY_HEADERS.to_vec();
    headers.push(("MCP-Protocol-Version", "2025-11-25"));
    headers
}

/// POST a JSON-RPC message to `/mcp` as a 2025-11-25 client.
pub async fn legacy_post(addr: SocketAddr, message: &serde_json::Value) -> RawResponse {
    request(
        addr,
        "POST",
        "/mcp",
        &legacy_headers(),
        message.to_string().as_bytes(),
    )
    .await
}

/// A request whose head and first body bytes are sent but whose body is held back: the
/// server has it in flight until [`HeldRequest::finish`].
pub struct HeldRequest {
    stream: TcpStream,
    rest: Vec<u8>,
}

impl HeldRequest {
    /// Returns once the server is provably handling the request: it is sent with
    /// `Expect: 100-continue`, and the server says `100 Continue` only when the handler
    /// starts reading the body — inside the concurrency limit. (If it was shed because the
    /// slot was briefly taken, it is sent again.)
    pub async fn start(addr: SocketAddr, headers: &[(&str, &str)], body: Vec<u8>) -> HeldRequest {
        let mut headers = headers.to_vec();
        headers.push(("Expect", "100-continue"));
        let deadline = Instant::now() + STEP;
        loop {
            let mut stream = TcpStream::connect(addr).await.expect("connect");
            let head = request_head(addr, "POST", "/mcp", &headers, body.len());
            stream.write_all(head.as_bytes()).await.unwrap();
            let interim = read_head(&mut stream).await;
            if interim.starts_with("HTTP/1.1 100") {
                let split = body.len() / 2;
                stream.write_all(&body[..split]).await.unwrap();
                stream.flush().await.unwrap();
                return HeldRequest {
                    stream,
                    rest: body[split..].to_vec(),
                };
            }
            assert!(
                Instant::now() < deadline,
                "the server never started on the held request: {interim}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn finish(mut self) -> RawResponse {
        let _ = self.stream.write_all(&self.rest).await;
        read_response(&mut self.stream).await
    }

    /// Read what the server answers without sending the rest of the body.
    pub async fn response_without_finishing(mut self) -> RawResponse {
        read_response(&mut self.stream).await
    }
}

/// One keep-alive HTTP/1.1 connection for many requests in turn (the load test's client):
/// as little work per request as a client can do, so that the figures are the server's.
pub struct KeepAlive {
    addr: SocketAddr,
    stream: tokio::io::BufReader<TcpStream>,
    head: Vec<u8>,
}

impl KeepAlive {
    pub async fn connect(addr: SocketAddr) -> KeepAlive {
        let stream = tokio::time::timeout(STEP, TcpStream::connect(addr))
            .await
            .expect("connect timed out")
            .expect("connect");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        KeepAlive {
            addr,
            stream: tokio::io::BufReader::with_capacity(64 * 1024, stream),
            head: Vec::with_capacity(512),
        }
    }

    /// `POST path` with `headers` and `body`; returns the status and the body, or why the
    /// exchange failed (the connection is unusable afterwards then).
    pub async fn post(
        &mut self,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<(u16, Vec<u8>), String> {
        use std::io::Write as _;
        self.head.clear();
        write!(self.head, "POST {path} HTTP/1.1\r\nHost: {}\r\n", self.addr).unwrap();
        for (key, value) in headers {
            write!(self.head, "{key}: {value}\r\n").unwrap();
        }
        write!(self.head, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.head.extend_from_slice(body);
        let exchange = async {
            let stream = self.stream.get_mut();
            stream
                .write_all(&self.head)
                .await
                .map_err(|e| format!("write: {e}"))?;
            self.read().await
        };
        tokio::time::timeout(STEP, exchange)
            .await
            .map_err(|_| format!("no answer within {STEP:?}"))?
    }

    /// Wait up to `limit` for the server to close this connection (end of stream or
    /// reset); how long that took, or `None` if it is still open.
    pub async fn wait_closed(&mut self, limit: Duration) -> Option<Duration> {
        let start = Instant::now();
        let mut buf = [0u8; 512];
        loop {
            match tokio::time::timeout_at((start + limit).into(), self.stream.read(&mut buf)).await
            {
                Err(_) => return None,
                Ok(Ok(0)) | Ok(Err(_)) => return Some(start.elapsed()),
                Ok(Ok(_)) => continue,
            }
        }
    }

    async fn read(&mut self) -> Result<(u16, Vec<u8>), String> {
        let mut line = String::new();
        let mut status = None;
        let mut length = None;
        let mut chunked = false;
        loop {
            line.clear();
            let n = self
                .stream
                .read_line(&mut line)
                .await
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("connection closed by the server".to_owned());
            }
            let text = line.trim_end();
            if status.is_none() {
                status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok());
                if status.is_none() {
                    return Err(format!("bad status line {text:?}"));
                }
                continue;
            }
            if text.is_empty() {
                break;
            }
            if let Some((key, value)) = text.split_once(':') {
                let value = value.trim();
                if key.eq_ignore_ascii_case("content-length") {
                    length = value.parse().ok();
                } else if key.eq_ignore_ascii_case("transfer-encoding") {
                    chunked = value.eq_ignore_ascii_case("chunked");
                }
            }
        }
        let status = status.unwrap();
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.stream
                    .read_line(&mut line)
                    .await
                    .map_err(|e| format!("read: {e}"))?;
                let size = usize::from_str_radix(line.trim(), 16)
                    .map_err(|_| format!("bad chunk size {line:?}"))?;
                let start = body.len();
                body.resize(start + size + 2, 0);
                self.stream
                    .read_exact(&mut body[start..])
                    .await
                    .map_err(|e| format!("read: {e}"))?;
                body.truncate(start + size);
                if size == 0 {
                    break;
                }
            }
        } else {
            let length = length.ok_or("a response without Content-Length")?;
            body.resize(length, 0);
            self.stream
                .read_exact(&mut body)
                .await
                .map_err(|e| format!("read: {e}"))?;
        }
        Ok((status, body))
    }
}
