"""python -m advisor opens the window (see advisor.app)."""

from advisor.app import main

raise SystemExit(main())
