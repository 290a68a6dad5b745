"""autograd.builtins: tracegrad differentiates Python containers natively (pytrees)."""
import builtins as _b

tuple, list, dict, isinstance, type = _b.tuple, _b.list, _b.dict, _b.isinstance, _b.type
SequenceBox = DictBox = None
