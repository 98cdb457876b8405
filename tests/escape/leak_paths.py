# escape: learn host paths from the interpreter and from errors
# expect status error
# expect error_type PermissionError
# expect guidance_has Only /app
import sys, os, sysconfig
print(sys.executable, sys.prefix, sys.path, os.getcwd(), sysconfig.get_paths())
print(os.__file__, __file__ if '__file__' in dir() else None)
open('/definitely/not/here')
