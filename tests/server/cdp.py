"""A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
JSON messages separated by NUL on fds 3 and 4), stdlib only — no Playwright, no websocket client,
no browser download: the system's `chromium` is used as installed."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


class CdpError(RuntimeError):
    pass


class Chromium:
    """One headless browser with one page; `call` sends a command to the page's session."""

    def __init__(self, executable: str, profile: Path, *, width: int = 1280, height: int = 860):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:  # in the child: the browser reads commands on fd 3, answers on fd 4
            r, w = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 100), fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 100)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-sync", "--disable-component-update", "--mute-audio", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, pass_fds=(3, 4), close_fds=True)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next = 0
        self._answers: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session: str | None = None
        targets = self.call("Target.getTargets", browser=True)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True,
                                 browser=True)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._cond.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                message = json.loads(raw)
                with self._cond:
                    if "id" in message:
                        self._answers[message["id"]] = message
                    else:
                        self.events.append(message)
                    self._cond.notify_all()

    def call(self, method: str, *, browser: bool = False, timeout: float = 10.0, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if not browser and self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._next not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise CdpError(f"{method}: no answer from the browser within {timeout:.0f} s")
                self._cond.wait(left)
            answer = self._answers.pop(self._next)
        if "error" in answer:
            raise CdpError(f"{method}: {answer['error'].get('message')}")
        return answer.get("result", {})

    def js(self, expression: str) -> Any:
        """Evaluate in the page (promises awaited); the value, or CdpError with the exception."""
        out = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in out:
            raise CdpError(f"{expression[:80]}: {out['exceptionDetails'].get('exception', {}).get('description')}")
        return out["result"].get("value")

    def wait_for(self, expression: str, *, timeout: float = 10.0, what: str = "") -> Any:
        """Poll a JS expression until it is truthy (in JavaScript's sense); its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(f"(() => {{ const v = ({expression}); return v ? (typeof v === 'object' ? true : v) : false; }})()")
            if value:
                return value
            if time.monotonic() > deadline:
                raise CdpError(f"timed out waiting for {what or expression}")
            time.sleep(0.05)

    def key(self, key: str, code: str = "", text: str | None = None) -> None:
        """Press and release a key as a person would (keydown with its text, keyup)."""
        text = key if text is None and len(key) == 1 else text
        down = {"type": "keyDown", "key": key, "code": code or key}
        if text:
            down["text"] = text
        if key == "Enter":
            down.update(windowsVirtualKeyCode=13, nativeVirtualKeyCode=13, text="\r")
        self.call("Input.dispatchKeyEvent", **down)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code or key)

    def type(self, text: str) -> None:
        self.call("Input.insertText", text=text)

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def problems(self) -> list[str]:
        """Uncaught exceptions and console/CSP errors the page produced so far."""
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(e["params"]["exceptionDetails"].get("exception", {}).get("description", "exception"))
            elif e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error":
                out.append(e["params"]["entry"]["text"])
            elif e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error":
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in e["params"]["args"]))
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close", browser=True, timeout=3)
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
