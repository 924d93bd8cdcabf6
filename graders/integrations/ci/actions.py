"""The actions graders' workflows use, each pinned to the commit of one release.

A tag can be moved to other code after a workflow names it; a commit cannot. So every
``uses:`` graders writes names a full commit SHA, with the release it is in a comment, as
``uses(action)`` gives it: ``actions/checkout@11bd7190... # v4.2.2``. This table is the only
place the pins are kept: updating an action is one line here (the commit a tag points to:
``git ls-remote https://github.com/actions/checkout refs/tags/v4.2.2``; for an annotated tag,
the ``^{}`` line).
"""

from __future__ import annotations

from typing import NamedTuple


class Pin(NamedTuple):
    sha: str  # the full 40-hex commit
    version: str  # the release tag at that commit, written beside it


PINS: dict[str, Pin] = {
    "actions/checkout": Pin("11bd71901bbe5b1630ceea73d27597364c9af683", "v4.2.2"),
    "actions/setup-python": Pin("0b93645e9fea7318ecaed2b359559ac225c90a2b", "v5.3.0"),
    "actions/upload-artifact": Pin("b4b15b8c7c6ac21ea08fcf65892d2ee8f75cf882", "v4.4.3"),
    "actions/download-artifact": Pin("fa0a91b85d4f404e444e00e005971372dc801d16", "v4.1.8"),
}


def uses(action: str) -> str:
    """What a step's ``uses:`` says for ``action``: its pinned commit, the release in a
    comment."""
    pin = PINS[action]
    return f"{action}@{pin.sha} # {pin.version}"
