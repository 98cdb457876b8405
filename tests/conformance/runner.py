# Runs inside the sandbox and natively alike: one CPython test module, counted
# the same way in both places. Prints one JSON line.
import json, sys, unittest

name = sys.argv[1] if len(sys.argv) > 1 else MODULE  # noqa: F821 (set by the driver)
suite = unittest.defaultTestLoader.loadTestsFromName('test.' + name)
result = unittest.TextTestRunner(stream=sys.stderr, verbosity=0).run(suite)
print(json.dumps({
    'module': name,
    'run': result.testsRun,
    'failed': sorted(t.id() for t, _ in result.failures + result.errors + result.unexpectedSuccesses),
    'skipped': len(result.skipped) + len(result.expectedFailures),
}))
