# escape: climb out of /app with ..
# expect status ok
# expect stdout_is blocked PermissionError\nblocked PermissionError\n
for p in ['/app/../../../../etc/passwd', '../../../../../etc/shadow']:
    try:
        print('LEAK', open(p).read()[:50])
    except OSError as e:
        print('blocked', type(e).__name__)
