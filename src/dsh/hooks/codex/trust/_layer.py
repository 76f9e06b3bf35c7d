"""dsh's fingerprints of a trusted project's Codex layer: what changed since it was trusted.

Codex trusts a project with one boolean (``[projects."<dir>"] trust_level =
"trusted"`` in ``$CODEX_HOME/config.toml``): once set, whatever the project's
layer holds later loads without a word. dsh keeps, in its own per-project
trust record (``dsh.hook_protocol``'s, section ``codex``, beside the Claude
Code bridge's sections), a fingerprint of each file of that layer that runs
something: the project's ``.codex/hooks.json`` and ``.codex/config.toml``. The
fingerprint is a SHA-256 over the file's path (relative to the project) and the
SHA-256 of its content (first 16 MiB) with its size. The repository's
``AGENTS.md`` chain is not fingerprinted: it follows the project's Codex trust,
edits included, as in Codex (and as a Claude Code project's ``CLAUDE.md`` does);
entries an earlier record holds for it are ignored.

The rule, for a project Codex trusts: with no ``codex`` section yet, the
layer loads and its fingerprints are recorded (the user's Codex trust is the
consent to what is there now); with one, a file whose fingerprint is not
recorded (changed, or added) is not loaded and named in one notice, the rest
loads. The scripts the layer's hooks run have fingerprints of their own in the
same section (``trust._scripts``): a hook whose script changed does not run.
``dsh hooks trust`` records the layer as it is now. A record that cannot be
read (garbage, a symlink, another format) trusts none of the layer. Nothing
here is written into Codex's ``config.toml``.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.hook_protocol import TrustRecord, read_record, record_bound, write_record
from dsh.hook_protocol._trust_record import file_digest, state_of
from dsh.hooks.codex.config._types import CodexHook
from dsh.hooks.codex.trust._scripts import CODEX_SECTION, HookScripts, review_scripts
from dsh.hooks.codex.trust._scripts import shown_path as _shown
from dsh.session import SessionError

__all__ = [
    "CODEX_SECTION",
    "LAYER_FILES",
    "LayerFile",
    "LayerReview",
    "LayerState",
    "layer_fingerprint",
    "layer_paths",
    "record_layer",
    "review_layer",
]

LayerState: TypeAlias = Literal[
    "trusted", "not trusted yet", "changed since trusted", "unreadable", "record unreadable"
]
"""Whether a file of the project layer may load, and why not."""


def layer_fingerprint(path: Path, project: Path) -> str | None:
    """SHA-256 over the file's place in ``project`` and its content; ``None``: unreadable."""
    digest = file_digest(path)
    if digest is None:
        return None
    text = json.dumps({"path": _shown(path, project), "content": digest}, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


LAYER_FILES: Final = (".codex/hooks.json", ".codex/config.toml")
"""The files of the project layer dsh fingerprints, relative to the project."""


def layer_paths(project: Path) -> list[Path]:
    """The files of ``project``'s Codex layer a run would load, as absolute paths."""
    return [project / name for name in LAYER_FILES if (project / name).is_file()]


@final
@frozen(kw_only=True)
class LayerFile:
    """One file of the project layer, its fingerprint and whether it may load."""

    path: Path
    shown: str
    fingerprint: str | None
    state: LayerState

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    @property
    def where(self) -> str:
        return f"codex {self.shown}"


@final
@frozen(kw_only=True)
class LayerReview:
    """The project layer's files with their states, against the record as read.

    ``recorded``: the record holds fingerprints of the layer (else every file is
    trusted on the user's Codex trust, and the caller records them); ``removed``:
    files recorded that the layer no longer loads (gone, or shadowed); ``hooks``: the
    layer's hooks with the scripts they run (``with_hooks``)."""

    project: Path
    files: tuple[LayerFile, ...]
    removed: tuple[str, ...]
    recorded: bool
    problem: str | None
    record: TrustRecord
    hooks: tuple[HookScripts, ...] = ()

    def with_hooks(self, hooks: Iterable[CodexHook]) -> LayerReview:
        """This review with the project hooks among ``hooks`` and their scripts reviewed."""
        return replace(self, hooks=review_scripts(self.project, hooks, self.record))

    def refused(self) -> frozenset[Path]:
        return frozenset(f.path for f in self.files if not f.trusted)

    def refused_hooks(self) -> tuple[HookScripts, ...]:
        """The hooks that do not run because a file of the project they run changed."""
        return tuple(h for h in self.hooks if not h.trusted)

    def trusted_fingerprints(self) -> frozenset[str]:
        return frozenset(f.fingerprint for f in self.files if f.trusted and f.fingerprint)

    def _how(self) -> str:
        quoted = shlex.quote(str(self.project))
        return (
            f"Review them with `dsh hooks check --project {quoted}`, trust them with"
            f" `dsh hooks trust --project {quoted}`, or run with --trust-project (a headless"
            " run leaves them out until then)"
        )

    def notice(self) -> str | None:
        """The run's one notice naming the files left out, the hooks not run, and how to
        trust them."""
        refused = [f for f in self.files if not f.trusted]
        hooks = self.refused_hooks()
        if not refused and not hooks:
            return None
        layer = f"the Codex project layer of {self.project}"
        parts = []
        if refused:
            listed = "; ".join(f"{f.shown} ({f.state})" for f in refused)
            parts.append(
                f"{len(refused)} file(s) of {layer} changed since dsh recorded it and are not"
                f" loaded: {listed}"
            )
            layer = "it"
        if hooks:
            listed = "; ".join(h.describe() for h in hooks)
            parts.append(
                f"{len(hooks)} hook(s) of {layer} do not run, as a file of the project they"
                f" run changed since dsh recorded it: {listed}"
            )
        text = f"warning: {'; and '.join(parts)}. {self._how()}"
        return text if self.problem is None else f"{text} ({self.problem})"

    def summary(self) -> str:
        """``2 file(s), 1 not loaded (changed since dsh recorded them)`` (``dsh hooks check``)."""
        if self.problem is not None:
            return f"{len(self.files)} file(s), none loaded: {self.problem}"
        if not self.recorded:
            return (
                f"{len(self.files)} file(s), not recorded by dsh yet (the next run loads and"
                " records them: the project's Codex trust is the consent)"
            )
        refused = len(self.refused())
        text = f"{len(self.files)} file(s) recorded by dsh"
        text += f", {refused} not loaded (changed or added since)" if refused else ""
        hooks = len(self.refused_hooks())
        return text + (f", {hooks} hook(s) not run (a script changed since)" if hooks else "")

    def lines(self) -> list[str]:
        """One line per file left out and per file removed, with why (``dsh hooks check``)."""
        found = [
            f"{f.path}: {f.state} (Codex project layer, dsh's record); not loaded until"
            " `dsh hooks trust`"
            for f in self.files
            if not f.trusted
        ]
        found += [
            f"{self.project / shown}: no longer loaded since trusted (removed; Codex project"
            " layer, dsh's record)"
            for shown in self.removed
        ]
        found += [
            f"{h.describe()} ({h.hook.command!r}; a file its command runs, Codex project layer,"
            " dsh's record): it does not run until `dsh hooks trust`"
            for h in self.refused_hooks()
        ]
        if self.problem is not None and found:
            found.append(self.problem)
        return found

    def entries(self) -> list[dict[str, str]]:
        """The record's ``codex`` section for the layer as it is now (readable files, and
        the hooks with the files they run)."""
        found = [
            {"fingerprint": f.fingerprint, "where": f.where, "file": f.shown}
            for f in self.files
            if f.fingerprint is not None
        ]
        return found + [h.entry() for h in self.hooks]


def _state(fingerprint: str | None, where: str, record: TrustRecord) -> LayerState:
    if record.problem is not None:
        return "record unreadable"
    if fingerprint is None:
        return "unreadable"
    if not record.has(CODEX_SECTION):
        return "trusted"  # the user's Codex trust is the consent; the caller records it
    state = state_of(fingerprint, where, record)
    return (
        "changed since trusted"
        if state == "changed since trusted"
        else ("trusted" if state == "trusted" else "not trusted yet")
    )


def review_layer(
    project: Path,
    paths: Sequence[Path],
    trust_dir: Path | None = None,
    *,
    hooks: Iterable[CodexHook] = (),
) -> LayerReview:
    """The state of each of ``paths`` (the project layer) against the project's record,
    read within a bound with room for an entry per file and per hook of ``hooks`` (the
    catalog's: ``dsh.hook_protocol.record_bound``)."""
    texts = [str(path) for path in paths]
    texts += [f"{h.command} {h.source}" for h in hooks]
    record = read_record(project, trust_dir, owned=(CODEX_SECTION,), bound=record_bound(texts))
    files = []
    for path in paths:
        shown = _shown(path, project)
        fingerprint = layer_fingerprint(path, project)
        state = _state(fingerprint, f"codex {shown}", record)
        files.append(LayerFile(path=path, shown=shown, fingerprint=fingerprint, state=state))
    present = {f.shown for f in files}
    listed = record.sections.get(CODEX_SECTION, ())
    # An ``AGENTS.md`` an earlier record fingerprinted is not a file removed from the layer.
    removed = tuple(
        dict.fromkeys(
            e["file"] for e in listed if e.get("file") in LAYER_FILES and e["file"] not in present
        )
    )
    return LayerReview(
        project=project,
        files=tuple(files),
        removed=removed,
        recorded=record.has(CODEX_SECTION),
        problem=record.problem,
        record=record,
    )


def record_layer(review: LayerReview, trust_dir: Path | None = None) -> str | None:
    """Record the layer's fingerprints as ``review`` found them; the problem, if it failed."""
    try:
        write_record(review.project, trust_dir, {CODEX_SECTION: review.entries()})
    except (OSError, SessionError) as exc:
        return f"could not record the Codex project layer's fingerprints: {exc}"
    return None
