"""Which address a connection is counted under (issue #71 items 1 and 9): forwarded addresses believed only from a
trusted proxy, the right-most hop that is not one, IPv6 by its /64 network; and the join limits of a round by
address, per minute and in all."""

from __future__ import annotations

import pytest

from mvlab.core.addresses import counted_address, forwarded_client, trusted_proxies
from mvlab.store import ClassRounds, RoundError

LOCAL = trusted_proxies("127.0.0.0/8,::1")


def test_a_forwarded_address_is_believed_from_a_trusted_proxy_only():
    """A browser that connects directly from another machine is counted under its own address whatever headers it
    sends; behind this machine's proxy (nginx appends the address it saw), the right-most hop that is not a trusted
    proxy, so a forged left part is never reached. Fails when the headers are believed from any peer (tried: the
    peer's trust not checked: a student forging X-Forwarded-For: 1.2.3.4 took a new address for every tab)."""
    assert forwarded_client("203.0.113.9", "1.2.3.4", "5.6.7.8", LOCAL) == "203.0.113.9"
    assert forwarded_client("127.0.0.1", "1.2.3.4, 198.51.100.7", "198.51.100.7", LOCAL) == "198.51.100.7"
    assert forwarded_client("127.0.0.1", None, "198.51.100.7", LOCAL) == "198.51.100.7"  # nginx's X-Real-IP alone
    # a TLS proxy on this machine in front of mvlab serve's nginx: nginx sees 127.0.0.1 and appends it
    assert forwarded_client("127.0.0.1", "198.51.100.7, 127.0.0.1", "127.0.0.1", LOCAL) == "198.51.100.7"
    assert forwarded_client("127.0.0.1", "127.0.0.1", "127.0.0.1", LOCAL) is None  # this machine: not counted
    assert forwarded_client("127.0.0.1", "not-an-address", None, LOCAL) is None
    assert forwarded_client(None, "1.2.3.4", None, LOCAL) is None
    # a proxy on another machine, declared
    other = trusted_proxies("127.0.0.1, 10.0.0.0/8")
    assert forwarded_client("10.1.2.3", "198.51.100.7", None, other) == "198.51.100.7"
    assert forwarded_client("10.1.2.3", "198.51.100.7", None, LOCAL) == "10.1.2.3"  # not declared: itself


def test_ipv6_counts_by_network_and_a_wrong_setting_is_said():
    """Fails when IPv6 addresses are counted one by one (tried: counted_address returning the address: a /64 gave
    every tab a new address)."""
    a = forwarded_client("2001:db8:1:2::10", None, None, LOCAL)
    b = forwarded_client("2001:db8:1:2:ffff::1", None, None, LOCAL)
    assert a == b == "2001:db8:1:2::/64"
    assert forwarded_client("2001:db8:1:3::10", None, None, LOCAL) != a
    assert forwarded_client("::ffff:198.51.100.7", None, None, LOCAL) == "198.51.100.7"
    assert forwarded_client("::1", "2001:db8:9::1", None, LOCAL) == "2001:db8:9::/64"
    import ipaddress

    assert counted_address(ipaddress.ip_address("192.0.2.1")) == "192.0.2.1"
    with pytest.raises(ValueError, match="MVLAB_TRUSTED_PROXIES: 'nginx' is not an address or a network"):
        trusted_proxies("127.0.0.1, nginx")


def test_one_address_brings_a_class_not_a_flood(store_location):
    """New browsers from one address are limited per minute and in all per round, in words; another address and a
    browser that joined before are not held back. Fails without the total (tried: browsers_per_address ignored:
    at 120 a minute one address brought 600 browsers in five minutes)."""
    rounds = ClassRounds(store_location, new_per_address=120, browsers_per_address=300, join_window=60)
    code = rounds.start("dvs").round.code
    admitted = 0
    for minute in range(5):
        for i in range(130):
            try:
                rounds.join(code, f"bot{minute}-{i}", "198.51.100.7", now=1000.0 + 60 * minute + i * 0.1)
                admitted += 1
            except RoundError as exc:
                assert "from your network address" in str(exc)
    assert admitted == 300
    with pytest.raises(RoundError, match="300 students have joined this round from your network address, the most"):
        rounds.join(code, "late", "198.51.100.7", now=2000.0)
    rounds.join(code, "bot0-0", "198.51.100.7", now=2000.0)  # joined before: a reload keeps its place
    rounds.join(code, "elsewhere", "203.0.113.1", now=2000.0)
