#!/usr/bin/env python3
"""Interop: the official MCP Python SDK (``mcp``, pinned in tests/interop/requirements.txt)
drives a skillpack binary over stdio or Streamable HTTP, on protocol 2025-11-25
(``initialize`` handshake) and 2026-07-28 (stateless, ``server/discover``).

For each protocol version it lists and reads every resource, lists the templates, calls
every tool (arguments built from each tool's own input schema; structured output checked
against its output schema) and gets every prompt (required arguments filled from
``completion/complete``). It prints one JSON summary line per run on stdout — including a
digest of everything read, so the caller can check that all transports and versions
return the same bytes — and exits non-zero with a message on the first mismatch.

Usage:
  sdk_transports.py --stdio /path/to/skillpack
  sdk_transports.py --http http://127.0.0.1:8080/mcp [--token-env SKILLPACK_AUTH_TOKEN]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
from typing import Any

import httpx2
import jsonschema
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import PromptReference

LEGACY = "2025-11-25"
MODERN = "2026-07-28"


class Mismatch(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Mismatch(message)


async def all_pages(fetch, field: str) -> list[Any]:
    items: list[Any] = []
    cursor = None
    for _ in range(1000):  # a server that never ends its pages cannot hang the test
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            return items
    raise Mismatch(f"{field}: more than 1000 pages")


def sample_value(name: str, schema: dict[str, Any], hints: dict[str, str]) -> Any:
    """A value a tool will accept for a required property, from its schema alone."""
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer":
        return max(int(schema.get("minimum", 1)), 1)
    if kind == "number":
        return float(schema.get("minimum", 1))
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return {}
    lowered = name.lower()
    for key, value in hints.items():
        if key in lowered:
            return value
    return "skill"


async def exercise(client: Client, hints: dict[str, str]) -> dict[str, Any]:
    digest = hashlib.sha256()

    resources = await all_pages(client.list_resources, "resources")
    check(len(resources) > 0, "resources/list is empty")
    uris = [r.uri for r in resources]
    check(len(set(uris)) == len(uris), "resources/list repeats a URI")
    for resource in resources:
        check(bool(resource.name), f"{resource.uri}: resource without a name")
        result = await client.read_resource(resource.uri)
        check(len(result.contents) > 0, f"{resource.uri}: empty contents")
        for content in result.contents:
            check(str(content.uri) == str(resource.uri), f"{resource.uri}: content for {content.uri}")
            text = getattr(content, "text", None)
            data = text.encode() if text is not None else getattr(content, "blob", "").encode()
            if text is not None and resource.size is not None:
                check(len(data) == resource.size, f"{resource.uri}: size {resource.size} but {len(data)} bytes read")
            digest.update(str(resource.uri).encode() + b"\0" + data + b"\0")

    try:
        missing = await client.read_resource("resource://skills/no-such-skill-9f3a/document")
        raise Mismatch(f"reading a missing skill succeeded: {missing}")
    except Mismatch:
        raise
    except Exception as error:  # the SDK raises MCPError for JSON-RPC errors
        check("no-such-skill-9f3a" in str(error), f"missing-skill error does not name the URI: {error}")

    templates = await all_pages(client.list_resource_templates, "resource_templates")
    check(len(templates) > 0, "resources/templates/list is empty")

    capabilities = client.server_capabilities
    tools = await all_pages(client.list_tools, "tools") if capabilities.tools is not None else []
    for tool in tools:
        schema = tool.input_schema or {}
        properties = schema.get("properties", {})
        arguments = {
            name: sample_value(name, properties.get(name, {}), hints) for name in schema.get("required", [])
        }
        result = await client.call_tool(tool.name, arguments)
        text = " ".join(getattr(block, "text", "") for block in result.content)
        check(not result.is_error, f"tool {tool.name}({arguments}) failed: {text[:500]}")
        check(len(result.content) > 0, f"tool {tool.name}: no content")
        if tool.output_schema is not None:
            check(result.structured_content is not None, f"tool {tool.name}: no structuredContent")
            try:
                jsonschema.validate(result.structured_content, tool.output_schema)
            except jsonschema.ValidationError as error:
                raise Mismatch(f"tool {tool.name}: structuredContent breaks its outputSchema: {error.message}")

    prompts = await all_pages(client.list_prompts, "prompts") if capabilities.prompts is not None else []
    for prompt in prompts:
        arguments: dict[str, str] = {}
        for argument in prompt.arguments or []:
            if not argument.required:
                continue
            value = None
            if capabilities.completions is not None:
                completion = await client.complete(
                    PromptReference(name=prompt.name), {"name": argument.name, "value": ""}, arguments or None
                )
                if completion.completion.values:
                    value = completion.completion.values[0]
            arguments[argument.name] = value if value is not None else sample_value(argument.name, {}, hints)
        result = await client.get_prompt(prompt.name, arguments)
        check(len(result.messages) > 0, f"prompt {prompt.name}({arguments}): no messages")

    return {
        "resources": len(resources),
        "templates": len(templates),
        "tools": len(tools),
        "prompts": len(prompts),
        "digest": digest.hexdigest(),
    }


async def run(target_factory, mode: str, expected_version: str, transport: str) -> dict[str, Any]:
    async with Client(target_factory(), mode=mode, cache=None, read_timeout_seconds=30) as client:
        check(
            client.protocol_version == expected_version,
            f"{transport}/{mode}: negotiated {client.protocol_version}, expected {expected_version}",
        )
        info = client.server_info
        check(info is not None and "+" in info.version, f"{transport}/{mode}: serverInfo {info}")
        # URIs a tool may want: the catalog index, always present.
        hints = {"uri": "resource://catalog/skills_index", "query": "skill", "task": "write a skill"}
        summary = await exercise(client, hints)
        summary.update(transport=transport, mode=mode, protocol=client.protocol_version, server=info.version)
        return summary


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--stdio", metavar="BINARY", help="spawn this skillpack binary and speak stdio")
    group.add_argument("--http", metavar="URL", help="connect to this Streamable HTTP endpoint")
    parser.add_argument("--token-env", metavar="VAR", help="send `Authorization: Bearer $VAR` (HTTP)")
    args = parser.parse_args()

    if args.stdio:
        transport = "stdio"

        def target():
            return StdioServerParameters(command=args.stdio, args=[], env={"RUST_LOG": "warn"})

    else:
        transport = "http"
        headers = {}
        if args.token_env:
            headers["Authorization"] = f"Bearer {os.environ[args.token_env]}"

        def target():
            return streamable_http_client(args.http, http_client=httpx2.AsyncClient(headers=headers, timeout=30))

    # "legacy" forces the initialize handshake; "auto" probes server/discover and must
    # settle on the stateless 2026-07-28 revision.
    try:
        for mode, expected in (("legacy", LEGACY), ("auto", MODERN)):
            print(json.dumps(await run(target, mode, expected, transport)), flush=True)
    except Mismatch as error:
        print(f"interop mismatch: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
