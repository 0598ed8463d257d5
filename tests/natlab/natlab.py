"""A NAT lab: home routers in network namespaces, a real STUN server on a small "internet".

* ``internet``: a namespace holding a bridge, 198.18.0.1/24 and 2001:db8:ff::1/64 (benchmarking
  and documentation ranges: never routed outside; 198.18.0.2 too), and coturn as a STUN-only
  server on port 3478 (TCP and UDP) of these three addresses. It routes IPv6 to the
  routers' inside prefixes.
* per player a router namespace (wan on the bridge, 198.18.0.(10+n)) and a player namespace
  behind it (192.168.n.2, default route via the router 192.168.n.1). Router kinds:

  ``eim``        MASQUERADE (Linux keeps the source port: endpoint-independent mapping) and a
                 stateful filter that drops unsolicited inbound, like most home routers;
  ``symmetric``  the same with ``--random-fully``: a new random port per connection
                 (address-and-port-dependent mapping);
  ``double``     a carrier-grade NAT namespace (198.18.0.(10+n) / 100.64.n.1) in front of an
                 ``eim`` home router (100.64.n.2 / 192.168.n.1), both masquerading and filtering;
  ``no-udp``     ``eim`` that also drops all UDP both ways;
  ``upnp``       ``eim`` whose filter and NAT are nftables chains that also jump to
                 miniupnpd's (Debian's miniupnpd-nftables, UPnP IGD and NAT-PMP on ``lan``).
                 Its wan is 198.20.0.(10+n): miniupnpd refuses to map on a reserved address
                 such as 198.18.0.0/15, and this one exists only inside the lab's namespaces;
  ``v6``         IPv6 only, no NAT: the player has 2001:db8:n::2, the router a stateful
                 ip6tables filter that drops unsolicited inbound.

Everything is removed at the end (processes first, then namespaces: their interfaces and
iptables rules go with them). Where namespaces cannot be made, the fixture FAILS saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

STUN_V4 = "198.18.0.1"
STUN_V4_B = "198.18.0.2"  # the same coturn on a second address: a second "server"
STUN_V6 = "2001:db8:ff::1"
STUN_PORT = 3478
KINDS = ("eim", "symmetric", "double", "no-udp", "v6", "upnp")
UPNP_NET = "198.20.0"  # the upnp routers' wan (see above)
# The upnp router's rules, in the chains miniupnpd's defaults name (table inet filter:
# miniupnpd, prerouting_miniupnpd, postrouting_miniupnpd). Its FORWARD consults miniupnpd's
# chain before dropping unsolicited inbound; its PREROUTING, miniupnpd's DNAT chain.
_UPNP_NFT = """
table inet filter {
  chain forward { type filter hook forward priority 0; policy accept;
    iifname "wan" ct state established,related accept
    iifname "wan" jump miniupnpd
    iifname "wan" drop
  }
  chain input { type filter hook input priority 0; policy accept;
    iifname "wan" ct state established,related accept
    iifname "wan" drop
  }
  chain prerouting { type nat hook prerouting priority -100; policy accept;
    iifname "wan" jump prerouting_miniupnpd
  }
  chain postrouting { type nat hook postrouting priority 100; policy accept;
    oifname "wan" jump postrouting_miniupnpd
    oifname "wan" masquerade
  }
  chain miniupnpd { }
  chain prerouting_miniupnpd { }
  chain postrouting_miniupnpd { }
}
"""


class LabError(RuntimeError):
    pass


def _run(*argv: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise LabError(f"{' '.join(argv)}: {(done.stderr or done.stdout).strip()}")


@dataclass
class Player:
    index: int
    kind: str
    namespace: str
    address: str  # the player's own address (private IPv4, or global-ish IPv6)
    public: str  # the address STUN should report: the outermost router's wan, or own v6
    routers: list[str]


class Lab:
    def __init__(self, tag: str, workdir: Path) -> None:
        self.tag = tag
        self.workdir = workdir
        self.internet = f"nli{tag}"
        self.namespaces: list[str] = []
        self.processes: list[subprocess.Popen[bytes]] = []
        self.players: list[Player] = []
        self.stun_log = workdir / "coturn.out"  # its log, on its stdout
        self.miniupnpd: dict[str, subprocess.Popen[bytes]] = {}  # router namespace -> daemon

    # -- helpers -----------------------------------------------------------------------------

    def ns(self, name: str, *argv: str) -> None:
        _run("ip", "netns", "exec", name, *argv)

    def exec_prefix(self, name: str) -> list[str]:
        return ["ip", "netns", "exec", name]

    def _add_ns(self, name: str) -> None:
        _run("ip", "netns", "add", name)
        self.namespaces.append(name)
        # No duplicate address detection: while a new link's addresses are tentative (1-2 s)
        # the first IPv6 packets over it are lost, and a test would wait for a retransmission.
        self.ns(name, "sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0",
                "net.ipv6.conf.all.accept_dad=0")  # fmt: skip
        _run("ip", "-n", name, "link", "set", "lo", "up")

    def _veth(self, a: str, a_if: str, b: str, b_if: str) -> None:
        # Made inside the namespaces: no name of ours ever appears in the root namespace.
        _run("ip", "-n", a, "link", "add", a_if, "type", "veth", "peer", "name", b_if, "netns", b)
        _run("ip", "-n", a, "link", "set", a_if, "up")
        _run("ip", "-n", b, "link", "set", b_if, "up")

    def _addr(self, name: str, cidr: str, dev: str) -> None:
        extra = ["nodad"] if ":" in cidr else []  # no 1-2 s of duplicate detection
        _run("ip", "-n", name, "addr", "add", cidr, "dev", dev, *extra)

    def _nat(self, router: str, *, random_fully: bool = False, v6: bool = False) -> None:
        """Masquerade out of ``wan`` (IPv4) and drop unsolicited inbound, as home routers do."""
        tables = "ip6tables" if v6 else "iptables"
        self.ns(router, "sysctl", "-qw",
                "net.ipv6.conf.all.forwarding=1" if v6 else "net.ipv4.ip_forward=1")  # fmt: skip
        if not v6:
            masq = ["-j", "MASQUERADE", *(["--random-fully"] if random_fully else [])]
            self.ns(router, tables, "-t", "nat", "-A", "POSTROUTING", "-o", "wan", *masq)
        for chain in ("FORWARD", "INPUT"):
            self.ns(router, tables, "-A", chain, "-i", "wan", "-m", "conntrack", "--ctstate",
                    "ESTABLISHED,RELATED", "-j", "ACCEPT")  # fmt: skip
            if v6:  # neighbour discovery and path MTU (RFC 6092 keeps them open)
                self.ns(router, tables, "-A", chain, "-i", "wan", "-p", "ipv6-icmp", "-j",
                        "ACCEPT")  # fmt: skip
            self.ns(router, tables, "-A", chain, "-i", "wan", "-j", "DROP")

    # -- building ----------------------------------------------------------------------------

    def create_internet(self) -> None:
        self._add_ns(self.internet)
        _run("ip", "-n", self.internet, "link", "add", "br0", "type", "bridge")
        _run("ip", "-n", self.internet, "link", "set", "br0", "up")
        self._addr(self.internet, f"{STUN_V4}/24", "br0")
        self._addr(self.internet, f"{STUN_V4_B}/24", "br0")
        self._addr(self.internet, f"{STUN_V6}/64", "br0")
        self._addr(self.internet, f"{UPNP_NET}.1/24", "br0")
        self.ns(self.internet, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
        self._start_stun()

    def _start_stun(self) -> None:
        # stdbuf: its log goes to a file, line by line (else it is lost in a buffer at exit).
        argv = [
            *self.exec_prefix(self.internet), "stdbuf", "-oL", "turnserver", "--stun-only",
            "--no-cli", "--no-tls", "--no-dtls", "--listening-ip", STUN_V4,
            "--listening-ip", STUN_V4_B, "--listening-ip", STUN_V6,
            "--listening-port", str(STUN_PORT), "--log-file", "stdout",
            "--simple-log", "--Verbose", "--db", str(self.workdir / "turndb"),
            "--pidfile", str(self.workdir / "turn.pid"), "--no-software-attribute",
        ]  # fmt: skip
        out = open(self.workdir / "coturn.out", "wb")  # noqa: SIM115 - the process keeps it
        self.stun = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        self.processes.append(self.stun)
        deadline = time.monotonic() + 10
        probe = (
            f"import socket\nsocket.create_connection(({STUN_V4!r}, {STUN_PORT}), 0.5).close()\n"
        )
        while time.monotonic() < deadline:
            done = subprocess.run(
                [*self.exec_prefix(self.internet), "python3", "-c", probe],
                capture_output=True,
                check=False,
            )
            if done.returncode == 0:
                return
            if self.processes[-1].poll() is not None:
                break
            time.sleep(0.1)
        raise LabError(f"coturn did not start: {(self.workdir / 'coturn.out').read_text()[-800:]}")

    def stun_server_log(self) -> str:
        """Stop the STUN server and return its log (it buffers its output until it exits)."""
        if self.stun.poll() is None:
            self.stun.terminate()
            self.stun.wait(5)
        return self.stun_log.read_text(errors="replace")

    def add_player(self, kind: str) -> Player:
        if kind not in KINDS:
            raise ValueError(f"router kind {kind!r}: one of {KINDS}")
        n = len(self.players) + 1
        router, player = f"nlr{self.tag}x{n}", f"nlp{self.tag}x{n}"
        self._add_ns(router)
        self._add_ns(player)
        routers = [router]
        outer = router
        if kind == "double":
            cgn = f"nlc{self.tag}x{n}"
            self._add_ns(cgn)
            routers.insert(0, cgn)
            outer = cgn
        self._veth(self.internet, f"w{n}", outer, "wan")
        _run("ip", "-n", self.internet, "link", "set", f"w{n}", "master", "br0")
        if kind == "v6":
            wan6 = f"2001:db8:ff::{10 + n}"
            self._addr(router, f"{wan6}/64", "wan")
            _run("ip", "-n", router, "-6", "route", "add", "default", "via", STUN_V6)
            _run("ip", "-n", self.internet, "-6", "route", "add", f"2001:db8:{n}::/64", "via",
                 wan6)  # fmt: skip
            self._veth(router, "lan", player, "eth0")
            self._addr(router, f"2001:db8:{n}::1/64", "lan")
            address = f"2001:db8:{n}::2"
            self._addr(player, f"{address}/64", "eth0")
            _run("ip", "-n", player, "-6", "route", "add", "default", "via", f"2001:db8:{n}::1")
            self._nat(router, v6=True)
            made = Player(n, kind, player, address, address, routers)
            self.players.append(made)
            return made
        public = f"{UPNP_NET if kind == 'upnp' else '198.18.0'}.{10 + n}"
        self._addr(outer, f"{public}/24", "wan")
        # the two halves of the internet reach each other on the bridge
        other = "198.18.0.0/24" if kind == "upnp" else f"{UPNP_NET}.0/24"
        _run("ip", "-n", outer, "route", "add", other, "dev", "wan", "src", public)
        if kind == "double":
            self._veth(outer, "isp", router, "wan")
            self._addr(outer, f"100.64.{n}.1/24", "isp")
            self._addr(router, f"100.64.{n}.2/24", "wan")
            _run("ip", "-n", router, "route", "add", "default", "via", f"100.64.{n}.1")
            self._nat(outer)
        self._veth(router, "lan", player, "eth0")
        self._addr(router, f"192.168.{n}.1/24", "lan")
        address = f"192.168.{n}.2"
        self._addr(player, f"{address}/24", "eth0")
        _run("ip", "-n", player, "route", "add", "default", "via", f"192.168.{n}.1")
        if kind == "upnp":
            self._upnp(router, n)
        else:
            self._nat(router, random_fully=kind == "symmetric")
        if kind == "no-udp":
            for chain in ("FORWARD", "INPUT"):
                self.ns(router, "iptables", "-I", chain, "-p", "udp", "-j", "DROP")
        made = Player(n, kind, player, address, public, routers)
        self.players.append(made)
        return made

    def _upnp(self, router: str, n: int, *, upnp: bool = True, natpmp: bool = True) -> None:
        self.ns(router, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        done = subprocess.run([*self.exec_prefix(router), "nft", "-f", "-"], input=_UPNP_NFT,
                              capture_output=True, text=True, check=False)  # fmt: skip
        if done.returncode != 0:
            raise LabError(f"nft: {done.stderr.strip()}")
        self.start_miniupnpd(router, n, upnp=upnp, natpmp=natpmp)

    def start_miniupnpd(self, router: str, n: int, *, upnp: bool, natpmp: bool) -> None:
        """(Re)start the router's miniupnpd, our own process (never a system service)."""
        old = self.miniupnpd.pop(router, None)
        if old is not None:
            old.terminate()
            old.wait(5)
        conf = self.workdir / f"miniupnpd{n}.conf"
        conf.write_text(
            "ext_ifname=wan\nlistening_ip=lan\n"
            f"enable_upnp={'yes' if upnp else 'no'}\nenable_natpmp={'yes' if natpmp else 'no'}\n"
            "secure_mode=yes\nsystem_uptime=no\n"
            f"uuid=00000000-0000-4000-8000-{n:012d}\n"
            f"lease_file={self.workdir}/miniupnpd{n}.leases\n"
            "allow 1024-65535 192.168.0.0/16 1024-65535\ndeny 0-65535 0.0.0.0/0 0-65535\n"
        )
        out = open(self.workdir / f"miniupnpd{n}.out", "wb")  # noqa: SIM115 - the process keeps it
        process = subprocess.Popen(
            [*self.exec_prefix(router), "miniupnpd", "-d", "-f", str(conf), "-P",
             str(self.workdir / f"miniupnpd{n}.pid")],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.processes.append(process)
        self.miniupnpd[router] = process
        deadline = time.monotonic() + 5
        log = self.workdir / f"miniupnpd{n}.out"
        ready = "Listening for NAT-PMP" if natpmp else "HTTP listening"
        while ready not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise LabError(f"miniupnpd did not start: {log.read_text()[-800:]}")
            time.sleep(0.05)

    def upnp_rules(self, player: Player) -> str:
        """The router's miniupnpd chains as nft lists them (its port mappings)."""
        done = subprocess.run(
            [*self.exec_prefix(player.routers[0]), "nft", "list", "chain", "inet", "filter",
             "prerouting_miniupnpd"], capture_output=True, text=True, check=False,
        )  # fmt: skip
        return done.stdout + done.stderr

    # -- tearing down ------------------------------------------------------------------------

    def spawn(self, player: Player, argv: list[str]) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [*self.exec_prefix(player.namespace), *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.processes.append(process)
        return process

    def delete(self) -> None:
        for process in self.processes:  # only the processes this lab started, by their pid
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(5)
        for name in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "delete", name], capture_output=True, check=False)
        self.namespaces.clear()


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "the NAT lab needs root (network namespaces, iptables)"
    for tool, package in (("ip", "iproute2"), ("iptables", "iptables"),
                          ("ip6tables", "iptables"), ("turnserver", "coturn"),
                          ("nft", "nftables"), ("miniupnpd", "miniupnpd-nftables")):  # fmt: skip
        if shutil.which(tool) is None:
            return f"the NAT lab needs {tool} (Debian package {package}), which is missing"
    return None


@pytest.fixture
def nat_lab(tmp_path: Path) -> Iterator[Lab]:
    """The internet namespace with its STUN server; add players with ``lab.add_player(kind)``.
    Fails (never skips) where the lab cannot be built."""
    why = _why_not()
    if why:
        pytest.fail(why)
    lab = Lab(f"{os.getpid() % 100_000}", tmp_path)
    try:
        try:
            lab.create_internet()
        except LabError as exc:
            pytest.fail(f"cannot build the NAT lab here: {exc}")
        yield lab
    finally:
        lab.delete()
