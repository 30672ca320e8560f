def outer(x):
    return inner(x) + 1

def inner(x):
    return 10 // x

outer(0)
