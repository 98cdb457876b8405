# escape: call native code through ctypes
# expect status error
# expect error_type ModuleNotFoundError
# expect guidance_has not available
import ctypes
ctypes.CDLL(None).system(b'id')
