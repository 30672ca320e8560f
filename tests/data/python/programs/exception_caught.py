try:
    int("seven")
except ValueError as e:
    print("caught:", e)
finally:
    print("done")

class Custom(Exception):
    pass

try:
    raise Custom("boom")
except Custom as e:
    print(type(e).__name__, e)
