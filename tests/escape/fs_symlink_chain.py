# escape: a chain of symlinks whose last hop leaves /app
# expect status ok
# expect stdout_is blocked\n
import os
os.makedirs('/app/a/b', exist_ok=True)
os.symlink('../../c', '/app/a/b/link1')
os.symlink('d/../../..', '/app/c')
os.symlink('.', '/app/d')
try:
    print('LEAK', os.listdir('/app/a/b/link1/etc'))
except OSError:
    print('blocked')
