# escape: device files
# expect status ok
# expect stdout_is blocked\nblocked\nblocked\n32\n
import os
for p in ['/dev/mem', '/dev/urandom', '/dev/tty']:
    try:
        open(p, 'rb').read(1)
        print('LEAK', p)
    except OSError:
        print('blocked')
print(len(os.urandom(32)))  # randomness comes from the host, not a device file
