# escape: a symlink in /app pointing at a host path
# expect status ok
# expect stdout_is made\nblocked\n
import os
os.symlink('/etc/passwd', '/app/passwd')
print('made')
try:
    print('LEAK', open('/app/passwd').read()[:40])
except OSError:
    print('blocked')
