"""`[trace] pcap`: the packets crossing a link as pcap-ng, read back with tshark (Debian package
tshark, `make tshark`) and checked against the run's own counters."""

from __future__ import annotations

import csv
import io
import shutil
import struct
import subprocess
import sys

import pytest

import ccscope
from ccscope.errors import ScenarioError

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (`make tshark` installs Debian's package)"
)

#: Default packet size (1000 B) less 40 B of IPv4 and TCP headers: what one TCP sequence number
#: stands for in a capture (ccscope-core net/pcap.rs).
SEGMENT = 960


def scenario(queue: dict, ecn: bool = False, pcap=("bottleneck", "bottleneck.reverse")) -> dict:
    """Two TCP SACK flows and a TFRC flow over a 5 Mb/s bottleneck that drops (or marks), the
    senders stopped 2 s before the end so that every packet has left the network by then."""
    tcp = {"source": {"kind": "tcp", "variant": "sack"}, "count": 2, "stop": "8s", "ecn": ecn}
    return {
        "run": {"duration": "10s", "seed": 3},
        "topology": {
            "kind": "dumbbell",
            "access": {"rate": "100Mbps", "delay": "1ms"},
            "bottleneck": {"rate": "5Mbps", "delay": "10ms", "queue": queue},
        },
        "flows": [tcp, {"source": {"kind": "rate", "controller": "tfrc"}, "stop": "8s"}],
        "trace": {"pcap": list(pcap)},
    }


DROPTAIL = {"kind": "droptail", "limit": 20}


def tshark(path, *fields: str, display: str | None = None) -> list[dict[str, str]]:
    """One row per packet of the capture at `path`, the given fields by name (sequence numbers
    and SACK edges as written, not relative to the first one seen)."""
    cmd = [TSHARK, "-r", str(path), "-o", "tcp.relative_sequence_numbers:FALSE"]
    cmd += ["-T", "fields", "-E", "header=y", "-E", "separator=,"]
    cmd += ["-E", "occurrence=a", "-E", "aggregator=;", "-E", "quote=d"]
    if display:
        cmd += ["-Y", display]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=120).stdout
    return list(csv.DictReader(io.StringIO(out)))


def link(result: ccscope.Result, name: str) -> dict:
    return next(lk for lk in result.raw["links"] if lk["name"] == name)


def hosts(flow: int) -> tuple[str, str]:
    """The addresses a capture gives flow `flow`'s sender and receiver (docs/scenarios.md)."""
    return f"10.1.{flow // 256 % 256}.{flow % 256}", f"10.2.{flow // 256 % 256}.{flow % 256}"


@pytest.fixture(scope="module")
def droptail() -> ccscope.Result:
    return ccscope.run(scenario(DROPTAIL))


@needs_tshark
def test_the_capture_holds_every_packet_that_left_the_link_and_nothing_else(droptail):
    r = droptail
    assert sorted(r.pcap) == ["bottleneck", "bottleneck.reverse"]
    assert all(f["in_flight"] == 0 for f in r.raw["flows"])
    for name, path in r.pcap.items():
        rows = tshark(path, "frame.len")
        assert len(rows) == link(r, name)["exits"] > 1000
    # Byte counts: a frame is the packet's size plus 14 B of Ethernet header (a data packet's
    # size carries its headers; an ACK with SACK blocks is as long as its headers).
    data = tshark(r.pcap["bottleneck"], "frame.len")
    assert sum(int(x["frame.len"]) - 14 for x in data) == link(r, "bottleneck")["tx_bytes"]


