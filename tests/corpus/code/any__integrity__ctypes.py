# ctypes reaches raw memory: frames, locals, anything.
import ctypes

ctypes.pythonapi.PyFrame_LocalsToFast
