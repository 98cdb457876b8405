# escape: move files out of /app, or host files in
# expect status ok
# expect stdout_is blocked\nblocked\n
import os
open('/app/x', 'w').write('x')
for a, b in [('/app/x', '/tmp/x'), ('/etc/hostname', '/app/h')]:
    try:
        os.rename(a, b)
        print('LEAK', a, b)
    except OSError:
        print('blocked')
