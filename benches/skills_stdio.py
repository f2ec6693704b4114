"""Round-trip cost of the SEP-2640 methods over stdio, measured from a raw JSON-RPC client.

Spawns a skillpack binary, performs the `initialize` handshake, then times N sequential
`skills/list` (first page), `skills/get` (cycling over every skill), `resources/read` of
manifest files and `resources/directory/read` of skill roots. Each figure is the median
wall time of one request/response pair as seen by this client (pipe, JSON encode/decode
on both sides included), plus the size of the responses.

Usage: python3 benches/skills_stdio.py BINARY [N]
"""

import json
import statistics
import subprocess
import sys
import time


def main() -> None:
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    proc = subprocess.Popen(
        [binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    next_id = 0

    def call(method, params):
        nonlocal next_id
        next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
        start = time.perf_counter()
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        reply = proc.stdout.readline()
        elapsed = time.perf_counter() - start
        message = json.loads(reply)
        if "error" in message:
            raise SystemExit(f"{method} {params}: {message['error']}")
        return message["result"], elapsed, len(reply)

    call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "bench", "version": "0"}})
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.flush()

    listing, _, _ = call("skills/list", {})
    skills = [s["uri"] for s in listing["skills"]]
    files = [r["uri"] for s in listing["skills"] for r in s["resources"]]
    roots = [uri[: -len("/SKILL.md")] for uri in skills]

    def measure(name, method, params_of):
        times, sizes = [], []
        for i in range(n):
            _, elapsed, size = call(method, params_of(i))
            times.append(elapsed)
            sizes.append(size)
        print(f"{name:26} median {statistics.median(times) * 1e6:8.1f} us   "
              f"p90 {sorted(times)[int(n * 0.9)] * 1e6:8.1f} us   "
              f"response {statistics.mean(sizes) / 1024:8.1f} KiB avg")

    print(f"{binary}: {len(skills)} skills on the first page, {len(files)} files, {n} calls each")
    measure("skills/list (first page)", "skills/list", lambda i: {})
    measure("skills/get", "skills/get", lambda i: {"uri": skills[i % len(skills)]})
    measure("resources/read (files)", "resources/read", lambda i: {"uri": files[i % len(files)]})
    measure("resources/directory/read", "resources/directory/read",
            lambda i: {"uri": roots[i % len(roots)]})
    proc.stdin.close()
    proc.wait()


if __name__ == "__main__":
    main()
