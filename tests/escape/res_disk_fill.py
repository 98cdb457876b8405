# escape: fill the disk through /app
# option quota 5
# expect status ok
# expect stdout_is stopped True\n
written = 0
try:
    with open('/app/fill', 'wb') as f:
        while written < (1 << 30):
            f.write(b'\0' * (1 << 20))
            written += 1 << 20
    print('LEAK', written)
except OSError as e:
    print('stopped', written <= 5 << 20)
