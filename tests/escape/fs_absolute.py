# escape: absolute host paths
# expect status ok
# expect stdout_is 0\n
import os
n = 0
for p in ['/etc/passwd', '/root/.bashrc', '/home', '/work', '/usr/bin/python3', '/var/log', '/tmp', '/']:
    try:
        if p == '/':
            if set(os.listdir('/')) & {'etc', 'root', 'home', 'var', 'proc', 'dev'}:
                raise RuntimeError
            continue
        os.listdir(p) if os.path.isdir(p) else open(p).read()
        n += 1
        print('LEAK', p)
    except OSError:
        pass
print(n)
