#!/usr/bin/env python3
"""What other page budgets would give, replayed offline (docs/reference/search.md, "What a
page carries"): the figures of the rows marked "replayed" there.

Searches each question of a split (with an agent's rephrasings as `also`, the default limit)
on a server, records per hit its section size, snippet size, whether it lies inside the
expected section and the bytes of reading its section, then recomputes the fixed policy of
`scripts/agent-trial sizes` for other budgets: the first hit carries its section when it is
at most FIRST bytes, a later hit when at most LATER bytes, while the page's carried text stays
within PAGE bytes. A newly carried hit adds its section's bytes less its snippet's; one call
when a carried section lies inside the expected one, else the search and one read (the first
right hit's section, or the first hit's). Run it under the project's .venv (the MCP SDK):

    .venv/bin/python benches/trials/experiments/page_budgets.py --server BINARY \\
        --split tuning [--budget FIRST,LATER,PAGE ...]

The server should be one whose answers carry nothing a budget below would not (a build
before the page budget, e.g. with `section_text` only on the first hit), or its rows are the
server's own rule plus what the budget adds. Design on tuning and held-out, never on the
trial (frozen) questions. Nothing here is used by the build or the tests.
"""
import argparse
import asyncio
import importlib.machinery
import importlib.util
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
loader = importlib.machinery.SourceFileLoader("agent_trial", str(ROOT / "scripts/agent-trial"))
spec = importlib.util.spec_from_loader("agent_trial", loader)
trial = importlib.util.module_from_spec(spec)
loader.exec_module(trial)


async def collect(split: str, server: Path) -> list[dict]:
    questions, rephrasings, cache, rows = trial.split_questions(split), trial.paraphrases(split), {}, []
    async with trial.connect(server) as client:
        for q in questions:
            arguments = {"query": q["question"]}
            if rephrasings.get(q["question"]):
                arguments["also"] = rephrasings[q["question"]]
            result = await client.call_tool("catalog_search", arguments)
            expected = await trial.document_ranges(client, cache, q["uri"])
            hits = []
            for h in (result.structured_content or {}).get("hits", []):
                document, cited = await trial.resolve_citation(client, cache, h["section_uri"])
                inside = bool(document and expected and document == expected.uri)
                if inside and q["anchor"] and cited is not None:
                    start, end = expected.sections.get(q["anchor"], (0, 0))
                    inside = start <= cited[0] and cited[1] <= end
                read, _ = await trial.tool_bytes(client, "catalog_read", {"uri": h["section_uri"]})
                snippet = len(json.dumps(h["snippet"], ensure_ascii=False).encode())
                hits.append({"size": h["section_size"], "snippet": snippet, "carried": "section_text" in h,
                             "inside": inside, "read": read})
            rows.append({"search": len(trial.tool_text(result).encode()), "hits": hits})
    return rows


def replay(rows: list[dict], first: int, later: int, page: int) -> dict:
    one, totals, searches = 0, [], []
    for row in rows:
        search, left, carried = row["search"], page, []
        for i, h in enumerate(row["hits"]):
            carry = h["size"] <= (first if i == 0 else later) and h["size"] <= left
            if carry:
                left -= h["size"]
            if carry != h["carried"]:
                delta = max(h["size"] - h["snippet"], 0)
                search += delta if carry else -delta
            carried.append(carry)
        searches.append(search)
        if any(c and h["inside"] for c, h in zip(carried, row["hits"])):
            one += 1
            totals.append(search)
        else:
            target = next((h for h in row["hits"] if h["inside"]), row["hits"][0] if row["hits"] else None)
            totals.append(search + (target["read"] if target else 0))
    def median(v):
        o = sorted(v)
        n = len(o)
        return o[n // 2] if n % 2 else (o[n // 2 - 1] + o[n // 2]) / 2
    def p90(v):
        o = sorted(v)
        return o[max(math.ceil(0.9 * len(o)), 1) - 1]
    return {"one call": f"{one}/{len(rows)} ({one / len(rows):.0%})",
            "search + read KB": f"{median(totals) / 1000:.1f} / {p90(totals) / 1000:.1f}",
            "search KB": f"{median(searches) / 1000:.1f} / {p90(searches) / 1000:.1f}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, type=Path)
    parser.add_argument("--split", default="tuning", choices=("tuning", "heldout"))
    parser.add_argument("--budget", action="append",
                        default=None, help="FIRST,LATER,PAGE in bytes (repeatable)")
    args = parser.parse_args()
    budgets = args.budget or ["2048,0,2048", "4096,0,4096", "4096,512,4096", "4096,1024,4096",
                              "4096,2048,4096", "6144,1024,6144"]
    rows = asyncio.run(collect(args.split, args.server))
    for budget in budgets:
        first, later, page = (int(x) for x in budget.split(","))
        print(f"first {first:5} later {later:5} page {page:5}: {replay(rows, first, later, page)}")


if __name__ == "__main__":
    main()
