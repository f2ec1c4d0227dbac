"""How many examples a property test draws, in the run at hand.

A count written in a test (``@settings(max_examples=draws.examples(300))``) is the thorough run's: what
``.ci/run`` draws (``--hypothesis-profile=thorough``, whose ``max_examples`` is Hypothesis's own 100). The
README's command loads the ``singletable`` profile (``max_examples`` 25), and each written count is scaled by
the same quarter, to no fewer than ten, so the default run is quick and still tries every property on
fresh examples each time (the database replays any failure found). Tests without a count of their own take
the profile's ``max_examples`` directly.
"""

from __future__ import annotations

from hypothesis import settings

THOROUGH = 100  # the thorough profile's max_examples (Hypothesis's default), against which counts are written
FEWEST = 10


def examples(thorough: int) -> int:
    """The number of examples to draw where the thorough run draws ``thorough``."""
    scaled = thorough * settings.default.max_examples // THOROUGH
    return max(min(thorough, FEWEST), scaled)
