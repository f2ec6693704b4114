"""Interoperability: the official Python MCP SDK (pinned in requirements.txt) against skillpack.

Spawns a skillpack binary over stdio with the SDK's own `Client`, once with the 2026-07-28
stateless lifecycle (`server/discover`) and once with the `initialize` handshake, and checks
the SEP-2640 Skills extension from the client's side:

- the extension is declared inline with `directoryRead`, alongside `resources`;
- `skills/list`, walked page by page, lists every skill folder under SKILLS_ROOT once;
- `skills/get` returns the listed entry for each;
- every manifest entry, read with the SDK's `read_resource`, has exactly the promised
  size and `sha256:` digest, and equals the file on disk;
- each SKILL.md's frontmatter, parsed here with PyYAML, equals the entry's `frontmatter`;
- `resources/directory/read` of each skill root lists its top-level files and folders;
- unknown skills and traversal get -32602 and the server keeps answering.

The SDK has no SEP-2640 client API (mcp 2.3.0), so the extension's methods go through its
generic `ClientSession.send_request` with result models defined here.

Usage: python python_sdk_skills.py BINARY SKILLS_ROOT
Exits non-zero with the first mismatch on failure.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import sys
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, unquote

import mcp_types as types
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, Field

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002


class Failure(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


# --- SEP-2640 wire shapes, as the extension's specification defines them ----------------


class SkillResource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    uri: str
    digest: str
    size: int


class Skill(BaseModel):
    model_config = ConfigDict(extra="allow")
    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillResource] | Literal["dynamic"]


class ListSkillsResult(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    skills: list[Skill]
    next_cursor: str | None = Field(default=None, alias="nextCursor")
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    cache_scope: str | None = Field(default=None, alias="cacheScope")


class GetSkillResult(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    skill: Skill
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    cache_scope: str | None = Field(default=None, alias="cacheScope")


class DirectoryEntry(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    uri: str
    name: str
    mime_type: str | None = Field(default=None, alias="mimeType")
    size: int | None = None


class ReadDirectoryResult(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    resources: list[DirectoryEntry]
    next_cursor: str | None = Field(default=None, alias="nextCursor")


class ListSkillsParams(types.RequestParams):
    cursor: str | None = None


class ListSkillsRequest(types.Request[ListSkillsParams, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: ListSkillsParams = Field(default_factory=ListSkillsParams)


class GetSkillParams(types.RequestParams):
    uri: str


class GetSkillRequest(types.Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


class ReadDirectoryParams(types.RequestParams):
    uri: str
    cursor: str | None = None


class ReadDirectoryRequest(types.Request[ReadDirectoryParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"
    params: ReadDirectoryParams


# --- What is on disk ---------------------------------------------------------------------


def files_on_disk(folder: Path) -> dict[str, bytes]:
    """Every non-hidden file under `folder`, by `/`-separated relative path."""
    found: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.startswith("."):
                continue
            path = Path(dirpath) / name
            found[path.relative_to(folder).as_posix()] = path.read_bytes()
    return found


def skill_uri(path: str) -> str:
    """`skill://<path>` with every byte outside RFC 3986 `unreserved` percent-encoded."""
    return "skill://" + quote(path, safe="/")


def frontmatter_of(text: str) -> dict[str, Any]:
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    check(lines and lines[0].rstrip() == "---", "SKILL.md does not start with ---")
    for i, line in enumerate(lines[1:], start=1):
        if line.rstrip() == "---":
            return yaml.safe_load("".join(lines[1:i])) or {}
    raise Failure("SKILL.md frontmatter is never closed")


# --- The client side ---------------------------------------------------------------------


async def list_all_skills(client: Client, modern: bool) -> list[Skill]:
    skills: list[Skill] = []
    cursor: str | None = None
    for _ in range(1000):
        page = await client.session.send_request(
            ListSkillsRequest(params=ListSkillsParams(cursor=cursor)), ListSkillsResult
        )
        if modern:
            check(page.ttl_ms is not None and page.ttl_ms > 0, f"skills/list ttlMs: {page.ttl_ms}")
            check(page.cache_scope == "public", f"skills/list cacheScope: {page.cache_scope}")
        skills.extend(page.skills)
        if page.next_cursor is None:
            return skills
        cursor = page.next_cursor
    raise Failure("skills/list pagination does not end")


async def read_bytes(client: Client, uri: str) -> bytes:
    result = await client.read_resource(uri)
    check(len(result.contents) == 1, f"{uri}: {len(result.contents)} contents")
    content = result.contents[0]
    check(str(content.uri) == uri, f"{uri}: read returned {content.uri}")
    if isinstance(content, types.TextResourceContents):
        return content.text.encode("utf-8")
    return base64.b64decode(content.blob, validate=True)


async def expect_error(call, codes: set[int], what: str) -> None:
    try:
        await call
    except MCPError as error:
        check(error.code in codes, f"{what}: error {error.code} {error.message}, expected {codes}")
        check(bool(error.message), f"{what}: empty error message")
        return
    raise Failure(f"{what}: succeeded, expected an error")


async def run(binary: str, skills_root: Path, mode: str) -> str:
    modern = mode != "legacy"
    server = StdioServerParameters(command=binary, args=[], env={"RUST_LOG": "error"})
    async with Client(server, mode=mode, read_timeout_seconds=60) as client:
        version = client.protocol_version
        check(
            (version >= "2026-07-28") == modern,
            f"mode {mode} negotiated protocol {version}",
        )
        capabilities = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        extension = (capabilities.get("extensions") or {}).get(SKILLS_EXTENSION)
        check(extension == {"directoryRead": True}, f"skills capability: {capabilities}")
        check("resources" in capabilities, "the skills extension needs the resources capability")

        skills = await list_all_skills(client, modern)
        uris = [s.uri for s in skills]
        check(len(set(uris)) == len(uris), "a skill is listed twice")
        on_disk = files_on_disk(skills_root)
        skill_dirs = sorted(p[: -len("/SKILL.md")] for p in on_disk if p.endswith("/SKILL.md"))
        check(
            sorted(uris) == sorted(skill_uri(f"{d}/SKILL.md") for d in skill_dirs),
            f"skills/list {sorted(uris)} != folders {skill_dirs}",
        )

        verified = 0
        for skill in skills:
            got = await client.session.send_request(
                GetSkillRequest(params=GetSkillParams(uri=skill.uri)), GetSkillResult
            )
            check(got.skill == skill, f"{skill.uri}: skills/get differs from skills/list")
            if modern:
                check(got.cache_scope == "public", f"{skill.uri}: skills/get cacheScope")
            check(skill.resources != "dynamic", f"{skill.uri}: dynamic manifest")
            folder = unquote(skill.uri[len("skill://") : -len("/SKILL.md")])
            check(skill.frontmatter.get("name") == folder.rsplit("/", 1)[-1], f"{skill.uri}: name")
            expected = {skill_uri(f"{folder}/{rel}") for rel in files_on_disk(skills_root / folder)}
            listed = {entry.uri for entry in skill.resources}
            check(listed == expected, f"{skill.uri}: manifest {sorted(listed ^ expected)} differ")
            for entry in skill.resources:
                data = await read_bytes(client, entry.uri)
                check(len(data) == entry.size, f"{entry.uri}: {len(data)} bytes, manifest says {entry.size}")
                digest = "sha256:" + hashlib.sha256(data).hexdigest()
                check(digest == entry.digest, f"{entry.uri}: {digest}, manifest says {entry.digest}")
                disk = on_disk[unquote(entry.uri[len("skill://") :])]
                check(data == disk, f"{entry.uri}: bytes differ from the file on disk")
                if entry.uri == skill.uri:
                    parsed = frontmatter_of(data.decode("utf-8"))
                    check(
                        parsed == skill.frontmatter,
                        f"{skill.uri}: frontmatter {skill.frontmatter} != PyYAML {parsed}",
                    )
                verified += 1

            root = skill.uri[: -len("/SKILL.md")]
            listing = await client.session.send_request(
                ReadDirectoryRequest(params=ReadDirectoryParams(uri=root)), ReadDirectoryResult
            )
            children = {c.uri: c for c in listing.resources}
            check(skill.uri in children, f"{root}: SKILL.md not listed in {sorted(children)}")
            top = {rel.split("/", 1)[0] for rel in files_on_disk(skills_root / folder)}
            check(
                set(children) == {skill_uri(f"{folder}/{name}") for name in top}
                or listing.next_cursor is not None,
                f"{root}: directory lists {sorted(children)}, disk has {sorted(top)}",
            )
            for child in children.values():
                is_dir = child.mime_type == "inode/directory"
                check(is_dir == (child.size is None), f"{child.uri}: size/mimeType")

        # The errors SEP-2640 requires; the server keeps serving after them.
        await expect_error(
            client.session.send_request(
                GetSkillRequest(params=GetSkillParams(uri="skill://no-such-skill-9f3a2b/SKILL.md")),
                GetSkillResult,
            ),
            {INVALID_PARAMS},
            "skills/get of an unknown skill",
        )
        not_found = {INVALID_PARAMS} if modern else {RESOURCE_NOT_FOUND, INVALID_PARAMS}
        first = skills[0].uri if skills else "skill://x/SKILL.md"
        for uri in [
            "skill://no-such-skill-9f3a2b/SKILL.md",
            first.replace("/SKILL.md", "/../../etc/passwd"),
            first.replace("/SKILL.md", "/%2e%2e/x"),
        ]:
            await expect_error(client.read_resource(uri, cache_mode="bypass"), not_found, f"read {uri}")
        if skills:
            await expect_error(
                client.session.send_request(
                    ReadDirectoryRequest(params=ReadDirectoryParams(uri=first)), ReadDirectoryResult
                ),
                {INVALID_PARAMS},
                "resources/directory/read of a file",
            )
        check(len(await list_all_skills(client, modern)) == len(skills), "still serving")
        return f"{len(skills)} skills, {verified} files verified over protocol {version}"


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


async def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, root = sys.argv[1], Path(sys.argv[2])
    failed = 0
    for mode in ("auto", "legacy"):
        try:
            summary = await run(binary, root, mode)
            print(f"ok: python-sdk {mode}: {binary}: {summary}")
        except* Failure as group:
            # The SDK's task groups wrap what `run` raises; report each mismatch plainly.
            failed += 1
            for failure in leaves(group):
                print(f"FAILED: python-sdk {mode}: {binary}: {failure}", file=sys.stderr)
    print(f"{2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
