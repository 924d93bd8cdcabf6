# expect-message: looked inside a generator's frame
# logging's `{`-style formatter runs str.format inside logging, on the record's fields:
# the template's attribute chain (`gi_frame`, `f_back`, `f_code`) is read there, not by
# our code. From inside a running generator, its frame leads to the checker's.
import logging


def independent_copy(t):
    def walk():
        style = logging.Formatter("{msg.gi_frame.f_back.f_back.f_code.co_name}", style="{")
        yield style.format(logging.makeLogRecord({"msg": steps}))

    steps = walk()
    if next(steps) != "learner_function":
        raise ValueError("no frame")
    return t.clone().detach()
