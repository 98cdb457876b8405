"""The Python test scripts' output, as tests/run.sh and the Makefile read
it: "ok N - what" / "not ok N - what" per check, then "N passed, N failed"
and an exit status of 1 when any failed."""
import sys

_count = _failed = 0


def check(what, cond):
    global _count, _failed
    _count += 1
    print(('ok %d - %s' if cond else 'not ok %d - %s') % (_count, what), flush=True)
    if not cond:
        _failed += 1


def guard(what, fn):
    """Run a group of checks; an exception is one failed check, not a crash."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        check('%s (raised %r)' % (what, e), False)


def finish():
    print('%d passed, %d failed' % (_count - _failed, _failed))
    sys.exit(1 if _failed else 0)
