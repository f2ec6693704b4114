#!/usr/bin/env python3
"""Cold start, idle RSS, document reads and search over stdio for one skillpack binary of
any size (docs/design/compact-archive.md, "100,000 documents"), where `bench-builds` would spend too
long checking two builds against each other:

    python3 benches/read_sample.py BINARY

20 fresh processes for cold start (spawn to the `initialize` answer) and idle RSS; then,
in one process, 3,000 markdown resources drawn at random (seed 7) from those `resources/list`
names,
each read once and then again, one request at a time; and five `catalog_search` queries,
20 times each. Nothing is asserted; the figures go to stdout.
"""
import json, random, subprocess, sys, time

if len(sys.argv) != 2:
    sys.exit("usage: benches/read_sample.py BINARY")
binary = sys.argv[1]

class Server:
    def __init__(self):
        self.p = subprocess.Popen([binary, "serve", "--log-level", "error"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0
    def call(self, method, params):
        self.n += 1
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            m = json.loads(line)
            if m.get("id") == self.n:
                return m
    def init(self):
        r = self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}})
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); self.p.stdin.flush()
        return r
    def close(self):
        self.p.stdin.close(); self.p.wait()

def pct(xs, q):
    xs = sorted(xs); return xs[min(len(xs) - 1, len(xs) * q // 100)]

cold = []
for _ in range(20):
    t = time.perf_counter(); s = Server(); s.init(); cold.append((time.perf_counter() - t) * 1e3)
    rss = [l for l in open(f"/proc/{s.p.pid}/status") if l.startswith("VmRSS")][0].split()[1]
    s.close()
print(f"cold start p50 {pct(cold,50):.2f} ms p90 {pct(cold,90):.2f} ms; idle RSS {int(rss)/1024:.1f} MiB")

s = Server(); s.init()
uris, cursor = [], None
while True:
    r = s.call("resources/list", {"cursor": cursor} if cursor else {})["result"]
    uris += [x["uri"] for x in r["resources"] if x.get("mimeType", "").startswith("text/markdown")]
    cursor = r.get("nextCursor")
    if not cursor: break
print(f"{len(uris)} markdown resources listed")
random.seed(7)
sample = random.sample(uris, min(3000, len(uris)))
for label in ("first read", "read again"):
    ts = []
    for u in sample:
        t = time.perf_counter(); r = s.call("resources/read", {"uri": u}); ts.append((time.perf_counter() - t) * 1e6)
        assert "result" in r, r
    print(f"document {label}: p50 {pct(ts,50):.0f} us p99 {pct(ts,99):.0f} us ({len(ts)} reads)")
queries = ["archive handler", "configure the cache", "error retry timeout", "install", "deploy release notes"]
ts = []
for _ in range(20):
    for q in queries:
        t = time.perf_counter(); r = s.call("tools/call", {"name": "catalog_search", "arguments": {"query": q}}); ts.append((time.perf_counter() - t) * 1e3)
        assert "result" in r, r
print(f"search p50 {pct(ts,50):.1f} ms p99 {pct(ts,99):.1f} ms ({len(ts)} searches)")
s.close()
