"""wasmbox for Python: run untrusted Python and JavaScript in the wasmbox
sandbox through its C library (libwasmbox.so, loaded with ctypes; the
standard library is all this package needs).

    from wasmbox import Sandbox
    with Sandbox() as sb:
        r = sb.run("print(6 * 7)")
        print(r.status, r.stdout)          # ok 42

What a run did is a Result, never an exception: code that raised, timed out
or ran out of memory is a Result with that status (see ``ok`` and
``raise_for_status()``). Methods raise WasmboxError only when the request
itself failed: a bad argument (UsageError) or a host failure (InternalError).
Everything here is safe to use from several threads at once."""
from __future__ import annotations

import ctypes
import json
import threading
from dataclasses import dataclass, field, fields
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from . import _lib

__all__ = ["Sandbox", "Session", "Result", "ErrorInfo", "FuelAnalysis", "SessionInfo", "FileInfo", "CancelToken",
           "WasmboxError", "UsageError", "InternalError", "RunFailed", "version"]
__version__ = "0.1.0"

_ERRLEN = 1024
_lib_handle = None
_lib_lock = threading.Lock()


def _l():
    global _lib_handle
    with _lib_lock:
        if _lib_handle is None:
            _lib_handle = _lib.load()
        return _lib_handle


def version() -> str:
    """The library's version (wasmbox_version())."""
    return _l().wasmbox_version().decode()


class WasmboxError(Exception):
    """A request failed (not the code it ran: that is a Result)."""


class UsageError(WasmboxError, ValueError):
    """A bad request: an argument out of range, a session that does not exist."""


class InternalError(WasmboxError):
    """The host could not do it (disk full, a worker that could not start)."""


def _check(rc: int, err: ctypes.Array) -> None:
    if rc == _lib.OK:
        return
    msg = err.value.decode(errors="replace") or "wasmbox error %d" % rc
    raise (UsageError if rc == _lib.EUSAGE else InternalError)(msg)


def _bytes(s: Union[str, bytes, None]) -> Optional[bytes]:
    if s is None or isinstance(s, bytes):
        return s
    if isinstance(s, str):
        return s.encode()
    raise TypeError("expected str or bytes, not %s" % type(s).__name__)


def _strings(items: Optional[Iterable[str]]):
    """(array, length) of C strings, or (None, 0)."""
    if items is None:
        return None, 0
    values = [_bytes(x) for x in items]
    return (ctypes.c_char_p * max(1, len(values)))(*values), len(values)


