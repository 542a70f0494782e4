"""Words and table cells for what the core computes: verdicts, table and CSV rows, budget reasons,
upgrade descriptions. Pure Python (no Qt); the core returns numbers and facts, this package says
them, and the window, the slide and the command line share the same sentences."""
