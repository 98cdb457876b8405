# escape: native-backed modules that would reach host memory
# expect status ok
# expect stdout_is blocked\nblocked\nblocked\n
for name in ('mmap', '_ctypes', 'fcntl'):
    try:
        m = __import__(name)
        if name == 'mmap':
            m.mmap(-1, 4096)
        elif name == 'fcntl':
            m.ioctl(0, 0x5401)
        print('LEAK', name)
    except Exception:
        print('blocked')
