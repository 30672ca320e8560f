from decimal import Decimal, getcontext, ROUND_HALF_EVEN

getcontext().prec = 60
x = Decimal(2)
guess = Decimal(1)
for _ in range(8):
    guess = (guess + x / guess) / 2
print(guess)
print(guess == x.sqrt(), x.sqrt())
print(Decimal(1).exp())
print(Decimal("2.675").quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))
print(Decimal(10).ln().quantize(Decimal("1e-40")))
