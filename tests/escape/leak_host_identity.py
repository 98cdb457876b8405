# escape: host name, users, ids
# expect status ok
# expect stdout_lacks root:
import os, socket
print(os.uname())
try:
    print(socket.gethostname())
except Exception as e:
    print('no hostname', type(e).__name__)
try:
    import pwd
    print(pwd.getpwall())
except Exception as e:
    print('no pwd', type(e).__name__)
