# escape: walk up from the working directory
# expect status ok
# expect stdout_lacks LEAK
import os
os.chdir('/app')
for _ in range(10):
    try:
        os.chdir('..')
    except OSError:
        break
found = [n for n in ('etc', 'root', 'home', 'proc', 'work', 'var') if os.path.exists(n)]
print('LEAK' if found else 'nothing', found, os.getcwd())
