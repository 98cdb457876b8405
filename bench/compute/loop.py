total = 0
for i in range(2_000_000):
    total += i * i % 7
result = total
