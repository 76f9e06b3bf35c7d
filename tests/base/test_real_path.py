"""``real_path``: links followed for the file and each parent; ``contained_path`` for manifests."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh.base._real_path import LinkError, contained_path, first_link, real_path


def test_a_missing_file_is_its_deepest_existing_parent_resolved(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert real_path(tmp_path / "link" / "new" / "f.txt") == tmp_path / "real" / "new" / "f.txt"
    assert first_link(tmp_path / "link" / "new") == tmp_path / "link"
    assert first_link(tmp_path / "real") is None


def test_dotdot_after_a_link_is_the_targets_parent(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "l").symlink_to(tmp_path / "a" / "b")
    assert real_path(tmp_path / "p" / "l" / ".." / "x") == tmp_path / "a" / "x"


def test_a_loop_and_a_dangling_link_are_link_errors_naming_the_link(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(LinkError, match="symbolic link in a loop") as loop:
        real_path(tmp_path / "a" / "x")
    assert loop.value.kind == "loop"
    (tmp_path / "d").symlink_to("nowhere/f")
    with pytest.raises(LinkError, match="which does not exist") as dangling:
        real_path(tmp_path / "d")
    assert dangling.value.target == tmp_path / "nowhere" / "f"


@pytest.mark.parametrize(
    ("relative", "said"),
    [
        ("a\x00b", "has a NUL byte"),
        ("a" * 256, "has a name over 255 bytes"),
        ("x/" * 2100, "is over 4096 bytes"),
        ("../out", "leaves the plugin"),
        ("/etc/passwd", "leaves the plugin"),
        ("out/x", "leaves the plugin"),
        ("\ud800", "is not a file name this system can write"),
    ],
)
def test_contained_path_says_why_a_path_is_unusable(
    tmp_path: Path, relative: str, said: str
) -> None:
    root = tmp_path / "plugin"
    root.mkdir()
    (root / "out").symlink_to(tmp_path)
    assert contained_path(root, relative) == said


def test_contained_path_gives_a_path_inside(tmp_path: Path) -> None:
    assert contained_path(tmp_path, "./hooks/../h.json") == tmp_path.resolve() / "h.json"
