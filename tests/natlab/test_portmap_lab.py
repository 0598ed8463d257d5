"""Port mappings from a real router (miniupnpd in the lab's "upnp" router): UPnP IGD, NAT-PMP
and PCP each on their own, a symmetric NAT reaching the mapped port, and the mapping gone
after the seat ends."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from natlab import UPNP_NET, Lab
from test_nat_lab import run_pair

PROBE = """
import json, sys, trio
from dealerless.node.punch.portmap import natpmp_map, pcp_map, upnp_map, default_gateway
async def main():
    port = int(sys.argv[2])
    if sys.argv[1] == "upnp":
        m = await upnp_map(port)
    elif sys.argv[1] == "pcp":
        m = await pcp_map(port, gateway=default_gateway())
    else:
        m = await natpmp_map(port, gateway=default_gateway())
    print(json.dumps([m.protocol, m.external_address, m.external_port, m.lifetime]), flush=True)
    sys.stdin.readline()  # the test looks at the router meanwhile
    await m.release()
trio.run(main)
"""


def _map_with(lab: Lab, protocol: str) -> None:
    player = lab.add_player("upnp")
    router = player.routers[0]
    # miniupnpd serves PCP where it serves NAT-PMP (one port, 5351)
    lab.start_miniupnpd(router, player.index, upnp=protocol == "upnp",
                        natpmp=protocol in ("natpmp", "pcp"))  # fmt: skip
    probe = subprocess.Popen(
        [*lab.exec_prefix(player.namespace), sys.executable, "-c", PROBE, protocol, "40123"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert probe.stdout is not None and probe.stdin is not None
    got = probe.stdout.readline()
    assert got, probe.stderr.read() if probe.stderr else ""
    kind, address, port, lifetime = json.loads(got)
    assert (kind, address, port) == (protocol, player.public, 40123)
    assert player.public.startswith(UPNP_NET) and 0 < lifetime <= 600
    assert f"dnat ip to {player.address}:40123" in lab.upnp_rules(player)
    probe.stdin.write("\n")
    probe.stdin.flush()
    assert probe.wait(10) == 0
    assert "dnat" not in lab.upnp_rules(player)  # released


def test_upnp_igd_maps_the_port(nat_lab: Lab) -> None:
    _map_with(nat_lab, "upnp")


def test_natpmp_maps_the_port(nat_lab: Lab) -> None:
    _map_with(nat_lab, "natpmp")


def test_pcp_maps_the_port(nat_lab: Lab) -> None:
    _map_with(nat_lab, "pcp")


def test_symmetric_reaches_the_mapped_port_and_the_mapping_goes(nat_lab: Lab) -> None:
    a, b = nat_lab.add_player("symmetric"), nat_lab.add_player("upnp")
    got = run_pair(nat_lab, a, b, portmap=True)
    ready = got["b"]["READY"]
    assert ready["mapping"][1:] == [b.public, ready["port"]], ready
    assert f"mapped {b.public}:{ready['port']}" in ready["candidates"]
    for seat in ("a", "b"):
        assert got[seat]["RESULT"]["ok"], got[seat]
    assert got["a"]["RESULT"]["path"] == f"mapped {b.public}:{ready['port']}"
    # the seats have ended: the mapping is gone from the router (miniupnpd takes the delete
    # in its own time: on a loaded machine the rule was read once before it had)
    deadline = time.monotonic() + 10.0
    while "dnat" in nat_lab.upnp_rules(b) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "dnat" not in nat_lab.upnp_rules(b), nat_lab.upnp_rules(b)
