"""A PEP 517 build backend for this package alone, on the standard library:
the package is pure Python (src/wasmbox) and talks to libwasmbox.so through
ctypes, so a wheel is a zip of it plus metadata (PEP 427, PEP 566), and an
sdist a tarball of this directory. It needs nothing from an index, so
`pip install ./clients/python` works without a network."""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME, VERSION = "wasmbox", "0.1.0"
TAG = "py3-none-any"
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)


def _metadata():
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Run untrusted Python and JavaScript in the wasmbox sandbox, from Python\n"
            "Requires-Python: >=3.9\nDescription-Content-Type: text/markdown\n\n%s" % (NAME, VERSION, readme))


def _files():
    """(path in the wheel, bytes) of the package, sorted: reproducible wheels."""
    root = os.path.join(HERE, "src")
    out = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for n in sorted(names):
            if n.endswith((".py", ".typed")):
                p = os.path.join(d, n)
                with open(p, "rb") as f:
                    out.append((os.path.relpath(p, root).replace(os.sep, "/"), f.read()))
    return out


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "%s-%s-%s.whl" % (NAME, VERSION, TAG)
    files = _files() + [
        (DIST_INFO + "/METADATA", _metadata().encode()),
        (DIST_INFO + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: wasmbox build_backend\n"
                                "Root-Is-Purelib: true\nTag: %s\n" % TAG).encode()),
    ]
    record = [_record_line(p, data) for p, data in files] + [DIST_INFO + "/RECORD,,"]
    files.append((DIST_INFO + "/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for p, data in files:
            info = zipfile.ZipInfo(p, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, VERSION)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for p in ["pyproject.toml", "build_backend.py", "README.md"]:
            t.add(os.path.join(HERE, p), arcname=base + "/" + p)
        for p, data in _files():
            info = tarfile.TarInfo(base + "/src/" + p)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        meta = _metadata().encode()
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(meta)
        t.addfile(info, io.BytesIO(meta))
    return name
