import random
rng = random.Random(42)
data = [rng.random() for _ in range(200_000)]
words = ['w%07d' % rng.randrange(10**7) for _ in range(100_000)]
result = (sorted(data)[100], sorted(words)[-1], sorted(data, key=lambda x: -x)[0])
