"""Which network address a connection speaks for: the peer itself, or, behind trusted proxies, the client they
forward (``X-Forwarded-For``, ``X-Real-IP``), counted so that one machine is one place (an IPv6 address by its /64
network). The class rounds' join limits count by it (:mod:`mvlab.ui.identity`, :meth:`mvlab.store.ClassRounds.join`);
``mvlab serve`` checks ``MVLAB_TRUSTED_PROXIES`` when it starts."""

from __future__ import annotations

import functools
import ipaddress
import os

__all__ = ["TRUSTED_PROXIES_DEFAULT", "trusted_proxies", "counted_address", "forwarded_client"]


def _ip(text) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(str(text).strip())
    except ValueError:
        return None


TRUSTED_PROXIES_DEFAULT = "127.0.0.0/8,::1"
"""The proxies whose forwarded addresses are believed when ``MVLAB_TRUSTED_PROXIES`` is not set: this machine."""


def trusted_proxies(text: str | None = None) -> tuple:
    """The networks of ``MVLAB_TRUSTED_PROXIES`` (or ``text``), comma-separated addresses or networks; ValueError
    naming the one that is neither."""
    return _networks(os.environ.get("MVLAB_TRUSTED_PROXIES", TRUSTED_PROXIES_DEFAULT) if text is None else text)


@functools.cache  # a pure function of a short text (one per environment): every join of a class asks it
def _networks(text: str) -> tuple:
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"MVLAB_TRUSTED_PROXIES: {part!r} is not an address or a network (e.g. 127.0.0.1 or "
                             "10.0.0.0/8).") from None
    return tuple(out)


def counted_address(address) -> str:
    """How an address is counted: an IPv4 address as itself (an IPv4-mapped IPv6 one too), an IPv6 address as its
    /64 network."""
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def forwarded_client(peer, forwarded_for: str | None, real_ip: str | None, trusted: tuple) -> str | None:
    """The client a connection speaks for (see the module docstring): ``peer`` itself unless it is a trusted proxy,
    then the right-most address of ``forwarded_for`` that is not one, else ``real_ip``; counted as
    :func:`counted_address` says. None when every hop is a trusted proxy (this machine: not counted by address) or
    an address cannot be read."""
    def is_trusted(a) -> bool:
        return any(a in net for net in trusted if a.version == net.version)

    chain = [_ip(peer)] if peer else [None]
    if chain[0] is None:
        return None
    if not is_trusted(chain[0]):
        return counted_address(chain[0])
    hops = [h for h in (forwarded_for or "").split(",") if h.strip()]
    if not hops and real_ip:
        hops = [real_ip]
    for hop in reversed(hops):
        address = _ip(hop)
        if address is None:
            return None  # a proxy wrote what is not an address: not counted, rather than counted wrongly
        if not is_trusted(address):
            return counted_address(address)
    return None
