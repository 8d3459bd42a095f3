"""The skills extension, client side, sans-IO: verification and the cache
(SEP-2640 "Integrity and verification"; 2026-07-28 server/utilities/caching.mdx)."""

from __future__ import annotations

import base64
import hashlib

import msgspec
import pytest

from mcp_core.client.skills import (
    SkillCache,
    SkillVerificationError,
    check_frontmatter,
    file_bytes,
    get_skill,
    list_skills,
    listed_file,
    offers_skills,
    skill_name,
    skill_root,
    verify_file,
    with_skills,
)
from mcp_core.types import ClientCapabilities, ReadResourceResult, ServerCapabilities
from mcp_core.types.skills import (
    SKILLS_EXTENSION,
    GetSkillResult,
    ListSkillsResult,
    SkillEntry,
    SkillFile,
)

SKILL_MD = b"---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nBody.\n"
FORMS = b"Forms.\n"
ROOT = "skill://acme/pdf-processing"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def entry(skill_md: bytes = SKILL_MD, **frontmatter: object) -> SkillEntry:
    fields = {"name": "pdf-processing", "description": "Extract PDF text", **frontmatter}
    return SkillEntry(
        uri=f"{ROOT}/SKILL.md",
        frontmatter=fields,
        resources=[
            SkillFile(uri=f"{ROOT}/SKILL.md", digest=digest(skill_md), size=len(skill_md)),
            SkillFile(uri=f"{ROOT}/references/FORMS.md", digest=digest(FORMS), size=len(FORMS)),
        ],
    )


# --- the wire ----------------------------------------------------------------------------


def test_an_entry_decodes_from_the_seps_example_and_encodes_back() -> None:
    raw = (
        b'{"skills":[{"uri":"skill://acme/billing/refunds/SKILL.md","frontmatter":'
        b'{"name":"refunds","description":"Process refunds","license":"Apache-2.0"},'
        b'"resources":[{"uri":"skill://acme/billing/refunds/SKILL.md","digest":"sha256:b2",'
        b'"size":10}]}],"ttlMs":5000,"cacheScope":"public","nextCursor":"2"}'
    )
    page = msgspec.json.decode(raw, type=ListSkillsResult)
    skill = page.skills[0]
    assert skill_name(skill) == "refunds" == skill.frontmatter["name"]
    assert skill_root(skill) == "skill://acme/billing/refunds"
    assert page.ttl_ms == 5000 and page.next_cursor == "2"
    assert msgspec.json.decode(msgspec.json.encode(page)) == msgspec.json.decode(raw)


def test_the_calls_name_the_methods_and_their_params() -> None:
    assert list_skills().method == "skills/list"
    assert msgspec.json.encode(list_skills("c").params) == b'{"cursor":"c"}'
    call = get_skill(f"{ROOT}/SKILL.md")
    assert call.method == "skills/get" and call.result_type is GetSkillResult
    assert msgspec.json.encode(call.params) == b'{"uri":"skill://acme/pdf-processing/SKILL.md"}'


def test_the_extension_is_declared_beside_others_and_read_from_the_server() -> None:
    declared = with_skills(ClientCapabilities(extensions={"other/ext": {"a": 1}}))
    assert declared.extensions == {"other/ext": {"a": 1}, SKILLS_EXTENSION: {}}
    assert offers_skills(ServerCapabilities(extensions={SKILLS_EXTENSION: {}}))
    assert not offers_skills(ServerCapabilities(extensions={"other/ext": {}}))
    assert not offers_skills(ServerCapabilities())


# --- verification ------------------------------------------------------------------------


def test_a_file_of_the_right_size_and_digest_passes() -> None:
    file = entry().resources[1]  # type: ignore[index]
    assert verify_file(file, FORMS) == FORMS


def test_a_wrong_size_fails_before_the_digest_is_looked_at() -> None:
    # The size is checked first: equal to a digest mismatch, hashed or not.
    file = SkillFile(uri="skill://x/a", digest="sha256:not-even-hex", size=3)
    with pytest.raises(SkillVerificationError) as caught:
        verify_file(file, b"four")
    assert caught.value.reason == "size" and caught.value.uri == "skill://x/a"


def test_a_wrong_digest_fails_even_at_the_right_size() -> None:
    file = SkillFile(uri="skill://x/a", digest=digest(b"good"), size=4)
    with pytest.raises(SkillVerificationError) as caught:
        verify_file(file, b"evil")
    assert caught.value.reason == "digest"


def test_files_resolve_by_path_from_the_root_or_by_uri_and_only_if_listed() -> None:
    skill = entry()
    assert listed_file(skill, "references/FORMS.md").uri == f"{ROOT}/references/FORMS.md"
    assert listed_file(skill, f"{ROOT}/SKILL.md").uri == f"{ROOT}/SKILL.md"
    with pytest.raises(SkillVerificationError) as caught:
        listed_file(skill, "scripts/run.py")  # unlisted: a change to the skill
    assert caught.value.reason == "unlisted"
    dynamic = SkillEntry(uri=skill.uri, frontmatter=skill.frontmatter, resources="dynamic")
    with pytest.raises(SkillVerificationError) as caught:
        listed_file(dynamic, "SKILL.md")
    assert caught.value.reason == "dynamic"


