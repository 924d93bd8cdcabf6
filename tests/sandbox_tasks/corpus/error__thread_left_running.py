# expect: the code left a thread running after it returned
# A thread left running shares the child's memory: while one runs, the child asks for no
# seal (the step ends as an error, unsealed), so this hunt for one, until the process ends,
# finds nothing to use. The hunt prints what it finds: the test reads stderr.
import gc
import re
import sys
import threading

shape = re.compile("[0-9a-f]{32}")


def hunt():
    while True:
        for obj in gc.get_objects():
            values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list) else ()
            for value in list(values):
                if type(value) is str and len(value) == 32 and shape.fullmatch(value):
                    print("seal found:", value, file=sys.stderr, flush=True)


threading.Thread(target=hunt, daemon=True).start()
result = "done, with a thread still hunting"
