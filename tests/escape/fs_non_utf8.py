# escape: file names that are not UTF-8
# expect status ok
# expect stdout_has listed
import os
names = [b'/app/\xff\xfe', b'/app/caf\xe9', b'/app/a\x01b']
made = 0
for n in names:
    try:
        fd = os.open(n, os.O_CREAT | os.O_WRONLY)
        os.close(fd)
        made += 1
    except OSError as e:
        print('refused', e.errno)
print('listed', len(os.listdir(b'/app')), made)
