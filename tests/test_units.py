import pytest

from ccscope import units


@pytest.mark.parametrize(
    ("text", "bps"),
    [("15Mbps", 15e6), ("500kbps", 5e5), ("1Gbps", 1e9), ("2.5 Mb/s", 2.5e6), ("64bps", 64.0),
     ("1MBps", 8e6), ("1.544Mbps", 1.544e6)],
)
def test_rates(text, bps):
    assert units.rate_bps(text) == pytest.approx(bps)


@pytest.mark.parametrize(
    ("text", "ns"), [("20ms", 20_000_000), ("1.5s", 1_500_000_000), ("250us", 250_000),
                     ("7ns", 7), ("2min", 120_000_000_000)],
)
def test_times(text, ns):
    assert units.nanoseconds(text) == ns


@pytest.mark.parametrize(
    ("text", "size"), [("1000B", 1000), ("64KB", 64_000), ("1.5KiB", 1536), ("1MB", 1e6)],
)
def test_sizes(text, size):
    assert units.size_bytes(text) == size


def test_buffer_limits_in_packets_or_bytes():
    assert units.packets_or_bytes("50pkts") == ("packets", 50)
    assert units.packets_or_bytes(50) == ("packets", 50)
    assert units.packets_or_bytes("64KB") == ("bytes", 64_000)


@pytest.mark.parametrize(
    ("parse", "text", "needle"),
    [(units.rate_bps, 10, "with its unit"), (units.rate_bps, "10 furlongs", "unknown rate unit"),
     (units.seconds, "3 parsecs", "unknown time unit"), (units.size_bytes, "64kb", "write kB"),
     (units.seconds, "fast", "cannot read"), (units.rate_bps, "infMbps", "cannot read")],
)
def test_bad_units_are_refused_with_a_reason(parse, text, needle):
    with pytest.raises(ValueError, match=needle):
        parse(text)
