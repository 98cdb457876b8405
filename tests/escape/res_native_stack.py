# escape: recursion through C code (repr of nested lists) to overflow the native stack
# expect status error
# expect error_type RecursionError
x = []
for i in range(10 ** 6):
    x = [x]
repr(x)
