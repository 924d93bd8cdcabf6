# A top-level SystemExit (sys.exit() without the sys module) ends nothing but this exercise.
raise SystemExit(0)
