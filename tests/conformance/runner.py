# Runs inside the sandbox and natively alike: one CPython test module, loaded
# the way regrtest loads it and counted the same way in both places. Prints
# one JSON line.
import importlib, json, sys, unittest
import test.support

name = sys.argv[1] if len(sys.argv) > 1 else MODULE  # noqa: F821 (set by the driver)
test.support.verbose = 0
results = []


def run(suite):
    results.append(unittest.TextTestRunner(stream=sys.stderr, verbosity=0).run(suite))


module = importlib.import_module('test.' + name)
if hasattr(module, 'test_main'):
    # regrtest calls test_main(), which hands its suites to support._run_suite
    # inside its own set-up and tear-down: run them there, with our counter
    test.support._run_suite = run
    module.test_main()
else:
    run(unittest.defaultTestLoader.loadTestsFromModule(module))
print(json.dumps({
    'module': name,
    'run': sum(r.testsRun for r in results),
    'failed': sorted(t.id() for r in results for t, _ in r.failures + r.errors + r.unexpectedSuccesses),
    'skipped': sum(len(r.skipped) + len(r.expectedFailures) for r in results),
}))
