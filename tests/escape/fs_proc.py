# escape: /proc of the host or of the sandbox
# expect status ok
# expect stdout_is blocked\nblocked\nblocked\nblocked\n
import os
for op in (lambda: open('/proc/self/maps').read(), lambda: os.listdir('/proc'),
           lambda: open('/proc/self/root/etc/passwd').read(), lambda: open('/proc/1/environ').read()):
    try:
        print('LEAK', str(op())[:40])
    except OSError:
        print('blocked')
