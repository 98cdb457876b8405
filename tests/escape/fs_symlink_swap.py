# escape: swap a checked directory for a symlink out, many times
# expect status ok
# expect stdout_lacks LEAK
import os
os.makedirs('/app/dir', exist_ok=True)
open('/app/dir/file', 'w').write('mine')
leaks = 0
for i in range(200):
    os.rename('/app/dir', '/app/real')
    os.symlink('/etc', '/app/dir')
    try:
        if 'root:' in open('/app/dir/passwd').read():
            leaks += 1
    except OSError:
        pass
    os.remove('/app/dir')
    os.rename('/app/real', '/app/dir')
print('LEAK' if leaks else 'none', leaks)
