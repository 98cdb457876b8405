# escape: open descriptors until the host has none
# expect status ok
# expect stdout_has stopped
files = []
try:
    for i in range(100000):
        files.append(open('/app/f', 'a'))
except OSError as e:
    print('stopped', len(files) < 200, e.errno)
