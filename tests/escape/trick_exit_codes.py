# escape: confuse the host with strange exits
# expect status error
# expect stdout_is before\n
import os, sys
print('before')
sys.stdout.flush()
os._exit(2 ** 31 + 7)
