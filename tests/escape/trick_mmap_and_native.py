# escape: native-backed modules that would reach host memory. mmap exists,
# but as a pure-Python copy in the guest's own memory (runtimes/python/lib/
# mmap.py): a bytearray, nothing mapped from the host
# expect status ok
# expect stdout_is guest memory\nblocked\nblocked\n
for name in ('mmap', '_ctypes', 'fcntl'):
    try:
        m = __import__(name)
        if name == 'mmap':
            mm = m.mmap(-1, 4096)
            native = not isinstance(mm, bytearray) or not m.__file__.endswith('.py')
            print('LEAK mmap' if native else 'guest memory')
            continue
        elif name == 'fcntl':
            m.ioctl(0, 0x5401)
        print('LEAK', name)
    except Exception:
        print('blocked')
