"""The test suite, a package: every folder under it is one too, so a test module is
imported as ``tests.<folder>.<module>`` and shares helpers as modules of the package
(``from tests.fastpath_helpers import …``, ``from tests.fuzz.mutations import …``)
rather than through ``sys.path``."""
