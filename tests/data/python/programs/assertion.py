def area(w, h):
    return w * h

assert area(2, 3) == 6
assert area(2, 2) == 5, "area of a 2x2 square"
