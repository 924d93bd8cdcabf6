"""JupyterLab or Notebook 7 for a browser test: on 127.0.0.1, a free port, no token.

    with JupyterServer("lab", root, env) as jupyter:      # or "notebook" (Notebook 7)
        page.goto(jupyter.notebook_url("ps1.ipynb"))

The server runs as its own process group, with its configuration, runtime files, user
settings and workspaces in a folder of the test's own, so nothing of the machine's
Jupyter set-up takes part; it and its kernels are stopped on exit. Its user settings render
every cell (no windowing: a test finds cells in the page) and fetch no news.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import httpx
from service_helpers import free_port

APPS = {"lab": ("jupyterlab", "lab/tree"), "notebook": ("notebook", "notebooks")}
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


class JupyterServer:
    """``python -m jupyterlab`` or ``python -m notebook`` serving ``root``."""

    def __init__(self, app: str, root: Path, env: Mapping[str, str], home: Path) -> None:
        self.module, self.path = APPS[app]
        self.root, self.home = root, home
        self.env = dict(env) | {
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        }
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = home / f"{app}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/{self.path}/{name}"

    def __enter__(self) -> JupyterServer:
        for name, values in SETTINGS.items():
            path = self.home / "settings" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values), encoding="utf-8")
        args = [
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--ServerApp.port_retries=0",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={self.root}",
            # A container's test run is often root's: Jupyter asks for it to be said.
            *(["--allow-root"] if os.geteuid() == 0 else []),
        ]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", self.module, *args],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its kernels with it: stopped as one group
            )
        self._wait_ready()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is None:
            return
        group = os.getpgid(self.proc.pid)
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            os.killpg(group, signal.SIGKILL)  # a kernel the server left behind
        except ProcessLookupError:
            pass
        self.proc = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def _wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.module} exited {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/api/status", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"{self.module} did not answer in {timeout} s:\n{self.log()}")
