"""Sweeps: runs over a grid of values at dotted paths into one base scenario, times a set of
seeds, executed by local processes or Ray, recorded in a DuckDB store (:mod:`ccscope.store`).

A sweep file (TOML)::

    base = "../scenarios/dumbbell-cbr.toml"   # a path, relative to this file, or a [base] table
    seeds = [1, 2, 3]
    mode = "grid"                             # every combination; "zip": the i-th values together
    traces = false                            # keep each run's traces as Parquet beside the store

    [axes]
    "topology.bottleneck.loss.p" = [0.005, 0.01, 0.02]
    "flows[1].source.controller.beta" = [0.5, 0.875]

>>> report = ccscope.sweep.run("sweep.toml", "results.duckdb", jobs=2)
>>> ccscope.sweep.summarize("results.duckdb")     # mean and 95% CI over seeds per point

A run is identified by a hash of its normalized scenario (seed included), its seed and the code
that runs it (the ccscope version and commit, and the SHA-256 of each Python controller's module
file), so running a sweep again skips what the store already holds, whichever executor ran it
(every executor calls :func:`execute` on the same task), and never serves a run of code that
has changed since. When the first runs all fail the same way the sweep stops, keeping them.

A sweep of more than :data:`MAX_RUNS` runs is refused unless forced (it is counted before it is
expanded), and each run has a time limit (:func:`time_limit`, or the one given): a run that
outlasts it is stopped and recorded as failed, so that a controller that never returns holds
up one worker for that long, never the sweep.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .errors import ScenarioError
from .scenario import Scenario, cost, parse_toml, with_settings
from .scenario import load as load_scenario
from .store import RUN_COLUMNS, Store, cell, writable

if TYPE_CHECKING:
    import subprocess

    import pandas as pd

# numpy and pandas load only to summarize a store: a worker runs its tasks without them.

MODES = ("grid", "zip")
EXECUTORS = ("local", "ray")

#: Runs a sweep may have unless forced (``--force``): expanding and validating takes about
#: 2 ms a run, so this many take minutes before the first run starts.
MAX_RUNS = 100_000

#: The seeds a store holds (a BIGINT column).
MAX_SEED = 2**63 - 1

#: What a run's default time limit assumes: the events (or flow-steps) of its cost estimate,
#: an upper bound, at a hundredth of the engine's 1e7 a second (a Python controller's hooks
#: are that slow); a real-time run's wall time twice; and never less than a minute.
SLOWEST_WORK_PER_S = 1e5
MIN_TIME_LIMIT_S = 60.0


def time_limit(cost_estimate: dict) -> float:
    """The default time limit (wall seconds) of a run whose :func:`ccscope.scenario.cost` is
    `cost_estimate`."""
    return max(
        MIN_TIME_LIMIT_S,
        cost_estimate["work"] / SLOWEST_WORK_PER_S,
        2 * cost_estimate["wall_s"] + MIN_TIME_LIMIT_S,
    )


@dataclass(frozen=True)
class Task:
    """One run of a sweep: what :func:`execute` needs, and nothing that depends on where."""

    run_id: str
    seed: int
    point: dict[str, Any]
    engine: str
    scenario: str
    trace_dir: str | None = None
    #: The scenario file (or sweep file) Python controllers' modules are found beside.
    scenario_file: str = ""
    #: Wall seconds the run may take before it is stopped and recorded as failed.
    time_limit_s: float = MIN_TIME_LIMIT_S


@dataclass(frozen=True)
class Sweep:
    """A base scenario, axes (dotted path -> values), seeds and how to combine the axes."""

    base: Scenario
    axes: dict[str, list[Any]]
    seeds: list[int]
    mode: str = "grid"
    traces: bool = False
    file: str = field(default="", compare=False)

    @classmethod
    def from_dict(
        cls, data: dict, root: str | Path = ".", file: str = "", base_settings: dict | None = None
    ) -> Sweep:
        """Reads a sweep table; a path ``base`` is relative to `root`, read with
        `base_settings` (:func:`ccscope.scenario.load`)."""

        def bad(key: str, value: Any, allowed: str) -> ScenarioError:
            return ScenarioError.at(key, value, allowed)

        unknown = set(data) - {"base", "axes", "seeds", "mode", "traces"}
        if unknown:
            key = sorted(unknown)[0]
            raise bad(key, data[key], "one of base, axes, seeds, mode, traces")
        if "base" not in data:
            raise bad("base", None, "the path of a scenario file, or a [base] table")
        base = data["base"]
        if isinstance(base, str):
            try:
                base = load_scenario(Path(root) / base, base_settings)
            except ScenarioError as e:
                if e.file:  # the file's own error, naming it
                    raise
                raise ScenarioError(
                    f"base = {base!r}: {e.message}",
                    "base",
                    repr(base),
                    "the path of a scenario file, relative to the sweep file",
                ) from None
        elif isinstance(base, dict):
            try:
                # A [base] table's modules are found beside the sweep file.
                base = Scenario.from_dict(base)
            except ScenarioError as e:
                path = f"base.{e.path}" if e.path else "base"
                message = f"base.{e.message}" if e.path else f"base: {e.message}"
                raise ScenarioError(message, path, e.value, e.allowed) from None
            base = Scenario(base.table, base.engine, file, base.notes)
        else:
            raise bad("base", base, "the path of a scenario file, or a [base] table")
        axes = data.get("axes", {})
        if not isinstance(axes, dict):
            raise bad("axes", axes, "a table of dotted path = [values]")
        for path, values in axes.items():
            if not isinstance(values, list) or not values:
                raise bad(f"axes.{path}", values, "a non-empty list of values")
        seeds = data.get("seeds", [1])
        if (
            not isinstance(seeds, list)
            or not seeds
            or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_SEED for s in seeds
            )
            or len(set(seeds)) != len(seeds)
        ):
            raise bad("seeds", seeds, "a non-empty list of distinct integers in [0, 2^63)")
        mode = data.get("mode", "grid")
        if mode not in MODES:
            raise bad("mode", mode, '"grid" or "zip"')
        if mode == "zip" and len({len(v) for v in axes.values()}) > 1:
            raise bad(
                "axes",
                {k: len(v) for k, v in axes.items()},
                'lists of one length with mode = "zip"',
            )
        traces = data.get("traces", False)
        if not isinstance(traces, bool):
            raise bad("traces", traces, "true or false")
        return cls(base, dict(axes), list(seeds), mode, traces, file)

    def points(self) -> Iterator[dict[str, Any]]:
        """The axes' combinations, in order."""
        names = list(self.axes)
        combine = itertools.product if self.mode == "grid" else zip
        return (dict(zip(names, values, strict=True)) for values in combine(*self.axes.values()))

    def n_points(self) -> int:
        """How many points :meth:`points` gives, counted without expanding them."""
        lengths = [len(v) for v in self.axes.values()]
        if self.mode == "grid":
            return math.prod(lengths)
        return min(lengths, default=0)

    def n_runs(self) -> int:
        """Runs in the sweep: points times seeds."""
        return self.n_points() * len(self.seeds)

    def check_size(self, force: bool = False) -> None:
        """Raises :class:`ScenarioError` with the count when the sweep has more than
        :data:`MAX_RUNS` runs, unless `force`."""
        total = self.n_runs()
        if total > MAX_RUNS and not force:
            counts = " x ".join(str(len(v)) for v in self.axes.values()) or "1"
            raise ScenarioError(
                f"the sweep has {total:,} runs ({counts} points ({self.mode}) x "
                f"{len(self.seeds)} seeds), more than the {MAX_RUNS:,} run without --force "
                f"(force=True); expanding them alone takes about {total * 0.002:,.0f} s",
                "axes",
                str(total),
                f"at most {MAX_RUNS:,} runs, or --force",
                self.file,
            )

    def tasks(
        self,
        trace_root: Path | None = None,
        time_limit_s: float | None = None,
        force: bool = False,
        progress: bool = False,
    ) -> list[Task]:
        """Every run: each point with each seed. The core validates every scenario here (about
        2 ms each: `progress` shows how far it got after a few seconds); a sweep of more
        than :data:`MAX_RUNS` runs raises :class:`ScenarioError` with its count unless
        `force`. Each run's time limit is `time_limit_s`, or :func:`time_limit`."""
        self.check_size(force)
        watch = None
        if progress:
            from .progress import RunProgress

            watch = RunProgress("sweep points", delay=2.0, label="expanded")
        tasks = []
        try:
            for i, point in enumerate(self.points()):
                if watch is not None:
                    watch(i, self.n_points())
                sc = self._scenario(point)
                code = code_of(sc)
                limit = time_limit_s or time_limit(cost(sc))
                # Absolute: a worker's working directory may change under a run.
                file = str(Path(sc.file).absolute()) if sc.file else ""
                for seed in self.seeds:
                    run = sc.with_seed(seed)
                    rid = run_id(run, seed, code)
                    trace = str(trace_root / rid) if self.traces and trace_root else None
                    tasks.append(
                        Task(rid, seed, point, run.engine, run.to_json(), trace, file, limit)
                    )
        finally:
            if watch is not None:
                watch.close()
        return tasks

    def _scenario(self, point: dict[str, Any]) -> Scenario:
        """The base scenario at `point`; an error names the sweep file and the axis (or the
        point, when no one axis is to blame)."""
        sc = self.base
        try:
            for path, value in point.items():
                sc = sc.replace(path, value)
        except ScenarioError as e:
            blamed = [a for a in point if e.path == a or e.path.startswith((a + ".", a + "["))]
            if blamed:
                axis = blamed[0]
                at, value, what = f'axes."{axis}"', point[axis], e.allowed or e.message
                message = f"{at} = {value!r}: {what}"
                if e.path != axis:
                    message = f"{at} = {value!r}: {e.message}"
            else:
                at, value = "axes", point
                message = f"the point {point}: {e.message}"
            raise ScenarioError(message, at, repr(value), e.allowed, self.file or e.file) from None
        return sc


