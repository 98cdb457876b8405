# escape: recursion without a limit, until frames fill the memory
# option memory 64
# expect status out_of_memory
# expect error_type MemoryError
import sys
sys.setrecursionlimit(10 ** 8)
def f(n):
    return f(n + 1) + 1
f(0)
