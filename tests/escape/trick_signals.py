# escape: signal the host or itself
# expect status ok
# expect stdout_is blocked\nblocked\n
import os
for op in (lambda: os.kill(1, 9), lambda: os.kill(os.getpid(), 9)):
    try:
        op()
        print('LEAK')
    except (AttributeError, OSError):
        print('blocked')
