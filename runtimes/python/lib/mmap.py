"""Memory-mapped files, as far as WASI allows. A WebAssembly guest has no
shared memory with the host, so a mapping is a copy of the file's bytes in
the guest: reads and writes through it see each other, and the bytes go
back to the file on flush() and close() (never with ACCESS_COPY or
MAP_PRIVATE). The file must stay open until then: WASI cannot duplicate a
descriptor. A mapping is a bytearray of fixed size, so memoryview, re and
struct work on it as on CPython's."""

import os as _os

ACCESS_DEFAULT, ACCESS_READ, ACCESS_WRITE, ACCESS_COPY = 0, 1, 2, 3
MAP_SHARED, MAP_PRIVATE, MAP_ANONYMOUS = 1, 2, 0x20
MAP_ANON = MAP_ANONYMOUS
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
PAGESIZE = ALLOCATIONGRANULARITY = 65536
error = OSError


class mmap(bytearray):
    def __init__(self, fileno, length, flags=MAP_SHARED, prot=PROT_READ | PROT_WRITE, access=ACCESS_DEFAULT,
                 offset=0):
        if length < 0 or offset < 0:
            raise OverflowError('memory mapped length or offset must be positive')
        if offset % ALLOCATIONGRANULARITY:
            raise OSError(22, 'Invalid argument')
        if access == ACCESS_DEFAULT:
            access = ACCESS_COPY if flags & MAP_PRIVATE else ACCESS_WRITE if prot & PROT_WRITE else ACCESS_READ
        elif access not in (ACCESS_READ, ACCESS_WRITE, ACCESS_COPY):
            raise ValueError('mmap invalid access parameter.')
        self._fd, self._offset, self._access, self._pos, self._closed = fileno, offset, access, 0, False
        if fileno == -1:
            if length == 0:
                raise ValueError('cannot mmap an empty file')
            super().__init__(length)
            self._fd = None
            return
        size = _os.fstat(fileno).st_size
        if length == 0:
            if size == 0:
                raise ValueError('cannot mmap an empty file')
            if offset >= size:
                raise ValueError('mmap offset is greater than file size')
            length = size - offset
        elif offset + length > size:
            if access == ACCESS_READ:
                raise ValueError('mmap length is greater than file size')
            _os.ftruncate(fileno, offset + length)  # as mmap grows a file opened for writing
        super().__init__(_os.pread(fileno, length, offset))

    def _check(self, writing=False):
        if self._closed:
            raise ValueError('mmap closed or invalid')
        if writing and self._access == ACCESS_READ:
            raise TypeError('mmap can\'t modify a readonly memory map.')

    # a mapping has a fixed size; slices read as bytes
    def __getitem__(self, i):
        self._check()
        r = super().__getitem__(i)
        return bytes(r) if isinstance(i, slice) else r

    def __setitem__(self, i, value):
        self._check(True)
        if isinstance(i, slice):
            n = len(range(*i.indices(len(self))))
            if len(value) != n:
                raise IndexError('mmap slice assignment is wrong size')
        super().__setitem__(i, value)

    def __delitem__(self, i):
        raise TypeError('mmap object doesn\'t support item deletion')

    def __iadd__(self, other):
        raise TypeError('mmap object cannot be extended')

    def __imul__(self, other):
        raise TypeError('mmap object cannot be extended')

    def __iter__(self):
        self._check()
        return (bytes((b,)) for b in super().__iter__())

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, *args):
        self.close()

    def __repr__(self):
        return '<mmap.mmap closed=%s, access=%d, length=%d, pos=%d, offset=%d>' % (
            self._closed, self._access, len(self), self._pos, self._offset)

    def _fixed(self, *args):
        raise TypeError('mmap object has a fixed size')

    append = extend = insert = pop = remove = clear = reverse = _fixed

    @property
    def closed(self):
        return self._closed

    def flush(self, offset=0, size=None):
        self._check()
        if size is None:
            size = len(self) - offset
        if offset < 0 or size < 0 or offset + size > len(self):
            raise ValueError('flush values out of range')
        if self._fd is not None and self._access == ACCESS_WRITE and size:
            data, at = bytes(super().__getitem__(slice(offset, offset + size))), self._offset + offset
            while data:
                n = _os.pwrite(self._fd, data, at)
                data, at = data[n:], at + n

    def close(self):
        if not self._closed:
            self.flush()
            self._closed = True

    def size(self):
        self._check()
        return _os.fstat(self._fd).st_size if self._fd is not None else len(self)

    def tell(self):
        self._check()
        return self._pos

    def seek(self, pos, whence=0):
        self._check()
        where = {0: 0, 1: self._pos, 2: len(self)}.get(whence)
        if where is None:
            raise ValueError('unknown seek type')
        if not 0 <= where + pos <= len(self):
            raise ValueError('seek out of range')
        self._pos = where + pos
        return self._pos

    def read(self, n=None):
        self._check()
        end = len(self) if n is None or n < 0 else min(len(self), self._pos + n)
        data, self._pos = bytes(super().__getitem__(slice(self._pos, end))), max(end, self._pos)
        return data

    def read_byte(self):
        self._check()
        if self._pos >= len(self):
            raise ValueError('read byte out of range')
        self._pos += 1
        return super().__getitem__(self._pos - 1)

    def readline(self):
        self._check()
        i = self.find(b'\n', self._pos)
        return self.read(len(self) - self._pos if i < 0 else i + 1 - self._pos)

    def write(self, data):
        self._check(True)
        data = bytes(data)
        if self._pos + len(data) > len(self):
            raise ValueError('data out of range')
        super().__setitem__(slice(self._pos, self._pos + len(data)), data)
        self._pos += len(data)
        return len(data)

    def write_byte(self, byte):
        self._check(True)
        if self._pos >= len(self):
            raise ValueError('write byte out of range')
        super().__setitem__(self._pos, byte)
        self._pos += 1

    def move(self, dest, src, count):
        self._check(True)
        if min(dest, src, count) < 0 or max(dest, src) + count > len(self):
            raise ValueError('source, destination, or count out of range')
        super().__setitem__(slice(dest, dest + count), super().__getitem__(slice(src, src + count)))

    def resize(self, newsize):
        raise SystemError('mmap: resizing is not available in the sandbox')

    def madvise(self, option, start=0, length=None):
        self._check()  # advice only: nothing to do for a copy

    def find(self, sub, start=None, end=None):
        self._check()
        return super().find(sub, self._pos if start is None else start, len(self) if end is None else end)

    def rfind(self, sub, start=None, end=None):
        self._check()
        return super().rfind(sub, self._pos if start is None else start, len(self) if end is None else end)
