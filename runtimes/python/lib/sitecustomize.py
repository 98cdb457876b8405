# wasmbox: run by site.py when the interpreter starts, before the base
# snapshot is taken, so it costs no call anything.
import _wasmbox_packages
import _wasmbox_posix

_wasmbox_packages.install()
_wasmbox_posix.install()
del _wasmbox_packages, _wasmbox_posix
