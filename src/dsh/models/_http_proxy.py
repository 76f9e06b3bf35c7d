"""Whether a URL goes to its server directly, or through a proxy the environment names.

dsh's own client speaks to the server only; behind a proxy, requests go over
httpx2 as before (``_httpx``), so they go the way they always have. This
decides which: ``direct(url)`` is True only when httpx2 would connect directly
too. It reads the variables httpx2 reads (``http_proxy``, ``https_proxy``,
``all_proxy``, ``no_proxy``, any case, lower case first, as ``urllib`` does;
macOS and Windows also have system proxy settings, read through ``urllib``).
Where its reading of ``NO_PROXY`` is unsure (a port, a network, a scheme) it
says not direct: httpx2 then applies its own rules, which is never wrong.
"""

from __future__ import annotations

import os
import sys

__all__ = ["direct"]


def _environment_proxies() -> dict[str, str]:
    """``urllib.request.getproxies_environment``, without importing urllib.request (~15 ms)."""
    proxies: dict[str, str] = {}
    for name, value in os.environ.items():
        lowered = name.lower()
        if value and lowered.endswith("_proxy"):
            proxies[lowered[:-6]] = value
    if "REQUEST_METHOD" in os.environ:  # CGI: HTTP_PROXY may come from a client's header
        proxies.pop("http", None)
    for name, value in os.environ.items():
        if name.endswith("_proxy"):  # lower case wins, and an empty one unsets
            if value:
                proxies[name[:-6].lower()] = value
            else:
                proxies.pop(name[:-6].lower(), None)
    return proxies


def _proxies() -> dict[str, str]:
    if sys.platform in ("darwin", "win32"):
        from urllib.request import getproxies

        return getproxies()
    return _environment_proxies()


def _bypassed(host: str, no_proxy: str) -> bool:
    """Whether an entry of ``no_proxy`` certainly exempts ``host`` (httpx2's reading)."""
    host = host.lower().strip("[]")
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if entry == "*":
            return True
        if not entry or "/" in entry or (":" in entry and entry.strip("[]") != host):
            continue  # a scheme, a port or a network: left to httpx2
        entry = entry.strip("[]")
        if entry.startswith("*."):
            entry = entry[1:]
        if entry.startswith("."):  # subdomains only
            if host.endswith(entry) and len(host) > len(entry):
                return True
        elif host == entry or (_is_name(entry) and host.endswith("." + entry)):
            return True
    return False


def _is_name(entry: str) -> bool:
    """A domain name, whose subdomains an entry covers too (not localhost, not an address)."""
    return entry != "localhost" and ":" not in entry and not entry.replace(".", "").isdigit()


def direct(scheme: str, host: str) -> bool:
    """True when no proxy applies to ``scheme://host`` (httpx2 would not use one either)."""
    proxies = _proxies()
    if not (proxies.get(scheme) or proxies.get("all")):
        return True
    return _bypassed(host, proxies.get("no", ""))
