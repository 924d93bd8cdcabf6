"""Grading's truth cache: one file per entry, named by what invalidates it, kept only when
the computation did not fail; kinds reach it only through ``TruthStore``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graders.grading import truth_cache
from graders.grading.torch_side import torch_version
from graders.grading.truth_cache import TruthCache


class Counting:
    """A computation that says which entries it was asked for."""

    def __init__(self, result: dict[str, Any]) -> None:
        self.result = result
        self.asked: list[Any] = []

    def one(self) -> dict[str, Any]:
        self.asked.append("one")
        return dict(self.result)

    def many(self, missing: list[int]) -> list[dict[str, Any]]:
        self.asked.append(missing)
        return [dict(self.result, index=i) for i in missing]


def test_an_entry_is_one_file_named_by_name_key_seed_and_torch(tmp_path: Path) -> None:
    # The name the cache has always had: a course's .graders-cache from before still reads.
    compute = Counting({"questions": {}})
    cache = TruthCache(tmp_path, seed=7)
    assert cache.cached("clone-basics", "abc123", compute.one) == {"questions": {}}
    path = tmp_path / "truth" / f"clone-basics-abc123-s7-torch{torch_version()}.json"
    assert json.loads(path.read_text(encoding="utf-8")) == {"questions": {}}
    assert cache.cached("clone-basics", "abc123", compute.one) == {"questions": {}}
    assert compute.asked == ["one"]


def test_only_what_is_missing_is_computed_and_together(tmp_path: Path) -> None:
    cache = TruthCache(tmp_path, seed=0)
    compute = Counting({"v": 1})
    cache.cached_many([("a", "k1")], compute.many)
    found = cache.cached_many([("a", "k1"), ("b", "k2"), ("c", "k3")], compute.many)
    assert compute.asked == [[0], [1, 2]]
    assert [r["index"] for r in found] == [0, 1, 2]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda c: TruthCache(c.folder, seed=1), id="another-seed"),
        pytest.param(lambda c: c, id="another-torch"),
    ],
)
def test_a_change_of_seed_or_torch_computes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    cache = TruthCache(tmp_path, seed=0)
    compute = Counting({"v": 1})
    cache.cached("ex", "k", compute.one)
    monkeypatch.setattr(truth_cache, "torch_version", lambda: "0.0.0-another")
    change(cache).cached("ex", "k", compute.one)
    assert compute.asked == ["one", "one"]


def test_a_failed_computation_or_a_damaged_file_is_not_trusted(tmp_path: Path) -> None:
    cache = TruthCache(tmp_path, seed=0)
    failing = Counting({"error": "computing the truth failed (timeout)"})
    cache.cached("ex", "k", failing.one)
    cache.cached("ex", "k", failing.one)
    assert failing.asked == ["one", "one"]  # a timeout may be the machine's: never kept
    cache.cached("kept", "k", Counting({"v": 1}).one)
    path = tmp_path / "truth" / f"kept-k-s0-torch{torch_version()}.json"
    path.write_text('{"v": ', encoding="utf-8")  # half a file
    assert cache.cached("kept", "k", Counting({"v": 2}).one) == {"v": 2}


def test_no_folder_keeps_nothing(tmp_path: Path) -> None:
    compute = Counting({"v": 1})
    cache = TruthCache(None, seed=0)
    cache.cached("ex", "k", compute.one)
    cache.cached("ex", "k", compute.one)
    assert compute.asked == ["one", "one"]
