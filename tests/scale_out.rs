//! Scale-out: three replicas of the real binary behind nginx (round-robin, no
//! stickiness) on loopback. Clients on both protocol lifecycles work through it, and
//! nginx's own log proves consecutive requests — the legacy `initialize` and what follows
//! it included — landed on different replicas, all answered without error.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::builtin_binary;
use common::http::{HttpServer, STEP, connect_legacy, connect_modern, request};
use rmcp::model::{ReadResourceRequestParams, ResourceContents};

/// nginx in the foreground as one process (`master_process off`), so killing it leaves
/// nothing behind.
struct Nginx(Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn nginx_config(dir: &Path, port: u16, replicas: &[&HttpServer]) -> String {
    let dir = dir.display();
    let upstreams: String = replicas
        .iter()
        .map(|r| format!("        server {};\n", r.addr))
        .collect();
    format!(
        r#"daemon off;
master_process off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    log_format lb '$upstream_addr $status $request_method $http_mcp_session_id';
    access_log {dir}/access.log lb;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    # Round-robin (nginx's default), no stickiness of any kind.
    upstream skillpack {{
{upstreams}    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://skillpack;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # The replicas check Host against DNS rebinding: pass the client's through.
            proxy_set_header Host $host;
            # Streamed (SSE) answers must not wait in a buffer.
            proxy_buffering off;
        }}
    }}
}}
"#
    )
}

fn start_nginx(nginx: &Path, dir: &Path, port: u16, config: &str) -> Nginx {
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, config).unwrap();
    let child = Command::new(nginx)
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(&conf)
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn nginx");
    let mut nginx = Nginx(child);
    let deadline = Instant::now() + STEP;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = nginx.0.try_wait().unwrap() {
            panic!(
                "nginx exited with {status}:\n{}",
                std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
            );
        }
        assert!(Instant::now() < deadline, "nginx did not start listening");
        std::thread::sleep(Duration::from_millis(20));
    }
    nginx
}

async fn read_text(client: &common::http::HttpClient, uri: &str) -> String {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("read {uri} through nginx: {e}"));
    match &result.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{uri}: expected text, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn three_replicas_behind_round_robin_nginx_need_no_affinity() {
    let Some(nginx_binary) = common::external::nginx() else {
        return;
    };
    let replicas: Vec<HttpServer> = (0..3)
        .map(|_| HttpServer::start(&builtin_binary(), &[], &[]))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let config = nginx_config(dir.path(), port, &replicas.iter().collect::<Vec<_>>());
    let nginx = start_nginx(&nginx_binary, dir.path(), port, &config);
    let url = format!("http://127.0.0.1:{port}/mcp");

    // The legacy lifecycle: initialize, initialized and every read may each land on a
    // different replica.
    let legacy = connect_legacy(&url, None).await;
    let resources = legacy
        .list_all_resources()
        .await
        .expect("list through nginx");
    let mut first_pass = BTreeMap::new();
    for resource in &resources {
        first_pass.insert(
            resource.uri.clone(),
            read_text(&legacy, &resource.uri).await,
        );
    }
    // The stateless lifecycle; the same bytes whichever replica answers.
    let modern = connect_modern(&url, None).await;
    for round in 0..3 {
        for (uri, text) in &first_pass {
            assert_eq!(
                &read_text(&modern, uri).await,
                text,
                "{uri} (round {round})"
            );
        }
    }
    legacy.cancel().await.unwrap();
    modern.cancel().await.unwrap();

    // Every replica reports the same release.
    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    let mut fingerprints = Vec::new();
    for _ in 0..3 {
        let health = request(addr, "GET", "/healthz", &[], b"").await;
        assert_eq!(health.status, 200);
        let body: serde_json::Value = serde_json::from_str(&health.body).unwrap();
        fingerprints.push(body["fingerprint"].as_str().unwrap().to_owned());
    }
    assert!(
        fingerprints.windows(2).all(|w| w[0] == w[1]),
        "{fingerprints:?}"
    );
    drop(nginx);

    // nginx's record of who answered what.
    let log = std::fs::read_to_string(dir.path().join("access.log")).unwrap();
    let entries: Vec<(&str, u16, &str, &str)> = log
        .lines()
        .map(|line| {
            let mut fields = line.split(' ');
            let upstream = fields.next().unwrap();
            let status = fields.next().unwrap().parse().unwrap();
            let method = fields.next().unwrap();
            let session = fields.next().unwrap_or("-");
            (upstream, status, method, session)
        })
        .collect();
    let posts: Vec<_> = entries.iter().filter(|(_, _, m, _)| *m == "POST").collect();
    // Legacy: initialize, initialized, list, one read each. Modern: discover, one read
    // each — its repeats are served from rmcp's client cache, as the server's `ttlMs`
    // allows.
    let expected_posts = 4 + resources.len() * 2;
    assert!(
        posts.len() >= expected_posts,
        "{} POSTs logged, expected at least {expected_posts}:\n{log}",
        posts.len()
    );
    for (upstream, status, method, _) in &entries {
        let ok = (200..300).contains(status)
            // Without sessions there is no stream to GET or session to DELETE: 405 is the
            // documented answer, not an error of the deployment.
            || (*status == 405 && *method != "POST");
        assert!(ok, "{method} answered {status} by {upstream}:\n{log}");
    }
    for pair in posts.windows(2) {
        assert_ne!(
            pair[0].0, pair[1].0,
            "consecutive requests reached the same replica:\n{log}"
        );
    }
    let mut per_replica = BTreeMap::new();
    for (upstream, _, _, _) in &posts {
        *per_replica.entry(*upstream).or_insert(0) += 1;
    }
    assert_eq!(per_replica.len(), 3, "{per_replica:?}");
    for replica in &replicas {
        assert!(
            per_replica.contains_key(replica.addr.to_string().as_str()),
            "replica {} served nothing: {per_replica:?}",
            replica.addr
        );
    }
    // The legacy client's session id, minted by one replica, was honoured by all three.
    let with_session: std::collections::BTreeSet<_> = posts
        .iter()
        .filter(|(_, _, _, session)| *session != "-")
        .map(|(upstream, _, _, _)| *upstream)
        .collect();
    assert_eq!(
        with_session.len(),
        3,
        "session-carrying requests hit {with_session:?}:\n{log}"
    );
    eprintln!("requests per replica: {per_replica:?}");
}
