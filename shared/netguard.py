"""Pure SSRF decisions: which URLs may be fetched and which addresses may be connected to.

Shared by everything that reaches the web on the model's behalf (the Searcher's `web_fetch`, the browser's egress
guard), so one rule and one setting, `WEB_FETCH_ALLOWED_HOSTS`, decide for all of them. No I/O here. `parse_target` normalises a URL (http/https only, no user info, host lower-cased, trailing dot
dropped) and recognises hosts that are IP literals in any form a resolver would accept: dotted, IPv6, and the
WHATWG/inet_aton forms (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`). `refusal_reason` says why an address
must not be reached (loopback, private, link-local, multicast, unspecified, reserved, CGNAT, cloud metadata,
and IPv4 addresses hidden inside IPv6 ones); `check_addresses` applies it to every resolved address of a host,
with the `WEB_FETCH_ALLOWED_HOSTS` exemptions.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
_DEFAULT_PORTS = {"http": 80, "https": 443}


class BadURL(ValueError):
    """The text is not an http(s) URL that may be fetched; the message says why."""


class AddressRefused(ValueError):
    """The URL's host is, or resolves to, an address that must not be reached."""


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str
    port: int
    literal: IPAddress | None
    """The address when the host is an IP literal (then there is nothing to resolve)."""

    @property
    def request_target(self) -> str:
        """Path and query, as sent on the request line."""
        return httpx.URL(self.url).raw_path.decode("ascii")

    @property
    def host_header(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return shown if self.port == _DEFAULT_PORTS[self.scheme] else f"{shown}:{self.port}"


def parse_ipv4_literal(host: str) -> ipaddress.IPv4Address | None:
    """The address a WHATWG URL parser (and inet_aton) reads in `host`, or None if it is a name.

    A host whose last label is a number is an IPv4 address; a malformed one is an error, not a name.
    """
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if not parts or not _looks_numeric(parts[-1]):
        return None
    if len(parts) > 4:
        raise BadURL(f"{host!r} is not a valid IPv4 address.")
    numbers = [_parse_number(part, host) for part in parts]
    for number in numbers[:-1]:
        if number > 255:
            raise BadURL(f"{host!r} is not a valid IPv4 address.")
    if numbers[-1] >= 256 ** (5 - len(numbers)):
        raise BadURL(f"{host!r} is not a valid IPv4 address.")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number * 256 ** (3 - index)
    return ipaddress.IPv4Address(value)


def _looks_numeric(label: str) -> bool:
    if label.lower().startswith("0x"):
        return all(char in "0123456789abcdefABCDEF" for char in label[2:])
    return label != "" and label.isascii() and label.isdigit()


def _parse_number(part: str, host: str) -> int:
    try:
        if part.lower().startswith("0x"):
            return int(part[2:], 16) if part[2:] else 0
        if len(part) > 1 and part.startswith("0"):
            return int(part[1:], 8)
        return int(part, 10)
    except ValueError:
        raise BadURL(f"{host!r} is not a valid IPv4 address.") from None


def parse_literal(host: str) -> IPAddress | None:
    """`host` as an IP address if it is one (IPv6 with or without brackets, any IPv4 form), else None."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if ":" in bare:
        if "%" in bare:
            raise BadURL("IPv6 addresses with a zone (%…) are not fetched.")
        try:
            return ipaddress.IPv6Address(bare)
        except ValueError:
            raise BadURL(f"{host!r} is not a valid IPv6 address.") from None
    return parse_ipv4_literal(bare)


def parse_target(raw: str) -> Target:
    """Normalise `raw` into a fetchable target; `BadURL` with a reason otherwise. A bare host gets https://."""
    text = raw.strip()
    if not text:
        raise BadURL("The URL is empty.")
    if "://" not in text:
        text = "https://" + text
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, ValueError) as exc:
        raise BadURL(f"{raw!r} is not a valid URL ({exc}).") from None
    scheme = url.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise BadURL(f"Only http and https URLs are fetched, not {scheme}:.")
    if url.userinfo:
        raise BadURL("URLs with a user name or password before the host are not fetched.")
    host = url.host.lower().rstrip(".")
    if not host:
        raise BadURL(f"{raw!r} has no host.")
    literal = parse_literal(host)
    if literal is not None:
        host = str(literal)
    port = url.port or _DEFAULT_PORTS[scheme]
    normalised = url.copy_with(scheme=scheme, host=host, port=None if port == _DEFAULT_PORTS[scheme] else port)
    return Target(url=str(normalised.copy_with(fragment=None)), scheme=scheme, host=host, port=port, literal=literal)


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address carried inside an IPv6 one (mapped, 6to4, NAT64, compatible), if any."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def refusal_reason(address: IPAddress) -> str | None:
    """Why `address` must not be reached, or None if it is a public address."""
    inner = embedded_ipv4(address)
    if inner is not None:
        # The IPv4 address inside decides: that is where the packets go.
        reason = refusal_reason(inner)
        return None if reason is None else f"{reason} (inside {address})"
    if address in _METADATA:
        return "a cloud metadata address"
    checks = (
        (address.is_unspecified, "an unspecified address"),
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (isinstance(address, ipaddress.IPv4Address) and address in _CGNAT, "a carrier-grade NAT address"),
        (address.is_private, "a private-network address"),
        (address.is_reserved, "a reserved address"),
        (not address.is_global, "not a public address"),
    )
    for failed, reason in checks:
        if failed:
            return reason
    return None


def is_exempt(host: str, address: IPAddress, patterns: list[str]) -> bool:
    """True if `WEB_FETCH_ALLOWED_HOSTS` lets `host` (at `address`) through although it is not public."""
    name = host.lower().rstrip(".")
    candidates = [address]
    inner = embedded_ipv4(address)
    if inner is not None:
        candidates.append(inner)
    for pattern in patterns:
        text = pattern.strip().lower().rstrip(".")
        try:
            network = ipaddress.ip_network(text.strip("[]"), strict=False)
        except ValueError:
            if text == name:
                return True
            continue
        if any(candidate.version == network.version and candidate in network for candidate in candidates):
            return True
    return False


def check_addresses(host: str, addresses: list[IPAddress], patterns: list[str]) -> None:
    """Refuse `host` if ANY of its addresses is refused and not exempt (so one rebinding answer is enough)."""
    if not addresses:
        raise AddressRefused(f"{host} does not resolve to any address.")
    for address in addresses:
        reason = refusal_reason(address)
        if reason is not None and not is_exempt(host, address, patterns):
            shown = host if host == str(address) else f"{host} ({address})"
            raise AddressRefused(
                f"Refused to reach {shown}: it is {reason}. Only public addresses are reached; "
                "add the host to WEB_FETCH_ALLOWED_HOSTS to allow it."
            )
