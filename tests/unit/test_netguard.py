"""Pure SSRF decisions shared by web_fetch and the browser: URL normalisation, literal hosts in every form, refused addresses.

Nothing here touches the network: addresses are only classified.
"""

from __future__ import annotations

import ipaddress

import pytest

from shared.netguard import (
    AddressRefused,
    BadURL,
    check_addresses,
    is_exempt,
    parse_target,
    refusal_reason,
)

ip = ipaddress.ip_address


@pytest.mark.parametrize(
    ("raw", "url", "host", "port"),
    [
        ("https://Example.COM/a?b=1#frag", "https://example.com/a?b=1", "example.com", 443),
        ("example.com/path", "https://example.com/path", "example.com", 443),
        ("  http://example.com./x  ", "http://example.com/x", "example.com", 80),
        ("http://example.com:8080/", "http://example.com:8080/", "example.com", 8080),
        ("http://example.com:80/", "http://example.com/", "example.com", 80),
        ("HTTP://example.com/", "http://example.com/", "example.com", 80),
    ],
)
def test_urls_are_normalised(raw: str, url: str, host: str, port: int) -> None:
    target = parse_target(raw)
    assert (target.url, target.host, target.port, target.literal) == (url, host, port, None)


@pytest.mark.parametrize(
    ("raw", "address"),
    [
        ("http://2130706433/", "127.0.0.1"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://0x7f000001/", "127.0.0.1"),
        ("http://017700000001/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://127.0.0.1./", "127.0.0.1"),
        ("http://10.1/", "10.0.0.1"),
        ("http://0xa9.0xfe.0xa9.0xfe/", "169.254.169.254"),
        ("http://3232235521/", "192.168.0.1"),
        ("http://0/", "0.0.0.0"),
        ("http://[::1]/", "::1"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:7f00:1"),
        ("http://[0:0:0:0:0:ffff:a9fe:a9fe]/", "::ffff:a9fe:a9fe"),
        ("http://8.8.8.8/", "8.8.8.8"),
    ],
)
def test_literal_hosts_are_read_as_the_address_a_resolver_would_use(raw: str, address: str) -> None:
    assert parse_target(raw).literal == ip(address)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("ftp://example.com/", "Only http and https"),
        ("file:///etc/passwd", "Only http and https"),
        ("javascript:alert(1)", "not a valid URL|Only http and https"),
        ("http://0177.0.0.1/", "not a valid"),
        ("http://user:pw@example.com/", "user name or password"),
        ("http://example.com@127.0.0.1/", "user name or password"),
        ("http://1.2.3.4.5/", "not a valid IPv4"),
        ("http://256.1.1.1/", "not a valid"),
        ("http://0x100000000/", "not a valid IPv4"),
        ("http://[fe80::1%25eth0]/", "zone"),
        ("", "empty"),
    ],
)
def test_unfetchable_urls_are_refused_with_a_reason(raw: str, reason: str) -> None:
    with pytest.raises(BadURL, match=reason):
        parse_target(raw)


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("169.254.1.1", "link-local"),
        ("169.254.169.254", "metadata"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("100.127.255.254", "carrier-grade NAT"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved|private"),
        ("255.255.255.255", "broadcast|reserved|private"),
        ("192.0.2.1", "private|public"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("fe80::1", "link-local"),
        ("ff02::1", "multicast"),
        ("fd00:ec2::254", "metadata"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "metadata"),
        ("64:ff9b::7f00:1", "loopback"),
        ("2002:7f00:1::", "loopback"),
        ("2002:c0a8:101::", "private"),
    ],
)
def test_non_public_addresses_are_refused(address: str, reason: str) -> None:
    found = refusal_reason(ip(address))
    assert found is not None
    assert any(word in found for word in reason.split("|")), found


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8", "100.128.0.1"]
)
def test_public_addresses_are_allowed(address: str) -> None:
    assert refusal_reason(ip(address)) is None


def test_a_host_is_refused_if_any_of_its_addresses_is_refused() -> None:
    with pytest.raises(AddressRefused, match=r"rebind\.example \(10\.0\.0\.5\).*private"):
        check_addresses("rebind.example", [ip("93.184.216.34"), ip("10.0.0.5")], [])


def test_a_host_with_only_public_addresses_passes() -> None:
    check_addresses("example.com", [ip("93.184.216.34"), ip("2606:2800:220:1::1")], [])


def test_a_host_without_addresses_is_refused() -> None:
    with pytest.raises(AddressRefused, match="does not resolve"):
        check_addresses("nowhere.example", [], [])


def test_the_refusal_names_the_setting_that_allows_it() -> None:
    with pytest.raises(AddressRefused, match="WEB_FETCH_ALLOWED_HOSTS"):
        check_addresses("127.0.0.1", [ip("127.0.0.1")], [])


@pytest.mark.parametrize(
    ("host", "address", "patterns", "exempt"),
    [
        ("127.0.0.1", "127.0.0.1", ["127.0.0.1"], True),
        ("127.0.0.2", "127.0.0.2", ["127.0.0.1"], False),
        ("127.0.0.2", "127.0.0.2", ["127.0.0.0/8"], True),
        ("nas.local", "192.168.1.20", ["nas.local"], True),
        ("NAS.local.", "192.168.1.20", ["nas.local"], True),
        ("other.local", "192.168.1.20", ["nas.local"], False),
        ("10.0.0.1", "10.0.0.1", ["192.168.0.0/16", "nas.local"], False),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1", ["127.0.0.1"], True),
        ("::1", "::1", ["[::1]"], True),
        ("::1", "::1", ["127.0.0.1"], False),
    ],
)
def test_allowed_hosts_exempt_names_addresses_and_ranges(
    host: str, address: str, patterns: list[str], exempt: bool
) -> None:
    assert is_exempt(host, ip(address), patterns) is exempt


def test_an_exempt_host_passes_the_check() -> None:
    check_addresses("127.0.0.1", [ip("127.0.0.1")], ["127.0.0.1"])