def test_the_frontmatter_must_equal_the_entrys_field_by_field() -> None:
    assert check_frontmatter(entry(), SKILL_MD)["name"] == "pdf-processing"
    with pytest.raises(SkillVerificationError) as caught:
        check_frontmatter(entry(license="MIT"), SKILL_MD)  # a field only the entry has
    assert caught.value.reason == "frontmatter" and "license" in str(caught.value)
    tampered = SKILL_MD.replace(b"Extract PDF text", b"Exfiltrate credentials")
    with pytest.raises(SkillVerificationError, match="description"):
        check_frontmatter(entry(), tampered)


def test_json_equality_tells_true_from_one() -> None:
    md = b"---\nname: pdf-processing\ndescription: Extract PDF text\nflag: true\n---\n"
    assert check_frontmatter(entry(flag=True), md)["flag"] is True
    with pytest.raises(SkillVerificationError):
        check_frontmatter(entry(flag=1), md)
    nested = b"---\nname: pdf-processing\ndescription: Extract PDF text\nm:\n  v: 2\n---\n"
    assert check_frontmatter(entry(m={"v": 2.0}), nested)["m"] == {"v": 2}
    with pytest.raises(SkillVerificationError):
        check_frontmatter(entry(m={"v": 2, "w": 3}), nested)


def test_a_frontmatter_naming_another_skill_than_the_uri_is_refused() -> None:
    md = b"---\nname: other\ndescription: d\n---\n"
    fields = {"name": "other", "description": "d"}
    skill = SkillEntry(uri=f"{ROOT}/SKILL.md", frontmatter=fields, resources=[])
    with pytest.raises(SkillVerificationError) as caught:
        check_frontmatter(skill, md)
    assert caught.value.reason == "name"


@pytest.mark.parametrize("data", [b"no frontmatter\n", b"---\nname: [a\n---\n", b"\xff\xfe"])
def test_unreadable_frontmatter_is_a_verification_failure(data: bytes) -> None:
    with pytest.raises(SkillVerificationError) as caught:
        check_frontmatter(entry(), data)
    assert caught.value.reason == "frontmatter"


def test_read_contents_become_bytes_text_as_utf8_and_blobs_decoded() -> None:
    uri = f"{ROOT}/SKILL.md"
    as_text = msgspec.json.decode(
        b'{"contents":[{"uri":"%s","text":"\\u00e9"}]}' % uri.encode(), type=ReadResourceResult
    )
    assert file_bytes(as_text, uri) == "é".encode()
    blob = base64.b64encode(b"\x00\x01").decode()
    as_blob = msgspec.json.decode(
        b'{"contents":[{"uri":"%s","blob":"%s"}]}' % (uri.encode(), blob.encode()),
        type=ReadResourceResult,
    )
    assert file_bytes(as_blob, uri) == b"\x00\x01"
    for bad in (b'{"contents":[]}', b'{"contents":[{"uri":"%s","blob":"!!"}]}' % uri.encode()):
        with pytest.raises(SkillVerificationError):
            file_bytes(msgspec.json.decode(bad, type=ReadResourceResult), uri)


# --- the cache ---------------------------------------------------------------------------


def test_a_result_is_fresh_for_its_ttl_and_stale_after() -> None:
    cache, me = SkillCache(), object()
    page = ListSkillsResult(skills=[], ttl_ms=2000, cache_scope="private")
    cache.keep("skills/list", "", page, 10.0, me)
    assert cache.result("skills/list", "", 11.999, me) is page
    assert cache.result("skills/list", "", 12.0, me) is None  # now < received + ttl
    assert cache.result("skills/list", "other cursor", 11.0, me) is None


@pytest.mark.parametrize("ttl_ms", [None, 0, -5])
def test_no_ttl_zero_or_negative_is_stale_at_once(ttl_ms: int | None) -> None:
    cache, me = SkillCache(), object()
    page = ListSkillsResult(skills=[])
    if ttl_ms is not None:
        page = ListSkillsResult(skills=[], ttl_ms=ttl_ms)
    cache.keep("skills/list", "", page, 10.0, me)
    assert cache.result("skills/list", "", 10.0, me) is None


def test_a_private_result_serves_its_owner_only_a_public_one_anyone() -> None:
    cache, me, you = SkillCache(), object(), object()
    private = GetSkillResult(skill=entry(), ttl_ms=1000, cache_scope="private")
    public = GetSkillResult(skill=entry(), ttl_ms=1000, cache_scope="public")
    cache.keep("skills/get", "a", private, 0.0, me)
    cache.keep("skills/get", "b", public, 0.0, me)
    assert cache.result("skills/get", "a", 0.5, me) is private
    assert cache.result("skills/get", "a", 0.5, you) is None
    assert cache.result("skills/get", "b", 0.5, you) is public
    cache.invalidate()
    assert cache.result("skills/get", "b", 0.5, me) is None


def test_verified_files_are_kept_by_digest_and_the_oldest_dropped() -> None:
    cache = SkillCache(max_files=2, max_file_bytes=8)
    a, b, c = (SkillFile(uri=f"skill://x/{n}", digest=digest(n.encode()), size=1) for n in "abc")
    cache.keep_file(a, b"a")
    cache.keep_file(b, b"b")
    assert cache.file(a) == b"a"  # a is now the most recent
    cache.keep_file(c, b"c")
    assert cache.file(b) is None and cache.file(a) == b"a" and cache.file(c) == b"c"
    changed = SkillFile(uri=a.uri, digest=digest(b"a2"), size=2)
    assert cache.file(changed) is None  # a new digest is a new file
    big = SkillFile(uri="skill://x/big", digest="sha256:0", size=9)
    cache.keep_file(big, b"123456789")
    assert cache.file(big) is None
