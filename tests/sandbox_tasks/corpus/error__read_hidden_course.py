# expect: Error
with open(args["path"]) as f:
    result = f.read()
