"""The password database, as the sandbox has it: one user, `sandbox`, whose
home is the workspace /app, so that getpass.getuser() and
os.path.expanduser('~') work. WASI has no users of its own and reports every
file as owned by 0, so the user is 0 too (os.getuid(), _wasmbox_posix)."""

from collections import namedtuple as _namedtuple

_fields = ('pw_name', 'pw_passwd', 'pw_uid', 'pw_gid', 'pw_gecos', 'pw_dir', 'pw_shell')


class struct_passwd(_namedtuple('struct_passwd', _fields)):
    """pwd.struct_passwd: a tuple whose items have names, as CPython's."""
    __slots__ = ()
    n_fields = n_sequence_fields = len(_fields)
    n_unnamed_fields = 0


_SANDBOX = struct_passwd('sandbox', 'x', 0, 0, 'wasmbox sandbox', '/app', '/bin/sh')


def getpwuid(uid):
    uid = int(uid)
    if uid != _SANDBOX.pw_uid:
        raise KeyError(f'getpwuid(): uid not found: {uid}')
    return _SANDBOX


def getpwnam(name):
    if not isinstance(name, str):
        raise TypeError(f'getpwnam(): argument must be str, not {type(name).__name__}')
    if name != _SANDBOX.pw_name:
        raise KeyError(f'getpwnam(): name not found: {name!r}')
    return _SANDBOX


def getpwall():
    return [_SANDBOX]
