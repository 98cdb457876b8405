# escape: catastrophic regex backtracking, stopped by the timeout
# option timeout 1
# expect status timeout
import re
re.match(r'(a+)+$', 'a' * 64 + 'b')
