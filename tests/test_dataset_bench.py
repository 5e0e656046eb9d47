"""``python -m tsfile bench dataset --small`` runs end to end (its own equality checks pass and
it prints its tables); speed is not checked here."""

import importlib.util

from tsfile.__main__ import main


def test_dataset_section_small(capsys):
    assert main(["bench", "dataset", "--small"]) == 0
    out = capsys.readouterr().out
    assert "## read_table over 4 files x 2,000 rows" in out
    assert "2 threads vs 1" in out and "1 thread vs one file" in out
    # the CPU of the 1- and 2-thread reads split into user and system (kernel) time
    assert "(1 thread  user" in out and "(2 threads user" in out and "system" in out
    assert "warm / cold" in out
    # "## dask: not installed" also names dask: with dask present, its timing must be there
    if importlib.util.find_spec("dask") is not None:
        assert "dask read_tsfile" in out and "dask overhead" in out
    else:
        assert "## dask: not installed" in out
