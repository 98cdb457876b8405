# escape: deeply nested directories, then walk them
# expect status ok
# expect stdout_is 300\n
import os
p = '/app'
for i in range(300):
    p += '/d'
    try:
        os.mkdir(p)
    except OSError:
        break
print(sum(1 for _ in os.walk('/app')) - 1)
