# escape: start processes
# expect status ok
# expect stdout_is blocked\nblocked\nblocked\nblocked\n
import os, subprocess
for op in (lambda: os.fork(), lambda: os.system('id'), lambda: subprocess.run(['id']),
           lambda: os.execv('/bin/sh', ['sh'])):
    try:
        op()
        print('LEAK')
    except (OSError, AttributeError, RuntimeError):
        print('blocked')
