"""The Qt widgets. pydantic's field machinery is imported before PySide6 is: PySide6 installs an import
hook that reads the source of every module imported after it, and pydantic's lazily imported
`pydantic.fields` then fails half-initialized (a bare `import advisor.ui.store` used to crash so)."""

import pydantic.fields  # noqa: F401
