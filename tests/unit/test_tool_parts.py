"""The tool loop's parts without a network: names in the registry, the small schema check,
and the approval policy a UI drives (always-allow remembered for the session, deny, edit)."""

from __future__ import annotations

import pytest

from app.settings.config import ToolConfig
from app.tools.approval import Approval, ApprovalPolicy, Choice
from app.tools.registry import RemoteTool, Tool, UnknownTool, build_registry
from app.tools.schema_check import schema_problems
from app.wire.turn import ToolCall

OBJECT = {"type": "object", "properties": {}}


def test_a_name_two_sources_offer_is_qualified_by_server_and_sent_with_underscores() -> None:
    registry = build_registry(
        [ToolConfig("search", "local")],
        [
            RemoteTool("docs", "search", "d"),
            RemoteTool("web", "search", "w"),
            RemoteTool("web", "fetch.page", "f"),
            RemoteTool("web", "x" * 80, "long"),
        ],
    )
    assert [(t.name, t.wire_name) for t in registry.tools] == [
        ("search", "search"),
        ("docs.search", "docs_search"),
        ("web.search", "web_search"),
        ("fetch.page", "fetch_page"),
        ("x" * 80, "x" * 64),
    ]
    assert registry.called("docs_search") == registry.named("docs.search")
    assert registry.called("docs.search") is None  # the model calls wire names
    assert registry.choose(["web"]).names == ["web.search", "fetch.page", "x" * 80]
    with pytest.raises(UnknownTool, match="no tool or server named 'nope'"):
        registry.choose(["nope"])


def test_wire_names_that_clean_to_the_same_text_stay_unique() -> None:
    registry = build_registry([], [RemoteTool("a", "get.x"), RemoteTool("a", "get_x")])
    assert [t.wire_name for t in registry.tools] == ["get_x", "get_x_2"]


SCHEMA = {
    "type": "object",
    "required": ["city", "days"],
    "additionalProperties": False,
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "unit": {"enum": ["c", "f"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


@pytest.mark.parametrize(
    ("value", "problems"),
    [
        ({"city": "Oslo", "days": 2, "tags": ["a"]}, []),
        ({"city": "Oslo"}, ["$: missing required property 'days'"]),
        (
            {"city": 1, "days": True},
            ["$.city: expected string, got integer", "$.days: expected integer, got boolean"],
        ),
        ({"city": "x", "days": 1, "unit": "k"}, ["$.unit: must be one of ['c', 'f']"]),
        ({"city": "x", "days": 1, "tags": ["a", 2]}, ["$.tags[1]: expected string, got integer"]),
        ({"city": "x", "days": 1, "extra": 0}, ["$: unexpected property 'extra'"]),
        ([], ["$: expected object, got array"]),
    ],
)
def test_the_schema_check(value: object, problems: list[str]) -> None:
    assert schema_problems(value, SCHEMA) == problems


def test_the_schema_check_is_bounded_and_ignores_what_it_does_not_know() -> None:
    deep: dict[str, object] = {"type": "object"}
    for _ in range(200):
        deep = {"type": "object", "properties": {"a": deep}}
    value: dict[str, object] = {}
    for _ in range(200):
        value = {"a": value}
    assert schema_problems(value, deep) == []  # no RecursionError
    assert schema_problems({"a": 1}, {"type": "object", "patternProperties": {"x": {}}}) == []
    many = {"type": "object", "required": [f"k{i}" for i in range(50)]}
    assert len(schema_problems({}, many)) == 5


def call() -> ToolCall:
    return ToolCall(0, "c1", "docs_search", ['{"q": "x"}'])


async def test_always_for_this_tool_and_server_are_remembered_for_the_session() -> None:
    asked: list[str] = []
    answers = [Approval(Choice.ALWAYS_TOOL), Approval(Choice.ALWAYS_SERVER), Approval(Choice.DENY)]

    async def ask(tool: Tool, _call: ToolCall) -> Approval | None:
        asked.append(tool.name)
        return answers.pop(0)

    search = Tool("docs.search", "docs_search", "", OBJECT, "docs", "search")
    fetch = Tool("docs.fetch", "docs_fetch", "", OBJECT, "docs", "fetch")
    other = Tool("web.get", "web_get", "", OBJECT, "web", "get")
    policy = ApprovalPolicy(ask)
    assert (await policy.approve(search, call())) == Approval(Choice.ALWAYS_TOOL)
    assert (await policy.approve(search, call())) == Approval(Choice.RUN)  # not asked again
    assert (await policy.approve(fetch, call())) == Approval(Choice.ALWAYS_SERVER)
    assert (await policy.approve(fetch, call())).choice is Choice.RUN
    denied = await policy.approve(other, call())
    assert denied is not None
    assert not denied.runs
    assert asked == ["docs.search", "docs.fetch", "web.get"]
    assert (policy.tools, policy.servers) == ({("docs", "search")}, {"docs"})


def test_a_server_naming_a_tool_like_another_servers_qualified_one_is_qualified_too() -> None:
    registry = build_registry(
        [ToolConfig("b.search", "local")],
        [
            RemoteTool("c", "a.search"),  # before a: its own name would win "a.search"
            RemoteTool("a", "search"),
            RemoteTool("b", "search"),
            RemoteTool("d", "twice"),
            RemoteTool("d", "twice"),
        ],
    )
    assert [(t.name, t.wire_name, t.server) for t in registry.tools] == [
        ("b.search", "b_search", None),
        ("c.a.search", "c_a_search", "c"),
        ("a.search", "a_search", "a"),
        ("b.search#2", "b_search_2", "b"),
        ("d.twice", "d_twice", "d"),
        ("d.twice#2", "d_twice_2", "d"),
    ]
    assert len(set(registry.names)) == len(registry.names)
    assert registry.named("a.search") == registry.tools[2]
    assert registry.choose(["a.search"]).names == ["a.search"]


async def test_always_for_a_tool_never_covers_another_servers_tool_of_the_same_name() -> None:
    """A tool is approved as what runs (server, its own name): a second server's tool that
    names itself like the first's qualified name is still asked about."""
    asked: list[str] = []

    async def ask(tool: Tool, _call: ToolCall) -> Approval | None:
        asked.append(f"{tool.server}:{tool.remote_name}")
        return Approval(Choice.ALWAYS_TOOL)

    first = Tool("a.search", "a_search", "", OBJECT, "a", "search")
    lookalike = Tool("a.search", "a_search_2", "", OBJECT, "c", "a.search")
    policy = ApprovalPolicy(ask)
    await policy.approve(first, call())
    await policy.approve(lookalike, call())
    await policy.approve(first, call())
    assert asked == ["a:search", "c:a.search"]


async def test_no_callback_runs_nothing_and_run_all_runs_everything() -> None:
    tool = Tool("t", "t", "", OBJECT, "s", "t")
    assert await ApprovalPolicy().approve(tool, call()) is None
    assert await ApprovalPolicy(run_all=True).approve(tool, call()) == Approval(Choice.RUN)
