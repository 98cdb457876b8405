"""What WASI leaves out of os and socket that ordinary programs call, with
the sandbox's values: its one user and group (pwd and grp), id 0 because
WASI reports every file as owned by 0 and programs compare the two
(pytest's and tempfile's ownership checks), and its host name. Installed by
sitecustomize before the base snapshot: os is a frozen module, so a patch
to Lib/os.py would not take effect."""
import os
import socket

USER, UID, GID, HOSTNAME = 'sandbox', 0, 0, 'sandbox'


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
