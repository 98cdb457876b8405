# escape: fill the disk with many files and a sparse one
# option quota 2
# expect status ok
# expect stdout_is stopped\nsparse stopped\n
import os
try:
    for i in range(100000):
        open(f'/app/f{i}', 'wb').write(b'y' * 4096)
    print('LEAK')
except OSError:
    print('stopped')
try:
    with open('/app/sparse', 'wb') as f:
        f.truncate(1 << 40)
    print('LEAK sparse')
except OSError:
    print('sparse stopped')
