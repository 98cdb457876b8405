# escape: flood the output
# option max_output 1000
# expect status ok
# expect stdout_truncated
import sys
for i in range(200):
    sys.stdout.write('x' * 1000000)
