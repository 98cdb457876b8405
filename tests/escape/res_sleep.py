# escape: sleep past the timeout
# option timeout 0.5
# expect status timeout
import time
time.sleep(3600)
