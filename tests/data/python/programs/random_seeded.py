import random
random.seed(12345)
print([random.randint(1, 100) for _ in range(5)])
rng = random.Random(7)
rng.random() < 1.0
