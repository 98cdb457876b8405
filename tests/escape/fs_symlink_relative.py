# escape: a relative symlink climbing out of /app
# expect status ok
# expect stdout_is blocked\nblocked\n
import os
os.symlink('../../../../../../etc', '/app/etc')
for op in (lambda: os.listdir('/app/etc'), lambda: open('/app/etc/passwd').read()):
    try:
        print('LEAK', op())
    except OSError:
        print('blocked')
