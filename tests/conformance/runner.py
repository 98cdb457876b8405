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


if name.startswith('test_asyncio.'):
    # the package's __init__ skips it whole where sockets do not work; the
    # modules run here need none, so the package is entered without it
    import os, types
    package = types.ModuleType('test.test_asyncio')
    package.__path__ = [os.path.join(os.path.dirname(test.__file__), 'test_asyncio')]
    sys.modules['test.test_asyncio'] = package
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
