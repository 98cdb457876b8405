# escape: deeply nested directories, then walk them
# (nesting stops at 64 levels below /app, WB_DEPTH_MAX: a session must be
# able to copy its workspace)
# expect status ok
# expect stdout_is 64 True\n
import errno, os
p = '/app'
for i in range(300):
    p += '/d'
    try:
        os.mkdir(p)
    except OSError as e:
        err = e.errno == errno.ENAMETOOLONG
        break
print(sum(1 for _ in os.walk('/app')) - 1, err)
