"""Bad input gets one clear message naming the field, the value and what is allowed."""

import pytest

import ccscope
from ccscope.errors import ScenarioError


def test_example_scenario_loads_with_defaults_filled_in():
    sc = ccscope.load("scenarios/dumbbell-cbr.toml")
    assert sc.engine == "packet" and sc.n_flows == 12
    bottleneck = sc.echo()["topology"]["bottleneck"]
    assert bottleneck["rate"] == "10Mbps"
    assert sc.table["topology"]["access"]["delay"] == "1ms"  # the core's default
    assert ccscope.Scenario.from_dict(sc.echo()) == sc  # normalizing twice changes nothing


def break_(toml: str, old: str, new: str) -> str:
    assert old in toml, old
    return toml.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "field", "needle"),
    [
        ("seed = 3", "seed = 3\nsped = 4", "run.sped", "unknown key; allowed keys: duration"),
        ('rate = "2Mbps"', 'rate = "-2Mbps"', "topology.bottleneck.rate", "must be > 0"),
        ('rate = "2Mbps"', 'rate = "0Mbps"', "topology.bottleneck.rate", "must be > 0"),
        ('delay = "10ms"', 'delay = "0ms"', "topology.bottleneck.delay", "must be > 0"),
        ('delay = "10ms"', 'delay = "-1ms"', "topology.bottleneck.delay", "must be > 0"),
        ('rate = "2Mbps"', "rate = 2000000", "topology.bottleneck.rate", "with its unit"),
        (
            '{ kind = "droptail", limit = "20pkts" }',
            '{ kind = "red", min_th = 15, max_th = 5 }',
            "topology.bottleneck.queue.min_th",
            "min_th = 15: must be less than max_th = 5",
        ),
        (
            '{ kind = "droptail", limit = "20pkts" }',
            '{ kind = "red", max_p = 1.5 }',
            "topology.bottleneck.queue.max_p",
            "max_p = 1.5: must be in (0, 1]",
        ),
        (
            "queue = {",
            'loss = { kind = "bernoulli", p = 1.2 }, queue = {',
            "topology.bottleneck.loss.p",
            "p = 1.2: must be in [0, 1]",
        ),
        (
            "queue = {",
            'loss = { kind = "bernoulli", p = -0.1 }, queue = {',
            "topology.bottleneck.loss.p",
            "p = -0.1: must be in [0, 1]",
        ),
        (
            "queue = {",
            'loss = { kind = "bernoulli", p = true }, queue = {',
            "topology.bottleneck.loss.p",
            "p = true: must be a number",
        ),
        ("seed = 3", "seed = 1e39", "run.seed", "run.seed = 1e39: must be a whole number"),
        (
            'kind = "dumbbell"',
            'kind = "star"',
            "topology.kind",
            "expected one of: 'dumbbell', 'fat_link', 'parking_lot', 'custom'",
        ),
        (
            'kind = "poisson"',
            'kind = "ftp"',
            "flows[0].source.kind",
            "expected one of: 'cbr', 'poisson'",
        ),
        ("count = 2", "count = 0", "flows[0].count", "must be a whole number in [1, 1000000]"),
        ('duration = "5s"', 'duration = "5s"\nwarmup = "6s"', "run.warmup", "must be shorter"),
        ("count = 2", "count = 2\nhops = [0, 1]", "flows[0].hops", "parking_lot topology only"),
    ],
)
def test_bad_fields_are_named(small_toml, old, new, field, needle):
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(break_(small_toml, old, new))
    err = info.value
    assert err.field == field, str(err)
    assert needle in str(err)
    assert "\n" not in str(err)


def test_malformed_toml_is_one_message(small_toml):
    with pytest.raises(ScenarioError, match="malformed TOML"):
        ccscope.loads(small_toml + "\n[[flows]\n")


def test_errors_carry_the_file_path_value_and_allowed(tmp_path, small_toml):
    path = tmp_path / "s.toml"
    path.write_text(small_toml.replace('rate = "2Mbps"', 'rate = "1e300Tbps"', 1))
    with pytest.raises(ScenarioError) as info:
        ccscope.load(path)
    err = info.value
    assert (err.path, err.value, err.file) == ("topology.bottleneck.rate", "'1e300Tbps'", str(path))
    assert "too large" in err.allowed and str(err).startswith(f"{path}: ")


def test_controller_errors_name_the_path_as_written(small_toml):
    text = small_toml.replace(
        '{ kind = "poisson", rate = "1.5Mbps" }',
        '{ kind = "tcp", controller = { name = "gaimd", beta = 1.5 } }',
        1,
    )
    with pytest.raises(ccscope.ControllerError) as info:
        ccscope.loads(text)
    assert info.value.path == "flows[0].source.controller.beta"


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="no such scenario file"):
        ccscope.load(tmp_path / "nope.toml")


def test_missing_section_is_named():
    with pytest.raises(ScenarioError) as info:
        ccscope.loads('[run]\nduration = "1s"\n')
    assert info.value.field == "topology"


def test_custom_topology_checks_node_names():
    text = """
    [run]
    duration = "1s"
    [topology]
    kind = "custom"
    nodes = ["a", "b"]
    links = [{ from = "a", to = "b", rate = "1Mbps", delay = "5ms" }]
    [[flows]]
    source = { kind = "cbr", rate = "100kbps" }
    from = "a"
    to = "c"
    """
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(text.replace("\n    ", "\n"))
    assert info.value.field == "flows[0].to"
    assert "known nodes: a, b" in str(info.value)