def code_of(scenario: Scenario) -> dict[str, Any]:
    """The code that runs a scenario: the ccscope version, the commit its extension was built
    from (and whether that tree had changes) and, for each controller written in Python, the
    SHA-256 of its module file."""
    from .controllers import code_identity
    from .output import provenance

    return {**provenance(), **code_identity(scenario)}


def run_id(scenario: Scenario, seed: int, code: dict[str, Any] | None = None) -> str:
    """The identity of a run: a hash of the normalized scenario, the seed and the code that
    runs it (:func:`code_of`)."""
    code = code_of(scenario) if code is None else code
    text = json.dumps(
        {"scenario": scenario.table, "seed": seed, "version": __version__, "code": code},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def load_sweep(path: str | Path, settings: dict[str, Any] | None = None) -> Sweep:
    """Reads a sweep file; errors name the file and the entry. `settings` (``{"seeds": [1,
    2], "base.run.duration": "10s"}``) overrides entries as if the file had them written so
    (``base.…`` ones that of the scenario file a path ``base`` names)."""
    p = Path(path)
    try:
        data = parse_toml(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such sweep file") from None
    except (OSError, UnicodeDecodeError, ScenarioError) as e:
        raise ScenarioError(f"{p}: cannot read the sweep file ({e})") from None
    # Into a base that names a file: that file's entries.
    into_file = isinstance(data.get("base"), str)
    base, own = {}, {}
    for k, v in (settings or {}).items():
        if into_file and k.startswith("base."):
            base[k.removeprefix("base.")] = v
        else:
            own[k] = v
    try:
        return Sweep.from_dict(with_settings(data, own), p.parent, str(p), base)
    except ScenarioError as e:
        raise e.in_file(p) from None


#: The range of each summary metric (``Result.metrics()``) by its definition (Jain's index lies
#: in [1/n, 1], so in [0, 1]). The mean over seeds lies in it too, so :func:`summarize` cuts its
#: interval to it: the cut interval covers the true mean whenever the uncut one does, so it
#: keeps its 95%.
METRIC_RANGES: dict[str, tuple[float, float]] = {
    "jain": (0.0, 1.0),
    "min_max": (0.0, 1.0),
    "loss_rate": (0.0, 1.0),
    "utilization": (0.0, 1.0),
    "drop_rate": (0.0, 1.0),
    "throughput_bps": (0.0, math.inf),
    "share": (0.0, math.inf),
    "mean_delay_s": (0.0, math.inf),
    "mean_rate_bps": (0.0, math.inf),
    "mean_queue_pkts": (0.0, math.inf),
    "events": (0.0, math.inf),
}


def execute(task: Task) -> dict[str, Any]:
    """Runs one task and returns its record (never raises for a failed run: the error is
    recorded). Every executor calls this, so the numbers do not depend on the executor."""
    import os

    from .engine import run

    start = time.perf_counter()
    cwd = os.getcwd()
    record: dict[str, Any] = {
        "run_id": task.run_id,
        "status": "ok",
        "error": None,
        "metrics": {},
        "flows": [],
        "classes": [],
        "trace_dir": None,
        "notes": [],
    }
    try:
        table = json.loads(task.scenario)
        result = run(Scenario(table, task.engine, task.scenario_file))
        record["notes"] = getattr(result, "notes", [])
        record["metrics"] = result.metrics()
        record["flows"] = flow_rows(result)
        record["classes"] = class_rows(record["flows"])
        for row in (record["metrics"], *record["flows"], *record["classes"]):
            bad = [k for k, v in row.items() if isinstance(v, float) and not math.isfinite(v)]
            if bad:
                raise ValueError(f"{bad[0]} is not finite ({row[bad[0]]})")
        if task.trace_dir is not None:
            final = Path(task.trace_dir)
            partial = final.with_name(final.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            result.write(partial)
            shutil.rmtree(final, ignore_errors=True)
            partial.rename(final)
            record["trace_dir"] = str(final)
    except Exception as e:  # a failed run is recorded, the sweep goes on
        return _failure(task.run_id, f"{type(e).__name__}: {e}", start)
    finally:
        os.chdir(cwd)  # as it was, whatever a controller did
    record["wall_s"] = time.perf_counter() - start
    return record


def flow_rows(result) -> list[dict[str, Any]]:
    """A run's rows of the store's ``flows`` table: each flow's index and numbers, its class
    (its label, or in the round model its name) and, in the packet model, its share of the
    first bottleneck's capacity (throughput over the link's rate)."""
    from . import plainmetrics

    links = result.link_records() if hasattr(result, "link_records") else []
    capacity = links[0]["rate_bps"] if links else 0.0
    rows = []
    for i, f in enumerate(result.flow_records()):
        row = {"flow": i, **f, "class": f.get("label", f.get("name"))}
        if "throughput_bps" in f and capacity:
            row["share"] = plainmetrics.ratio(f["throughput_bps"], capacity)
        rows.append(row)
    return rows


def class_rows(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A run's rows of the store's ``classes`` table, from its :func:`flow_rows`: per class
    (in the order of its first flow), its number of flows, their total throughput (round model:
    sending rate) and share, loss rate over the packets they sent, mean delay over the packets
    they delivered, and Jain's index among them."""
    from . import plainmetrics

    groups: dict[str, list[dict[str, Any]]] = {}
    for f in flows:
        groups.setdefault(f["class"], []).append(f)
    rows = []
    for name, members in groups.items():
        rate = "throughput_bps" if "throughput_bps" in members[0] else "mean_rate_bps"
        lost = "dropped_pkts" if "dropped_pkts" in members[0] else "lost_pkts"
        rates = [f[rate] for f in members]
        row: dict[str, Any] = {
            "class": name,
            "flows": len(members),
            rate: plainmetrics.numpy_sum(rates),
            "loss_rate": plainmetrics.ratio(
                sum(f[lost] for f in members), sum(f["sent_pkts"] for f in members)
            ),
            "jain": plainmetrics.fairness(rates)["jain"],
        }
        if all("share" in f for f in members):
            row["share"] = plainmetrics.numpy_sum([f["share"] for f in members])
        if all("mean_delay_s" in f for f in members):
            delivered = sum(f["delivered_pkts"] for f in members)
            row["mean_delay_s"] = plainmetrics.ratio(
                sum(f["mean_delay_s"] * f["delivered_pkts"] for f in members), delivered
            )
        rows.append(row)
    return rows


def _failure(run_id: str, error: str, start: float) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "status": "error",
        "error": error,
        "metrics": {},
        "flows": [],
        "trace_dir": None,
        "wall_s": time.perf_counter() - start,
    }


#: What a worker process runs: the parent's import path first (a sweep's controllers are
#: imported by module, from where the parent finds them), then :func:`_serve` (its argument
#: is the parent's process id).
_WORKER = (
    "import pickle, sys; sys.path[:] = pickle.load(sys.stdin.buffer); "
    "from ccscope.sweep import _serve; _serve(int(sys.argv[1]))"
)

#: prctl(2)'s option that sends a process a signal when its parent ends (Linux).
PR_SET_PDEATHSIG = 1


def die_with(parent: int) -> None:
    """Has Linux kill this process when its `parent` ends (prctl(2) PR_SET_PDEATHSIG), so
    that a sweep or an exploration killed outright leaves no worker running; elsewhere,
    nothing."""
    import ctypes
    import os
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it ended before the request was made
        os._exit(1)


def _serve(parent: int) -> None:
    """A worker's loop: a pickled task in on stdin, its pickled record out on stdout, until
    stdin closes or the `parent` process ends. What a run prints goes to stderr."""
    import os
    import pickle
    import sys

    die_with(parent)
    records = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        while True:
            pickle.dump(execute(pickle.load(sys.stdin.buffer)), records)
            records.flush()
    except (EOFError, BrokenPipeError):  # the sweep is over, or its process was killed
        return


class _Workers:
    """`jobs` worker processes for local runs, each a fresh Python that imports only what a run
    needs (:data:`_WORKER`): fork would copy the parent's DuckDB threads in an unknown state,
    and multiprocessing's spawn would also import the parent's main script (the CLI) and start
    a resource tracker. Each worker holds one task at a time and gets the next as it hands
    back a record; one that outlasts its task's time limit is killed, the run recorded as
    failed, and a new worker takes the next. They run in their own process group: Ctrl-C
    reaches the parent only, which stops them at once; they die with the parent."""

    def __init__(self, jobs: int):
        self.procs = [self._spawn() for _ in range(jobs)]
        self.running: dict[subprocess.Popen, tuple[Task, float]] = {}
        self.todo: Iterator[Task] = iter(())

    @staticmethod
    def _spawn() -> subprocess.Popen:
        import os
        import pickle
        import subprocess
        import sys

        proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            process_group=0,
        )
        pickle.dump(sys.path, proc.stdin)
        proc.stdin.flush()
        return proc

    def start(self, tasks: list[Task]) -> Iterator[dict[str, Any]]:
        """Hands every worker its first task now; returns the records as the runs end."""
        self.todo = iter(tasks)
        for proc in self.procs:
            self._give(proc)
        return self._records()

    def _give(self, proc: subprocess.Popen) -> None:
        """Hands `proc` the next task, if any is left."""
        import pickle

        task = next(self.todo, None)
        if task is not None:
            pickle.dump(task, proc.stdin)
            proc.stdin.flush()
            self.running[proc] = (task, time.perf_counter())

    def _records(self) -> Iterator[dict[str, Any]]:
        import selectors

        with selectors.DefaultSelector() as ready:
            for proc in self.running:
                ready.register(proc.stdout, selectors.EVENT_READ, proc)
            while self.running:
                due = min(start + task.time_limit_s for task, start in self.running.values())
                ended = [key.data for key, _ in ready.select(max(due - time.perf_counter(), 0))]
                now = time.perf_counter()
                overdue = [
                    p
                    for p, (task, start) in self.running.items()
                    if p not in ended and now - start > task.time_limit_s
                ]
                for proc in ended + overdue:
                    ready.unregister(proc.stdout)
                    task, start = self.running.pop(proc)
                    record, proc = self._record(proc, task, start, overdue=proc in overdue)
                    self._give(proc)
                    if proc in self.running:
                        ready.register(proc.stdout, selectors.EVENT_READ, proc)
                    yield record

    def _record(
        self, proc: subprocess.Popen, task: Task, start: float, overdue: bool
    ) -> tuple[dict[str, Any], subprocess.Popen]:
        """`task`'s record from worker `proc`, and the worker for the next task: `proc`, or,
        when it died in the run or outlasted the run's time limit (it is then killed), a new
        one, the run recorded as failed."""
        import pickle

        if overdue:
            proc.kill()
        else:
            try:
                return pickle.load(proc.stdout), proc
            except (EOFError, pickle.UnpicklingError):  # the worker died in the run
                pass
        self.procs.remove(proc)
        status = _end(proc)
        why = (
            f"stopped after its time limit of {task.time_limit_s:g} s"
            if overdue
            else f"the worker process running it ended (exit status {status})"
        )
        fresh = self._spawn()
        self.procs.append(fresh)
        return _failure(task.run_id, why, start), fresh

    def stop(self) -> None:
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            _end(proc)


def _end(proc: subprocess.Popen) -> int:
    """Waits for worker `proc` to end and closes its pipes; its exit status."""
    status = proc.wait()
    proc.stdin.close()
    proc.stdout.close()
    return status


#: Seconds to wait for a Ray head at ``--address`` to answer.
RAY_CONNECT_S = 5.0


def _check_address(address: str) -> None:
    """Refuses, in seconds, a Ray ``--address`` (``host:port`` or ``ray://host:port``) where
    nothing answers; Ray itself retries for minutes. ``auto`` and ``local`` are Ray's own."""
    import socket

    if address in ("auto", "local"):
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    allowed = "host:port of a running Ray head (ray start --head), auto or local"
    if not sep or not port.isdigit():
        raise ScenarioError.at("--address", address, allowed)
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_S).close()
    except (OSError, OverflowError) as e:
        raise ScenarioError(
            f"--address {address}: nothing answers there ({getattr(e, 'strerror', None) or e}); "
            "start a Ray head (ray start --head) or give its address",
            "--address",
            repr(address),
            allowed,
        ) from None


def _ray(tasks: list[Task], jobs: int, address: str | None) -> Iterator[dict[str, Any]]:
    """The tasks' records from Ray, as many in flight as the cluster has CPUs, so that each
    starts when it is handed over and its time limit runs from then: a task past its limit is
    cancelled (its worker killed) and recorded as failed."""
    try:
        import ray
    except ImportError:
        raise ScenarioError(
            "--executor ray needs Ray: pip install 'ccscope[ray]'",
            "executor",
            "'ray'",
            '"local", or install ray',
        ) from None
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "address": address,
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if address is None:
            options["num_cpus"] = jobs
        ray.init(**options)
    remote = ray.remote(execute)
    slots = max(1, int(ray.cluster_resources().get("CPU", jobs)))
    todo = iter(tasks)
    pending: dict[Any, tuple[Task, float]] = {}

    def hand_over() -> None:
        task = next(todo, None)
        if task is not None:
            pending[remote.remote(task)] = (task, time.perf_counter())

    for _ in range(slots):
        hand_over()
    try:
        while pending:
            due = min(start + task.time_limit_s for task, start in pending.values())
            done, _ = ray.wait(
                list(pending), num_returns=1, timeout=max(due - time.perf_counter(), 0)
            )
            now = time.perf_counter()
            for ref in done or [r for r, (t, s) in pending.items() if now - s > t.time_limit_s]:
                task, start = pending.pop(ref)
                if done:
                    yield ray.get(ref)
                else:
                    ray.cancel(ref, force=True)
                    why = f"stopped after its time limit of {task.time_limit_s:g} s"
                    yield _failure(task.run_id, why, start)
                hand_over()
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


@dataclass
class Outcome:
    """What :func:`run` did: runs in the sweep, skipped (already in the store), run, failed."""

    total: int
    skipped: int = 0
    ran: int = 0
    failed: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    #: The notes of the runs that have some (:attr:`ccscope.engine.Result.notes`), by run id.
    notes: dict[str, list[str]] = field(default_factory=dict)
    #: Why the sweep stopped before its end, when it did: its first runs all failed alike.
    stopped: str = ""
    #: Wall seconds the real-time runs to do (``run.engine = "udp"``) take at the least, on
    #: the workers given: each lasts its duration whatever the machine.
    real_time_s: float = 0.0

    def _shown(self) -> tuple[str, pd.DataFrame | None]:
        import pandas as pd

        title = f"{self.total} runs: {self.ran} run, {self.skipped} already in the store, "
        title += f"{self.failed} failed" + (f"; stopped: {self.stopped}" if self.stopped else "")
        errors = pd.DataFrame(list(self.errors.items()), columns=["run_id", "error"])
        return title, errors

    def __repr__(self) -> str:
        from .display import text

        return text("ccscope.sweep.Outcome", *self._shown())

    def _repr_html_(self) -> str:
        from .display import as_html

        return as_html("ccscope.sweep.Outcome", *self._shown())


def run(
    sweep: Sweep | str | Path,
    store: str | Path,
    jobs: int | None = None,
    executor: str = "local",
    address: str | None = None,
    progress: bool | Callable[[Outcome], None] = False,
    time_limit_s: float | None = None,
    force: bool = False,
) -> Outcome:
    """Runs every run of `sweep` that `store` does not hold finished, and records each as it
    ends (a failed run with its error). Interrupting it (Ctrl-C) keeps what finished; running
    it again does the rest. `jobs` defaults to the machine's cores; `executor` is "local"
    (worker processes) or "ray" (``address`` of a cluster, or a local Ray instance).
    `progress` shows a progress bar (True) or is called after each run. A run that takes
    longer than `time_limit_s` (default: :func:`time_limit` of its cost) is stopped and
    recorded as failed; a sweep of more than :data:`MAX_RUNS` runs needs `force`."""
    import os

    sw = sweep if isinstance(sweep, Sweep) else load_sweep(sweep)
    if executor not in EXECUTORS:
        raise ScenarioError.at("executor", executor, '"local" or "ray"')
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise ScenarioError.at("jobs", jobs, "at least 1")
    if time_limit_s is not None and not time_limit_s > 0:
        raise ScenarioError.at("time_limit_s", time_limit_s, "a number of seconds > 0")
    if executor == "ray" and address is not None:
        _check_address(address)
    store_path = writable(store)
    sw.check_size(force)
    most = sw.n_runs()
    # Local workers start while the core expands the tasks and the store opens; a sweep with
    # nothing left to run just stops them.
    workers = _Workers(min(jobs, most)) if executor == "local" and most else None
    try:
        return _run(sw, store_path, jobs, executor, address, progress, workers, time_limit_s)
    finally:
        if workers is not None:
            workers.stop()


def _run(
    sw: Sweep,
    store_path: Path,
    jobs: int,
    executor: str,
    address: str | None,
    progress: bool | Callable[[Outcome], None],
    workers: _Workers | None,
    time_limit_s: float | None,
) -> Outcome:
    from . import _core

    tasks = sw.tasks(
        store_path.with_name(store_path.name + ".traces"),
        time_limit_s,
        force=True,
        progress=progress is True,
    )
    # A run met twice (two points giving one scenario) runs once.
    unique = list({t.run_id: t for t in tasks}.values())
    # A new store holds no run: the workers start on every run while it is created.
    early = workers.start(unique) if workers is not None and not store_path.exists() else None
    with contextlib.ExitStack() as stack:
        # The workers may have started: a Ctrl-C while DuckDB opens the store waits for it.
        with _sigint_deferred():
            db = stack.enter_context(Store(store_path))
            kinds = db.declare_axes(sw.axes)
            done = db.finished()
        todo = [t for t in unique if t.run_id not in done]
        outcome = Outcome(len(unique), skipped=len(unique) - len(todo))
        real_time = [t for t in todo if t.engine == "udp"]
        if real_time:
            parallel = min(jobs, len(real_time))
            outcome.real_time_s = (
                sum(cost(Scenario.from_dict(json.loads(t.scenario)))["wall_s"] for t in real_time)
                / parallel
            )
            if progress is True:
                import sys

                print(
                    f'{len(real_time)} real-time runs (run.engine = "udp") take about '
                    f"{outcome.real_time_s:.0f} s of wall time on {parallel} worker(s)",
                    file=sys.stderr,
                )
        by_id = {t.run_id: t for t in todo}
        if early is not None:
            runs = early
        elif executor == "ray":
            runs = _ray(todo, jobs, address)
        else:  # no workers: a sweep of no runs
            runs = workers.start(todo) if workers is not None else iter(())
        with _progress(progress, outcome) as advance:
            for record in runs:
                task = by_id[record["run_id"]]
                row = {
                    "run_id": task.run_id,
                    "seed": task.seed,
                    **{k: cell(v, kinds[k]) for k, v in task.point.items()},
                    **record["metrics"],
                    "status": record["status"],
                    "error": record["error"],
                    "wall_s": record["wall_s"],
                    "ccscope_version": __version__,
                    "model_version": _core.MODEL_VERSION,
                    "engine": task.engine,
                    "scenario": task.scenario,
                    "trace_dir": record["trace_dir"],
                    "notes": record.get("notes") or None,
                }
                with _sigint_deferred():
                    db.record(row, record["flows"], record.get("classes"))
                outcome.ran += 1
                if record["status"] != "ok":
                    outcome.failed += 1
                    outcome.errors[task.run_id] = record["error"]
                if record.get("notes"):
                    outcome.notes[task.run_id] = record["notes"]
                advance()
                if _failing_alike(outcome):
                    outcome.stopped = (
                        f"the first {outcome.ran} runs all failed with the same error, so the "
                        f"sweep stopped (they are in the store): {record['error']}"
                    )
                    break
    return outcome


#: Runs that must all fail alike, first of a sweep, before it stops.
FAIL_FAST = 3


def _failing_alike(outcome: Outcome) -> bool:
    """Whether every run so far failed, with one error, and there were FAIL_FAST of them: the
    rest would fail the same way (a controller that does not import, a bad parameter)."""
    return (
        outcome.ran >= FAIL_FAST
        and outcome.failed == outcome.ran
        and len(set(outcome.errors.values())) == 1
    )


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Holds Ctrl-C back while a run is recorded, then raises it: DuckDB turns an interrupt
    during a statement into its own error, or drops it, and the run must be stored whole or
    not at all."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda *_: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


class _progress:
    """A rich progress bar with counts and ETA (or a callback) for :func:`run`."""

    def __init__(self, progress: bool | Callable[[Outcome], None], outcome: Outcome):
        self.progress = progress
        self.outcome = outcome
        self.bar = None

    def __enter__(self) -> Callable[[], None]:
        if self.progress is True and self.outcome.total > self.outcome.skipped:
            import rich.progress as rp
            from rich.console import Console

            self.bar = rp.Progress(
                rp.TextColumn("sweep"),
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TextColumn("{task.fields[failed]} failed"),
                rp.TimeElapsedColumn(),
                rp.TextColumn("ETA"),
                rp.TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self.bar.start()
            self.task = self.bar.add_task(
                "sweep", total=self.outcome.total - self.outcome.skipped, failed=0
            )
        return self.advance

    def advance(self) -> None:
        if self.bar is not None:
            self.bar.update(self.task, advance=1, failed=self.outcome.failed)
        elif callable(self.progress):
            self.progress(self.outcome)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


def load(store: str | Path, table: str = "runs") -> pd.DataFrame:
    """The store's ``runs`` (one row per run) or ``flows`` (one row per run and flow) table."""
    with Store(store, read_only=True) as db:
        return db.table(table)


def summarize(
    store: str | Path, metrics: list[str] | None = None, run_ids: list[str] | None = None
) -> pd.DataFrame:
    """Per point (one row per combination of the axes' values) and metric: the number of
    finished seeds ``n``, the ``mean`` and the 95% confidence interval of the mean over those
    ``n`` seeds (``ci_low``, ``ci_high``; NaN with a single seed): Student's t, cut to the
    metric's range (:data:`METRIC_RANGES`), so a Jain's index never gets an interval above 1
    nor a queue one below 0. With few seeds the t interval is wide (t = 12.7 at n = 2)."""
    with Store(store, read_only=True) as db:
        runs = db.table("runs")
        axes = db.axes()
    if run_ids is not None:
        runs = runs[runs["run_id"].isin(run_ids)]
    runs = runs[runs["status"] == "ok"]
    known = metric_columns(runs, axes)
    metrics = _chosen(metrics, known)
    axes = [a for a in axes if runs[a].notna().any()]
    return _intervals(runs, axes, metrics)


#: The per-class metrics :func:`summarize_classes` gives, in this order, when the store has them.
CLASS_METRICS = ("share", "throughput_bps", "mean_rate_bps", "loss_rate", "mean_delay_s", "jain")


def summarize_classes(
    store: str | Path, metrics: list[str] | None = None, run_ids: list[str] | None = None
) -> pd.DataFrame:
    """:func:`summarize` per point and class (the store's ``classes`` table: each class's
    share of the bottleneck, total throughput, loss rate, mean delay and Jain's index among its
    flows), with a ``class`` column after the axes."""
    with Store(store, read_only=True) as db:
        runs = db.table("runs")
        axes = db.axes()
        classes = db.table("classes")
    if run_ids is not None:
        runs = runs[runs["run_id"].isin(run_ids)]
    runs = runs[runs["status"] == "ok"]
    axes = [a for a in axes if runs[a].notna().any()]
    joined = classes.merge(runs[["run_id", *axes]], on="run_id")
    known = [m for m in CLASS_METRICS if m in joined and joined[m].notna().any()]
    return _intervals(joined, [*axes, "class"], _chosen(metrics, known))


def _chosen(metrics: list[str] | None, known: list[str]) -> list[str]:
    """`metrics` (all `known` when None), each checked to be one of them."""
    for m in metrics or []:
        if m not in known:
            raise ScenarioError.at("metric", m, "one of " + ", ".join(known))
    return metrics or known


def _intervals(runs: pd.DataFrame, keys: list[str], metrics: list[str]) -> pd.DataFrame:
    """Per combination of `keys` and metric: n, mean and the 95% interval over the rows."""
    import pandas as pd
    from scipy import stats

    columns = [*keys, "metric", "n", "mean", "ci_low", "ci_high"]
    if runs.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for point, group in runs.groupby(keys, sort=True, dropna=False) if keys else [((), runs)]:
        point = point if isinstance(point, tuple) else (point,)
        for m in metrics:
            x = group[m].dropna().to_numpy(dtype=float)
            n = len(x)
            mean = float(x.mean()) if n else float("nan")
            half = float(stats.t.ppf(0.975, n - 1) * stats.sem(x)) if n > 1 else float("nan")
            low, high = METRIC_RANGES.get(m, (-math.inf, math.inf))
            rows.append(
                {
                    **dict(zip(keys, point, strict=True)),
                    "metric": m,
                    "n": n,
                    "mean": mean,
                    "ci_low": max(mean - half, low) if n > 1 else math.nan,
                    "ci_high": min(mean + half, high) if n > 1 else math.nan,
                }
            )
    return pd.DataFrame(rows, columns=columns)


def metric_columns(runs: pd.DataFrame, axes: list[str]) -> list[str]:
    """The summary-metric columns of a ``runs`` table whose axis columns are `axes`."""
    import pandas as pd

    skip = {*RUN_COLUMNS, *axes}
    return [
        c
        for c in runs.columns
        if c not in skip and pd.api.types.is_numeric_dtype(runs[c]) and runs[c].notna().any()
    ]


def plot(
    store: str | Path,
    metric: str,
    axis: str | None = None,
    path: str | Path = "sweep.png",
    run_ids: list[str] | None = None,
) -> Path:
    """`metric`'s mean against `axis` (default: the first) with its 95% band, one line per
    combination of the other axes' values; written to `path` (PNG)."""
    from matplotlib.figure import Figure

    from .output import writable_file
    from .report import write

    writable_file(path, "--plot")
    table = summarize(store, [metric], run_ids)
    axes = [c for c in table.columns if c not in ("metric", "n", "mean", "ci_low", "ci_high")]
    if not axes:
        raise ScenarioError.at("axis", axis, "a sweep with at least one axis")
    axis = axis or axes[0]
    if axis not in axes:
        raise ScenarioError.at("axis", axis, "one of " + ", ".join(axes))
    others = [a for a in axes if a != axis]
    fig = Figure(figsize=(7, 4), layout="tight")
    ax = fig.subplots()
    for key, group in table.groupby(others, sort=True) if others else [((), table)]:
        key = key if isinstance(key, tuple) else (key,)
        group = group.sort_values(axis)
        label = ", ".join(f"{a} = {v}" for a, v in zip(others, key, strict=True)) or metric
        (line,) = ax.plot(group[axis], group["mean"], marker="o", lw=1.2, label=label)
        ax.fill_between(
            group[axis], group["ci_low"], group["ci_high"], alpha=0.2, color=line.get_color()
        )
    ax.set_xlabel(axis)
    ax.set_ylabel(f"{metric} (mean, 95% CI over seeds)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return write(fig, path)


def summary_table(table: pd.DataFrame):
    """A :func:`summarize` table for the terminal: one row per point, one column per metric
    with its mean and the 95% interval."""
    from rich.table import Table

    axes = [c for c in table.columns if c not in ("metric", "n", "mean", "ci_low", "ci_high")]
    metrics = list(dict.fromkeys(table["metric"]))
    out = Table(
        title="mean [95% CI over the seeds, cut to the metric's range]", title_justify="left"
    )
    for col in (*axes, "seeds", *metrics):
        out.add_column(col, justify="right")
    for point, group in table.groupby(axes, sort=True, dropna=False) if axes else [((), table)]:
        point = point if isinstance(point, tuple) else (point,)
        cells = {
            r.metric: (
                f"{r.mean:.4g}"
                if math.isnan(r.ci_low)
                else f"{r.mean:.4g} [{r.ci_low:.4g}, {r.ci_high:.4g}]"
            )
            for r in group.itertuples()
        }
        out.add_row(*map(str, point), str(group["n"].max()), *(cells[m] for m in metrics))
    return out
