"""Core memory block tools and the memory://blocks/{label} resource through the SDK's in-process
client, in both protocol modes, on the real engine."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, Implementation

from tests.helpers import call_ok as _call

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]
SECRET = "ghp_5agMYLThWi4RtGLeA4BbL5ajs5s5awy7al4k"


async def _refused(client, name: str, args: dict) -> str:
    """The invalid-params message of a refused call."""
    with pytest.raises(MCPError) as err:
        await client.call_tool(name, args)
    assert err.value.error.code == INVALID_PARAMS
    return err.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_view_append_replace_rewrite(editing_server, engine, mode):
    async with Client(editing_server, mode=mode, client_info=Implementation(name="cursor", version="1")) as c:
        shown = await _call(c, "memory_blocks", {})
        assert [(b["label"], b["scope"], b["chars"], b["limit"]) for b in shown["blocks"]] == [
            ("user", "global", 0, 2000), ("project", "project", 0, 4000), ("persona", "global", 0, 1000)]
        added = await _call(c, "memory_block_append", {"label": "project", "text": "Tests run with pytest -q."})
        assert added["block"]["value"] == "Tests run with pytest -q." and added["block"]["version"] == 1
        await _call(c, "memory_block_append", {"label": "project", "text": f"CI token: {SECRET}"})
        changed = await _call(c, "memory_block_replace", {"label": "project", "old": "pytest -q", "new": "pytest -x"})
        assert changed["block"]["value"].startswith("Tests run with pytest -x.\nCI token: [REDACTED")
        made = await _call(c, "memory_block_rewrite", {"label": "todo", "value": "- ship blocks",
                                                        "description": "Open tasks.", "limit": 500})
        assert (made["block"]["limit"], made["block"]["description"]) == (500, "Open tasks.")
        shown = await _call(c, "memory_blocks", {})
        assert [b["label"] for b in shown["blocks"]] == ["user", "project", "persona", "todo"]
        assert shown["blocks"][1]["project"] == "/work/proj"
    assert SECRET not in engine.blocks.render()
    assert [v.actor for v in engine.blocks.versions("project")] == ["cursor"] * 3


@pytest.mark.parametrize("mode", MODES)
async def test_a_write_over_the_limit_is_invalid_params_with_the_numbers(editing_server, engine, mode):
    async with Client(editing_server, mode=mode) as c:
        await _call(c, "memory_block_rewrite", {"label": "persona", "value": "Be terse. " * 95})  # 949 chars
        message = await _refused(c, "memory_block_append", {"label": "persona", "text": "Always cite the file. " * 4})
        assert "1037 characters" in message and "limit of 1000" in message and "cut at least 37" in message
        assert (await _call(c, "memory_blocks", {}))["blocks"][2]["chars"] == 949
        assert "does not occur" in await _refused(c, "memory_block_replace",
                                                  {"label": "persona", "old": "Be verbose.", "new": "x"})
        assert "occurs 95 times" in await _refused(c, "memory_block_replace",
                                                   {"label": "persona", "old": "Be terse.", "new": "x"})
        assert "no block 'nope'" in await _refused(c, "memory_block_append", {"label": "nope", "text": "x"})
        assert "fixed" in await _refused(c, "memory_block_rewrite", {"label": "user", "value": "x", "limit": 200})


@pytest.mark.parametrize("mode", MODES)
async def test_a_malformed_label_is_refused(editing_server, mode):
    async with Client(editing_server, mode=mode) as c:
        try:
            result = await c.call_tool("memory_block_append", {"label": "Not A Label", "text": "x"})
        except MCPError as exc:
            assert exc.error.code == INVALID_PARAMS
        else:  # the SDK's schema validation answers with a tool error the model can read
            assert result.is_error and "label" in result.content[0].text


@pytest.mark.parametrize("mode", MODES)
async def test_the_block_resource(editing_server, mode):
    async with Client(editing_server, mode=mode) as c:
        templates = await c.list_resource_templates()
        assert "memory://blocks/{label}" in [t.uri_template for t in templates.resource_templates]
        await _call(c, "memory_block_append", {"label": "project", "text": "Deploys go through ArgoCD."})
        res = await c.read_resource("memory://blocks/project")
        assert res.contents[0].text == "Deploys go through ArgoCD." and res.contents[0].mime_type == "text/plain"
        assert (await c.read_resource("memory://blocks/user")).contents[0].text == ""
        with pytest.raises(MCPError) as err:
            await c.read_resource("memory://blocks/unknown")
        assert err.value.error.code == INVALID_PARAMS and "no block 'unknown'" in err.value.error.message