@dataclass(frozen=True)
class ErrorInfo:
    """Why a run failed: the exception's type and message, its traceback, and
    guidance on what to change."""
    type: str
    message: str
    traceback: Optional[str] = None
    guidance: List[str] = field(default_factory=list)
    # the same hints as {"type", "message", "docs"}: a kind to match on
    # ("timeout", "module_not_found", ...) and the section of docs/ about it
    guidance_entries: List[Dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class FuelAnalysis:
    """How much of its fuel budget a run used (runs with a ``fuel`` budget)."""
    consumed: int
    budget: int
    utilization_percent: float
    status: str  # efficient, moderate, warning, critical, exhausted
    suggested_budget: Optional[int] = None
    recommendation: Optional[str] = None


@dataclass(frozen=True)
class Result:
    """What a run did: every field of the library's result object."""
    status: str  # ok, error, timeout, out_of_fuel, out_of_memory, crashed, cancelled, paused
    stdout: str
    stderr: str
    exit_code: int
    error: Optional[ErrorInfo]
    duration_ms: float
    fuel_used: int = 0
    memory_peak_bytes: int = 0
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    session_id: Optional[str] = None
    session_rolled_back: bool = False
    files_changed: List[str] = field(default_factory=list)
    fuel_analysis: Optional[FuelAnalysis] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """The code ran to its end and exited 0."""
        return self.status == "ok"

    def raise_for_status(self) -> "Result":
        """Raise RunFailed unless ok; return self, for chaining."""
        if not self.ok:
            raise RunFailed(self)
        return self

    @classmethod
    def from_json(cls, raw: Dict[str, Any]) -> "Result":
        skip = {"error", "fuel_analysis", "raw"}
        kw = {k: v for k, v in raw.items() if k in {f.name for f in fields(cls)} - skip}
        e = raw.get("error")
        f = raw.get("fuel_analysis")
        return cls(error=_known(ErrorInfo, e) if e else None, fuel_analysis=_known(FuelAnalysis, f) if f else None,
                   raw=raw, **kw)


def _known(cls, d: Dict[str, Any]):
    """cls from the keys of d it has (a newer library may send more)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in names})


class RunFailed(WasmboxError):
    """From Result.raise_for_status(): the run did not end ok."""

    def __init__(self, result: Result):
        e = result.error
        super().__init__("%s: %s: %s" % (result.status, e.type, e.message) if e else
                         "%s (exit code %d)" % (result.status, result.exit_code))
        self.result = result


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    language: str
    created: float
    last_used: float
    ttl_seconds: float
    disk_bytes: int
    checkpoints: int


@dataclass(frozen=True)
class FileInfo:
    path: str  # a guest path, /app/...
    is_dir: bool
    is_symlink: bool
    size: int
    mtime: float


class CancelToken:
    """Stops a run from another thread: pass it as ``cancel=`` and call
    ``cancel()``; the run ends with status "cancelled". One token may serve
    many runs; cancelling it stops every run it was given to."""

    def __init__(self) -> None:
        self._lib = _l()
        self._p = self._lib.wasmbox_cancel_new()
        if not self._p:
            raise InternalError("cannot make a cancellation token")

    def cancel(self) -> None:
        self._lib.wasmbox_cancel_fire(self._p)

    def __del__(self) -> None:
        p, self._p = getattr(self, "_p", None), None
        if p:
            self._lib.wasmbox_cancel_free(p)


class Sandbox:
    """A wasmbox library instance and the defaults of its runs.

    language: "python" or "javascript"; timeout: seconds of wall clock;
    memory_mb: the guest's memory limit; fuel: an exact instruction budget
    (None: none); workspace: a host directory shown at /app in stateless runs
    (None: a fresh empty one each run); env: the guest's environment;
    home: the state directory of sessions (None: $WASMBOX_HOME, else
    ~/.local/share/wasmbox); in_process: run guests in this process instead
    of jailed worker processes (only for callers that isolate themselves).
    """

    def __init__(self, language: str = "python", timeout: float = 30.0, memory_mb: int = 256,
                 fuel: Optional[int] = None, workspace: Optional[str] = None, env: Optional[Mapping[str, str]] = None,
                 home: Optional[str] = None, in_process: bool = False, max_output_bytes: Optional[int] = None):
        self.language, self.timeout, self.memory_mb, self.fuel = language, timeout, memory_mb, fuel
        self.workspace, self.env, self.max_output_bytes = workspace, dict(env or {}), max_output_bytes
        self._lib = _l()
        err = ctypes.create_string_buffer(_ERRLEN)
        opts = _lib.Options(home=_bytes(home), in_process=in_process)
        self._p = self._lib.wasmbox_open(ctypes.byref(opts), err, _ERRLEN)
        if not self._p:
            raise InternalError(err.value.decode(errors="replace"))

    # -- running code --

    def run(self, code: Union[str, bytes], *, stdin: Union[str, bytes, None] = None, language: Optional[str] = None,
            timeout: Optional[float] = None, memory_mb: Optional[int] = None, fuel: Optional[int] = None,
            cancel: Optional[CancelToken] = None, filename: Optional[str] = None) -> Result:
        """Run code once in a fresh sandbox that keeps nothing."""
        return self._run(code, None, stdin=stdin, language=language or self.language, timeout=timeout,
                         memory_mb=memory_mb, fuel=fuel, cancel=cancel, filename=filename)

    def _run(self, code, session_id, *, stdin, language, timeout, memory_mb, fuel, cancel, filename) -> Result:
        p = self._handle()
        code_b = _bytes(code)
        stdin_b = _bytes(stdin)
        timeout = self.timeout if timeout is None else timeout
        memory_mb = self.memory_mb if memory_mb is None else memory_mb
        fuel = self.fuel if fuel is None else fuel
        for name, v in (("timeout", timeout), ("memory_mb", memory_mb), ("fuel", fuel)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0):
                raise UsageError("%s must be a positive number, not %r" % (name, v))
        req = _lib.Request(code=code_b, code_len=len(code_b), language=_bytes(language), filename=_bytes(filename),
                           timeout_seconds=float(timeout), memory_bytes=int(memory_mb) << 20,
                           fuel=int(fuel or 0), max_output_bytes=self.max_output_bytes or 0)
        keep = []
        if session_id is None:
            req.workspace = _bytes(self.workspace)
            env, req.env_len = _strings("%s=%s" % kv for kv in self.env.items())
            req.env = ctypes.cast(env, _lib.c_char_pp) if env is not None else None
            keep.append(env)
        else:
            req.session_id = _bytes(session_id)
        if stdin_b is not None:
            req.stdin_data, req.stdin_len = stdin_b, len(stdin_b)
        if cancel is not None:
            req.cancel = cancel._p
        out = ctypes.c_void_p()
        err = ctypes.create_string_buffer(_ERRLEN)
        _check(self._lib.wasmbox_run(p, ctypes.byref(req), ctypes.byref(out), err, _ERRLEN), err)
        try:
            text = self._lib.wasmbox_result_json(out)
            if not text:
                raise InternalError("out of memory rendering a result")
            try:
                raw = json.loads(ctypes.string_at(text).decode())
            finally:
                _lib.libc.free(text)
        finally:
            self._lib.wasmbox_result_free(out)
        return Result.from_json(raw)

    # -- sessions --

    def session(self, language: Optional[str] = None, ttl: Optional[float] = None,
                env: Optional[Mapping[str, str]] = None) -> "Session":
        """A new session: variables, imports and /app files carry over from
        run to run. As a context manager it is destroyed at the end."""
        opts = _lib.SessionOptions(language=_bytes(language or self.language), ttl_seconds=float(ttl or 0))
        env_arr, opts.env_len = _strings("%s=%s" % kv for kv in (env or {}).items())
        if env_arr is not None:
            opts.env = ctypes.cast(env_arr, _lib.c_char_pp)
        sid = ctypes.create_string_buffer(_lib.ID_MAX)
        err = ctypes.create_string_buffer(_ERRLEN)
        _check(self._lib.wasmbox_session_create(self._handle(), ctypes.byref(opts), sid, err, _ERRLEN), err)
        return Session(self, sid.value.decode())

    def attach(self, session_id: str) -> "Session":
        """An existing session (from sessions(), or another process)."""
        s = Session(self, session_id)
        s.info()  # exists?
        return s

    def sessions(self) -> List[SessionInfo]:
        arr = ctypes.POINTER(_lib.SessionInfo)()
        n = ctypes.c_size_t()
        err = ctypes.create_string_buffer(_ERRLEN)
        _check(self._lib.wasmbox_session_list(self._handle(), ctypes.byref(arr), ctypes.byref(n), err, _ERRLEN), err)
        try:
            return [_session_info(arr[i]) for i in range(n.value)]
        finally:
            _lib.libc.free(arr)

    def prune(self) -> int:
        """Remove sessions idle past their TTL; how many went."""
        n = ctypes.c_size_t()
        err = ctypes.create_string_buffer(_ERRLEN)
        _check(self._lib.wasmbox_session_prune(self._handle(), ctypes.byref(n), err, _ERRLEN), err)
        return n.value

    # -- lifetime --

    def _handle(self):
        if not self._p:
            raise WasmboxError("this Sandbox is closed")
        return self._p

    def close(self) -> None:
        """Stop its workers. Sessions stay on disk."""
        p, self._p = self._p, None
        if p:
            self._lib.wasmbox_free(p)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_p", None):
            self.close()


def _session_info(i) -> SessionInfo:
    return SessionInfo(session_id=i.id.decode(), language=i.language.decode(), created=i.created,
                       last_used=i.last_used, ttl_seconds=i.ttl_seconds, disk_bytes=i.disk_bytes,
                       checkpoints=i.checkpoints)


class Session:
    """State kept across runs: an interpreter's memory and its /app. A run
    stopped by a limit or a crash leaves it as it was (result.session_rolled_back);
    an exception keeps the state up to it, as in a REPL. Every committed state
    is on disk before run() returns."""

    def __init__(self, sandbox: Sandbox, session_id: str):
        self.sandbox, self.id = sandbox, session_id

    def __repr__(self) -> str:
        return "Session(%r)" % self.id

    @property
    def language(self) -> str:
        return self.info().language

    def _call(self, name: str, *args) -> None:
        err = ctypes.create_string_buffer(_ERRLEN)
        _check(getattr(self.sandbox._lib, name)(self.sandbox._handle(), _bytes(self.id), *args, err, _ERRLEN), err)

    def run(self, code: Union[str, bytes], *, stdin: Union[str, bytes, None] = None, timeout: Optional[float] = None,
            memory_mb: Optional[int] = None, fuel: Optional[int] = None,
            cancel: Optional[CancelToken] = None) -> Result:
        return self.sandbox._run(code, self.id, stdin=stdin, language=None, timeout=timeout, memory_mb=memory_mb,
                                 fuel=fuel, cancel=cancel, filename=None)

    def fork(self) -> "Session":
        """A new session that starts as a copy of this one."""
        new = ctypes.create_string_buffer(_lib.ID_MAX)
        self._call("wasmbox_session_fork", new)
        return Session(self.sandbox, new.value.decode())

    def checkpoint(self) -> str:
        """Save the state now; the id restore() takes."""
        cid = ctypes.create_string_buffer(_lib.ID_MAX)
        self._call("wasmbox_session_checkpoint", cid)
        return cid.value.decode()

    def restore(self, checkpoint_id: str) -> None:
        self._call("wasmbox_session_restore", _bytes(checkpoint_id))

    def info(self) -> SessionInfo:
        i = _lib.SessionInfo()
        self._call("wasmbox_session_info_get", ctypes.byref(i))
        return _session_info(i)

    def read_file(self, path: str) -> bytes:
        """A file under /app (a guest path, or relative to /app)."""
        data = ctypes.c_void_p()
        n = ctypes.c_size_t()
        self._call("wasmbox_session_read_file", _bytes(path), ctypes.byref(data), ctypes.byref(n))
        try:
            return ctypes.string_at(data, n.value)
        finally:
            _lib.libc.free(data)

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return self.read_file(path).decode(encoding)

    def write_file(self, path: str, data: Union[str, bytes]) -> None:
        """Create or replace a file under /app (text as UTF-8)."""
        b = _bytes(data)
        self._call("wasmbox_session_write_file", _bytes(path), b, len(b))

    def list_files(self, path: str = "/app", recursive: bool = False) -> List[FileInfo]:
        arr = ctypes.POINTER(_lib.FileInfo)()
        n = ctypes.c_size_t()
        self._call("wasmbox_session_list_files", _bytes(path), recursive, ctypes.byref(arr), ctypes.byref(n))
        try:
            return [FileInfo(path=arr[i].path.decode(), is_dir=arr[i].is_dir, is_symlink=arr[i].is_symlink,
                             size=arr[i].size, mtime=arr[i].mtime) for i in range(n.value)]
        finally:
            self.sandbox._lib.wasmbox_file_info_free(arr, n.value)

    def reset_workspace(self) -> None:
        """Empty /app; the interpreter's state stays."""
        self._call("wasmbox_session_reset_workspace")

    def install(self, requirement: str, *, index_url: Optional[str] = None,
                wheelhouse: Optional[str] = None) -> Dict[str, Any]:
        """Install a pure-Python package (and its dependencies) into a Python
        session, from an index or a directory of wheels (exactly one)."""
        out = ctypes.c_void_p()
        self._call("wasmbox_session_install", _bytes(requirement), _bytes(index_url), _bytes(wheelhouse),
                   ctypes.byref(out))
        try:
            return json.loads(ctypes.string_at(out).decode())
        finally:
            _lib.libc.free(out)

    def destroy(self) -> None:
        self._call("wasmbox_session_destroy")

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.destroy()
