"""libwasmbox.so through ctypes: the structures of include/wasmbox.h, field
for field (tests/test_wasmbox.py checks sizes and offsets against the C
compiler's), and the functions with their argument types.

The library is found at $WASMBOX_LIBRARY, else by the system's search
(libwasmbox.so.0, after `make install`)."""
import ctypes
import ctypes.util
import os

SOVERSION = 0
OK, EUSAGE, EINTERNAL = 0, 2, 4
ID_MAX = 64
OWNER_MAX = 256

c_char_pp = ctypes.POINTER(ctypes.c_char_p)


class Mount(ctypes.Structure):
    _fields_ = [("host_dir", ctypes.c_char_p), ("guest_path", ctypes.c_char_p)]


class NamedMount(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("host_dir", ctypes.c_char_p)]


class Request(ctypes.Structure):
    _fields_ = [
        ("language", ctypes.c_char_p),
        ("code", ctypes.c_char_p),
        ("code_len", ctypes.c_size_t),
        ("filename", ctypes.c_char_p),
        ("workspace", ctypes.c_char_p),
        ("timeout_seconds", ctypes.c_double),
        ("memory_bytes", ctypes.c_uint64),
        ("fuel", ctypes.c_uint64),
        ("max_output_bytes", ctypes.c_size_t),
        ("quota_bytes", ctypes.c_uint64),
        ("stdin_data", ctypes.c_char_p),
        ("stdin_len", ctypes.c_size_t),
        ("env", c_char_pp),
        ("env_len", ctypes.c_size_t),
        ("mounts", ctypes.POINTER(Mount)),
        ("mounts_len", ctypes.c_size_t),
        ("packages", c_char_pp),
        ("packages_len", ctypes.c_size_t),
        ("allow_imports", c_char_pp),
        ("allow_imports_len", ctypes.c_size_t),
        ("deny_imports", c_char_pp),
        ("deny_imports_len", ctypes.c_size_t),
        ("deny_builtins", c_char_pp),
        ("deny_builtins_len", ctypes.c_size_t),
        ("no_files", ctypes.c_bool),
        ("cancel", ctypes.c_void_p),
        ("session_id", ctypes.c_char_p),
        ("tool_handler", ctypes.c_void_p),
        ("tool_audit", ctypes.c_void_p),
        ("tool_ctx", ctypes.c_void_p),
        ("allowed_tools", c_char_pp),
        ("allowed_tools_len", ctypes.c_size_t),
        ("max_tool_calls", ctypes.c_uint),
        ("max_tool_bytes", ctypes.c_uint64),
        ("owner", ctypes.c_char_p),
        ("owner_scope", ctypes.c_char_p),
    ]


class Options(ctypes.Structure):
    _fields_ = [
        ("home", ctypes.c_char_p),
        ("in_process", ctypes.c_bool),
        ("warm_workers", ctypes.c_uint),
        ("one_shot", ctypes.c_bool),
        ("store", ctypes.c_char_p),
        ("named_mounts", ctypes.POINTER(NamedMount)),
        ("named_mounts_len", ctypes.c_size_t),
        ("store_timeout_s", ctypes.c_double),
        ("store_connections", ctypes.c_uint),
        ("session_idle_release_s", ctypes.c_double),
    ]


class SessionOptions(ctypes.Structure):
    _fields_ = [
        ("language", ctypes.c_char_p),
        ("ttl_seconds", ctypes.c_double),
        ("env", c_char_pp),
        ("env_len", ctypes.c_size_t),
        ("mounts", ctypes.POINTER(Mount)),
        ("mounts_len", ctypes.c_size_t),
        ("packages", c_char_pp),
        ("packages_len", ctypes.c_size_t),
        ("owner", ctypes.c_char_p),
    ]


