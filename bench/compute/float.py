import math
acc = 0.0
for i in range(1, 300_000):
    x = i * 0.001
    acc += math.sin(x) * math.cos(x) + math.sqrt(x) / (1.0 + x * x)
result = round(acc, 6)
