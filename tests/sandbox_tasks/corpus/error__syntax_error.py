# expect: SyntaxError
exec("def broken(:\n    pass")
