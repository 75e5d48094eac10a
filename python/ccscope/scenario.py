"""Scenarios: TOML files or dicts describing a run, for the packet model or the round model.

The core (``ccscope._core``, Rust) owns the schema: it validates a scenario table, fills in
every default and names each problem by its path as written. This module only reads TOML and
hands the table over; :func:`ccscope.schema` prints the JSON Schema of both kinds of file.

>>> sc = ccscope.load("scenarios/dumbbell-cbr.toml")
>>> sc.engine, sc.table["topology"]["bottleneck"]["rate"]
('packet', '10Mbps')
>>> sc.replace("run.seed", 7).table["run"]["seed"]
7
"""

from __future__ import annotations

import copy
import json
import math
import re
import tomllib
from pathlib import Path
from typing import Any

from .errors import ScenarioError


def _core():
    from . import _core

    return _core


def _plain(x: Any) -> Any:
    """A TOML value as JSON can carry it: non-finite floats and dates become the strings TOML
    wrote them as, so that the core names them in its message."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def _to_json(data: Any) -> str:
    if not isinstance(data, dict):
        raise ScenarioError(
            f"a scenario is a table (dict), not {type(data).__name__}",
            "",
            repr(data)[:80],
            "a dict such as tomllib.load gives",
        )
    try:
        return json.dumps(_plain(data))
    except RecursionError:
        raise ScenarioError(
            "the scenario is nested too deeply to be a scenario",
            "",
            "",
            "a few levels of tables and lists",
        ) from None


def parse_toml(text: str) -> dict:
    """``tomllib.loads(text)``, with malformed TOML, and TOML nested deeper than the parser's
    recursion goes (an array a few thousand levels deep), as one :class:`ScenarioError`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"malformed TOML: {e}") from None
    except RecursionError:
        raise ScenarioError(
            "malformed TOML: nested too deeply to be read (arrays or tables within one "
            "another thousands of levels deep)",
            "",
            "",
            "a few levels of tables and lists",
        ) from None


#: A path into a scenario table: dotted keys, each with list indices (``flows[1].count``).
_PATH = re.compile(r"[A-Za-z_][\w-]*(\[\d+\])*(\.[A-Za-z_][\w-]*(\[\d+\])*)*")


def set_entry(table: dict, path: str, value: Any) -> None:
    """Sets the entry at `path` (``"run.seed"``, ``"flows[1].count"``; a controller written as
    a name becomes the table ``{ name = ... }`` when a path goes into it) in `table`, making
    the tables on the way; raises :class:`ScenarioError` naming `path` when it cannot lead
    anywhere (a list index past the end, a key inside a number or a string)."""
    if not _PATH.fullmatch(path):
        raise ScenarioError(
            f"{path!r}: not a path into the scenario",
            path,
            "",
            "dotted keys with list indices, e.g. topology.bottleneck.rate or flows[1].count",
        )
    keys = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    at: Any = table
    walked = ""
    for i, key in enumerate(keys):
        last = i == len(keys) - 1
        if key.startswith("["):
            index = int(key[1:-1])
            if not isinstance(at, list) or index >= len(at):
                have = f"it has {len(at)}" if isinstance(at, list) else "it is not a list"
                raise ScenarioError(
                    f"{walked}{key}: no such entry in the scenario ({have})",
                    path,
                    "",
                    "an index of an existing entry",
                )
            if last:
                at[index] = value
            at = at[index]
        else:
            if not isinstance(at, dict):
                raise ScenarioError(
                    f"{walked}: is {type(at).__name__} {at!r}, not a table with {key!r} in it",
                    path,
                    "",
                    "a path through tables",
                )
            # A controller named by a string is the table { name = ... }: a path into it
            # sets one of its parameters.
            if key == "controller" and isinstance(at.get(key), str) and not last:
                at[key] = {"name": at[key]}
            if last:
                at[key] = value
            at = at.setdefault(key, {})
        walked = f"{walked}{key}" if key.startswith("[") or not walked else f"{walked}.{key}"


