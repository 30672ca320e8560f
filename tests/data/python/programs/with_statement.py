class Tracker:
    def __enter__(self):
        print("enter")
        return self
    def __exit__(self, kind, value, tb):
        print("exit", kind.__name__ if kind else None)
        return True

with Tracker() as t:
    print("inside")
    raise KeyError("swallowed")
print("after")
