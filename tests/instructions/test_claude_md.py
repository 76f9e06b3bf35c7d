"""Claude Code's instructions files: which load at session start, in what order, how they render."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.instructions import (
    LoadedInstructions,
    find_instructions,
    render_instructions,
)

PREAMBLE = (
    "Codebase and user instructions are shown below. Be sure to adhere to these "
    "instructions. IMPORTANT: These instructions OVERRIDE any default behavior and "
    "you MUST follow them exactly as written."
)


@dataclass
class Tree:
    root: Path
    home: Path
    config: Path
    managed: Path
    outer: Path  # an ancestor of the project
    repo: Path
    cwd: Path

    def write(self, path: Path, text: str | bytes) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def find(self, cwd: Path | None = None) -> list[LoadedInstructions]:
        found = find_instructions(
            self.cwd if cwd is None else cwd, config_dir=self.config, managed_dir=self.managed
        )
        # Ignore whatever the machine keeps above the test's directory.
        return [item for item in found if item.file.path.is_relative_to(self.root)]


def _tree(root: Path) -> Tree:
    home = root / "home"
    outer = root / "work"
    repo = outer / "repo"
    cwd = repo / "pkg"
    for directory in (home, cwd):
        directory.mkdir(parents=True, exist_ok=True)
    return Tree(
        root=root,
        home=home,
        config=home / ".claude",
        managed=root / "managed",
        outer=outer,
        repo=repo,
        cwd=cwd,
    )


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    made = _tree(tmp_path.resolve())
    monkeypatch.setenv("HOME", str(made.home))
    return made


def paths(found: list[LoadedInstructions]) -> list[Path]:
    return [item.file.path for item in found]


def texts(found: list[LoadedInstructions]) -> dict[str, str]:
    return {item.file.path.name: item.text for item in found}


# --- order and scopes -----------------------------------------------------------------------


def test_every_scope_and_level_in_claude_codes_order(tree: Tree) -> None:
    expected = [
        (tree.write(tree.managed / "CLAUDE.md", "managed"), "Managed"),
        (tree.write(tree.managed / ".claude" / "rules" / "policy.md", "policy"), "Managed"),
        (tree.write(tree.config / "CLAUDE.md", "user"), "User"),
        (tree.write(tree.config / "rules" / "a.md", "user rule a"), "User"),
        (tree.write(tree.config / "rules" / "b" / "nested.md", "user rule nested"), "User"),
        (tree.write(tree.config / "rules" / "c.md", "user rule c"), "User"),
        (tree.write(tree.outer / "CLAUDE.md", "outer"), "Project"),
        (tree.write(tree.outer / "CLAUDE.local.md", "outer local"), "Local"),
        (tree.write(tree.repo / ".claude" / "CLAUDE.md", "repo dot"), "Project"),
        (tree.write(tree.repo / ".claude" / "rules" / "a.md", "repo rule a"), "Project"),
        (tree.write(tree.repo / ".claude" / "rules" / "z.md", "repo rule z"), "Project"),
        (tree.write(tree.cwd / "CLAUDE.md", "cwd"), "Project"),
        (tree.write(tree.cwd / ".claude" / "CLAUDE.md", "cwd dot"), "Project"),
        (tree.write(tree.cwd / "CLAUDE.local.md", "cwd local"), "Local"),
    ]
    # Neither a non-markdown rule, nor a file below cwd, nor the managed/user dirs' other names.
    tree.write(tree.repo / ".claude" / "rules" / "notes.txt", "not a rule")
    tree.write(tree.cwd / "sub" / "CLAUDE.md", "loads lazily")
    tree.write(tree.config / "CLAUDE.local.md", "not a user file")
    tree.write(tree.managed / "rules" / "x.md", "not the managed rules dir")

    found = tree.find()

    assert [(item.file.path, item.file.scope) for item in found] == expected
    assert {item.file.load_reason for item in found} == {"session_start"}
    assert all(item.file.parent_path is None and item.file.globs == () for item in found)
    assert [item.text for item in found][:3] == ["managed", "policy", "user"]


def test_nothing_to_load(tree: Tree) -> None:
    assert tree.find() == []
    assert render_instructions([]) == ""


def test_load_reason_is_the_callers_for_top_level_files(tree: Tree) -> None:
    tree.write(tree.cwd / "CLAUDE.md", "@more.md")
    tree.write(tree.cwd / "more.md", "more")

    found = find_instructions(
        tree.cwd, config_dir=tree.config, managed_dir=tree.managed, load_reason="compact"
    )
    found = [item for item in found if item.file.path.is_relative_to(tree.root)]

    assert [item.file.load_reason for item in found] == ["compact", "include"]


def test_relative_cwd_is_taken_from_the_process(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree.write(tree.repo / "CLAUDE.md", "repo")
    monkeypatch.chdir(tree.cwd)

    assert paths(tree.find(Path("."))) == [tree.repo / "CLAUDE.md"]


def test_a_file_reached_twice_loads_once(tree: Tree) -> None:
    tree.write(tree.cwd / "CLAUDE.md", "shared")
    (tree.cwd / "CLAUDE.local.md").symlink_to(tree.cwd / "CLAUDE.md")

    assert paths(tree.find()) == [tree.cwd / "CLAUDE.md"]


# --- rules and frontmatter ------------------------------------------------------------------


def test_rules_with_paths_wait_for_a_matching_file(tree: Tree) -> None:
    rules = tree.repo / ".claude" / "rules"
    tree.write(rules / "block.md", "---\npaths:\n  - 'src/**/*.ts'\n  - lib/**\n---\nts rules\n")
    tree.write(rules / "inline.md", '---\npaths: "src/*.{ts,tsx}, docs/**"\n---\ninline\n')
    tree.write(rules / "flow.md", "---\npaths: [src/a.py, src/b.py]\n---\nflow\n")
    tree.write(rules / "imports.md", "---\npaths: src/**\n---\n@../never.md\n")
    tree.write(rules / "never.md.txt", "")
    tree.write(rules.parent / "never.md", "imported only by a conditional rule")
    tree.write(rules / "everywhere.md", "---\npaths: '**'\n---\nall files\n")
    tree.write(rules / "plain.md", "---\ndescription: style\n---\nplain rule\n")

    found = tree.find()

    assert texts(found) == {"everywhere.md": "all files\n", "plain.md": "plain rule\n"}


def test_frontmatter_and_block_comments_are_cut(tree: Tree) -> None:
    tree.write(
        tree.cwd / "CLAUDE.md",
        "---\ntitle: x\n---\n"
        "# Rules\n"
        "<!-- maintainer note -->\n"
        "keep\n"
        "<!-- spans\nlines -->\n"
        "<!-- gone --> residue stays\n"
        "inline <!-- stays, not a block --> too\n"
        "```\n<!-- code keeps it -->\n```\n"
        "<!-- unclosed stays\n",
    )

    (item,) = tree.find()

    assert item.text == (
        "# Rules\n"
        "keep\n"
        " residue stays\n"
        "inline <!-- stays, not a block --> too\n"
        "```\n<!-- code keeps it -->\n```\n"
        "<!-- unclosed stays\n"
    )


def test_empty_and_unreadable_files_are_skipped(tree: Tree) -> None:
    tree.write(tree.outer / "CLAUDE.md", "")
    tree.write(tree.outer / "CLAUDE.local.md", " \n\t\n")
    tree.write(tree.repo / "CLAUDE.md", "---\npaths: x\n---\n")
    tree.write(tree.repo / "CLAUDE.local.md", "<!-- only a comment @x.md -->\n")
    tree.write(tree.repo / "x.md", "x")
    (tree.cwd / ".claude" / "CLAUDE.md").mkdir(parents=True)
    tree.write(tree.cwd / "CLAUDE.local.md", "readable")

    assert paths(tree.find()) == [tree.cwd / "CLAUDE.local.md"]


def test_bytes_that_are_not_utf8_are_read_as_replacement_characters(tree: Tree) -> None:
    tree.write(tree.cwd / "CLAUDE.md", b"bad \xff\xfe utf-8")
    (found,) = tree.find()
    assert found.text == "bad \ufffd\ufffd utf-8"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_a_file_without_read_permission_is_skipped(tree: Tree) -> None:
    locked = tree.write(tree.cwd / "CLAUDE.md", "secret")
    locked.chmod(0)
    try:
        assert tree.find() == []
    finally:
        locked.chmod(0o644)


# --- imports --------------------------------------------------------------------------------


def test_imports_follow_their_importer_depth_first(tree: Tree) -> None:
    prefs = tree.write(tree.home / "prefs.md", "home prefs")
    absolute = tree.write(tree.root / "elsewhere" / "abs.md", "absolute")
    tree.write(tree.repo / "CLAUDE.md", f"See @docs/a.md and @~/prefs.md.md-not\n- @{absolute}\n")
    tree.write(tree.repo / "docs" / "a.md", "a, which imports @b.md and @../c.md")
    tree.write(tree.repo / "docs" / "b.md", "b")
    tree.write(tree.repo / "c.md", "c")
    tree.write(tree.repo / "CLAUDE.local.md", "local imports @~/prefs.md and @./c.md and @./d.md")
    tree.write(tree.repo / "d.md", "d")
    tree.write(tree.home / "prefs.md.md-not", "not text")

    found = tree.find(cwd=tree.repo)

    claude, local = tree.repo / "CLAUDE.md", tree.repo / "CLAUDE.local.md"
    a = tree.repo / "docs" / "a.md"
    assert [
        (item.file.path, item.file.scope, item.file.load_reason, item.file.parent_path)
        for item in found
    ] == [
        (claude, "Project", "session_start", None),
        (a, "Project", "include", claude),
        (tree.repo / "docs" / "b.md", "Project", "include", a),
        (tree.repo / "c.md", "Project", "include", a),
        # `absolute` and `~/prefs.md` lie outside cwd: not followed (see the next test)
        (local, "Local", "session_start", None),
        (tree.repo / "d.md", "Local", "include", local),
    ]
    assert prefs.exists()
    assert absolute.exists()
    assert found[1].text == "a, which imports @b.md and @../c.md"


def test_only_user_files_import_from_outside_cwd(tree: Tree) -> None:
    outside = tree.write(tree.root / "elsewhere" / "secret.md", "outside")
    inside = tree.write(tree.cwd / "inside.md", "inside")
    tree.write(tree.config / "CLAUDE.md", f"user imports @{outside}")
    tree.write(tree.managed / "CLAUDE.md", f"managed imports @{outside} and @{inside}")
    tree.write(tree.repo / "CLAUDE.md", f"parent dir imports @{outside} and @../repo/x.md")
    tree.write(tree.repo / "x.md", "beside cwd, not in it")
    tree.write(tree.cwd / "CLAUDE.local.md", f"local imports @{outside} and @./inside.md")

    found = tree.find()
    assert [(item.file.path, item.file.scope) for item in found] == [
        (tree.managed / "CLAUDE.md", "Managed"),
        (inside, "Managed"),
        (tree.config / "CLAUDE.md", "User"),
        (outside, "User"),
        (tree.repo / "CLAUDE.md", "Project"),
        (tree.cwd / "CLAUDE.local.md", "Local"),
    ]


def test_import_syntax(tree: Tree) -> None:
    names = [
        "span",
        "double",
        "fenced",
        "tilde",
        "mail",
        "frag",
        "my file",
        "README",
        "after",
        "picture",
        "bare",
    ]
    for name in names:
        tree.write(tree.cwd / (name if name == "README" else f"{name}.md"), name)
    tree.write(tree.cwd / "picture.png", "png")
    tree.write(
        tree.cwd / "CLAUDE.md",
        "Code `@span.md` and ``a ` @double.md`` are text.\n"
        "```sh\n@fenced.md\n```\n"
        "~~~\n@tilde.md\n~~~\n"
        "mail me@mail.md, @#frag.md, @@bare.md\n"
        "@frag.md#section @my\\ file.md @README\n"
        "`code`@after.md @picture.png @missing.md\n",
    )

    found = tree.find()

    assert [item.file.path.name for item in found] == [
        "CLAUDE.md",
        "frag.md",
        "my file.md",
        "README",
        "after.md",
    ]


def test_imports_stop_at_depth_five(tree: Tree) -> None:
    tree.write(tree.cwd / "CLAUDE.md", "@f1.md")
    for level in range(1, 7):
        tree.write(tree.cwd / f"f{level}.md", f"level {level} @f{level + 1}.md")

    found = tree.find()

    assert paths(found) == [tree.cwd / "CLAUDE.md"] + [tree.cwd / f"f{n}.md" for n in range(1, 5)]


def test_cycles_and_repeats_load_each_file_once(tree: Tree) -> None:
    tree.write(tree.managed / "CLAUDE.md", f"@{tree.cwd / 'CLAUDE.md'}")
    tree.write(tree.cwd / "CLAUDE.md", "@a.md @b.md @CLAUDE.md")
    tree.write(tree.cwd / "a.md", "@b.md @a.md")
    tree.write(tree.cwd / "b.md", "@a.md @CLAUDE.md")

    found = tree.find()

    assert [(item.file.path.name, item.file.scope) for item in found] == [
        ("CLAUDE.md", "Managed"),
        ("CLAUDE.md", "Managed"),
        ("a.md", "Managed"),
        ("b.md", "Managed"),
    ]
    assert found[1].file.parent_path == tree.managed / "CLAUDE.md"
    assert len(set(paths(found))) == len(found)


@st.composite
def import_graphs(draw: st.DrawFn) -> list[list[int]]:
    size = draw(st.integers(min_value=1, max_value=8))
    return [
        draw(st.lists(st.integers(min_value=0, max_value=size - 1), max_size=3))
        for _ in range(size)
    ]


@settings(max_examples=60, deadline=None)
@given(graph=import_graphs())
def test_import_graphs_load_every_file_once_within_depth(graph: list[list[int]]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        tree = _tree(Path(temp).resolve())
        files = [tree.cwd / "CLAUDE.md"] + [tree.cwd / f"n{i}.md" for i in range(1, len(graph))]
        for path, targets in zip(files, graph, strict=True):
            tree.write(path, f"{path.name}\n" + " ".join(f"@{files[t].name}" for t in targets))

        found = tree.find()

        loaded = paths(found)
        assert loaded[0] == files[0]
        assert len(set(loaded)) == len(loaded)
        depth = {files[0]: 0}
        for index, item in enumerate(found[1:], start=1):
            parent = item.file.parent_path
            assert parent is not None
            assert parent in depth
            assert files.index(item.file.path) in graph[files.index(parent)]
            depth[item.file.path] = depth[parent] + 1
            # Preorder: everything between an import and its importer descends from the importer.
            between = loaded[loaded.index(parent) + 1 : index]
            assert all(_descends(found, p, parent) for p in between)
        assert max(depth.values()) <= 4
        for path, level in depth.items():
            if level < 4:
                assert {files[t] for t in graph[files.index(path)]} <= set(loaded)


def _descends(found: list[LoadedInstructions], path: Path, ancestor: Path) -> bool:
    parents = {item.file.path: item.file.parent_path for item in found}
    current: Path | None = path
    while current is not None:
        current = parents[current]
        if current == ancestor:
            return True
    return False


# --- rendering ------------------------------------------------------------------------------


def test_render_uses_claude_codes_wording(tree: Tree) -> None:
    tree.write(tree.managed / "CLAUDE.md", "managed\n")
    tree.write(tree.config / "CLAUDE.md", "\n  user  \n\n")
    tree.write(tree.cwd / "CLAUDE.md", "# Project\n- run tests\n")
    tree.write(tree.cwd / "CLAUDE.local.md", "local")

    rendered = render_instructions(tree.find())

    assert rendered == (
        f"{PREAMBLE}\n\n"
        f"Contents of {tree.managed}/CLAUDE.md (user's private global instructions for all"
        " projects):\n\nmanaged\n\n"
        f"Contents of {tree.config}/CLAUDE.md (user's private global instructions for all"
        " projects):\n\nuser\n\n"
        f"Contents of {tree.cwd}/CLAUDE.md (project instructions, checked into the codebase):"
        "\n\n# Project\n- run tests\n\n"
        f"Contents of {tree.cwd}/CLAUDE.local.md (user's private project instructions, not"
        " checked in):\n\nlocal"
    )


def test_render_shows_imports_as_their_own_blocks_and_skips_empty_text(tree: Tree) -> None:
    tree.write(tree.cwd / "CLAUDE.md", "main @extra.md")
    tree.write(tree.cwd / "extra.md", "extra")
    found = tree.find()
    blank = LoadedInstructions(file=found[0].file, text="")

    rendered = render_instructions([*found, blank])

    assert rendered.count("Contents of ") == 2
    assert rendered.endswith(
        f"Contents of {tree.cwd}/extra.md (project instructions, checked into the codebase):"
        "\n\nextra"
    )
    assert render_instructions([blank]) == ""
