import sys
print("to stdout")
print("to stderr", file=sys.stderr)
sys.stdout.write("raw\n")
