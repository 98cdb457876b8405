d = {}
for i in range(200_000):
    d['key%d' % i] = i
total = 0
for i in range(0, 200_000, 3):
    total += d['key%d' % i]
result = (len(d), total)
