"""Punching through real home routers (network namespaces, iptables NAT, coturn as STUN): one
test per router kind. Each seat is a process inside its player namespace; this process carries
their rendezvous messages, as the table's relays would."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from natlab import STUN_PORT, STUN_V4, STUN_V4_B, STUN_V6, Lab, Player

from dealerless.node.identity import Identity

HELPER = Path(__file__).with_name("lab_peer.py")
STUN = f"{STUN_V4}:{STUN_PORT},{STUN_V4_B}:{STUN_PORT},[{STUN_V6}]:{STUN_PORT}"


def _pump(
    process: subprocess.Popen[bytes], name: str, out: queue.Queue[tuple[str, str, str]]
) -> None:
    assert process.stdout is not None
    for raw in process.stdout:
        kind, _, rest = raw.decode().rstrip("\n").partition(" ")
        out.put((name, kind, rest))
    out.put((name, "EOF", ""))


def run_pair(
    lab: Lab, a: Player, b: Player, *, idle: float = 0.0, portmap: bool = False
) -> dict[str, Any]:
    """Both seats gather, meet through us, punch; their READY and RESULT lines, by seat."""
    seeds = [Ed25519PrivateKey.generate() for _ in range(2)]
    keys = [Identity(k).public_key for k in seeds]
    raw = [k.private_bytes_raw().hex() for k in seeds]
    extra = ["--portmap"] if portmap else []
    procs = {
        "a": lab.spawn(a, [sys.executable, str(HELPER), "--seed", raw[0], "--peer",
                           keys[1].hex(), "--stun", STUN, "--idle", str(idle), *extra]),
        "b": lab.spawn(b, [sys.executable, str(HELPER), "--seed", raw[1], "--peer",
                           keys[0].hex(), "--stun", STUN, "--idle", str(idle), *extra]),
    }  # fmt: skip
    lines: queue.Queue[tuple[str, str, str]] = queue.Queue()
    for name, process in procs.items():
        threading.Thread(target=_pump, args=(process, name, lines), daemon=True).start()
    got: dict[str, Any] = {"a": {}, "b": {}}
    other = {"a": "b", "b": "a"}
    began = time.monotonic()
    deadline = began + 40
    while not all("RESULT" in got[n] for n in got):
        try:
            name, kind, rest = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            break
        if kind == "EOF":
            if "RESULT" not in got[name]:
                assert procs[name].stderr is not None
                got[name]["stderr"] = procs[name].stderr.read().decode()[-2000:]
                break
            continue
        if kind == "MSG":
            target = procs[other[name]].stdin
            assert target is not None
            target.write(f"MSG {rest}\n".encode())
            target.flush()
            continue
        got[name][kind] = json.loads(rest)
        if kind == "READY" and all("READY" in got[n] for n in got):
            for process in procs.values():  # both gathered: the rendezvous starts now
                assert process.stdin is not None
                process.stdin.write(b"GO\n")
                process.stdin.flush()
    got["seconds"] = round(time.monotonic() - began, 2)
    print(json.dumps(got, indent=1))  # shown with -s, and on failure
    for name in ("a", "b"):
        assert "RESULT" in got[name], f"seat {name} gave no result: {got[name]}"
    return got


def _punched(got: dict[str, Any]) -> None:
    for name in ("a", "b"):
        result = got[name]["RESULT"]
        assert result["ok"], result
    assert got["a"]["RESULT"]["exchanged"] and got["b"]["RESULT"]["exchanged"]
    assert got["a"]["RESULT"]["peer"] != got["b"]["RESULT"]["peer"]


def _stun_saw(lab: Lab, player: Player, got: dict[str, Any], seat: str) -> None:
    """The STUN server saw the router's public address, never the private one."""
    mappings = got[seat]["READY"]["mappings"]
    assert mappings, got[seat]["READY"]
    assert {m[0] for m in mappings.values()} == {player.public}