def parse_setting(text: str) -> tuple[str, Any]:
    """``PATH=VALUE`` as the command line's ``--set`` writes it: the path, and the value read
    as a TOML value (``4``, ``0.5``, ``true``, ``"cubic"``, ``[1, 2]``, ``{ name = "gaimd" }``)
    or, when it is none (``20Mbps``, ``cubic``), as the text itself."""
    path, eq, value = text.partition("=")
    path = path.strip()
    if not eq or not path:
        raise ScenarioError(
            f"--set {text!r}: expected PATH=VALUE",
            "",
            text,
            "PATH=VALUE, e.g. topology.bottleneck.rate=20Mbps or flows[1].count=4",
        )
    value = value.strip()
    try:
        return path, tomllib.loads(f"v = {value}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return path, value


def with_settings(data: dict, settings: dict[str, Any] | None) -> dict:
    """`data` (a scenario table as its file has it) with each ``path: value`` of `settings`
    set, as if the file had it written so."""
    if not settings:
        return data
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario is a table, not {type(data).__name__}", "", "", "a table")
    data = copy.deepcopy(data)
    for path, value in settings.items():
        set_entry(data, path, value)
    return data


def shipped(name: str = "") -> Path:
    """The folder of the scenario files ccscope ships (package data; the repository's
    ``scenarios/``), or the file `name` in it."""
    from importlib.resources import files

    return Path(str(files("ccscope").joinpath("scenarios", name)))


def _shipped_instead(p: Path) -> Path | None:
    """The shipped scenario a missing path names, if any: ``NAME``, ``NAME.toml`` or
    ``scenarios/NAME.toml`` (the documentation's paths, from any folder)."""
    if p.parent not in (Path("."), Path("scenarios")) or p.name in ("", ".", ".."):
        return None
    f = shipped(p.name if p.suffix == ".toml" else f"{p.name}.toml")
    return f if f.is_file() else None


class Scenario:
    """A validated scenario: :attr:`table` is what the user wrote with every default filled in
    (units as written), :attr:`engine` is "packet", "round" or "udp" (the packet scenario in real
    time, see :mod:`ccscope.engine`), :attr:`file` where it came from.

    Build one with :func:`load`, :func:`loads` or :meth:`from_dict`; every change
    (:meth:`replace`, :meth:`with_seed`) is validated again by the core.
    """

    __slots__ = ("table", "engine", "file", "notes")

    def __init__(self, table: dict, engine: str, file: str = "", notes: tuple[str, ...] = ()):
        self.table = table
        self.engine = engine
        self.file = file
        #: How the scenario was written that a reader should know of: an old spelling, read as
        #: the one it now has in :attr:`table` (the CLI prints them).
        self.notes = notes

    @classmethod
    def from_dict(cls, data: dict, file: object = "") -> Scenario:
        """Validates a table (e.g. parsed TOML); raises :class:`ScenarioError`. A link's
        relative ``capacity_trace.file`` is relative to the folder of `file`, when given."""
        if file:
            data = copy.deepcopy(data)
            _trace_files_from(data, Path(str(file)).parent)
        try:
            engine, normalized, notes = _core().read_scenario(_to_json(data))
        except ScenarioError as e:
            raise e.in_file(file) from None
        return cls(json.loads(normalized), engine, str(file), tuple(notes))

    def to_json(self) -> str:
        """The normalized table as JSON text (what the core runs)."""
        return json.dumps(self.table)

    def echo(self) -> dict:
        """The scenario as written, defaults filled in, for results."""
        return copy.deepcopy(self.table)

    def replace(self, path: str, value: Any) -> Scenario:
        """A copy with the entry at `path` (``"run.seed"``, ``"flows[1].source.rate"``,
        ``"flows[0].source.controller.alpha"``, also when the controller is written as a name)
        set to `value`, validated again."""
        table = self.echo()
        set_entry(table, path, value)
        return Scenario.from_dict(table, self.file)

    def with_seed(self, seed: int) -> Scenario:
        """A copy with ``run.seed`` set."""
        return self.replace("run.seed", seed)

    @property
    def n_flows(self) -> int:
        """Flows in all, counts added up."""
        return sum(f.get("count", 1) for f in self.table["flows"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.table == other.table

    def __repr__(self) -> str:
        where = f" from {self.file}" if self.file else ""
        return f"<Scenario ({self.engine} model, {self.n_flows} flows){where}>"


def loads(text: str) -> Scenario:
    """Parses and validates scenario TOML text."""
    if isinstance(text, (bytes, bytearray)):
        raise ScenarioError(
            "loads() takes TOML text (str); decode the bytes first, or use load(path)",
            "",
            "bytes",
            "str",
        )
    return Scenario.from_dict(parse_toml(text))


def _recorded(p: Path, text: str) -> dict:
    """The scenario a run's summary.json recorded (normalized, every default filled in)."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ScenarioError(f"malformed JSON: {e}", file=str(p)) from None
    if not (
        isinstance(data, dict)
        and "ccscope_version" in data
        and isinstance(data.get("scenario"), dict)
    ):
        raise ScenarioError(
            "a .json scenario is the summary.json of a ccscope run, with its "
            "'scenario'; this file is not one",
            file=str(p),
        )
    from .output import scenario_hash

    recorded = data.get("scenario_sha256")
    if recorded is not None and recorded != scenario_hash(data["scenario"]):
        raise ScenarioError(
            "its 'scenario' is not the one the run recorded (its SHA-256 differs from "
            "scenario_sha256: the file was edited); write the changed scenario as a .toml "
            "file to run it",
            "scenario_sha256",
            repr(recorded),
            "the SHA-256 of 'scenario' as the run wrote it",
            str(p),
        )
    return data["scenario"]


def load(path: str | Path, settings: dict[str, Any] | None = None) -> Scenario:
    """Reads and validates a scenario TOML file, or the scenario a run recorded in its
    summary.json (to run it again); every error names the file. A name that is no file here
    (``dumbbell-mix``, ``scenarios/dumbbell-mix.toml``) is a scenario ccscope ships, if it has
    one of that name (:func:`shipped`). `settings` (``{"topology.bottleneck.rate": "20Mbps",
    "flows[1].count": 4}``) overrides entries as if the file had them written so."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        instead = _shipped_instead(p)
        if instead is None:
            ships = p.parent in (Path("."), Path("scenarios"))
            also = f" (nor one ccscope ships: the files in {shipped()})" if ships else ""
            raise ScenarioError(f"{p}: no such scenario file{also}") from None
        return load(instead, settings)
    except IsADirectoryError:
        raise ScenarioError(f"{p}: is a folder, not a scenario file") from None
    except (OSError, ValueError) as e:  # ValueError: undecodable text, a NUL in the name
        raise ScenarioError(f"{p}: cannot read scenario file ({e})") from None
    try:
        data = _recorded(p, text) if p.suffix == ".json" else parse_toml(text)
        data = with_settings(data, settings)
    except ScenarioError as e:
        raise e.in_file(p) from None
    return Scenario.from_dict(data, p)


def _trace_files_from(table: Any, folder: Path) -> None:
    """Makes every link's relative ``capacity_trace.file`` relative to `folder` (the
    scenario file's), as an absolute path: the run then finds it from any directory."""
    if isinstance(table, list):
        for item in table:
            _trace_files_from(item, folder)
    elif isinstance(table, dict):
        trace = table.get("capacity_trace")
        if isinstance(trace, dict) and isinstance(trace.get("file"), str):
            if not Path(trace["file"]).is_absolute():
                trace["file"] = str(folder.resolve() / trace["file"])
        for value in table.values():
            _trace_files_from(value, folder)


def coerce(scenario: Scenario | dict | str | Path) -> Scenario:
    """A :class:`Scenario` from an object, a dict, or the path of a TOML file."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, (str, Path)):
        return load(scenario)
    raise ScenarioError(
        f"expected a Scenario, a dict or the path of a TOML file, not {type(scenario).__name__}",
        "",
        repr(scenario)[:80],
        "a Scenario, a dict or a path",
    )


def validate(scenario: Scenario | dict | str | Path, force: bool = False) -> Scenario:
    """Checks a scenario as far as running it would (what it costs, controllers, routes),
    without running it; raises :class:`ScenarioError`, or :class:`ccscope.errors.CostError`
    when the run would take more time or memory than runs without `force`."""
    sc = coerce(scenario)
    core = _core()
    check = core.validate_round if sc.engine == "round" else core.validate_packet
    try:
        check(sc.to_json(), force)
    except ScenarioError as e:
        raise e.in_file(sc.file) from None
    return sc


def cost(scenario: Scenario | dict | str | Path) -> dict:
    """What running a scenario would cost, estimated from the scenario alone (upper bounds):
    ``work`` events (packet model) or flow-steps (round model), ``unit`` which of the two,
    ``bytes`` of memory, ``wall_s`` the wall time a real-time run (``run.engine = "udp"``)
    takes whatever the machine (0 for the simulated engines) and a short ``text``."""
    sc = coerce(scenario)
    work, unit, size, text, wall_s = _core().scenario_cost(sc.to_json())
    return {"work": work, "unit": unit, "bytes": size, "wall_s": wall_s, "text": text}


def schema(engine: str = "packet") -> dict:
    """The JSON Schema of a scenario file of `engine` ("packet" or "round")."""
    return json.loads(_core().scenario_schema(engine))
