# escape: wait for input that never comes
# option timeout 2
# expect status ok
# expect stdout_is ''\n
import sys
print(repr(sys.stdin.read()))