def test_eim_to_eim_punches_and_keeps_the_path_alive(nat_lab: Lab) -> None:
    a, b = nat_lab.add_player("eim"), nat_lab.add_player("eim")
    got = run_pair(nat_lab, a, b, idle=3.0)
    _punched(got)
    for seat, player in (("a", a), ("b", b)):
        _stun_saw(nat_lab, player, got, seat)
        assert not got[seat]["READY"]["symmetric"]
        assert got[seat]["RESULT"]["path"].startswith("stun 198.18.0.")
    # The idle round passed (3 s, longer than the 2 s idle timeout): keepalives held the path.
    assert len(got["a"]["RESULT"]["exchanged"]) == 2
    # What the STUN server learns: each router's public address and the mapped port of the
    # connection, never the private address behind it.
    log = nat_lab.stun_server_log()
    for seat, player in (("a", a), ("b", b)):
        port = got[seat]["READY"]["mappings"][f"{STUN_V4}:{STUN_PORT}"][1]
        assert f"remote {player.public}:{port}" in log, log[-2000:]
        assert player.address not in log


def test_symmetric_to_eim_fails_cleanly_within_the_bound(nat_lab: Lab) -> None:
    a, b = nat_lab.add_player("symmetric"), nat_lab.add_player("eim")
    got = run_pair(nat_lab, a, b)
    for seat in ("a", "b"):
        result = got[seat]["RESULT"]
        assert not result["ok"] and "peer" not in result, result
        # 3 attempts 1.5 s apart, then give up: no hang (plus the slack of a busy machine).
        assert result["punch_s"] < 3 * 1.5 + 1.0, result
    # Two STUN server addresses saw two different ports: the seat knows its router is
    # symmetric before it tries (a table could then leave the pair on the relays at once).
    assert got["a"]["READY"]["symmetric"] and not got["b"]["READY"]["symmetric"]


def test_double_nat_to_eim(nat_lab: Lab) -> None:
    a, b = nat_lab.add_player("double"), nat_lab.add_player("eim")
    got = run_pair(nat_lab, a, b)
    # Both Linux NATs keep the port: two endpoint-independent layers behave as one.
    _punched(got)
    _stun_saw(nat_lab, a, got, "a")
    assert got["a"]["READY"]["mappings"][f"{STUN_V4}:{STUN_PORT}"][0] == a.public


def test_router_dropping_udp_still_punches_over_tcp(nat_lab: Lab) -> None:
    a, b = nat_lab.add_player("no-udp"), nat_lab.add_player("eim")
    got = run_pair(nat_lab, a, b)
    _punched(got)


def test_ipv6_behind_stateful_firewalls_both_dial_out(nat_lab: Lab) -> None:
    a, b = nat_lab.add_player("v6"), nat_lab.add_player("v6")
    got = run_pair(nat_lab, a, b)
    _punched(got)
    for seat, player in (("a", a), ("b", b)):
        _stun_saw(nat_lab, player, got, seat)  # over IPv6: the player's own address, no NAT
    assert got["a"]["RESULT"]["path"].startswith(f"v6 [{b.address}]")
    assert got["b"]["RESULT"]["path"].startswith(f"v6 [{a.address}]")


def test_the_firewall_really_drops_unsolicited_inbound(nat_lab: Lab) -> None:
    """A plain connect from one player to the other's public address does not get through
    (so the punches above are punches, not open doors)."""
    a, b = nat_lab.add_player("eim"), nat_lab.add_player("eim")
    c, d = nat_lab.add_player("v6"), nat_lab.add_player("v6")
    probe = (
        "import socket,sys\ntry:\n"
        "    socket.create_connection((sys.argv[1], 9), 1.0).close(); print('open')\n"
        "except OSError as e:\n    print(type(e).__name__)"
    )
    for src, dst in ((b, a.public), (d, c.address)):
        done = subprocess.run(
            [*nat_lab.exec_prefix(src.namespace), sys.executable, "-c", probe, dst],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.stdout.strip() == "TimeoutError", (dst, done.stdout)  # dropped silently


@pytest.mark.parametrize("kind", ["eim"])
def test_lab_is_gone_afterwards(kind: str, tmp_path: Path) -> None:
    import os

    lab = Lab(f"{os.getpid() % 100_000}z", tmp_path)
    lab.create_internet()
    lab.add_player(kind)
    names = list(lab.namespaces)
    lab.delete()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not any(name in listed.split() for name in names)
    assert all(p.poll() is not None for p in lab.processes)
