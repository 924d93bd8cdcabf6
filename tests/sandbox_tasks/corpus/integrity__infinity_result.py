# expect: NaN or Infinity
result = [1.0, float("-inf")]
