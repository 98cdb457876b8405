# escape: one allocation far beyond the limit
# option memory 64
# expect status out_of_memory
x = 'x' * (1 << 33)
