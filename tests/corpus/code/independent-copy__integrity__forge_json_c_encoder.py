# expect-message: changed `json.encoder.c_make_encoder`
# Class 2: replace json.encoder.c_make_encoder, which the result encoder calls.
import json.encoder

json.encoder.c_make_encoder = None


def independent_copy(t):
    return t.detach()
