# escape: read the host environment
# expect status ok
# expect stdout_is {}\n
import os
print(dict(os.environ))