class SessionInfo(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_char * ID_MAX),
        ("language", ctypes.c_char * 16),
        ("created", ctypes.c_double),
        ("last_used", ctypes.c_double),
        ("ttl_seconds", ctypes.c_double),
        ("disk_bytes", ctypes.c_uint64),
        ("checkpoints", ctypes.c_size_t),
        ("owner", ctypes.c_char * OWNER_MAX),
    ]


class FileInfo(ctypes.Structure):
    _fields_ = [
        ("path", ctypes.c_char_p),
        ("is_dir", ctypes.c_bool),
        ("is_symlink", ctypes.c_bool),
        ("size", ctypes.c_uint64),
        ("mtime", ctypes.c_double),
    ]


STRUCTS = {"wasmbox_mount": Mount, "wasmbox_named_mount": NamedMount, "wasmbox_request": Request, "wasmbox_options": Options,
           "wasmbox_session_options": SessionOptions, "wasmbox_session_info": SessionInfo,
           "wasmbox_file_info": FileInfo}

_ERR = ctypes.c_char_p  # a caller's buffer
_P = ctypes.c_void_p
_S = ctypes.c_size_t
_SIGNATURES = {
    "wasmbox_version": (ctypes.c_char_p, []),
    "wasmbox_open": (_P, [ctypes.POINTER(Options), _ERR, _S]),
    "wasmbox_free": (None, [_P]),
    "wasmbox_run": (ctypes.c_int, [_P, ctypes.POINTER(Request), ctypes.POINTER(_P), _ERR, _S]),
    "wasmbox_result_free": (None, [_P]),
    "wasmbox_result_json": (_P, [_P]),
    "wasmbox_cancel_new": (_P, []),
    "wasmbox_cancel_fire": (None, [_P]),
    "wasmbox_cancel_free": (None, [_P]),
    "wasmbox_session_create": (ctypes.c_int, [_P, ctypes.POINTER(SessionOptions), _ERR, _ERR, _S]),
    "wasmbox_session_fork": (ctypes.c_int, [_P, ctypes.c_char_p, _ERR, _ERR, _S]),
    "wasmbox_session_checkpoint": (ctypes.c_int, [_P, ctypes.c_char_p, _ERR, _ERR, _S]),
    "wasmbox_session_restore": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, _ERR, _S]),
    "wasmbox_session_destroy": (ctypes.c_int, [_P, ctypes.c_char_p, _ERR, _S]),
    "wasmbox_session_list": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.POINTER(SessionInfo)),
                                            ctypes.POINTER(_S), _ERR, _S]),
    "wasmbox_session_info_get": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(SessionInfo), _ERR, _S]),
    "wasmbox_session_prune": (ctypes.c_int, [_P, ctypes.POINTER(_S), _ERR, _S]),
    "wasmbox_session_install": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                               ctypes.c_char_p, ctypes.POINTER(_P), _ERR, _S]),
    "wasmbox_session_list_files": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_bool,
                                                  ctypes.POINTER(ctypes.POINTER(FileInfo)), ctypes.POINTER(_S),
                                                  _ERR, _S]),
    "wasmbox_file_info_free": (None, [ctypes.POINTER(FileInfo), _S]),
    "wasmbox_session_read_file": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_P),
                                                 ctypes.POINTER(_S), _ERR, _S]),
    "wasmbox_session_write_file": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, _S,
                                                  _ERR, _S]),
    "wasmbox_session_reset_workspace": (ctypes.c_int, [_P, ctypes.c_char_p, _ERR, _S]),
}


def _path():
    explicit = os.environ.get("WASMBOX_LIBRARY")
    if explicit:
        return explicit
    return ctypes.util.find_library("wasmbox") or "libwasmbox.so.%d" % SOVERSION


def load():
    """The library with its functions typed; OSError says where it looked."""
    path = _path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise OSError("cannot load libwasmbox (%s): %s; install it (make install) or set WASMBOX_LIBRARY" %
                      (path, e)) from e
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


libc = ctypes.CDLL(None)
libc.free.argtypes, libc.free.restype = [ctypes.c_void_p], None
