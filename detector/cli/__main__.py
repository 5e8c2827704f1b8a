"""``python -m detector.cli``: the same as the ``rankdoctor`` command."""

import sys

from detector.cli.main import main

sys.exit(main())
