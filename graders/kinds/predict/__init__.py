"""``kind: predict``: predictions graded against truths computed by torch.

``model`` is the exercise file, ``truth`` what torch gives (computed in a sandbox
child, cached), ``grading`` one answer against its truth, ``checks`` what validation
reports, ``cells`` and ``answer_cell`` the notebook side, ``audit`` the article against
today's torch. Importing this package registers the kind.
"""

from .kind import PredictKind
from .model import PredictExercise

__all__ = ["PredictExercise", "PredictKind"]
