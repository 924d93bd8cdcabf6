# expect: NaN
result = float("nan")
