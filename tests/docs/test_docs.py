"""The documentation's field-to-format table must say what the renderers really express."""

from __future__ import annotations

from pathlib import Path

from promptwire import PluginHost, Prompt

DOC = Path(__file__).resolve().parents[2] / "docs" / "formats.md"
HOST = PluginHost(entry_points=False)


def _table() -> dict[str, set[str]]:
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| field |"))
    formats = [cell.strip() for cell in lines[start].strip("|").split("|")][1:]
    expressed: dict[str, set[str]] = {fmt: set() for fmt in formats}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        field, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        for fmt, cell in zip(formats, cells, strict=True):
            if cell == "✓":
                expressed[fmt].add(field)
    return expressed


def test_every_builtin_format_has_a_column_matching_its_fields() -> None:
    table = _table()
    assert set(table) == set(HOST.names("renderers"))
    for fmt, fields in table.items():
        assert fields == set(HOST.renderer(fmt).fields), fmt


def test_every_prompt_field_has_a_row() -> None:
    text = DOC.read_text(encoding="utf-8")
    for field in Prompt.model_fields:
        if field != "config":
            assert f"\n| {field} |" in text, field


def test_the_rendered_prompt_example_is_what_the_messages_format_gives() -> None:
    import json

    import promptwire
    from promptwire.renderers.agentscript import shape_contract

    text = (DOC.parent / "rendered.md").read_text(encoding="utf-8")
    python_example = text.split("```python\n", 1)[1].split("```", 1)[0]
    prompt = eval(python_example, {"Prompt": Prompt, "shape_contract": shape_contract})  # the doc's own snippet
    json_example = text.split("```json\n", 1)[1].split("```", 1)[0]
    assert json.loads(json_example) == promptwire.render(prompt, "messages", host=HOST).to_dict()
