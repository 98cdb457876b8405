# escape: change the standard library for later calls
# expect status ok
# expect stdout_is read-only\nread-only\n
import os
for p in [os.__file__, os.path.dirname(os.__file__) + '/evil.py']:
    try:
        open(p, 'a').write('import sys; sys.exit(3)')
        print('LEAK', p)
    except OSError:
        print('read-only')
