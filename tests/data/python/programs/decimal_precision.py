from decimal import Decimal, getcontext
getcontext().prec = 40
print(Decimal(1) / Decimal(7))
print(Decimal("0.1") + Decimal("0.2"))
Decimal(2).sqrt()