@needs_tshark
def test_the_conversations_are_the_flows(droptail):
    r = droptail
    rows = tshark(r.pcap["bottleneck"], "ip.src", "ip.dst", "ip.proto")
    seen: dict[tuple[str, str, str], int] = {}
    for x in rows:
        key = (x["ip.src"], x["ip.dst"], x["ip.proto"])
        seen[key] = seen.get(key, 0) + 1
    want = {}
    for i, f in enumerate(r.raw["flows"]):
        proto = "6" if i < 2 else "17"
        d = f["data"]
        want[(*hosts(i), proto)] = d["sent_pkts"] - d["queue_drops"] - d["link_losses"]
    assert seen == want
    # tshark's own conversation table: one TCP conversation per TCP flow, one UDP for TFRC.
    conv = subprocess.run(
        [TSHARK, "-r", str(r.pcap["bottleneck"]), "-q", "-z", "conv,tcp", "-z", "conv,udp"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for i in range(3):
        src, dst = hosts(i)
        assert f"{src}:10000" in conv and f"{dst}:20000" in conv


def test_sequence_analysis_agrees_with_the_run(droptail):
    """A data segment below the highest sequence number seen before it on the link is one tshark
    calls a retransmission (or out-of-order, or spurious). The link is first in, first out and the
    access links lose nothing, so first transmissions cross in the order they were sent: such a
    segment is a retransmission whose original or some later segment of the flow crossed before
    it. So tshark's count is at most the sender's retransmissions (those the queue dropped, and
    those sent after every segment above them was dropped, are not seen as such)."""
    if TSHARK is None:
        pytest.skip("tshark is not installed (`make tshark` installs Debian's package)")
    r = droptail
    fields = ("ip.src", "tcp.seq_raw", "tcp.len", "tcp.analysis.flags")
    for i in range(2):
        src, dst = hosts(i)
        rows = tshark(r.pcap["bottleneck"], *fields, display=f"ip.src=={src} && tcp")
        assert rows and all(int(x["tcp.len"]) == SEGMENT for x in rows)
        below, top = 0, -1
        for x in rows:
            seq = int(x["tcp.seq_raw"]) // SEGMENT
            below += seq < top
            top = max(top, seq + 1)
        flagged = tshark(
            r.pcap["bottleneck"],
            "frame.number",
            display=f"ip.src=={src} && (tcp.analysis.retransmission || "
            "tcp.analysis.out_of_order || tcp.analysis.spurious_retransmission)",
        )
        sender = r.raw["flows"][i]["sender"]
        assert 0 < len(flagged) == below <= sender["retransmits"]
        # The last cumulative ACK that crossed the reverse bottleneck is the receiver's in-order
        # count, in bytes.
        acks = tshark(r.pcap["bottleneck.reverse"], "tcp.ack_raw", display=f"ip.src=={dst}")
        goodput = r.raw["flows"][i]["receiver"]["goodput_pkts"]
        assert max(int(x["tcp.ack_raw"]) for x in acks) == goodput * SEGMENT


@needs_tshark
def test_sack_blocks_are_read_above_the_cumulative_ack(droptail):
    r = droptail
    rows = tshark(
        r.pcap["bottleneck.reverse"],
        "tcp.ack_raw",
        "tcp.options.sack_le",
        "tcp.options.sack_re",
        display="tcp.options.sack",
    )
    assert len(rows) > 10
    for x in rows:
        ack = int(x["tcp.ack_raw"])
        for le, re in zip(
            x["tcp.options.sack_le"].split(";"), x["tcp.options.sack_re"].split(";"), strict=True
        ):
            assert ack < int(le) < int(re)
            assert int(le) % SEGMENT == 0 and int(re) % SEGMENT == 0


@needs_tshark
def test_ecn_marks_and_echoes_are_in_the_headers():
    red = {"kind": "red", "limit": 60, "min_th": 5, "max_th": 15, "ecn": True}
    r = ccscope.run(scenario(red, ecn=True))
    marks = link(r, "bottleneck")["marks"]
    assert marks > 0
    ce = tshark(r.pcap["bottleneck"], "frame.number", display="ip.dsfield.ecn == 3")
    # RED marks as it admits a packet, and nothing drops the packet after that.
    assert len(ce) == marks
    ect = tshark(r.pcap["bottleneck"], "frame.number", display="tcp && ip.dsfield.ecn == 2")
    assert len(ect) > 1000
    ece = tshark(r.pcap["bottleneck.reverse"], "frame.number", display="tcp.flags.ece == 1")
    assert len(ece) > 0


def test_same_seed_same_bytes_and_the_capture_changes_no_result(tmp_path):
    table = scenario(DROPTAIL, pcap=["bottleneck"])
    a, b = ccscope.run(table), ccscope.run(table)
    assert a.pcap["bottleneck"].read_bytes() == b.pcap["bottleneck"].read_bytes()
    plain = dict(table)
    plain.pop("trace")
    c = ccscope.run(plain)
    assert a.raw["flows"] == c.raw["flows"] and a.raw["links"] == c.raw["links"]
    written = a.write(tmp_path / "run")
    assert tmp_path / "run" / "pcap" / "bottleneck.pcapng" in written


def test_the_cli_writes_pcap_and_refuses_an_unknown_link_with_one_line(tmp_path, small_toml):
    ok = tmp_path / "ok.toml"
    # The small scenario ends with its [trace] table.
    ok.write_text(small_toml + 'pcap = "bottleneck"\n')
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ccscope",
            "run",
            str(ok),
            "-q",
            "--no-plot",
            "-o",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "o" / "pcap" / "bottleneck.pcapng").stat().st_size > 1000
    bad = tmp_path / "bad.toml"
    bad.write_text(small_toml + 'pcap = ["bottleneck", "hop7"]\n')
    for cmd in (["run", str(bad), "-o", str(tmp_path / "b")], ["validate", str(bad)]):
        p = subprocess.run([sys.executable, "-m", "ccscope", *cmd], capture_output=True, text=True)
        assert p.returncode == 2, p.stderr
        assert "trace.pcap = 'hop7' is not known" in p.stderr and "'bottleneck'" in p.stderr
        assert p.stderr.strip().count("\n") == 0, p.stderr


@pytest.mark.realtime
@needs_tshark
def test_the_udp_engine_writes_the_same_from_its_emulator():
    """The udp engine's emulator is the packet engine's network run against the wall clock:
    its captures come from the same code, with the packets' real arrival times."""
    table = scenario(DROPTAIL)
    table["run"] |= {"engine": "udp", "duration": "3s"}
    for f in table["flows"]:
        f["stop"] = "2s"
    r = ccscope.run(table)
    for name, path in r.pcap.items():
        assert len(tshark(path, "frame.number")) == link(r, name)["exits"] > 100
    rows = tshark(r.pcap["bottleneck"], "ip.src", "ip.proto")
    assert {(x["ip.src"], x["ip.proto"]) for x in rows} == {
        (hosts(0)[0], "6"),
        (hosts(1)[0], "6"),
        (hosts(2)[0], "17"),
    }


@pytest.mark.parametrize(
    ("pcap", "says"),
    [
        ([], "trace.pcap = []: at least one link name"),
        (["bottleneck", "bottleneck"], "each link named once"),
        (["hop0"], "trace.pcap = 'hop0' is not known; expected one of: 'bottleneck'"),
        (7, 'trace.pcap = 7: must be a link name ("bottleneck") or a list of link names'),
    ],
)
def test_bad_captures_are_named_in_one_line(pcap, says):
    table = scenario(DROPTAIL)
    table["trace"]["pcap"] = pcap
    with pytest.raises(ScenarioError) as e:
        ccscope.run(table)
    assert e.value.field == "trace.pcap" and says in str(e.value)
    assert "\n" not in str(e.value)


def test_a_parking_lot_hop_and_an_access_link_are_captured():
    table = {
        "run": {"duration": "2s", "seed": 1},
        "topology": {
            "kind": "parking_lot",
            "hops": [{"rate": "10Mbps", "delay": "5ms"}, {"rate": "10Mbps", "delay": "5ms"}],
        },
        "flows": [{"source": {"kind": "cbr", "rate": "1Mbps"}, "hops": [1, 1]}],
        "trace": {"pcap": ["hop1", "flow0.left"]},
    }
    r = ccscope.run(table)
    delivered = r.raw["flows"][0]["data"]["delivered_pkts"]
    assert delivered > 100
    for name, path in r.pcap.items():
        kinds = [kind for kind, _ in pcapng_blocks(path.read_bytes())]
        assert kinds[:2] == [0x0A0D0D0A, 1]
        assert kinds.count(6) == link(r, name)["exits"] == delivered
        # The interface's name option (code 2) is the link's.
        idb = next(body for kind, body in pcapng_blocks(path.read_bytes()) if kind == 1)
        assert idb[8:12] == (2).to_bytes(2, "little") + len(name).to_bytes(2, "little")
        assert idb[12 : 12 + len(name)] == name.encode()


def pcapng_blocks(data: bytes) -> list[tuple[int, bytes]]:
    """The blocks of a little-endian pcap-ng file (type, body), each checked: a length that is
    a multiple of 4 and the same at both ends (draft-ietf-opsawg-pcapng §3.1)."""
    out, at = [], 0
    while at < len(data):
        kind, length = struct.unpack_from("<II", data, at)
        assert length % 4 == 0 and struct.unpack_from("<I", data, at + length - 4)[0] == length
        out.append((kind, data[at + 8 : at + length - 4]))
        at += length
    return out
