# escape: very long paths and names
# expect status ok
# expect stdout_is refused\nrefused\nrefused\n
import os
for p in ['/app/' + 'a' * 100000, '/app/' + 'x' * 300, '/app/' + '/'.join(['d'] * 3000)]:
    try:
        open(p, 'w').write('x')
        print('accepted', len(p))
    except OSError:
        print('refused')
