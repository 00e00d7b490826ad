"""Ray, started the way our tests start it (``ray_sandbox`` in conftest.py), talks over
loopback only: a head and a second node joined with ``ray start``, a driver running a task
on each, and every TCP connection any of them holds has loopback at both ends."""

from __future__ import annotations

import ipaddress
import json
import textwrap

from ray_sandbox import RaySandbox, ray_python

# Run by the driver inside the namespace, while both nodes are up.
_PROBE = textwrap.dedent(
    """
    import json, socket, time
    import ray

    ray.init(address="auto")
    deadline = time.monotonic() + 60
    while len([n for n in ray.nodes() if n["Alive"]]) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    nodes = [n for n in ray.nodes() if n["Alive"]]

    @ray.remote(num_cpus=1)
    def where():
        return ray.util.get_node_ip_address(), socket.gethostname()

    placed = [
        where.options(
            scheduling_strategy=ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy(
                node["NodeID"], soft=False
            )
        ).remote()
        for node in nodes
    ]
    ran_at = [address for address, _ in ray.get(placed, timeout=120)]
    tables = {name: open(f"/proc/net/{name}").read() for name in ("tcp", "tcp6")}
    print(json.dumps({
        "node_addresses": [n["NodeManagerAddress"] for n in nodes],
        "ran_at": ran_at,
        "tables": tables,
    }))
    ray.shutdown()
    """
)

_CLUSTER = textwrap.dedent(
    """
    set -eu
    ray="$(dirname "$1")/ray"
    trap '"$ray" stop --force >/dev/null 2>&1 || true' EXIT
    store=100000000
    "$ray" start --head --port=6390 --num-cpus=1 --object-store-memory=$store \\
        --include-dashboard=false --disable-usage-stats >&2
    "$ray" start --address=127.0.0.1:6390 --num-cpus=1 --object-store-memory=$store \\
        --disable-usage-stats >&2
    "$1" -c "$2"
    """
)

_LISTEN = 0x0A  # /proc/net/tcp's state code for a listening socket


def _address(field: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An address of /proc/net/tcp* ("0100007F:1F90"): 32-bit words in host (little) order."""
    hex_address = field.split(":")[0]
    words = [bytes.fromhex(hex_address[i : i + 8])[::-1] for i in range(0, len(hex_address), 8)]
    return ipaddress.ip_address(b"".join(words))


def connections(table: str) -> list[tuple[str, str]]:
    """The (local, remote) endpoints of every socket in a table that is not listening."""
    held = []
    for line in table.splitlines()[1:]:
        fields = line.split()
        if int(fields[3], 16) != _LISTEN:
            held.append((fields[1], fields[2]))
    return held


def _loopback(field: str) -> bool:
    address = _address(field)
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def test_proc_net_tcp_addresses_decode():
    assert str(_address("0100007F:1F90")) == "127.0.0.1"
    assert str(_address("00000000000000000000000001000000:0050")) == "::1"
    assert _loopback("0000000000000000FFFF00000100007F:0050")  # ::ffff:127.0.0.1
    assert not _loopback("0A00020F:0016")  # 15.2.0.10
    table = (
        "  sl  local_address rem_address   st\n"
        "   0: 0100007F:1F90 00000000:0000 0A\n"
        "   1: 0A00020F:D431 0100007F:1F90 01\n"
    )
    assert connections(table) == [("0A00020F:D431", "0100007F:1F90")]


def test_a_ray_cluster_in_the_sandbox_holds_loopback_connections_only(ray_sandbox: RaySandbox):
    python = ray_python()
    run = ray_sandbox.run(["bash", "-c", _CLUSTER, "cluster", str(python), _PROBE], timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["node_addresses"] == ["127.0.0.1", "127.0.0.1"]
    assert report["ran_at"] == ["127.0.0.1", "127.0.0.1"]
    held = [pair for table in report["tables"].values() for pair in connections(table)]
    assert len(held) >= 4  # the nodes and the driver do talk to each other
    outside = [pair for pair in held if not all(map(_loopback, pair))]
    assert outside == []
