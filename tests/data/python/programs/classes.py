class Vector:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, other):
        return Vector(self.x + other.x, self.y + other.y)
    def __repr__(self):
        return f"Vector({self.x}, {self.y})"
    def norm2(self):
        return self.x ** 2 + self.y ** 2

class Named(Vector):
    def __init__(self, name, x, y):
        super().__init__(x, y)
        self.name = name

v = Vector(1, 2) + Vector(3, 4)
print(v, v.norm2(), isinstance(Named("a", 0, 0), Vector))
v
