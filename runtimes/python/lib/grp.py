"""The group database, as the sandbox has it: one group, `sandbox`, gid 0
like the user (pwd). WASI has no groups of its own."""

from collections import namedtuple as _namedtuple

_fields = ('gr_name', 'gr_passwd', 'gr_gid', 'gr_mem')


class struct_group(_namedtuple('struct_group', _fields)):
    """grp.struct_group: a tuple whose items have names, as CPython's."""
    __slots__ = ()
    n_fields = n_sequence_fields = len(_fields)
    n_unnamed_fields = 0


_SANDBOX = struct_group('sandbox', 'x', 0, ['sandbox'])


def getgrgid(gid):
    gid = int(gid)
    if gid != _SANDBOX.gr_gid:
        raise KeyError(f'getgrgid(): gid not found: {gid}')
    return _SANDBOX


def getgrnam(name):
    if not isinstance(name, str):
        raise TypeError(f'getgrnam(): argument must be str, not {type(name).__name__}')
    if name != _SANDBOX.gr_name:
        raise KeyError(f'getgrnam(): name not found: {name!r}')
    return _SANDBOX


def getgrall():
    return [_SANDBOX]
