# expect: ValueError: boom
raise ValueError("boom")
