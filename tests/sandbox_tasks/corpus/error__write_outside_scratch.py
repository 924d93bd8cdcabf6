# expect: Error
with open(args["path"], "w") as f:
    f.write("escaped")
