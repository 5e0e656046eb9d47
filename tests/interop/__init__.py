"""Interop harness around the official Apache `tsfile` package (run only in its own virtualenv, in
a subprocess) and the loaders of the committed fixtures in tests/fixtures/official/."""
