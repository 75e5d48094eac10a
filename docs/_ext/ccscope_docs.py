"""Pages generated when the site is built, from the program itself.

A page asks for one with a fenced block whose info string is ``{ccscope-generated}`` and
whose argument names what to generate; the block is replaced by Markdown before the page is
parsed:

- ``cli``: ``ccscope --help`` and each command's ``--help``, as the command line prints them;
- ``schema packet`` / ``schema round``: the JSON Schema the Rust core derives from its scenario
  types (``ccscope schema``), as one section per type with a table of its fields.

Nothing generated is written to the source tree.
"""

from __future__ import annotations

import json
import re
from typing import Any

BLOCK = re.compile(r"^```\{ccscope-generated\} *(?P<what>[^\n]*)\n```\n", re.M)


def cli_markdown() -> str:
    """Every command's help, under a heading of its own."""
    import click
    import typer
    from typer.testing import CliRunner

    from ccscope.cli import app

    runner = CliRunner()
    group = typer.main.get_command(app)
    names = group.list_commands(click.Context(group, info_name="ccscope"))
    parts = []
    for args in [[], *[[name] for name in names]]:
        done = runner.invoke(app, [*args, "--help"], terminal_width=100, color=False)
        if done.exit_code != 0:
            raise RuntimeError(f"ccscope {' '.join(args)} --help failed: {done.output}")
        title = " ".join(["ccscope", *args])
        parts.append(f"### `{title}`\n\n```text\n$ {title} --help\n{done.stdout.rstrip()}\n```\n")
    return "\n".join(parts)


def _anchor(engine: str, name: str) -> str:
    return f"schema-{engine}-{name.lower()}"


def _cell(text: str) -> str:
    """One table cell: no line breaks, no bare pipes."""
    return " ".join(text.split()).replace("|", "\\|")


def _type(engine: str, node: dict[str, Any]) -> str:
    """A field's type as a short phrase, linking the named types."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(engine, name)})"
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            options = [o for o in node[key] if o.get("type") != "null"]
            text = " or ".join(_type(engine, o) for o in options)
            return text + (" (or absent)" if len(options) < len(node[key]) else "")
    kind = node.get("type")
    if kind == "array":
        return "list of " + _type(engine, node.get("items", {}))
    if isinstance(kind, list):
        return " or ".join(k for k in kind if k != "null")
    if kind == "object" and "properties" in node:
        return "table (" + ", ".join(f"`{k}`" for k in node["properties"]) + ")"
    if kind == "integer" and "minimum" in node:
        top = f" and ≤ {node['maximum']:,}".replace(",", " ") if "maximum" in node else ""
        return f"integer ≥ {node['minimum']}{top}"
    return kind or "any"


def _fields(engine: str, node: dict[str, Any]) -> list[str]:
    props = node.get("properties", {})
    if not props:
        return []
    required = set(node.get("required", []))
    rows = ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, prop in props.items():
        if "const" in prop and name == "kind":
            continue
        default = "required" if name in required else ""
        if "default" in prop:
            default = f"`{json.dumps(prop['default'], ensure_ascii=False)}`"
        rows.append(
            f"| `{name}` | {_cell(_type(engine, prop))} | {_cell(default)} "
            f"| {_cell(prop.get('description', ''))} |"
        )
    return [*rows, ""]


def _definition(engine: str, name: str, node: dict[str, Any]) -> list[str]:
    out = [f"({_anchor(engine, name)})=", f"#### {name}", ""]
    if node.get("description"):
        out += [node["description"], ""]
    variants = node.get("oneOf") or node.get("anyOf") or []
    tagged = [v for v in variants if "kind" in v.get("properties", {})]
    if tagged:
        for variant in tagged:
            kind = variant["properties"]["kind"].get("const")
            out += [f"**`kind = {json.dumps(kind)}`**", ""]
            if variant.get("description"):
                out += [" ".join(variant["description"].split()), ""]
            out += _fields(engine, variant)
        others = [v for v in variants if v not in tagged and v.get("type") != "null"]
        if others:
            out += ["Also: " + " or ".join(_type(engine, v) for v in others) + ".", ""]
    elif variants:
        out += ["One of: " + " or ".join(_type(engine, v) for v in variants) + ".", ""]
    elif "enum" in node or "const" in node:
        out += ["Values: " + _type(engine, node) + ".", ""]
    elif "properties" in node:
        out += _fields(engine, node)
    else:
        out += [f"Type: {_type(engine, node)}.", ""]
        if "pattern" in node:
            out += [f"Pattern: `{node['pattern']}`.", ""]
    return out


def schema_markdown(engine: str) -> str:
    """The scenario file of one engine family: its top level, then each named type."""
    import ccscope

    schema = ccscope.schema(engine)
    out = [f"### The file (`ccscope schema {engine}`)", ""]
    if schema.get("description"):
        out += [schema["description"], ""]
    out += _fields(engine, schema)
    out += ["### Types", ""]
    for name in sorted(schema.get("$defs", {})):
        out += _definition(engine, name, schema["$defs"][name])
    return "\n".join(out)


def generate(what: str) -> str:
    words = what.split()
    if words == ["cli"]:
        return cli_markdown()
    if len(words) == 2 and words[0] == "schema" and words[1] in ("packet", "round"):
        return schema_markdown(words[1])
    raise ValueError(f"{{ccscope-generated}} {what!r}: expected 'cli' or 'schema packet|round'")


def _source_read(app, docname: str, source: list[str]) -> None:
    source[0] = BLOCK.sub(lambda m: generate(m.group("what").strip()) + "\n", source[0])


def setup(app):
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "version": "1"}
