"""What WASI leaves out of os and socket that ordinary programs call, with
the sandbox's values: its one user and group (uid/gid 1000, pwd and grp),
and its host name. Installed by sitecustomize before the base snapshot: os
is a frozen module, so a patch to Lib/os.py would not take effect."""
import os
import socket

USER, UID, GID, HOSTNAME = 'sandbox', 1000, 1000, 'sandbox'


def install():
    for name, value in (('getuid', UID), ('geteuid', UID), ('getgid', GID), ('getegid', GID)):
        if not hasattr(os, name):
            setattr(os, name, lambda value=value: value)
    if not hasattr(os, 'getlogin'):
        os.getlogin = lambda: USER
    if not hasattr(os, 'getgroups'):
        os.getgroups = lambda: [GID]
    if not hasattr(socket, 'gethostname'):
        socket.gethostname = lambda: HOSTNAME
