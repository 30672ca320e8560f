name = "beaker"
pi = 3.14159265
print(f"{name!r} {pi:.3f} {255:#x} {1e6:,.0f} {'right':>8}|")
print("a,b,,c".split(","), " padded ".strip(), "Hello".upper(), "x".join("abc"))
print("%d items at %.2f" % (3, 9.5), "{} and {}".format(1, 2))
"".join(reversed("stressed"))
