"""The policy settings on HTTP hooks: ``allowedHttpHookUrls`` and ``httpHookAllowedEnvVars``.

As 2.1.332 reads them: each is a list that, once any settings file defines it,
limits every HTTP hook; lists from several files add up. ``allowedHttpHookUrls``
names the URLs a hook may be sent to (``*`` a wildcard; the host compared without
case or a trailing dot; ``[]`` allows none): a hook whose URL matches none is
not run, and ``dsh hooks check`` says so. Where managed settings do not set the
list, a list from another file does not apply to managed hooks.
``httpHookAllowedEnvVars`` narrows each hook's ``allowedEnvVars``. A value that is
not a list of strings fails closed: no URL, no variable (with a warning).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from dsh._frozen import frozen
from dsh.hooks.claude.settings._sources import Diagnostics, ReadSettings
from dsh.hooks.claude.settings._types import Diagnostic, HookDeclaration, HookSource

__all__ = ["HttpPolicy", "http_policy", "url_allowed"]


@frozen(kw_only=True)
class HttpPolicy:
    """The merged lists (``None``: no file defines it); ``managed_urls``: managed settings
    define ``allowedHttpHookUrls``."""

    allowed_urls: tuple[str, ...] | None = None
    allowed_env: frozenset[str] | None = None
    managed_urls: bool = False

    def apply(self, hooks: Sequence[HookDeclaration], diags: Diagnostics) -> list[HookDeclaration]:
        """``hooks`` with the HTTP hooks the URL list refuses left out (diagnosed), and
        each HTTP hook's variables narrowed."""
        kept: list[HookDeclaration] = []
        for decl in hooks:
            target = decl.http
            if target is None:
                kept.append(decl)
                continue
            exempt = decl.source.kind == "managed" and not self.managed_urls
            urls = self.allowed_urls
            if (
                urls is not None
                and not exempt
                and not any(url_allowed(target.url, p) for p in urls)
            ):
                reason = (
                    f"HTTP hook blocked: {target.url} does not match any pattern in"
                    " allowedHttpHookUrls; it is not run"
                )
                diags.items.append(
                    Diagnostic(
                        file=decl.source.label,
                        plugin=decl.source.plugin,
                        event=decl.event,
                        group_index=decl.group_index,
                        hook_index=decl.hook_index,
                        reason=reason,
                        severity="warning",
                        code="policy",
                    )
                )
                continue
            if self.allowed_env is not None:
                narrowed = dataclasses.replace(
                    target, allowed_env=target.allowed_env & self.allowed_env
                )
                decl = dataclasses.replace(decl, http=narrowed)
            kept.append(decl)
        return kept


def _strings(value: Any, name: str, source: HookSource, diags: Diagnostics) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    diags.add(source, "warning", "policy", f"`{name}` is not a list of strings; it allows nothing")
    return []


def http_policy(settings: Sequence[ReadSettings], diags: Diagnostics) -> HttpPolicy:
    """The HTTP hook policy of all readable settings files."""
    urls: list[str] | None = None
    env: set[str] | None = None
    managed_urls = False
    for s in settings:
        if s.model is None:
            continue
        source = s.file.source
        if s.model.allowedHttpHookUrls is not None:
            urls = (urls or []) + _strings(
                s.model.allowedHttpHookUrls, "allowedHttpHookUrls", source, diags
            )
            managed_urls = managed_urls or source.kind == "managed"
        if s.model.httpHookAllowedEnvVars is not None:
            names = _strings(
                s.model.httpHookAllowedEnvVars, "httpHookAllowedEnvVars", source, diags
            )
            env = (env or set()) | set(names)
    return HttpPolicy(
        allowed_urls=None if urls is None else tuple(urls),
        allowed_env=None if env is None else frozenset(env),
        managed_urls=managed_urls,
    )


def _glob(pattern: str, text: str) -> bool:
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), text, re.S) is not None


def _split(url: str) -> tuple[str, str, str, str] | None:
    """``(scheme, host, port, path and query)``, or ``None`` for what is not a URL."""
    m = re.fullmatch(r"([A-Za-z*][A-Za-z0-9+.*-]*)://([^/?#]*)([^#]*)(?:#.*)?", url, re.S)
    if m is None:
        return None
    scheme, authority, rest = m.groups()
    authority = authority.rpartition("@")[2]
    host, _, port = (
        authority.partition(":")
        if not authority.startswith("[")
        else (
            authority.partition("]")[0] + "]",
            "",
            authority.partition("]")[2].lstrip(":"),
        )
    )
    default = {"http": "80", "https": "443"}.get(scheme.lower(), "")
    return scheme.lower(), host.rstrip(".").lower(), "" if port == default else port, rest or "/"


def url_allowed(url: str, pattern: str) -> bool:
    """Whether ``url`` matches one ``allowedHttpHookUrls`` pattern, as 2.1.332 matches it."""
    if pattern == "*":
        return True
    got, want = _split(url), _split(pattern)
    if got is None:
        return False
    if want is None:
        return _glob(pattern, f"{got[0]}://{got[1]}{':' + got[2] if got[2] else ''}{got[3]}")
    if want[0] != "*" and want[0] != got[0]:
        return False
    if not _glob(want[1], got[1]):
        return False
    any_port = want[2] == "*" or (want[2] == "" and "*" in want[1])
    if not any_port and want[2] != got[2]:
        return False
    if want[3] == "/" and not pattern.endswith("/"):
        return True
    return _glob(want[3], got[3])
