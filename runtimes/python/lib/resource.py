"""Resource limits and usage, as far as a WebAssembly guest knows them.

The host enforces the call's limits (wall-clock timeout, memory, fuel,
output, files) outside the guest, which cannot see them: getrlimit reports
RLIM_INFINITY for those, and the one limit the guest does know, 128 open
descriptors. setrlimit refuses, saying where limits are set, rather than
accepting a limit nothing would enforce. getrusage reports the CPU time of
the call; what WASI cannot measure (memory, page faults, context switches)
is 0."""

import time as _time
from collections import namedtuple as _namedtuple

error = OSError

RLIM_INFINITY = -1
(RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_DATA, RLIMIT_STACK, RLIMIT_CORE, RLIMIT_RSS, RLIMIT_NPROC, RLIMIT_NOFILE,
 RLIMIT_MEMLOCK, RLIMIT_AS) = range(10)
RUSAGE_SELF, RUSAGE_CHILDREN = 0, -1

_NOFILE = 128  # the WASI host's descriptor limit (src/api: MAX_FDS)

_fields = ('ru_utime', 'ru_stime', 'ru_maxrss', 'ru_ixrss', 'ru_idrss', 'ru_isrss', 'ru_minflt', 'ru_majflt',
           'ru_nswap', 'ru_inblock', 'ru_oublock', 'ru_msgsnd', 'ru_msgrcv', 'ru_nsignals', 'ru_nvcsw', 'ru_nivcsw')


class struct_rusage(_namedtuple('struct_rusage', _fields)):
    __slots__ = ()


def _check(resource):
    if not isinstance(resource, int) or not 0 <= resource <= RLIMIT_AS:
        raise ValueError('invalid resource specified')


def getrlimit(resource):
    _check(resource)
    if resource == RLIMIT_NOFILE:
        return (_NOFILE, _NOFILE)
    if resource in (RLIMIT_CORE, RLIMIT_NPROC):
        return (0, 0)  # no core dumps, no processes
    return (RLIM_INFINITY, RLIM_INFINITY)


def setrlimit(resource, limits):
    _check(resource)
    raise ValueError('limits are set by the host, not by the code: wasmbox --timeout, --memory and --fuel '
                     '(MCP timeout_seconds, memory_mb, fuel)')


def getrusage(who):
    if who not in (RUSAGE_SELF, RUSAGE_CHILDREN):
        raise ValueError('invalid who parameter')
    cpu = _time.process_time() if who == RUSAGE_SELF else 0.0
    return struct_rusage(cpu, 0.0, *([0] * 14))


def getpagesize():
    return 65536  # a WebAssembly page
